//! Helpers for the CLI tests: running a tool, asserting on its output, temporary
//! stores, a web server, the peers; in sub-modules the helpers of several tools' tests.

/// The GCS and Azure emulators.
pub(crate) mod clouds;
/// nczcopy and nczdump runs of the copy tests.
pub(crate) mod copies;
/// A pydap server (OPeNDAP) over files a test writes; ncdump's answers over it.
pub(crate) mod dap;
/// Datasets the tests of several tools make.
pub(crate) mod datasets;
/// Icechunk's Python: repositories made and read by the reference implementation.
pub(crate) mod icechunk;
/// Reference files.
pub(crate) mod kerchunk;
/// The dataset of the option tests.
pub(crate) mod options;
/// Datasets and listings of the output tests.
pub(crate) mod outputs;
/// The peers as judges, found or skipped.
pub(crate) mod peers;
/// The local S3 server.
pub(crate) mod s3;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The output of one tool run.
pub struct Run {
    pub desc: String,
    pub output: Output,
}

impl Run {
    pub fn stdout(&self) -> String {
        String::from_utf8_lossy(&self.output.stdout).into_owned()
    }

    pub fn stderr(&self) -> String {
        String::from_utf8_lossy(&self.output.stderr).into_owned()
    }

    pub fn code(&self) -> i32 {
        self.output.status.code().unwrap_or(-1)
    }

    fn report(&self) -> String {
        format!(
            "command: {}\nstatus: {:?}\n--- stdout ---\n{}\n--- stderr ---\n{}",
            self.desc,
            self.output.status,
            self.stdout(),
            self.stderr()
        )
    }

    /// Exit 0 and nothing on stderr.
    pub fn success(&self) -> &Run {
        assert!(
            self.output.status.success() && self.output.stderr.is_empty(),
            "expected success\n{}",
            self.report()
        );
        self
    }

    /// Exit with `code`, and stderr is exactly one line.
    pub fn fails_with_one_line(&self, code: i32) -> String {
        assert_eq!(self.code(), code, "wrong exit code\n{}", self.report());
        let err = self.stderr();
        assert_eq!(
            err.lines().count(),
            1,
            "expected one stderr line\n{}",
            self.report()
        );
        assert!(!err.contains("panicked"), "panic\n{}", self.report());
        err.trim_end().to_string()
    }

    pub fn stdout_is(&self, expected: &str) -> &Run {
        if self.stdout() != expected {
            panic!(
                "stdout differs\n{}\n--- expected ---\n{}\n--- diff (first difference) ---\n{}",
                self.report(),
                expected,
                first_diff(&self.stdout(), expected)
            );
        }
        self
    }
}

pub fn first_diff(a: &str, b: &str) -> String {
    for (i, (x, y)) in a.lines().zip(b.lines()).enumerate() {
        if x != y {
            return format!("line {}:\n  got:      {x:?}\n  expected: {y:?}", i + 1);
        }
    }
    format!(
        "lengths differ: {} vs {} lines",
        a.lines().count(),
        b.lines().count()
    )
}

/// The binary of one of our tools.
pub fn exe(tool: &str) -> &'static str {
    match tool {
        "nczdump" => env!("CARGO_BIN_EXE_nczdump"),
        "zmapdump" => env!("CARGO_BIN_EXE_zmapdump"),
        "nczgen" => env!("CARGO_BIN_EXE_nczgen"),
        "nczcopy" => env!("CARGO_BIN_EXE_nczcopy"),
        "nczcmp" => env!("CARGO_BIN_EXE_nczcmp"),
        "nczatted" => env!("CARGO_BIN_EXE_nczatted"),
        "nczrename" => env!("CARGO_BIN_EXE_nczrename"),
        "nczview" => env!("CARGO_BIN_EXE_nczview"),
        other => panic!("unknown tool {other}"),
    }
}

