//! A real OPeNDAP server for the tests: pydap (`pip install "pydap[server,netcdf]"`)
//! serving a directory of netCDF files the test writes, on a free port, stopped when
//! the test ends. Without pydap a test is skipped with a printed reason; under
//! `CI=true` a missing pydap fails it.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub(crate) struct Pydap {
    child: Child,
    pub(crate) port: u16,
    pub(crate) dir: tempfile::TempDir,
    /// The Python beside the server (netCDF4 in it writes the files).
    pub(crate) python: String,
}

impl Drop for Pydap {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The `pydap` command beside `NCZARR_PYTHON` (a venv's `bin/`), if it is there.
fn pydap_command() -> Option<(PathBuf, String)> {
    let py = std::env::var("NCZARR_PYTHON").unwrap_or_else(|_| "python3".into());
    let bin = Path::new(&py).parent()?.join("pydap");
    bin.is_file().then_some((bin, py))
}

/// A pydap server over an empty directory (write files into `dir`, then ask for
/// them), or None (skipped, with the reason printed) when pydap is not installed.
pub(crate) fn pydap(test: &str) -> Option<Pydap> {
    let Some((bin, python)) = pydap_command() else {
        let why =
            "pydap is not installed beside NCZARR_PYTHON (pip install \"pydap[server,netcdf]\")";
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "CI: {test}: {why}"
        );
        eprintln!("skipped {test}: {why}");
        return None;
    };
    let mut dir = tempfile::tempdir().unwrap();
    for _ in 0..5 {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let child = Command::new(&bin)
            .args(["-d", &dir.path().to_string_lossy(), "-p", &port.to_string()])
            .args(["--workers", "2", "--threads", "4"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut server = Pydap {
            child,
            port,
            dir,
            python: python.clone(),
        };
        let deadline = Instant::now() + Duration::from_secs(30);
        while Instant::now() < deadline {
            if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
                return Some(server);
            }
            if matches!(server.child.try_wait(), Ok(Some(_))) {
                break;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        let _ = server.child.kill();
        let _ = server.child.wait();
        dir = std::mem::replace(&mut server.dir, tempfile::tempdir().unwrap());
    }
    panic!("{test}: pydap did not start");
}

impl Pydap {
    /// The URL of `name` in the served directory.
    pub(crate) fn url(&self, name: &str) -> String {
        format!("http://127.0.0.1:{}/{name}", self.port)
    }

    /// Run a Python script (netCDF4 imported as `netCDF4`, numpy as `np`) in the
    /// served directory.
    pub(crate) fn write(&self, script: &str) {
        let full = format!("import netCDF4, numpy as np\n{script}");
        let out = Command::new(&self.python)
            .args(["-c", &full])
            .current_dir(self.dir.path())
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "writing the served files failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// What ncdump (netcdf-c 4.9.0's DAP2 client) prints with `args`, or None without it.
pub(crate) fn ncdump(args: &[&str]) -> Option<(String, String, bool)> {
    let out = Command::new("ncdump").args(args).output().ok()?;
    Some((
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        out.status.success(),
    ))
}

/// The THREDDS- and Hyrax-like server of `tests/cli/data/dap/fixture_server.py`
/// (Grids, `NC_GLOBAL`, `DODS_EXTRA`, escaped names, structures, sequences, and
/// answers that are errors, cut short, stalled or over a response limit).
pub(crate) struct Fixtures {
    child: Child,
    pub(crate) port: u16,
}

impl Drop for Fixtures {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The fixture server, or None (skipped, the reason printed) without a Python that
/// has numpy.
pub(crate) fn fixtures(test: &str) -> Option<Fixtures> {
    use std::io::BufRead;
    let Some(python) = crate::util::python_with("numpy") else {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "CI: {test}: no Python with numpy"
        );
        eprintln!("skipped {test}: no Python with numpy (NCZARR_PYTHON)");
        return None;
    };
    let script = crate::util::data_dir().join("dap/fixture_server.py");
    let mut child = Command::new(python)
        .arg(&script)
        .arg("0")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    let stdout = child.stdout.take().unwrap();
    std::io::BufReader::new(stdout)
        .read_line(&mut line)
        .unwrap();
    let port = line.trim().parse().expect("the fixture server's port");
    Some(Fixtures { child, port })
}

impl Fixtures {
    /// The URL of `path` (`thredds/dodsC/grid.nc`).
    pub(crate) fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}/{path}", self.port)
    }
}

/// A TCP proxy in front of a server that counts the bytes the server sends back
/// (answers, headers included): what a subset moves over the network.
pub(crate) struct CountingProxy {
    pub(crate) port: u16,
    bytes: std::sync::Arc<std::sync::atomic::AtomicU64>,
}

impl CountingProxy {
    /// A proxy to `127.0.0.1:upstream`, running until the test ends.
    pub(crate) fn start(upstream: u16) -> CountingProxy {
        use std::io::{Read, Write};
        use std::sync::atomic::Ordering;
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let bytes = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
        let counted = bytes.clone();
        std::thread::spawn(move || {
            for client in listener.incoming().flatten() {
                let Ok(server) = std::net::TcpStream::connect(("127.0.0.1", upstream)) else {
                    continue;
                };
                let (mut c_read, mut s_write) =
                    (client.try_clone().unwrap(), server.try_clone().unwrap());
                std::thread::spawn(move || {
                    let _ = std::io::copy(&mut c_read, &mut s_write);
                    let _ = s_write.shutdown(std::net::Shutdown::Write);
                });
                let counted = counted.clone();
                let (mut s_read, mut c_write) = (server, client);
                std::thread::spawn(move || {
                    let mut buf = vec![0u8; 1 << 16];
                    loop {
                        match s_read.read(&mut buf) {
                            Ok(0) | Err(_) => break,
                            Ok(n) => {
                                counted.fetch_add(n as u64, Ordering::Relaxed);
                                if c_write.write_all(&buf[..n]).is_err() {
                                    break;
                                }
                            }
                        }
                    }
                    let _ = c_write.shutdown(std::net::Shutdown::Write);
                });
            }
        });
        CountingProxy { port, bytes }
    }

    /// Bytes sent back so far.
    pub(crate) fn bytes(&self) -> u64 {
        self.bytes.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Start counting again.
    pub(crate) fn reset(&self) {
        self.bytes.store(0, std::sync::atomic::Ordering::Relaxed);
    }
}

/// The DAP4 server of `tests/cli/data/dap/dap4_server.py` over a directory of
/// netCDF-4 files the test writes (chunked responses, checksums, byte orders, and
/// answers that are broken or over a response limit, by path prefix).
pub(crate) struct Dap4Server {
    child: Child,
    pub(crate) port: u16,
    pub(crate) dir: tempfile::TempDir,
    python: String,
}

impl Drop for Dap4Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The DAP4 server, or None (skipped, the reason printed) without a Python that has
/// netCDF4 (a failure under `CI=true`).
pub(crate) fn dap4_server(test: &str) -> Option<Dap4Server> {
    use std::io::BufRead;
    let Some(python) = crate::util::python_with("netCDF4, numpy") else {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "CI: {test}: no Python with netCDF4"
        );
        eprintln!("skipped {test}: no Python with netCDF4 (NCZARR_PYTHON)");
        return None;
    };
    let dir = tempfile::tempdir().unwrap();
    let script = crate::util::data_dir().join("dap/dap4_server.py");
    let mut child = Command::new(&python)
        .arg(&script)
        .arg(dir.path())
        .arg("0")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    let stdout = child.stdout.take().unwrap();
    std::io::BufReader::new(stdout)
        .read_line(&mut line)
        .unwrap();
    let port = line.trim().parse().expect("the DAP4 server's port");
    Some(Dap4Server {
        child,
        port,
        dir,
        python,
    })
}

impl Dap4Server {
    /// The URL of `path` (`t.nc`, `be/t.nc`), without a fragment.
    pub(crate) fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}/{path}", self.port)
    }

    /// Run a Python script (netCDF4 as `netCDF4`, numpy as `np`) in the served directory.
    pub(crate) fn write(&self, script: &str) {
        let full = format!("import netCDF4, numpy as np\n{script}");
        let out = Command::new(&self.python)
            .args(["-c", &full])
            .current_dir(self.dir.path())
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "writing the served files failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    /// The Python the server runs on.
    pub(crate) fn python(&self) -> &str {
        &self.python
    }
}
