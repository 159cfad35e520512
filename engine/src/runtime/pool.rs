//! The pooling instance allocator: every linear memory, table, core and component instance
//! and fiber stack of a live instance comes from pools reserved once, when the [`Runtime`]
//! is built, instead of an `mmap`/`munmap` per instance (which, with two threads
//! instantiating at once, made them contend on the address-space lock).
//!
//! Sizing (invariants):
//! - the pools hold what the process budget lets be alive at once: [`ProcessLimits::instances`]
//!   stores, each holding at most what its limiter allows ([`MAX_INSTANCES`] core instances,
//!   [`MAX_MEMORIES`] memories, [`MAX_TABLES`] tables); every store the runtime makes holds
//!   permits of that budget (registration's `describe` instances included), so a pool never
//!   runs out before the budget does;
//! - a memory slot holds the largest memory a grant may give ([`MAX_MEMORY_MB`]: every cap is
//!   at most that, and a store's memories together at most its cap), a table slot the most
//!   table elements a store may hold ([`MAX_TABLE_ELEMENTS`]); the per-module and per-component
//!   counts and instance sizes are not limited here, so the store's limiter stays the one
//!   place that refuses a component, with its own message;
//! - each memory slot reserves the engine's memory reservation plus its guard (4 GiB + 32 MiB
//!   with wasmtime's defaults) of address space, not memory: 16 instances × 16 memories is
//!   about 1 TiB reserved. Past [`MAX_POOL_RESERVATION`], or when the reservation fails, the
//!   engine allocates instance by instance, as before the pool (same limits, same results).
//!
//! What a freed slot keeps: where the kernel can say which pages were written (Linux 6.7 and
//! later, the `PAGEMAP_SCAN` ioctl) and no swap area is active, up to [`KEEP_RESIDENT`] bytes
//! of the pages the instance wrote are put back in place (zeroed, or copied from the
//! component's memory image), so the next instance in the slot takes no page faults on them
//! and no `madvise` runs; the written pages past that are given back to the kernel. Otherwise
//! the slot's first [`KEEP_RESIDENT`] bytes are zeroed in place and the rest is given back.
//! Either way nothing of one instance is visible to the next
//! (`runtime::tests::fresh::a_fresh_instance_sees_nothing_of_the_one_before_it_in_the_same_slot`).
//!
//! Why no scan with swap: wasmtime 48's scan puts back only the written pages that are in
//! memory; a written page the kernel swapped out before the instance ended would be neither
//! put back nor given back, and the next instance in the slot would read it
//! (bytecodealliance/wasmtime#14357, open). So the scan is used only when `/proc/swaps` lists
//! no swap area when the runtime starts; a swap area turned on while airlock runs is not seen
//! (SECURITY.md says so).
//!
//! Why keep pages at all: a fresh instance's first call used to pay for its start-up twice
//! over — the `madvise` that emptied the slot and a page fault on each page the guest then
//! touched again (its stack top, its data, its heap). Measured (BENCHMARKS.md, issue 25):
//! `echo`'s first call on a fresh instance went from 11.4 to 4.2 µs, against 3.0 µs on a live
//! one.
//!
//! [`Runtime`]: super::Runtime

use wasmtime::{Config, Enabled, Engine, InstanceAllocationStrategy, PoolingAllocationConfig};

use super::state::{MAX_INSTANCES, MAX_MEMORIES, MAX_TABLE_ELEMENTS, MAX_TABLES};
use super::{ProcessLimits, RuntimeError};
use crate::capability::MAX_MEMORY_MB;

/// Bytes of a freed memory or table slot put back in place rather than given back to the
/// kernel: the written pages among them where the kernel can find those, else the slot's
/// first bytes. A built-in's call writes fewer (2 MiB measured no faster than this); without
/// the page scan, 1 MiB was measured slower than this (its `memset` cost more than the faults).
/// At most this much stays resident per slot the process used.
const KEEP_RESIDENT: usize = 64 << 10;
/// The most address space the memory pool may reserve; a larger budget allocates instance by
/// instance instead.
const MAX_POOL_RESERVATION: u64 = 4 << 40;
/// Address space one memory slot reserves: wasmtime's default memory reservation and guard
/// on 64-bit hosts (the engine's settings, not changed here).
const SLOT_BYTES: u64 = (4 << 30) + (32 << 20);
/// The largest instance size to accept: the pool's own caps on a module's or component's
/// instance are left to the store's limiter (wasmtime allocates those on the heap anyway).
const INSTANCE_SIZE: usize = 1 << 30;

