//! S3 under faults: every tool through `scripts/fault_proxy.py` in front of the local
//! S3 server, which answers 503 and 500, resets connections, cuts bodies short and
//! slows answers down. A run completes with the output of a fault-free run, or fails in
//! one line naming the key after a bounded number of tries, leaving no dataset that
//! looks complete; the secret key never shows. Skipped without the server.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use nczarr::store::ListableStore;

use crate::util::s3::{server, Server};
use crate::util::{data_dir, run_in, Run};

/// The fault proxy, stopped when dropped.
struct Proxy {
    child: Child,
    port: u16,
    stats: tempfile::NamedTempFile,
}

impl Proxy {
    fn start(s: &Server, rate: f64, faults: &str, seed: u32) -> Proxy {
        let stats = tempfile::NamedTempFile::new().expect("stats file");
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/fault_proxy.py");
        let mut child = Command::new("python3")
            .arg(script)
            .args([
                "--upstream",
                &s.endpoint,
                "--faults",
                faults,
                "--slow",
                "0.3",
            ])
            .args(["--rate", &rate.to_string(), "--seed", &seed.to_string()])
            .arg("--stats")
            .arg(stats.path())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("python3 scripts/fault_proxy.py");
        let mut line = String::new();
        let out = child.stdout.take().expect("proxy stdout");
        BufReader::new(out)
            .read_line(&mut line)
            .expect("proxy port");
        let port = line.trim().parse().expect("proxy prints its port");
        Proxy { child, port, stats }
    }

    /// `url` of the server, through the proxy.
    fn url(&self, s: &Server, name: &str) -> String {
        s.url(name)
            .replacen(&s.endpoint, &format!("http://127.0.0.1:{}", self.port), 1)
    }

    /// The proxy's counts: requests, forwarded, and each fault.
    fn count(&self, what: &str) -> u64 {
        let text = std::fs::read_to_string(self.stats.path()).unwrap_or_default();
        let json = nczarr::json::parse_str(&text).unwrap_or(nczarr::json::Json::Null);
        json.get(what)
            .and_then(|v| v.as_number())
            .and_then(|n| n.as_u64())
            .unwrap_or(0)
    }

    fn faults(&self) -> u64 {
        ["503", "500", "reset", "truncate", "slow"]
            .iter()
            .map(|f| self.count(f))
            .sum()
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Neither output stream of `r` shows the secret key.
fn no_secret(s: &Server, r: &Run) {
    assert!(
        !s.secret.is_empty() && !r.stdout().contains(&s.secret) && !r.stderr().contains(&s.secret),
        "the secret key shows in the output of {}",
        r.desc
    );
}

fn ok(s: &Server, r: Run) -> Run {
    no_secret(s, &r);
    r.success();
    r
}

#[test]
fn tools_complete_through_faults_with_the_output_of_a_fault_free_run() {
    let Some(s) = server("faults_complete") else {
        return;
    };
    let cdl = data_dir().join("golden/cases/chunked.cdl");
    let cdl = cdl.to_str().unwrap();
    let local = tempfile::tempdir().unwrap();
    let reference = local.path().join("a.zarr");
    run_in(
        "nczgen",
        local.path(),
        &["-o", reference.to_str().unwrap(), cdl],
    )
    .success();
    let expected = run_in("nczdump", local.path(), &[reference.to_str().unwrap()]).stdout();

    // One fault in four requests, every kind.
    let proxy = Proxy::start(&s, 0.25, "503,500,reset,truncate,slow", 11);
    let keys = s.keys();
    let env: Vec<(&str, String)> = keys.iter().map(|(k, v)| (*k, v.clone())).collect();
    let a = proxy.url(&s, "a.zarr");
    ok(&s, s.run("nczgen", &["-o", &a, cdl], &env));
    ok(&s, s.run("nczdump", &[&a], &env)).stdout_is(&expected);
    ok(&s, s.run("nczdump", &[&s.url("a.zarr")], &env)).stdout_is(&expected);
    let b = proxy.url(&s, "b/a.zarr");
    ok(&s, s.run("nczcopy", &[&a, &b], &env));
    ok(&s, s.run("nczdump", &[&s.url("b/a.zarr")], &env)).stdout_is(&expected);
    let down = local.path().join("down/a.zarr");
    std::fs::create_dir_all(down.parent().unwrap()).unwrap();
    ok(&s, s.run("nczcopy", &[&a, down.to_str().unwrap()], &env));
    run_in("nczdump", local.path(), &[down.to_str().unwrap()]).stdout_is(&expected);
    let traced: Vec<(&str, String)> = env
        .iter()
        .cloned()
        .chain([("NCTRACING", "1".to_string())])
        .collect();
    // Traced: every request and retry is reported, and still no secret.
    let r = s.run("zmapdump", &["list", &a], &traced);
    no_secret(&s, &r);
    assert_eq!(r.code(), 0, "{}", r.stderr());
    assert!(r.stderr().contains("trace:"), "{}", r.stderr());

    let (requests, forwarded, faults) = (
        proxy.count("requests"),
        proxy.count("forwarded"),
        proxy.faults(),
    );
    eprintln!("faults: {requests} requests, {forwarded} forwarded, {faults} faults");
    assert!(faults >= 20, "only {faults} faults in {requests} requests");
    assert!(proxy.count("truncate") > 0 && proxy.count("reset") > 0 && proxy.count("503") > 0);
}

#[test]
fn persistent_faults_fail_in_one_line_naming_the_key_after_bounded_tries() {
    let Some(s) = server("faults_persistent") else {
        return;
    };
    let cdl = data_dir().join("golden/cases/chunked.cdl");
    let keys = s.keys();
    let env: Vec<(&str, String)> = keys.iter().map(|(k, v)| (*k, v.clone())).collect();
    // A dataset to read, written without faults.
    s.run(
        "nczgen",
        &["-o", &s.url("r.zarr"), cdl.to_str().unwrap()],
        &env,
    )
    .success();
    for fault in ["503", "reset", "truncate"] {
        let proxy = Proxy::start(&s, 1.0, fault, 1);
        let started = Instant::now();
        let r = s.run("nczdump", &[&proxy.url(&s, "r.zarr")], &env);
        no_secret(&s, &r);
        let err = r.fails_with_one_line(1);
        assert!(
            err.contains("r.zarr/.zmetadata: request failed"),
            "{fault}: {err}"
        );
        let tries = proxy.count("requests");
        // object_store's 5 tries, each run up to 4 times by ours for a cut body.
        assert!((2..=25).contains(&tries), "{fault}: {tries} requests");
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "{fault}: too slow"
        );

        let name = format!("w-{fault}.zarr");
        let r = s.run(
            "nczgen",
            &["-o", &proxy.url(&s, &name), cdl.to_str().unwrap()],
            &env,
        );
        no_secret(&s, &r);
        let err = r.fails_with_one_line(1);
        // The first request is the look at what is at (and around) the output.
        assert!(
            err.contains(&format!("{name}: request failed"))
                || (err.contains(&format!("{name}#mode=nczarr,s3: s3://"))
                    && err.contains(": request failed")),
            "{fault}: {err}"
        );
        // Nothing was written that could look like a dataset.
        assert!(
            s.store(&name).list().unwrap().is_empty(),
            "{fault}: objects left"
        );
    }
}