/// Run a tool with an empty environment but `env`, with `home` as `HOME` and the
/// working directory (the cloud tests: no `~/.aws`, no `.ncrc`, no stray variable).
pub fn run_clean(tool: &str, home: &Path, args: &[&str], env: &[(&str, String)]) -> Run {
    let mut cmd = Command::new(exe(tool));
    cmd.env_clear()
        .env("HOME", home)
        .current_dir(home)
        .args(args);
    for (k, v) in env {
        cmd.env(k, v);
    }
    Run {
        desc: format!("{tool} {}", args.join(" ")),
        output: cmd.output().expect("run tool"),
    }
}

/// Run a tool binary with arguments in `cwd`.
pub fn run_in(tool: &str, cwd: &Path, args: &[&str]) -> Run {
    let output = Command::new(exe(tool))
        .args(args)
        .current_dir(cwd)
        .env_remove("NCTRACING")
        .output()
        .expect("run tool");
    Run {
        desc: format!("{tool} {}", args.join(" ")),
        output,
    }
}

/// Run a tool in the crate directory.
pub fn run(tool: &str, args: &[&str]) -> Run {
    run_in(tool, Path::new(env!("CARGO_MANIFEST_DIR")), args)
}

/// What ncgen 4.9.0 (`-4`) and ncdump make of `cdl`, named as nczdump names the store
/// (`None` without netcdf-bin).
pub fn ncgen_ncdump(cdl: &std::path::Path, dir: &std::path::Path) -> Option<String> {
    if !crate::util::have("ncgen") {
        return None;
    }
    let name = cdl.file_stem()?.to_string_lossy().into_owned();
    let nc = dir.join(format!("{name}.nc"));
    let made = std::process::Command::new("ncgen")
        .args(["-4", "-o", &nc.to_string_lossy(), &cdl.to_string_lossy()])
        .status()
        .ok()?;
    assert!(made.success(), "ncgen -4 {}", cdl.display());
    let out = std::process::Command::new("ncdump")
        .arg(&nc)
        .output()
        .ok()?;
    assert!(out.status.success(), "ncdump {}", nc.display());
    Some(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// Whether a peer tool (netcdf-bin's `ncgen`, `ncdump`, `nccopy`) can be run here.
pub fn have(tool: &str) -> bool {
    std::process::Command::new(tool)
        .arg("-h")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok()
}

/// Data files of the CLI tests.
/// The golden CDL cases (`data/golden/cases/*.cdl`), sorted by name.
pub fn golden_cases() -> Vec<PathBuf> {
    let mut cases: Vec<PathBuf> = std::fs::read_dir(data_dir().join("golden/cases"))
        .expect("golden cases")
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "cdl"))
        .collect();
    cases.sort();
    cases
}

/// A case's name: its file name without `.cdl`.
pub fn case_name(cdl: &Path) -> String {
    cdl.file_stem()
        .unwrap_or_default()
        .to_string_lossy()
        .into_owned()
}

/// Run nczgen with `args`.
pub fn nczgen(args: &[&str]) -> Run {
    run("nczgen", args)
}

pub fn data_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cli/data")
}