/// The pooling configuration for a process budget of `limits`; `None` when its memory pool
/// would reserve more than [`MAX_POOL_RESERVATION`].
pub(super) fn pooling(limits: ProcessLimits) -> Option<PoolingAllocationConfig> {
    let stores = u32::try_from(limits.instances.max(1)).ok()?;
    let per_store = |count: usize| stores.checked_mul(u32::try_from(count).ok()?);
    let memories = per_store(MAX_MEMORIES)?;
    if u64::from(memories) * SLOT_BYTES > MAX_POOL_RESERVATION {
        return None;
    }
    let mut pool = PoolingAllocationConfig::new();
    pool.total_component_instances(stores)
        .total_core_instances(per_store(MAX_INSTANCES)?)
        .total_memories(memories)
        .total_tables(per_store(MAX_TABLES)?)
        // One fiber stack per store in a call (a store keeps its last one); twice that is
        // headroom that costs only address space.
        .total_stacks(stores.checked_mul(2)?)
        .max_memories_per_module(memories)
        .max_tables_per_module(per_store(MAX_TABLES)?)
        .max_memory_size((MAX_MEMORY_MB as usize) << 20)
        .table_elements(MAX_TABLE_ELEMENTS)
        .max_core_instance_size(INSTANCE_SIZE)
        .max_component_instance_size(INSTANCE_SIZE)
        .linear_memory_keep_resident(KEEP_RESIDENT)
        .table_keep_resident(KEEP_RESIDENT)
        // `Auto`: only where the kernel has the ioctl.
        .pagemap_scan(if swap_may_be_used() { Enabled::No } else { Enabled::Auto });
    // Memory protection keys stay off (wasmtime's default, and its feature is not built):
    // they would let slots share guard regions, which this reservation does not need.
    Some(pool)
}

/// Whether the kernel may swap memory out: `/proc/swaps` lists a swap area (zram included),
/// or cannot be read (then it is assumed to).
fn swap_may_be_used() -> bool {
    std::fs::read_to_string("/proc/swaps").map_or(true, |text| lists_a_swap_area(&text))
}

/// Whether the text of `/proc/swaps` (a header line, then one line per active swap area)
/// lists an area.
fn lists_a_swap_area(text: &str) -> bool {
    text.lines().skip(1).any(|line| !line.trim().is_empty())
}

/// The engine for `config`, with its instances pooled when the budget `limits` allows it
/// and the address space can be reserved; otherwise allocated one by one.
pub(super) fn engine(config: &mut Config, limits: ProcessLimits) -> Result<Engine, RuntimeError> {
    if let Some(pool) = pooling(limits) {
        config.allocation_strategy(InstanceAllocationStrategy::Pooling(pool));
        match Engine::new(config) {
            Ok(engine) => return Ok(engine),
            Err(error) => {
                tracing::warn!("cannot reserve the instance pool, allocating instances one by one: {error:#}");
                config.allocation_strategy(InstanceAllocationStrategy::OnDemand);
            }
        }
    }
    Engine::new(config).map_err(|e| RuntimeError::Engine(format!("{e:#}")))
}

#[cfg(test)]
mod tests {
    use super::lists_a_swap_area;

    #[test]
    fn a_swap_area_is_seen_in_proc_swaps_and_a_bare_header_is_none() {
        let header = "Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n";
        assert!(!lists_a_swap_area(header));
        assert!(!lists_a_swap_area(""));
        assert!(lists_a_swap_area(&format!("{header}/dev/zram0  partition\t4194300\t\t0\t\t100\n")));
        assert!(lists_a_swap_area(&format!("{header}/swapfile  file\t2097148\t\t1024\t\t-2\n")));
    }
}
