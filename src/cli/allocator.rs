//! How the tools ask the C allocator to treat freed memory.
//!
//! The tools allocate and free the same sizes over and over: a slab of values (up to
//! `--memory`/6), a chunk's bytes, a chunk's encoding. glibc's defaults give memory back
//! to the kernel as soon as a thread's heap has 128 KiB free at its top and serve any
//! allocation over 128 KiB-32 MiB (its threshold moves) with a fresh mapping, so each
//! slab and many chunks were new pages: a page fault and a zeroed page per 4 KiB, then an
//! unmap. Measured on the copy benchmark's rechunk (tmpfs, so the disk does not hide it):
//! 0.19 s with the defaults, 0.15 s with these settings, for 15 MiB more peak RSS. The
//! memory stays bounded by what the tools hold at their peak; it is only not returned
//! between one slab and the next.

/// Keep freed memory for reuse instead of returning it to the kernel at once.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
pub fn keep_freed_memory() {
    // The largest threshold glibc accepts (half its 64 MiB heap size): allocations up to
    // it come from the heaps, which keep and reuse what is freed.
    const MMAP_THRESHOLD: libc::c_int = 32 << 20;
    // Free memory at the top of a heap is returned above this much only.
    const TRIM_THRESHOLD: libc::c_int = 1 << 30;
    // SAFETY: mallopt only changes the allocator's parameters; it is called before the
    // tool allocates in earnest and is safe to call at any time. A refusal (return 0)
    // leaves glibc's defaults, which are correct, only slower.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, MMAP_THRESHOLD);
        libc::mallopt(libc::M_TRIM_THRESHOLD, TRIM_THRESHOLD);
    }
}

/// Other C libraries keep their own policies.
#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
pub fn keep_freed_memory() {}

/// True when [`small_pages_from_start`] found huge pages allowed: the setting
/// (`PR_SET_THP_DISABLE`) passes through fork and exec, and a parent that turned them
/// off (or a start that could not tell) leaves them off.
#[cfg(target_os = "linux")]
static HUGE_PAGES_INHERITED: std::sync::atomic::AtomicBool =
    std::sync::atomic::AtomicBool::new(false);

/// 4 KiB pages from before the Rust runtime's first allocation, for a binary to run
/// from its `.init_array` (see nczdump's `SMALL_PAGES_FROM_START`): mimalloc reserves
/// its arena, asking for huge pages, at the first allocation, and the runtime's and the
/// argument parser's allocations would otherwise fault in three whole 2 MiB regions
/// before the tool knows what it will do. The inherited setting is recorded first, for
/// [`small_pages`]`(false)` to put back. Allocates nothing.
#[cfg(target_os = "linux")]
pub extern "C" fn small_pages_from_start() {
    // SAFETY: PR_GET_THP_DISABLE takes no pointers and only reads a flag.
    let disabled = unsafe { libc::prctl(libc::PR_GET_THP_DISABLE, 0, 0, 0, 0) };
    HUGE_PAGES_INHERITED.store(disabled == 0, std::sync::atomic::Ordering::Relaxed);
    set_thp_disabled(true);
}

/// Other systems keep their own page policy.
#[cfg(not(target_os = "linux"))]
pub extern "C" fn small_pages_from_start() {}

/// Keep this process's memory in 4 KiB pages (`small`), or put back the huge-page
/// setting it inherited (when [`small_pages_from_start`] recorded one; a parent that
/// turned huge pages off keeps them off).
///
/// Small pages are for runs that touch a few MiB in small pieces (a header dump).
/// mimalloc asks for huge pages on its whole arena, each thread starts in a 2 MiB
/// region of its own, and the kernel clears all 2 MiB of a region at its first touch:
/// a 400-variable header dump had 13 MiB more resident and spent a fifth of its time
/// clearing pages (7.3 -> 5.9 ms without). Runs that read data get huge pages back
/// after their arguments are parsed: string dumps, which read tens of MiB into fresh
/// memory, were 10% slower without.
#[cfg(target_os = "linux")]
pub fn small_pages(small: bool) {
    if small {
        set_thp_disabled(true);
    } else if HUGE_PAGES_INHERITED.load(std::sync::atomic::Ordering::Relaxed) {
        set_thp_disabled(false);
    }
}

/// Other systems keep their own page policy.
#[cfg(not(target_os = "linux"))]
pub fn small_pages(_small: bool) {}

#[cfg(target_os = "linux")]
fn set_thp_disabled(disabled: bool) {
    // SAFETY: PR_SET_THP_DISABLE only sets a flag on this process's memory map, read
    // at each page fault; it takes no pointers. A refusal leaves the pages as they
    // were: slower, not wrong.
    unsafe {
        libc::prctl(
            libc::PR_SET_THP_DISABLE,
            libc::c_ulong::from(disabled),
            0,
            0,
            0,
        );
    }
}