/// The workplace's shared folder, where it is: `$NCZARR_SHARED_DIR`, or `shared/`
/// beside the project.
fn shared_dir(sub: &str) -> Option<PathBuf> {
    let mut candidates = Vec::new();
    if let Ok(d) = std::env::var("NCZARR_SHARED_DIR") {
        if !d.is_empty() {
            candidates.push(PathBuf::from(d));
        }
    }
    candidates.push(Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared"));
    candidates
        .into_iter()
        .map(|d| d.join(sub))
        .find(|p| p.exists())
}

/// netcdf-c's corpus in the workplace's shared folder, if present.
pub fn shared_conformance() -> Option<PathBuf> {
    shared_dir("conformance/netcdf-c").filter(|p| p.is_dir())
}

/// A dataset of the real-file corpus (`shared/corpus/real/PATH`), if present: tests
/// that use one skip without it.
pub fn corpus_real(path: &str) -> Option<String> {
    let found = shared_dir(&format!("corpus/real/{path}"));
    if found.is_none() {
        eprintln!("skipped: corpus/real/{path} is not here");
    }
    Some(found?.to_string_lossy().into_owned())
}

/// A store written file by file into a temporary directory.
pub struct TempStore {
    pub dir: tempfile::TempDir,
    pub name: String,
}

impl TempStore {
    /// An empty store directory `<tmp>/<name>`.
    pub fn new(name: &str) -> TempStore {
        let dir = tempfile::tempdir().expect("tempdir");
        fs::create_dir_all(dir.path().join(name)).expect("mkdir");
        TempStore {
            dir,
            name: name.to_string(),
        }
    }

    pub fn path(&self) -> PathBuf {
        self.dir.path().join(&self.name)
    }

    pub fn path_str(&self) -> String {
        self.path().to_string_lossy().into_owned()
    }

    pub fn put(&self, key: &str, content: impl AsRef<[u8]>) -> &TempStore {
        let p = self.path().join(key);
        fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
        fs::write(p, content).expect("write");
        self
    }

    pub fn remove(&self, key: &str) -> &TempStore {
        fs::remove_file(self.path().join(key)).expect("remove");
        self
    }

    /// A small NCZarr (netcdf-c 4.10 layout) dataset: int v(x=2, y=3) = 1..6 in one
    /// uncompressed chunk, with a units attribute.
    pub fn nczarr_sample(name: &str) -> TempStore {
        let s = TempStore::new(name);
        s.put(".zgroup", r#"{"zarr_format": 2}"#);
        s.put(
            ".zattrs",
            r#"{"title": "sample", "_nczarr_group": {"dimensions": {"x": 2, "y": 3}, "arrays": ["v"], "groups": []}, "_nczarr_superblock": {"version": "2.0.0"}, "_nczarr_attr": {"types": {"title": ">S1", "_nczarr_group": "|J0", "_nczarr_superblock": "|J0", "_nczarr_attr": "|J0"}}}"#,
        );
        s.put(
            "v/.zarray",
            r#"{"zarr_format": 2, "shape": [2,3], "dtype": "<i4", "chunks": [2,3], "fill_value": -2147483647, "order": "C", "compressor": null, "filters": null}"#,
        );
        s.put(
            "v/.zattrs",
            r#"{"units": "m", "_ARRAY_DIMENSIONS": ["x","y"], "_nczarr_array": {"dimension_references": ["/x","/y"], "storage": "chunked"}, "_nczarr_attr": {"types": {"units": ">S1", "_nczarr_array": "|J0", "_nczarr_attr": "|J0"}}}"#,
        );
        let data: Vec<u8> = (1..=6i32).flat_map(|v| v.to_le_bytes()).collect();
        s.put("v/0.0", data);
        s
    }
}

/// The dump of [`TempStore::nczarr_sample`] named `name`.
pub fn sample_dump(name: &str) -> String {
    format!(
        "netcdf {name} {{\ndimensions:\n\tx = 2 ;\n\ty = 3 ;\nvariables:\n\tint v(x, y) ;\n\t\tv:units = \"m\" ;\n\n// global attributes:\n\t\t:title = \"sample\" ;\ndata:\n\n v =\n  1, 2, 3,\n  4, 5, 6 ;\n}}\n"
    )
}

/// A web server on 127.0.0.1 for the byte-range tests: it serves the files of a
/// directory (`GET`, `HEAD`), honours `Range: bytes=a-b` (or, when made without it,
/// answers every range with the whole file, as some servers do), and counts the
/// requests it answers. It runs until the test process ends.
pub struct RangeServer {
    pub url: String,
    requests: std::sync::Arc<std::sync::atomic::AtomicUsize>,
}

/// How long a [`RangeServer`] waits before answering a request for a path: `None`
/// answers at once, `Some(d)` after `d`.
pub type Delay = std::sync::Arc<dyn Fn(&str) -> Option<std::time::Duration> + Send + Sync>;

impl RangeServer {
    pub fn start(root: &Path, honour_range: bool) -> RangeServer {
        RangeServer::start_with_delay(root, honour_range, std::sync::Arc::new(|_: &str| None))
    }

    /// A server that waits `delay(path)` before each answer: a slow or stalled source.
    pub fn start_with_delay(root: &Path, honour_range: bool, delay: Delay) -> RangeServer {
        use std::io::{BufRead, BufReader, Write};
        use std::sync::atomic::{AtomicUsize, Ordering};
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let requests = std::sync::Arc::new(AtomicUsize::new(0));
        let (root, count) = (root.to_path_buf(), std::sync::Arc::clone(&requests));
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let (root, count) = (root.clone(), std::sync::Arc::clone(&count));
                let delay = std::sync::Arc::clone(&delay);
                std::thread::spawn(move || {
                    let mut reader = BufReader::new(stream.try_clone().unwrap());
                    let mut out = stream;
                    // Keep-alive: one request after another on the connection.
                    loop {
                        let mut line = String::new();
                        if reader.read_line(&mut line).unwrap_or(0) == 0 {
                            return;
                        }
                        let mut parts = line.split_whitespace();
                        let method = parts.next().unwrap_or("").to_string();
                        let target = parts.next().unwrap_or("/").to_string();
                        let mut range = None;
                        loop {
                            let mut h = String::new();
                            if reader.read_line(&mut h).unwrap_or(0) == 0 {
                                return;
                            }
                            let h = h.trim_end();
                            if h.is_empty() {
                                break;
                            }
                            if let Some((k, v)) = h.split_once(':') {
                                if k.eq_ignore_ascii_case("range") {
                                    range = v.trim().strip_prefix("bytes=").map(str::to_string);
                                }
                            }
                        }
                        count.fetch_add(1, Ordering::SeqCst);
                        if let Some(d) = delay(&target) {
                            std::thread::sleep(d);
                        }
                        let path =
                            root.join(target.trim_start_matches('/').split('?').next().unwrap());
                        let Ok(body) = fs::read(&path) else {
                            let _ = out
                                .write_all(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n");
                            continue;
                        };
                        let len = body.len();
                        let (status, slice, extra) = match range.filter(|_| honour_range) {
                            Some(r) => {
                                let (a, b) = r.split_once('-').unwrap();
                                let a: usize = a.parse().unwrap();
                                let b: usize = if b.is_empty() {
                                    len - 1
                                } else {
                                    b.parse::<usize>().unwrap().min(len - 1)
                                };
                                (
                                    "206 Partial Content",
                                    &body[a..=b],
                                    format!("Content-Range: bytes {a}-{b}/{len}\r\n"),
                                )
                            }
                            None => ("200 OK", &body[..], String::new()),
                        };
                        let head = format!(
                            "HTTP/1.1 {status}\r\nContent-Length: {}\r\n{extra}Accept-Ranges: {}\r\nLast-Modified: Mon, 23 Nov 2026 10:00:00 GMT\r\nETag: \"{len}\"\r\n\r\n",
                            slice.len(),
                            if honour_range { "bytes" } else { "none" }
                        );
                        let _ = out.write_all(head.as_bytes());
                        if method != "HEAD" {
                            let _ = out.write_all(slice);
                        }
                    }
                });
            }
        });
        RangeServer { url, requests }
    }

    /// Requests answered so far.
    pub fn requests(&self) -> usize {
        self.requests.load(std::sync::atomic::Ordering::SeqCst)
    }
}

