//! The store limiter against hostile components written in WAT (what no Rust guest can
//! express: hundreds of core instances, many memories, memories grown in turn, table bombs,
//! 64-bit memories, nested components), each instantiated through [`Runtime::instantiate`]
//! like every plugin; and the process budget against a batch of memory hogs, measured as the
//! peak RSS of a child test process.

use std::fmt::Write as _;
use std::time::Duration;

use airlock_tests::fixtures;

use super::super::*;

/// The contract's types, imported as every real component imports them, so the exported
/// functions below can name them.
const TYPES: &str = r#"
  (import "airlock:tool/types@0.1.0" (instance $types
    (type $kind' (enum "read" "edit" "delete" "move" "search" "execute" "fetch" "think" "other"))
    (export "kind" (type $kind (eq $kind')))
    (type $access' (enum "read" "read-write"))
    (export "access" (type $access (eq $access')))
    (type $file-request' (record (field "path" string) (field "access" $access)))
    (export "file-request" (type $file-request (eq $file-request')))
    (type $capabilities' (record (field "files" (list $file-request)) (field "network" (list string))
      (field "env" (list string)) (field "processes" (list string))))
    (export "capabilities" (type $capabilities (eq $capabilities')))
    (type $tool-info' (record (field "name" string) (field "display-name" string) (field "description" string)
      (field "parameters" string) (field "kind" $kind) (field "streams-output" bool) (field "parallel-safe" bool)
      (field "capabilities" $capabilities)))
    (export "tool-info" (type $tool-info (eq $tool-info')))
    (type $plugin-info' (record (field "name" string) (field "version" string) (field "tools" (list $tool-info))))
    (export "plugin-info" (type $plugin-info (eq $plugin-info')))
    (type $risk' (enum "low" "medium" "high"))
    (export "risk" (type $risk (eq $risk')))
    (type $edit' (record (field "path" string) (field "original" string) (field "proposed" string)
      (field "is-new-file" bool)))
    (export "edit-confirmation" (type $edit (eq $edit')))
    (type $exec' (record (field "command" string) (field "root-command" string) (field "directory" string)
      (field "risk" $risk)))
    (export "exec-confirmation" (type $exec (eq $exec')))
    (type $info' (record (field "prompt" string) (field "urls" (list string))))
    (export "info-confirmation" (type $info (eq $info')))
    (type $confirmation' (variant (case "edit" $edit) (case "exec" $exec) (case "info" $info)))
    (export "confirmation" (type $confirmation (eq $confirmation')))
    (type $media' (record (field "mime-type" string) (field "data" (list u8))))
    (export "media" (type $media (eq $media')))
    (type $content-part' (variant (case "text" string) (case "json" string) (case "media" $media)))
    (export "content-part" (type $content-part (eq $content-part')))
    (type $file-diff' (record (field "path" string) (field "original" string) (field "proposed" string)))
    (export "file-diff" (type $file-diff (eq $file-diff')))
    (type $display' (variant (case "markdown" string) (case "diff" $file-diff)))
    (export "display" (type $display (eq $display')))
    (type $tool-output' (record (field "llm-content" (list $content-part)) (field "display" (option $display))))
    (export "tool-output" (type $tool-output (eq $tool-output')))
    (type $tool-error' (variant (case "invalid-params" string) (case "not-found" string)
      (case "permission-denied" string) (case "timeout" string) (case "execution" string) (case "cancelled" string)))
    (export "tool-error" (type $tool-error (eq $tool-error')))
  ))
  (alias export $types "plugin-info" (type $plugin-info))
  (alias export $types "confirmation" (type $confirmation))
  (alias export $types "tool-output" (type $tool-output))
  (alias export $types "tool-error" (type $tool-error))
"#;

/// A component that exports the whole `airlock:tool/tool` interface (every function traps)
/// and holds `attack` besides: component-level items instantiated with it.
fn plugin(attack: &str) -> Vec<u8> {
    let text = format!(
        r#"(component
  {TYPES}
  (core module $shell
    (memory (export "mem") 1)
    (func (export "realloc") (param i32 i32 i32 i32) (result i32) i32.const 8)
    (func (export "describe") (result i32) unreachable)
    (func (export "four") (param i32 i32 i32 i32) (result i32) unreachable)
    (func (export "six") (param i32 i32 i32 i32 i32 i32) (result i32) unreachable))
  (core instance $shell (instantiate $shell))
  (alias core export $shell "mem" (core memory $mem))
  (alias core export $shell "realloc" (core func $realloc))
  (func $describe (result $plugin-info)
    (canon lift (core func $shell "describe") (memory $mem) (realloc $realloc)))
  (func $validate (param "tool" string) (param "args" string) (result (result (error $tool-error)))
    (canon lift (core func $shell "four") (memory $mem) (realloc $realloc)))
  (func $describe-call (param "tool" string) (param "args" string) (result string)
    (canon lift (core func $shell "four") (memory $mem) (realloc $realloc)))
  (func $confirm (param "tool" string) (param "args" string) (result (result (option $confirmation) (error $tool-error)))
    (canon lift (core func $shell "four") (memory $mem) (realloc $realloc)))
  (func $modify-args (param "tool" string) (param "args" string) (param "proposed" string)
    (result (result string (error $tool-error)))
    (canon lift (core func $shell "six") (memory $mem) (realloc $realloc)))
  (func $execute (param "tool" string) (param "args" string) (result (result $tool-output (error $tool-error)))
    (canon lift (core func $shell "four") (memory $mem) (realloc $realloc)))
  (instance $tool
    (export "describe" (func $describe))
    (export "validate" (func $validate))
    (export "describe-call" (func $describe-call))
    (export "confirm" (func $confirm))
    (export "modify-args" (func $modify-args))
    (export "execute" (func $execute)))
  (export "airlock:tool/tool@0.1.0" (instance $tool))
  {attack}
)"#
    );
    wat::parse_str(&text).unwrap_or_else(|e| panic!("{e}\n{text}"))
}

/// `count` instances of core module `$name`.
fn instances(name: &str, count: usize) -> String {
    let mut text = String::new();
    for _ in 0..count {
        let _ = writeln!(text, "  (core instance (instantiate ${name}))");
    }
    text
}

const MIB_PAGES: usize = 16;

/// Instantiates `bytes` in a sandbox capped at `cap` bytes.
async fn start(bytes: Vec<u8>, cap: usize) -> Result<Instance, CallFault> {
    let runtime = crate::testing::runtime();
    let hash = airlock_files::content_hash(&bytes);
    let (component, _) = runtime.load(&hash, || Ok(bytes.clone())).unwrap();
    runtime.instantiate(&component, Arc::from("wat"), &Sandbox::empty(cap, Duration::from_secs(20))).await
}

fn exhausted(result: Result<Instance, CallFault>) -> CallFault {
    match result {
        Ok(_) => panic!("the component was instantiated"),
        Err(fault) => fault,
    }
}

const CAP: usize = 64 << 20;

#[tokio::test]
async fn components_within_the_cap_still_start() {
    start(plugin(""), CAP).await.unwrap();
    let three = format!("(core module $m (memory {}))\n{}", 10 * MIB_PAGES, instances("m", 3));
    start(plugin(&three), CAP).await.unwrap();
}

#[tokio::test]
async fn many_core_instances_share_one_memory_cap() {
    // The attack of the issue: 200 instances of 60 MiB each, under a 64 MiB cap.
    let attack = format!("(core module $big (memory {}))\n{}", 60 * MIB_PAGES, instances("big", 200));
    assert_eq!(exhausted(start(plugin(&attack), CAP).await), CallFault::MemoryExhausted(CAP));
    // Smaller instances: each far under the cap, together over it.
    let attack = format!("(core module $small (memory {}))\n{}", 8 * MIB_PAGES, instances("small", 9));
    assert_eq!(exhausted(start(plugin(&attack), CAP).await), CallFault::MemoryExhausted(CAP));
}

#[tokio::test]
async fn the_number_of_instances_memories_and_tables_is_capped() {
    let attack = format!("(core module $empty)\n{}", instances("empty", 100));
    let fault = exhausted(start(plugin(&attack), CAP).await).to_string();
    assert!(fault.contains("instance count") && fault.contains("at most 64 instances"), "{fault}");

    let memories: String = (0..40).map(|_| "(memory 0) ").collect();
    let attack = format!("(core module $memories {memories})\n{}", instances("memories", 1));
    let fault = exhausted(start(plugin(&attack), CAP).await).to_string();
    assert!(fault.contains("memory count"), "{fault}");

    let tables: String = (0..40).map(|_| "(table 0 funcref) ").collect();
    let attack = format!("(core module $tables {tables})\n{}", instances("tables", 1));
    let fault = exhausted(start(plugin(&attack), CAP).await).to_string();
    assert!(fault.contains("table count"), "{fault}");
}

#[tokio::test]
async fn many_memories_of_one_module_share_the_cap() {
    let memories: String = (0..10).map(|_| format!("(memory {}) ", 10 * MIB_PAGES)).collect();
    let attack = format!("(core module $memories {memories})\n{}", instances("memories", 1));
    assert_eq!(exhausted(start(plugin(&attack), CAP).await), CallFault::MemoryExhausted(CAP));
}

#[tokio::test]
async fn memories_grown_in_turn_share_the_cap() {
    // Eight empty memories, each grown by 16 MiB in the start function; a refused growth
    // traps, so a refusal is visible.
    let mut grow = String::new();
    let mut memories = String::new();
    for index in 0..8 {
        let _ = write!(memories, "(memory $m{index} 0) ");
        let _ = write!(
            grow,
            "(if (i32.eq (memory.grow $m{index} (i32.const {})) (i32.const -1)) (then unreachable)) ",
            16 * MIB_PAGES
        );
    }
    let attack =
        format!("(core module $grower {memories} (func $start {grow}) (start $start))\n{}", instances("grower", 1));
    assert_eq!(exhausted(start(plugin(&attack), CAP).await), CallFault::MemoryExhausted(CAP));
}

#[tokio::test]
async fn a_table_bomb_is_stopped_at_the_element_cap() {
    // Four tables grown to 600,000 elements each: every one under the old per-table limit.
    let mut tables = String::new();
    let mut grow = String::new();
    for index in 0..4 {
        let _ = write!(tables, "(table $t{index} 0 funcref) ");
        let _ = write!(
            grow,
            "(if (i32.eq (table.grow $t{index} (ref.null func) (i32.const 600000)) (i32.const -1)) (then unreachable)) "
        );
    }
    let attack =
        format!("(core module $tables {tables} (func $start {grow}) (start $start))\n{}", instances("tables", 1));
    let fault = exhausted(start(plugin(&attack), CAP).await).to_string();
    assert!(fault.contains("table elements"), "{fault}");
    // Declared up front instead: refused when the tables are created.
    let tables: String = (0..3).map(|_| "(table 600000 funcref) ").collect();
    let attack = format!("(core module $declared {tables})\n{}", instances("declared", 1));
    let fault = exhausted(start(plugin(&attack), CAP).await).to_string();
    assert!(fault.contains("table elements"), "{fault}");
}

#[tokio::test]
async fn sixty_four_bit_memories_count_like_the_others() {
    // Three 40 MiB 64-bit memories, and one grown far past the cap from the start function.
    let memories: String = (0..3).map(|_| format!("(memory i64 {}) ", 40 * MIB_PAGES)).collect();
    let attack = format!("(core module $wide {memories})\n{}", instances("wide", 1));
    assert_eq!(exhausted(start(plugin(&attack), CAP).await), CallFault::MemoryExhausted(CAP));
    let attack = format!(
        "(core module $huge (memory i64 0) (func $start (if (i64.eq (memory.grow (i64.const {})) (i64.const -1)) (then unreachable))) (start $start))\n{}",
        1u64 << 32,
        instances("huge", 1)
    );
    assert_eq!(exhausted(start(plugin(&attack), CAP).await), CallFault::MemoryExhausted(CAP));
    let attack = format!("(core module $declared (memory i64 {}))\n{}", 1u64 << 40, instances("declared", 1));
    let bytes = plugin(&attack);
    let runtime = crate::testing::runtime();
    match runtime.load(&airlock_files::content_hash(&bytes), || Ok(bytes.clone())) {
        // No slot of the instance pool holds more than the largest cap: refused at load.
        Err(error) => assert!(error.to_string().contains("minimum byte size"), "{error}"),
        // Instances allocated one by one (no pool): refused when the memory is created.
        Ok((component, _)) => {
            let sandbox = Sandbox::empty(CAP, Duration::from_secs(20));
            let result = runtime.instantiate(&component, Arc::from("wat"), &sandbox).await;
            assert_eq!(exhausted(result), CallFault::MemoryExhausted(CAP));
        }
    }
}

#[tokio::test]
async fn nested_components_share_the_outer_stores_cap() {
    let inner =
        format!("(component $inner (core module $m (memory {})) (core instance (instantiate $m)))", 20 * MIB_PAGES);
    let attack = format!("{inner}\n{}", "(instance (instantiate $inner))\n".repeat(4));
    assert_eq!(exhausted(start(plugin(&attack), CAP).await), CallFault::MemoryExhausted(CAP));
    // Two levels deep, each level adding its own memory.
    let deeper = format!(
        "(component $outer {inner} (core module $n (memory {})) (core instance (instantiate $n)) (instance (instantiate $inner)))",
        20 * MIB_PAGES
    );
    let attack = format!("{deeper}\n{}", "(instance (instantiate $outer))\n".repeat(2));
    assert_eq!(exhausted(start(plugin(&attack), CAP).await), CallFault::MemoryExhausted(CAP));
}

#[tokio::test]
async fn the_memory_cap_still_names_a_rust_guests_exhaustion() {
    let bytes = std::fs::read(fixtures::MEMORY_BOMB).unwrap();
    let mut instance = start(bytes, 32 << 20).await.unwrap();
    assert_eq!(instance.execute("allocate", "{}").await.unwrap_err(), CallFault::MemoryExhausted(32 << 20));
}

/// Set in the child process that runs one batch of hogs; holds the phase to hog in.
const HOG_PHASE: &str = "AIRLOCK_TEST_HOG_PHASE";
/// Where the child writes the growth of its peak RSS, in KiB.
const HOG_REPORT: &str = "AIRLOCK_TEST_HOG_REPORT";
/// The process budget of the child's runtime, and each call's cap.
const HOG_BUDGET: usize = 256 << 20;
const HOG_CAP: usize = 128 << 20;
const HOG_CALLS: usize = 12;
const HOG_MIB: usize = 96;

fn status_kib(field: &str) -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let line = status.lines().find(|l| l.starts_with(field)).unwrap();
    line.split_whitespace().nth(1).unwrap().parse().unwrap()
}

/// Twelve calls that each hold 96 MiB (under their 128 MiB cap) in one phase, in one batch:
/// 1.1 GiB if they all run at once. The budget (256 MiB) lets two run at a time. Each phase
/// runs in a child process of its own, so the peak RSS measured is this batch's alone.
#[test]
fn a_batch_of_memory_hogs_stays_within_the_process_budget() {
    if let Ok(phase) = std::env::var(HOG_PHASE) {
        let report = std::env::var(HOG_REPORT).unwrap();
        let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(4).enable_all().build().unwrap();
        let growth = runtime.block_on(hog_batch(&phase));
        std::fs::write(report, growth.to_string()).unwrap();
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    for phase in ["validate", "confirm", "execute"] {
        let report = dir.path().join(phase);
        let status = std::process::Command::new(std::env::current_exe().unwrap())
            .args(["runtime::tests::limits::a_batch_of_memory_hogs_stays_within_the_process_budget", "--exact"])
            .args(["--test-threads=1", "--quiet"])
            .env(HOG_PHASE, phase)
            .env(HOG_REPORT, &report)
            .stdout(std::process::Stdio::null())
            .status()
            .unwrap();
        assert!(status.success(), "{phase}: the child failed");
        let growth_mib = std::fs::read_to_string(&report).unwrap().parse::<u64>().unwrap() >> 10;
        // Two hogs at a time hold 192 MiB; the slack is the instances' own overhead.
        let bound = (HOG_BUDGET >> 20) as u64 + 64;
        assert!(growth_mib < bound, "{phase}: the peak RSS grew by {growth_mib} MiB (bound {bound} MiB)");
        assert!(growth_mib > HOG_MIB as u64, "{phase}: {growth_mib} MiB: the hogs did not run");
    }
}

/// Runs the batch; returns how far the peak RSS rose above the RSS before it, in KiB.
async fn hog_batch(phase: &str) -> u64 {
    use crate::cancel::Cancellation;
    use crate::capability::CallLimits;
    use crate::events::CallStatus;
    use crate::policy::{ApprovalMode, RefuseAll};
    use crate::scheduler::Scheduler;
    use airlock_model::FunctionCall;

    let limits = ProcessLimits { memory: HOG_BUDGET, instances: 16 };
    let runtime = Arc::new(Runtime::with_limits(crate::testing::shared_cache(), limits).unwrap());
    let setup = crate::testing::Setup::new(&[fixtures::RUNTIME_HOSTILE]);
    let registry = setup.registry(&runtime).await;
    let mode = ApprovalMode::Default;
    let call_limits = CallLimits { memory: HOG_CAP, deadline: Duration::from_secs(60), output: 1_000 };
    let scheduler =
        Scheduler::new(runtime, registry, setup.policy(mode, ""), Arc::new(RefuseAll { mode }), call_limits);
    let args = serde_json::json!({"phase": phase, "mib": HOG_MIB, "hold_ms": 300}).to_string();
    let calls: Vec<FunctionCall> = (0..HOG_CALLS)
        .map(|i| FunctionCall { id: format!("hog{i}"), name: "hog".into(), arguments: args.clone(), signature: None })
        .collect();
    let recorder = crate::testing::Recorder::new();
    // Forget the set-up's peak (writing 5 to clear_refs resets VmHWM to the current RSS).
    std::fs::write("/proc/self/clear_refs", "5").unwrap();
    let before = status_kib("VmRSS:");
    let done = scheduler.run_batch(&calls, &recorder.sink, &Cancellation::default()).await;
    let peak = status_kib("VmHWM:");
    recorder.finish().await;
    for call in &done {
        assert_eq!(call.status, CallStatus::Success, "{:?}", call.result);
    }
    peak.saturating_sub(before)
}

#[tokio::test]
async fn instantiation_waits_for_the_budget_until_its_deadline_or_cancellation() {
    let limits = ProcessLimits { memory: 64 << 20, instances: 1 };
    let runtime = Runtime::with_limits(crate::testing::shared_cache(), limits).unwrap();
    let bytes = plugin("");
    let (component, _) = runtime.load(&airlock_files::content_hash(&bytes), || Ok(bytes.clone())).unwrap();
    let sandbox = Sandbox::empty(CAP, Duration::from_millis(300));
    let held = runtime.instantiate(&component, Arc::from("wat"), &sandbox).await.unwrap();

    let started = std::time::Instant::now();
    let fault = exhausted(runtime.instantiate(&component, Arc::from("wat"), &sandbox).await);
    assert!(matches!(fault, CallFault::Queued { instances: 1, .. }), "{fault:?}");
    assert!(fault.to_string().contains("could not start within"), "{fault}");
    assert!(started.elapsed() < Duration::from_secs(5), "{:?}", started.elapsed());

    let patient = Sandbox::empty(CAP, Duration::from_secs(600));
    patient.cancel.cancel();
    assert_eq!(exhausted(runtime.instantiate(&component, Arc::from("wat"), &patient).await), CallFault::Cancelled);

    drop(held);
    runtime.instantiate(&component, Arc::from("wat"), &sandbox).await.unwrap();
}
