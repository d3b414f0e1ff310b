//! The tools' sources are compiled here as modules of one program (`nczarr_multicall`):
//! what each does only as a program of its own (nczdump's allocator and its page
//! setting from `.init_array`) the program's dispatcher does for it instead.
//!
//! The launchers in `data/scripts/` are made executable: maturin's sdist stores every
//! file without its mode, and a wheel built from it would install launchers that do not
//! run (pip keeps a file's mode from the wheel). maturin adds the data directory after
//! the build, so what this sets is what the wheel holds.

use std::path::Path;

fn main() {
    println!("cargo::rustc-cfg=nczarr_multicall");
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=data/scripts");
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/scripts");
    if let Err(e) = executable(&dir) {
        println!(
            "cargo::error={}: the launchers cannot be made executable: {e}",
            dir.display()
        );
    }
}

#[cfg(unix)]
fn executable(dir: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        let mut perm = std::fs::metadata(&path)?.permissions();
        if perm.mode() & 0o111 != 0o111 {
            perm.set_mode(perm.mode() | 0o111);
            std::fs::set_permissions(&path, perm)?;
        }
    }
    Ok(())
}

#[cfg(not(unix))]
fn executable(_dir: &Path) -> std::io::Result<()> {
    Ok(())
}
