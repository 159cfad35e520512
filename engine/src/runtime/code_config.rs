//! The engine settings that decide the native code wasmtime generates, in one place: the
//! runtime builds its engine from [`code_config`], and the build script (`engine/build.rs`)
//! precompiles the built-in tools with an engine built from this very file, so the code it
//! embeds fits the runtime's engine. wasmtime checks the fit again when the code is loaded
//! (version, target, CPU features, every code-affecting setting), and airlock compiles
//! the component itself when it does not fit — a binary copied to another CPU still works.
//!
//! This file is compiled twice (here and in the build script), so it uses `wasmtime` alone.
//! Settings that do not change the generated code — the instance allocator, limits — belong
//! to `Runtime::build`, not here.

/// A fresh `wasmtime::Config` with every setting that changes generated code.
pub fn code_config() -> wasmtime::Config {
    let mut config = wasmtime::Config::new();
    config.epoch_interruption(true);
    config.wasm_component_model(true);
    // Named, not left to the `WASMTIME_BACKTRACE_DETAILS` variable of whoever runs the
    // build or the binary: it changes what the compiled code carries.
    config.wasm_backtrace_details(wasmtime::WasmBacktraceDetails::Disable);
    config
}
