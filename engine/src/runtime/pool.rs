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
//! What a freed slot keeps: its first [`KEEP_RESIDENT`] bytes are zeroed in place (no page
//! faults when the slot is reused), the rest is given back to the kernel. Nothing of one
//! instance is visible to the next.
//!
//! [`Runtime`]: super::Runtime

use wasmtime::{Config, Engine, InstanceAllocationStrategy, PoolingAllocationConfig};

use super::state::{MAX_INSTANCES, MAX_MEMORIES, MAX_TABLE_ELEMENTS, MAX_TABLES};
use super::{ProcessLimits, RuntimeError};
use crate::capability::MAX_MEMORY_MB;

/// Bytes of a freed memory or table slot zeroed in place rather than given back to the
/// kernel; measured faster than both none and 1 MiB (whose `memset` costs more than the faults).
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
        .table_keep_resident(KEEP_RESIDENT);
    // Memory protection keys stay off (wasmtime's default, and its feature is not built):
    // they would let slots share guard regions, which this reservation does not need.
    Some(pool)
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
