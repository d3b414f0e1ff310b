//! Hostile input: datasets, archives, CDL and names built to break a reader. Each case
//! runs its tool under a 2 GiB address-space cap (`ulimit -v`) and a time limit, and
//! must end as its table says: one error line naming the problem with exit 1, or a
//! success. Never a panic (exit 101), an abort or a crash (a failed allocation or a
//! stack overflow: signals 6 and 11), a hang or the cap.
//!
//! `HOSTILE_SHOW=1` prints every case's outcome (to write a new case's expectation).

mod cdl_names_files;
mod codecs;
mod dap;
mod filesystem;
mod metadata;

use std::path::Path;
use std::process::Command;

/// The address-space cap, in KiB (`ulimit -v`).
const MEMORY_CAP_KIB: u64 = 2 << 20;
/// Seconds a case may run before it counts as a hang.
const TIME_LIMIT_S: u32 = 30;

/// How a case must end.
pub enum Expect {
    /// Exit 1 with exactly one stderr line that contains this text.
    Fails(&'static str),
    /// Exit 0; stdout contains this text.
    Succeeds(&'static str),
}

/// A check of the case's directory after the run.
pub type Check = Box<dyn Fn(&Path) -> Result<(), String>>;

/// One hostile input and the run that reads it.
pub struct Case {
    /// The class (the closing note counts cases by class).
    pub class: &'static str,
    pub name: String,
    /// Writes the input into the case's directory.
    pub setup: Box<dyn Fn(&Path)>,
    pub tool: &'static str,
    /// Arguments; `{dir}` stands for the case's directory.
    pub args: Vec<String>,
    pub expect: Expect,
    /// Checked after the run (files that must not exist, and the like).
    pub after: Option<Check>,
}

impl Case {
    pub fn new(
        class: &'static str,
        name: impl Into<String>,
        tool: &'static str,
        args: &[&str],
        expect: Expect,
        setup: impl Fn(&Path) + 'static,
    ) -> Case {
        Case {
            class,
            name: name.into(),
            setup: Box::new(setup),
            tool,
            args: args.iter().map(|a| (*a).to_string()).collect(),
            expect,
            after: None,
        }
    }

    /// nczdump of the store `s.zarr` that `setup` writes.
    pub fn dump_store(
        class: &'static str,
        name: &'static str,
        expect: Expect,
        setup: impl Fn(&Path) + 'static,
    ) -> Case {
        Case::new(class, name, "nczdump", &["{dir}/s.zarr"], expect, setup)
    }

    /// With a check of the directory after the run.
    pub fn then(mut self, check: impl Fn(&Path) -> Result<(), String> + 'static) -> Case {
        self.after = Some(Box::new(check));
        self
    }
}

/// Write `content` at `rel` under `dir`, making directories.
pub fn put(dir: &Path, rel: &str, content: impl AsRef<[u8]>) {
    let p = dir.join(rel);
    std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
    std::fs::write(p, content).expect("write");
}

/// A pure Zarr v2 store `s.zarr` under `dir`: one variable `v` with this `.zarray`
/// (dimensions named by `_ARRAY_DIMENSIONS` when `dims` is given) and these chunks.
pub fn zarr(dir: &Path, zarray: &str, dims: Option<&str>, chunks: &[(&str, &[u8])]) {
    put(dir, "s.zarr/.zgroup", r#"{"zarr_format": 2}"#);
    put(dir, "s.zarr/v/.zarray", zarray);
    if let Some(d) = dims {
        put(
            dir,
            "s.zarr/v/.zattrs",
            format!(r#"{{"_ARRAY_DIMENSIONS": {d}}}"#),
        );
    }
    for (k, v) in chunks {
        put(dir, &format!("s.zarr/v/{k}"), v);
    }
}

/// A `.zarray` of a 1-d variable of `n` elements of `dtype` in chunks of `chunk`, with
/// this compressor and filters (JSON).
pub fn zarray(n: u64, chunk: u64, dtype: &str, compressor: &str, filters: &str) -> String {
    format!(
        r#"{{"zarr_format": 2, "shape": [{n}], "chunks": [{chunk}], "dtype": "{dtype}", "fill_value": null, "order": "C", "compressor": {compressor}, "filters": {filters}}}"#
    )
}

/// Run one case; `Err` says how it went wrong.
fn run_case(case: &Case) -> Result<String, String> {
    let dir = tempfile::tempdir().expect("tempdir");
    (case.setup)(dir.path());
    let d = dir.path().to_string_lossy().into_owned();
    let args: Vec<String> = case.args.iter().map(|a| a.replace("{dir}", &d)).collect();
    // The shell sets the cap, then becomes `timeout`, which runs the tool.
    let out = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "ulimit -v {MEMORY_CAP_KIB} && exec timeout -s KILL {TIME_LIMIT_S} \"$@\""
        ))
        .arg("sh")
        .arg(super::util::exe(case.tool))
        .args(&args)
        .current_dir(dir.path())
        .env_remove("NCTRACING")
        .env("RUST_BACKTRACE", "0")
        .env("HOME", dir.path())
        .output()
        .expect("run sh");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let code = out.status.code().unwrap_or(-1);
    let first: Vec<&str> = stderr.lines().take(3).collect();
    let shown = format!("exit {code}: {}", first.join(" | "));
    if stderr.contains("panicked") || code == 101 {
        return Err(format!("panicked: {shown}"));
    }
    if code == 137 || code == -1 {
        return Err(format!(
            "killed (time limit {TIME_LIMIT_S} s) or a signal: {shown}"
        ));
    }
    if code > 128 {
        return Err(format!("crashed (signal {}): {shown}", code - 128));
    }
    match case.expect {
        Expect::Fails(text) => {
            if code != 1 {
                return Err(format!("expected exit 1, got {shown}"));
            }
            if stderr.lines().count() != 1 {
                return Err(format!("expected one error line, got {shown}"));
            }
            if !stderr.contains(text) {
                return Err(format!("expected an error with {text:?}, got {shown}"));
            }
        }
        Expect::Succeeds(text) => {
            if code != 0 {
                return Err(format!("expected success, got {shown}"));
            }
            if !stdout.contains(text) {
                let head: String = stdout.chars().take(300).collect();
                return Err(format!("expected {text:?} in stdout, got {head:?}"));
            }
        }
    }
    if let Some(check) = &case.after {
        check(dir.path())?;
    }
    Ok(shown)
}

/// Run every case of one table and fail with all the cases that went wrong.
fn run_table(cases: Vec<Case>) {
    let show = std::env::var_os("HOSTILE_SHOW").is_some();
    let mut failures = Vec::new();
    for case in &cases {
        let result = run_case(case);
        if show {
            let shown = match &result {
                Ok(s) | Err(s) => s.as_str(),
            };
            eprintln!("[{}] {}: {}", case.class, case.name, shown);
        }
        if let Err(e) = result {
            failures.push(format!("[{}] {}: {e}", case.class, case.name));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} hostile cases went wrong:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}

#[test]
fn hostile_metadata() {
    run_table(metadata::cases());
}

#[test]
fn hostile_chunks_and_codecs() {
    run_table(codecs::cases());
}

#[test]
fn hostile_files_and_archives() {
    run_table(filesystem::cases());
}

#[test]
fn hostile_opendap_answers() {
    run_table(dap::cases());
}

#[test]
fn hostile_cdl_names_and_netcdf_files() {
    run_table(cdl_names_files::cases());
}

/// The suite holds what the issue asks for: at least 80 cases.
#[test]
fn hostile_cases_are_many() {
    let n = metadata::cases().len()
        + codecs::cases().len()
        + filesystem::cases().len()
        + cdl_names_files::cases().len()
        + dap::cases().len();
    assert!(n >= 80, "{n} hostile cases");
}