/// Run the Python `script` with `py` and `args`; fail the test, saying `what` and
/// Python's error, unless it succeeds.
pub fn python_succeeds(py: &str, script: &str, args: &[&str], what: &str) {
    let r = Command::new(py)
        .arg("-c")
        .arg(script)
        .args(args)
        .output()
        .expect("run python");
    assert!(
        r.status.success(),
        "{what}: {}",
        String::from_utf8_lossy(&r.stderr)
    );
}

/// netcdf-c's CDL files under `../shared/conformance`, sorted; `None` when it is absent.
pub fn conformance_cdls() -> Option<Vec<PathBuf>> {
    let dir = shared_conformance()?;
    let mut cdls = Vec::new();
    let mut todo = vec![dir];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).ok()?.flatten() {
            let p = e.path();
            if p.is_dir() {
                todo.push(p);
            } else if p.extension().is_some_and(|x| x == "cdl") {
                cdls.push(p);
            }
        }
    }
    cdls.sort();
    Some(cdls)
}

/// `f` on the two halves of `items` at once (every other item each), each half with a
/// scratch directory of its own under `tmp`: their results, first half first.
pub fn in_two_halves<T: Send>(
    items: &[PathBuf],
    tmp: &Path,
    f: impl Fn(&[PathBuf], &Path) -> T + Sync,
) -> Vec<T> {
    let f = &f;
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..2)
            .map(|n| {
                let half: Vec<PathBuf> = items.iter().skip(n).step_by(2).cloned().collect();
                let dir = tmp.join(n.to_string());
                scope.spawn(move || f(&half, &dir))
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    })
}

