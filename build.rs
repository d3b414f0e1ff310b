//! Link options for the binaries.

fn main() {
    // Relative relocations packed (DT_RELR, glibc 2.36 and binutils 2.38 or later): the
    // loader reads 5 KB of them, not 480 KB, at every start, and the executable stays
    // position-independent. A start is a good part of a short run: `nczdump -h` of a
    // small file took 2.4 ms, 2.2 with them packed.
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let env = std::env::var("CARGO_CFG_TARGET_ENV").unwrap_or_default();
    if os == "linux" && env == "gnu" {
        println!("cargo:rustc-link-arg-bins=-Wl,-z,pack-relative-relocs");
    }
    println!("cargo:rerun-if-changed=build.rs");
}
