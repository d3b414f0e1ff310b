//! Glue shared by the nczarr-tools binaries (not a public API): opening datasets,
//! error reporting, exit codes, tracing.

pub mod cli;

/// mimalloc rather than the system allocator: a dump holds millions of small values
/// (strings are one allocation each) and frees them slab after slab, which glibc's
/// allocator does at several times the cost and with a page fault per reused page.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;
