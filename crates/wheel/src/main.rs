//! nczarr-tools: every program of the toolkit in one executable (the Python wheel's).
//! Run as `nczarr-tools TOOL ARGS...` (what the wheel's launchers do), or under a
//! tool's own name (a link named `nczdump`), it runs that tool exactly as the separate
//! program would: the tools' sources are this program's modules.

#![allow(clippy::duplicate_mod)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::ffi::OsString;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};

use nczarr_tools::cli;

#[path = "../../../src/bin/nczatted.rs"]
mod nczatted;
#[path = "../../../src/bin/nczcmp.rs"]
mod nczcmp;
#[path = "../../../src/bin/nczcopy/main.rs"]
mod nczcopy;
#[path = "../../../src/bin/nczdump.rs"]
mod nczdump;
#[path = "../../../src/bin/nczgen.rs"]
mod nczgen;
#[path = "../../../src/bin/nczrename.rs"]
mod nczrename;
#[path = "../../../src/bin/nczview.rs"]
mod nczview;
#[path = "../../../src/bin/zmapdump.rs"]
mod zmapdump;

/// A tool's `main`.
type Main = fn() -> ExitCode;

/// The tools, by name.
const TOOLS: &[(&str, Main)] = &[
    ("nczdump", || {
        nczdump::main();
        #[allow(unreachable_code)]
        ExitCode::SUCCESS
    }),
    ("nczgen", nczgen::main),
    ("nczcopy", nczcopy::main),
    ("nczcmp", nczcmp::main),
    ("zmapdump", zmapdump::main),
    ("nczatted", nczatted::main),
    ("nczrename", nczrename::main),
    ("nczview", nczview::main),
];

/// mimalloc for nczdump, glibc's allocator for the rest, as the separate programs
/// have them (nczdump.rs and nczgen.rs say why). Chosen once, from `.init_array`,
/// before the Rust runtime's first allocation, and never changed: every block is freed
/// by the allocator that gave it.
static MIMALLOC: AtomicBool = AtomicBool::new(false);

struct Chosen;

// SAFETY: each call goes to one of two allocators, the same one for the process's
// whole life (MIMALLOC is set before any allocation and not after).
unsafe impl GlobalAlloc for Chosen {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if MIMALLOC.load(Ordering::Relaxed) {
            unsafe { mimalloc::MiMalloc.alloc(layout) }
        } else {
            unsafe { System.alloc(layout) }
        }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if MIMALLOC.load(Ordering::Relaxed) {
            unsafe { mimalloc::MiMalloc.alloc_zeroed(layout) }
        } else {
            unsafe { System.alloc_zeroed(layout) }
        }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        if MIMALLOC.load(Ordering::Relaxed) {
            unsafe { mimalloc::MiMalloc.dealloc(ptr, layout) }
        } else {
            unsafe { System.dealloc(ptr, layout) }
        }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if MIMALLOC.load(Ordering::Relaxed) {
            unsafe { mimalloc::MiMalloc.realloc(ptr, layout, new_size) }
        } else {
            unsafe { System.realloc(ptr, layout, new_size) }
        }
    }
}

#[global_allocator]
static ALLOCATOR: Chosen = Chosen;

/// The tool a command line asks for: its program name, else its first argument.
fn tool_of<'a>(argv0: &'a [u8], argv1: Option<&'a [u8]>) -> Option<&'a [u8]> {
    let base = argv0.rsplit(|&b| b == b'/').next().unwrap_or(argv0);
    let known = |n: &[u8]| TOOLS.iter().any(|(t, _)| t.as_bytes() == n);
    if known(base) {
        Some(base)
    } else {
        argv1.filter(|a| known(a))
    }
}

/// glibc calls `.init_array` functions with the program's arguments, before `main` and
/// before the Rust runtime allocates: the allocator is chosen here, and nczdump's small
/// pages set (`cli::small_pages_from_start`).
#[cfg(all(target_os = "linux", target_env = "gnu"))]
extern "C" fn choose(argc: libc::c_int, argv: *const *const libc::c_char, _env: *const u8) {
    let arg = |i: libc::c_int| -> Option<&'static [u8]> {
        if i >= argc || argv.is_null() {
            return None;
        }
        // SAFETY: glibc passes argc valid, NUL-terminated strings that live as long as
        // the process.
        unsafe {
            let p = *argv.add(i as usize);
            (!p.is_null()).then(|| std::ffi::CStr::from_ptr(p).to_bytes())
        }
    };
    if let Some(b"nczdump") = arg(0).and_then(|a0| tool_of(a0, arg(1))) {
        MIMALLOC.store(true, Ordering::Relaxed);
        cli::small_pages_from_start();
    }
}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[used]
#[link_section = ".init_array.00100"]
static CHOOSE: extern "C" fn(libc::c_int, *const *const libc::c_char, *const u8) = choose;

fn main() -> ExitCode {
    let args: Vec<OsString> = std::env::args_os().collect();
    let name = |i: usize| args.get(i).map(|a| a.as_encoded_bytes());
    let Some(tool) = name(0).and_then(|a0| tool_of(a0, name(1))) else {
        let names: Vec<&str> = TOOLS.iter().map(|(t, _)| *t).collect();
        eprintln!(
            "nczarr-tools {}: run as one of its tools: nczarr-tools TOOL [ARGS]..., TOOL one of {}",
            env!("CARGO_PKG_VERSION"),
            names.join(" ")
        );
        return ExitCode::from(2);
    };
    let tool = String::from_utf8_lossy(tool).into_owned();
    let base = name(0).and_then(|a0| a0.rsplit(|&b| b == b'/').next());
    if base != Some(tool.as_bytes()) {
        // `nczarr-tools nczdump ARGS`: the tool sees `nczdump ARGS`.
        cli::set_args(args[1..].to_vec());
    }
    let run = TOOLS
        .iter()
        .find(|(t, _)| *t == tool)
        .map(|(_, f)| *f)
        .unwrap_or(|| ExitCode::from(2));
    run()
}