/// ncgen `-k kind` of `cdl` into `out`; whether it wrote a file (ncgen 4.9.0 exits 0
/// without one for enhanced CDL and a classic kind).
pub fn ncgen_kind(kind: &str, cdl: &Path, out: &Path) -> bool {
    let _ = std::fs::remove_file(out);
    Command::new("ncgen")
        .args(["-k", kind, "-o"])
        .arg(out)
        .arg(cdl)
        .output()
        .is_ok_and(|o| o.status.success())
        && out.exists()
}

/// ncgen's and nczgen's `-k kind` files of the CDL case `cdl` in `dir`: ncgen's path and
/// whether ncgen wrote it, and ours. `None` when nczgen refused, which must be in one
/// line, leave nothing, and (a problem pushed otherwise) happen only where ncgen refuses
/// too.
pub fn generate_both(
    kind: &str,
    cdl: &Path,
    dir: &Path,
    problems: &mut Vec<String>,
) -> Option<(PathBuf, bool, PathBuf)> {
    let name = case_name(cdl);
    let theirs = dir.join(format!("{name}-{kind}-ncgen.nc"));
    let ours = dir.join(format!("{name}-{kind}.nc"));
    let ncgen_wrote = ncgen_kind(kind, cdl, &theirs);
    let made = nczgen(&[
        "-k",
        kind,
        "-o",
        &ours.to_string_lossy(),
        &cdl.to_string_lossy(),
    ]);
    if made.code() != 0 {
        let err = made.fails_with_one_line(1);
        if ncgen_wrote {
            problems.push(format!(
                "{name} -k {kind}: ncgen writes it, we refuse: {err}"
            ));
        }
        assert!(!ours.exists(), "{name} -k {kind}: refused but written");
        return None;
    }
    Some((theirs, ncgen_wrote, ours))
}

/// A Python that imports `modules` (comma-separated): `NCZARR_PYTHON`, else `python3`;
/// `None` when it cannot.
pub fn python_with(modules: &str) -> Option<String> {
    let py = std::env::var("NCZARR_PYTHON").unwrap_or_else(|_| "python3".into());
    Command::new(&py)
        .args(["-c", &format!("import {modules}")])
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
        .then_some(py)
}

