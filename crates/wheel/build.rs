//! The tools' sources are compiled here as modules of one program (`nczarr_multicall`):
//! what each does only as a program of its own (nczdump's allocator and its page
//! setting from `.init_array`) the program's dispatcher does for it instead.

fn main() {
    println!("cargo::rustc-cfg=nczarr_multicall");
    println!("cargo:rerun-if-changed=build.rs");
}
