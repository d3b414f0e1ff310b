//! Link options for the binaries.

fn main() {
    // Relative relocations packed (DT_RELR, glibc 2.36 and binutils 2.38 or later): the
    // loader reads 5 KB of them, not 480 KB, at every start, and the executable stays
    // position-independent. A start is a good part of a short run: `nczdump -h` of a
    // small file took 2.4 ms, 2.2 with them packed.
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let env = std::env::var("CARGO_CFG_TARGET_ENV").unwrap_or_default();
    // NCZARR_NO_PACK_RELR=1 leaves them unpacked: DT_RELR makes every program need
    // glibc 2.36 (GLIBC_ABI_DT_RELR), which a manylinux wheel or a conda package built
    // for older systems cannot ask (scripts/wheel_test.sh, recipe/recipe.yaml).
    let unpacked = std::env::var("NCZARR_NO_PACK_RELR").is_ok_and(|v| !v.is_empty() && v != "0");
    if os == "linux" && env == "gnu" && !unpacked {
        println!("cargo:rustc-link-arg-bins=-Wl,-z,pack-relative-relocs");
    }
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=NCZARR_NO_PACK_RELR");
}