/// Fail the test unless netCDF4-python reads the same dimensions and variable values
/// in `a` and `b`, whatever the order of their definitions (data/subset/same_values.py).
pub fn assert_same_values(py: &str, a: &Path, b: &Path, what: &str) {
    let out = Command::new(py)
        .arg(data_dir().join("subset/same_values.py"))
        .arg(a)
        .arg(b)
        .output()
        .expect("run python");
    assert!(
        out.status.success(),
        "{what}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Fail the test unless nczcmp finds `a` and `b` equal (data, metadata, global
/// attributes; NaN equals NaN, as a copy keeps it): for tests where the values, not a
/// dump's text, are the point.
pub fn assert_equal_datasets(a: &Path, b: &Path, what: &str) {
    let r = run(
        "nczcmp",
        &["-N", &a.to_string_lossy(), &b.to_string_lossy()],
    );
    assert_eq!(
        r.code(),
        0,
        "{what}: nczcmp found differences:\n{}{}",
        r.stdout(),
        r.stderr()
    );
}

/// `got`, a dump of a copy, without the `_FillValue` attributes at netCDF's default
/// fill that `want` (the input's dump) does not have: a copy of pure Zarr v2 into a
/// netCDF file or Zarr v3 carries the input's `fill_value` as the attribute (issue
/// 61: xarray masked the input by it), which ncdump shows and the input's dump,
/// netCDF's view of a default fill, does not. For byte types, which ncdump masks by no
/// default, the values the attribute now masks (`_`) are put back as numbers too.
pub fn without_carried_fills(want: &str, got: &str) -> String {
    const DEFAULTS: [(&str, &str); 10] = [
        ("-127b", "-127"),
        ("255UB", "255"),
        ("-32767s", "-32767"),
        ("65535US", "65535"),
        ("-2147483647", "-2147483647"),
        ("4294967295U", "4294967295"),
        ("-9223372036854775806LL", "-9223372036854775806"),
        ("18446744073709551614ULL", "18446744073709551614"),
        ("9.96921e+36f", "9.96921e+36"),
        ("9.96920996838687e+36", "9.96920996838687e+36"),
    ];
    let mut out = String::with_capacity(got.len());
    // Byte variables whose carried fill was taken out, with the number it stands for.
    let mut unmasked: Vec<(String, &str)> = Vec::new();
    let mut in_var: Option<&str> = None;
    for line in got.split_inclusive('\n') {
        let body = line.trim_start_matches(' ');
        let carried = body.starts_with("\t\t") && !want.contains(line);
        let default = body.split_once(":_FillValue = ").and_then(|(var, v)| {
            let v = v.trim_end().trim_end_matches(" ;");
            DEFAULTS
                .iter()
                .find(|(text, _)| *text == v)
                .map(|d| (var.trim(), d))
        });
        if let (true, Some((var, (text, number)))) = (carried, default) {
            if text.ends_with('b') || text.ends_with("UB") {
                unmasked.push((var.to_string(), number));
            }
            continue;
        }
        // In a byte variable's data, the values its carried fill masks.
        let starts = unmasked.iter().find(|(v, _)| {
            body.starts_with(&format!(" {v} =")) || body.starts_with(&format!("{v} ="))
        });
        if let Some((_, number)) = starts {
            in_var = Some(number);
        }
        match in_var {
            Some(number) => {
                let fixed: String = line
                    .split_inclusive([' ', ',', ';', '\n'])
                    .map(|tok| match tok.strip_prefix('_') {
                        Some(rest)
                            if rest.is_empty() || rest.starts_with([',', ' ', ';', '\n']) =>
                        {
                            format!("{number}{rest}")
                        }
                        _ => tok.to_string(),
                    })
                    .collect();
                out.push_str(&fixed);
                if line.trim_end().ends_with(';') {
                    in_var = None;
                }
            }
            None => out.push_str(line),
        }
    }
    out
}

/// The first line of a text (of a dump, `netcdf NAME {`, which names the dataset).
pub fn first_line(s: &str) -> String {
    s.lines().next().unwrap_or("").to_string()
}

/// A path as an argument (`s` and `path_str` are one helper under the two names the
/// tests used).
pub fn s(p: &Path) -> String {
    p.to_string_lossy().into_owned()
}

/// A path as an argument; see `s`.
pub fn path_str(p: &Path) -> String {
    p.to_string_lossy().into_owned()
}
