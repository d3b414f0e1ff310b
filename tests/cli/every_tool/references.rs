//! What a reference file, or a web server, may make us read (issue 61): a kerchunk
//! reference file from the network names no local file unless the reader allows it,
//! nothing from elsewhere leads to a loopback, link-local or metadata address (not by
//! a reference, not by a redirect), and a reference never carries the credentials of
//! the store its reference file came from. Each refusal is one line naming the key,
//! where it leads and the rule, and nothing is read from there. And (issue 44) every
//! tool reads reference files, ours and kerchunk's.
//!
//! The tests serve from 127.0.0.1, which counts as such an address: a reference file
//! there may name loopback servers. Where the machine has another address of its own
//! (found by asking which source address a route out would use), a server there plays
//! the part of a server on the internet; without one those tests say they are skipped,
//! and the library's unit tests (`nczarr::reach`) cover the decisions.

use std::collections::HashMap;
use std::fs;
use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::path::Path;
use std::sync::{Arc, Mutex};

use crate::util::kerchunk::file_and_refs;
use crate::util::{python_with, run, run_clean, s, RangeServer};

/// What [`Recorder`] answers for a path.
#[derive(Clone)]
enum Answer {
    /// The bytes (ranges honoured).
    Body(Vec<u8>),
    /// A `302 Found` to this URL.
    Redirect(String),
}

/// A web server that answers the paths it was given and records every request it
/// gets (its request line and headers, as sent), so a test can say what was asked and
/// which headers came with it.
struct Recorder {
    url: String,
    routes: Arc<Mutex<HashMap<String, Answer>>>,
    seen: Arc<Mutex<Vec<String>>>,
}

impl Recorder {
    /// A server on `host` (an address of this machine), on a free port.
    fn start(host: &str) -> Recorder {
        let listener = TcpListener::bind((host, 0)).unwrap();
        let addr = listener.local_addr().unwrap();
        let url = format!("http://{addr}");
        let routes: Arc<Mutex<HashMap<String, Answer>>> = Arc::default();
        let seen: Arc<Mutex<Vec<String>>> = Arc::default();
        let (r, s) = (Arc::clone(&routes), Arc::clone(&seen));
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let (routes, seen) = (Arc::clone(&r), Arc::clone(&s));
                std::thread::spawn(move || {
                    let mut reader = BufReader::new(stream.try_clone().unwrap());
                    let mut out = stream;
                    loop {
                        let mut request = String::new();
                        let mut line = String::new();
                        if reader.read_line(&mut line).unwrap_or(0) == 0 {
                            return;
                        }
                        request.push_str(&line);
                        let mut words = line.split_whitespace();
                        let method = words.next().unwrap_or("").to_string();
                        let path = words.next().unwrap_or("/").to_string();
                        let mut range = None;
                        loop {
                            let mut h = String::new();
                            if reader.read_line(&mut h).unwrap_or(0) == 0 {
                                return;
                            }
                            if h.trim_end().is_empty() {
                                break;
                            }
                            request.push_str(&h);
                            if let Some((k, v)) = h.trim_end().split_once(':') {
                                if k.eq_ignore_ascii_case("range") {
                                    range = v.trim().strip_prefix("bytes=").map(str::to_string);
                                }
                            }
                        }
                        seen.lock().unwrap().push(request);
                        let path = path.split('?').next().unwrap_or("").to_string();
                        let answer = routes.lock().unwrap().get(&path).cloned();
                        let answer: Vec<u8> = match answer {
                            None => b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n".to_vec(),
                            Some(Answer::Redirect(to)) => format!(
                                "HTTP/1.1 302 Found\r\nLocation: {to}\r\nContent-Length: 0\r\n\r\n"
                            )
                            .into_bytes(),
                            Some(Answer::Body(body)) => {
                                let len = body.len();
                                let (status, part, extra) = match range {
                                    Some(r) if len > 0 => {
                                        let (a, b) = r.split_once('-').unwrap();
                                        let a: usize = a.parse().unwrap();
                                        let b =
                                            b.parse::<usize>().map_or(len - 1, |b| b.min(len - 1));
                                        (
                                            "206 Partial Content",
                                            &body[a..=b],
                                            format!("Content-Range: bytes {a}-{b}/{len}\r\n"),
                                        )
                                    }
                                    _ => ("200 OK", &body[..], String::new()),
                                };
                                let mut answer = format!(
                                    "HTTP/1.1 {status}\r\nContent-Length: {}\r\n{extra}Accept-Ranges: bytes\r\nLast-Modified: Mon, 23 Nov 2026 10:00:00 GMT\r\nETag: \"{len}\"\r\n\r\n",
                                    part.len()
                                )
                                .into_bytes();
                                if method != "HEAD" {
                                    answer.extend_from_slice(part);
                                }
                                answer
                            }
                        };
                        if out.write_all(&answer).is_err() {
                            return;
                        }
                    }
                });
            }
        });
        Recorder { url, routes, seen }
    }

    fn serve(&self, path: &str, answer: Answer) -> &Recorder {
        self.routes.lock().unwrap().insert(path.to_string(), answer);
        self
    }

    /// Every request so far, each its request line and headers.
    fn requests(&self) -> Vec<String> {
        self.seen.lock().unwrap().clone()
    }

    /// The requests so far for `path`.
    fn requests_for(&self, path: &str) -> Vec<String> {
        let line = format!(" {path} HTTP/");
        self.requests()
            .into_iter()
            .filter(|r| r.lines().next().is_some_and(|l| l.contains(&line)))
            .collect()
    }
}

/// An address of this machine other than loopback, link-local or a metadata
/// service: the one a route out would leave from (no packet is sent to find it).
fn own_public_address() -> Option<String> {
    let socket = std::net::UdpSocket::bind("0.0.0.0:0").ok()?;
    socket.connect("203.0.113.1:9").ok()?;
    let ip = socket.local_addr().ok()?.ip();
    let class = nczarr::reach::classify_url(&format!("http://{ip}/"))
        .ok()?
        .0;
    (class == nczarr::reach::HostClass::Public).then(|| ip.to_string())
}

/// This machine's name, when it resolves to 127.0.0.1 only (as /etc/hosts often
/// says) and is not a name classed as loopback by itself.
fn loopback_name() -> Option<String> {
    use std::net::ToSocketAddrs;
    let out = std::process::Command::new("hostname").output().ok()?;
    let name = String::from_utf8(out.stdout).ok()?.trim().to_string();
    let by_name = nczarr::reach::classify_name(&name);
    let ips: Vec<_> = (name.as_str(), 0)
        .to_socket_addrs()
        .ok()?
        .map(|a| a.ip())
        .collect();
    let loopback = !ips.is_empty() && ips.iter().all(|ip| ip.to_string() == "127.0.0.1");
    (loopback && by_name == nczarr::reach::HostClass::Public).then_some(name)
}

/// Kerchunk references to a pure Zarr dataset of one `|S1` variable `tas` of `len`
/// characters, whose one chunk is `[url, 0, len]`.
fn refs_to(url: &str, len: usize) -> String {
    refs_of(&[("tas", url, len)])
}

/// Kerchunk references to a pure Zarr dataset with a `|S1` variable per entry of
/// `vars` (name, the URL of its one chunk, its length).
fn refs_of(vars: &[(&str, &str, usize)]) -> String {
    let mut refs = vec![r#"".zgroup": "{\"zarr_format\": 2}""#.to_string()];
    for (i, (name, url, len)) in vars.iter().enumerate() {
        refs.push(format!(
            r#""{name}/.zarray": "{{\"chunks\": [{len}], \"compressor\": null, \"dtype\": \"|S1\", \"fill_value\": null, \"filters\": null, \"order\": \"C\", \"shape\": [{len}], \"zarr_format\": 2}}""#
        ));
        refs.push(format!(
            r#""{name}/.zattrs": "{{\"_ARRAY_DIMENSIONS\": [\"n{i}\"]}}""#
        ));
        refs.push(format!(r#""{name}/0": ["{url}", 0, {len}]"#));
    }
    format!("{{\"version\": 1, \"refs\": {{{}}}}}", refs.join(", "))
}

const SECRET: &str = "SECRET-61-abcdef";

/// A file of the user's, with known bytes, in `dir`.
fn secret_file(dir: &Path) -> String {
    let path = dir.join("secret.txt");
    fs::write(&path, SECRET).unwrap();
    path.to_string_lossy().into_owned()
}

/// Issue 61: a reference file on a web server that names a local file (`file://` or a
/// bare path) is refused by every reading tool, with one line naming the key and the
/// file, and nothing of the file printed or copied; --allow-local-refs (or
/// `#refs.local=allow`) allows it, and a reference file on this machine always may.
#[test]
fn a_reference_file_from_a_web_server_cannot_name_local_files() {
    let tmp = tempfile::tempdir().unwrap();
    let secret = secret_file(tmp.path());
    let web = tmp.path().join("web");
    fs::create_dir(&web).unwrap();
    fs::write(
        web.join("uri.json"),
        refs_to(&format!("file://{secret}"), 16),
    )
    .unwrap();
    fs::write(web.join("path.json"), refs_to(&secret, 16)).unwrap();
    let server = RangeServer::start(&web, true);
    for (name, written) in [
        ("uri.json", format!("file://{secret}")),
        ("path.json", secret.clone()),
    ] {
        let url = format!("{}/{name}", server.url);
        let refused = format!(
            "{url}: key 'tas/0': reference to local file '{secret}' from a remote reference \
             file or repository refused (--allow-local-refs or #refs.local=allow allows it)"
        );
        let r = run("nczdump", &[&url]);
        assert_eq!(r.fails_with_one_line(1), format!("nczdump: {refused}"));
        assert!(!r.stdout().contains("SECRET"), "{written}: {}", r.stdout());
        let out = tmp.path().join(format!("{name}.zarr"));
        let r = run("nczcopy", &[&url, &s(&out)]);
        assert_eq!(r.fails_with_one_line(1), format!("nczcopy: {refused}"));
        assert!(!out.exists(), "{name}: nczcopy wrote {}", out.display());
        // nczcmp's status for an error, as nccmp's: 2 (1 says the datasets differ).
        let r = run("nczcmp", &[&url, &url]);
        assert_eq!(r.fails_with_one_line(2), format!("nczcmp: {refused}"));
        let r = run("zmapdump", &["object", &url, "tas/0"]);
        assert_eq!(r.fails_with_one_line(1), format!("zmapdump: {refused}"));
        assert!(!r.stdout().contains("SECRET"), "{}", r.stdout());

        // Allowed by the reader: the flag, or the fragment on the file's URL.
        let got = run("nczdump", &["--allow-local-refs", &url]);
        got.success();
        assert!(got.stdout().contains(SECRET), "{}", got.stdout());
        let got = run(
            "nczdump",
            &[&format!("{url}#mode=kerchunk&refs.local=allow")],
        );
        got.success();
        assert!(got.stdout().contains(SECRET), "{}", got.stdout());
        run("zmapdump", &["--allow-local-refs", "object", &url, "tas/0"]).success();
        run("zmapdump", &["object", "--allow-local-refs", &url, "tas/0"]).success();
        let out = tmp.path().join(format!("{name}-allowed.zarr"));
        run("nczcopy", &["--allow-local-refs", &url, &s(&out)]).success();
        run("nczcmp", &["--allow-local-refs", &url, &s(&out)]).success();

        // The same file on this machine names local files as our own -k kerchunk does.
        let got = run("nczdump", &[&s(&web.join(name))]);
        got.success();
        assert!(got.stdout().contains(SECRET), "{}", got.stdout());
    }
    let e = run(
        "nczdump",
        &[&format!("{}/uri.json#refs.local=yes", server.url)],
    )
    .fails_with_one_line(1);
    assert!(
        e.ends_with("refs.local must be 'allow' or 'refuse', not 'yes'"),
        "{e}"
    );
}

/// A reference file on 127.0.0.1 may name files on loopback servers (tests serve both
/// so), but not a cloud metadata service or a link-local address, in any spelling;
/// one on this machine neither. Refused before any request: the dump fails at once,
/// not after a connection timeout.
#[test]
fn metadata_and_link_local_addresses_are_refused_from_loopback_and_local_files() {
    let tmp = tempfile::tempdir().unwrap();
    let data = Recorder::start("127.0.0.1");
    data.serve("/data.bin", Answer::Body(SECRET.as_bytes().to_vec()));
    let web = tmp.path().join("web");
    fs::create_dir(&web).unwrap();
    fs::write(
        web.join("loop.json"),
        refs_to(&format!("{}/data.bin", data.url), 16),
    )
    .unwrap();
    let targets = [
        (
            "http://169.254.169.254/latest/meta-data/iam/",
            "169.254.169.254",
            "a cloud metadata service",
            "from a metadata service",
        ),
        (
            "http://0xA9FEA9FE/latest/meta-data/",
            "169.254.169.254",
            "a cloud metadata service",
            "from a metadata service",
        ),
        (
            "http://[::ffff:169.254.169.254]/latest/",
            "[::ffff:a9fe:a9fe]",
            "a cloud metadata service",
            "from a metadata service",
        ),
        (
            "http://metadata.google.internal/computeMetadata/v1/",
            "metadata.google.internal",
            "a cloud metadata service",
            "from a metadata service",
        ),
        (
            "http://169.254.10.1/x",
            "169.254.10.1",
            "a link-local address",
            "from a link-local address",
        ),
    ];
    for (i, (target, ..)) in targets.iter().enumerate() {
        fs::write(web.join(format!("t{i}.json")), refs_to(target, 16)).unwrap();
    }
    let server = RangeServer::start(&web, true);
    let got = run("nczdump", &[&format!("{}/loop.json", server.url)]);
    got.success();
    assert!(got.stdout().contains(SECRET), "{}", got.stdout());
    for (i, (target, host, class, from)) in targets.iter().enumerate() {
        for name in [
            format!("{}/t{i}.json", server.url),
            s(&web.join(format!("t{i}.json"))),
        ] {
            let started = std::time::Instant::now();
            let e = run("nczdump", &[&name]).fails_with_one_line(1);
            assert_eq!(
                e,
                format!(
                    "nczdump: {name}: key 'tas/0': reference to '{target}' refused: {host} is \
                     {class}, which a reference file may name only {from}"
                )
            );
            // Under the 5 s a connection attempt would wait.
            assert!(
                started.elapsed().as_secs() < 4,
                "{name}: not refused at once"
            );
        }
    }
}

/// A reference file on a server that is not on this machine's loopback (here: a
/// server on this machine's own network address) names no loopback address, and no
/// metadata service; a server's redirect cannot lead there either. Nothing is asked of
/// the loopback server.
#[test]
fn a_remote_reference_file_cannot_reach_loopback_or_metadata_addresses() {
    let Some(own) = own_public_address() else {
        eprintln!("skipped: this machine has no address besides loopback to serve from");
        return;
    };
    let inside = Recorder::start("127.0.0.1");
    inside.serve("/secret.bin", Answer::Body(SECRET.as_bytes().to_vec()));
    let port = inside.url.rsplit(':').next().unwrap().to_string();
    let outside = Recorder::start(&own);
    outside.serve("/public.bin", Answer::Body(b"PUBLIC-61-abcdef".to_vec()));
    outside.serve(
        "/moved.bin",
        Answer::Redirect(format!("{}/secret.bin", inside.url)),
    );
    let cases = [
        (
            format!("{}/secret.bin", inside.url),
            "127.0.0.1".to_string(),
        ),
        (
            format!("http://localhost:{port}/secret.bin"),
            "localhost".into(),
        ),
        (
            format!("http://[::ffff:127.0.0.1]:{port}/secret.bin"),
            "[::ffff:7f00:1]".into(),
        ),
        (
            format!("http://2130706433:{port}/secret.bin"),
            "127.0.0.1".into(),
        ),
        (
            format!("http://0.0.0.0:{port}/secret.bin"),
            "0.0.0.0".into(),
        ),
    ];
    for (i, (target, host)) in cases.iter().enumerate() {
        outside.serve(
            &format!("/r{i}.json"),
            Answer::Body(refs_to(target, 16).into_bytes()),
        );
        let url = format!("{}/r{i}.json", outside.url);
        let e = run("nczdump", &[&url]).fails_with_one_line(1);
        assert_eq!(
            e,
            format!(
                "nczdump: {url}: key 'tas/0': reference to '{target}' refused: {host} is a \
                 loopback address, which a reference file may name only from this machine or a \
                 loopback address"
            )
        );
    }
    // A name of no special kind that DNS (here /etc/hosts) answers with loopback.
    if let Some(name) = loopback_name() {
        let target = format!("http://{name}:{port}/secret.bin");
        outside.serve(
            "/named.json",
            Answer::Body(refs_to(&target, 16).into_bytes()),
        );
        let url = format!("{}/named.json", outside.url);
        let e = run("nczdump", &[&url]).fails_with_one_line(1);
        assert!(
            e.contains(&format!(
                "host '{name}' refused: it resolves to 127.0.0.1, a loopback address, which a \
                 reference file may name only from this machine or a loopback address"
            )),
            "{e}"
        );
    } else {
        eprintln!("skipped the DNS part: this machine's name does not resolve to 127.0.0.1");
    }
    outside.serve(
        "/meta.json",
        Answer::Body(refs_to("http://169.254.169.254/latest/meta-data/", 16).into_bytes()),
    );
    let e = run("nczdump", &[&format!("{}/meta.json", outside.url)]).fails_with_one_line(1);
    assert!(
        e.contains("169.254.169.254 is a cloud metadata service"),
        "{e}"
    );
    // A public reference whose server redirects to loopback: refused at the redirect.
    outside.serve(
        "/redirected.json",
        Answer::Body(refs_to(&format!("{}/moved.bin", outside.url), 16).into_bytes()),
    );
    let e = run("nczdump", &[&format!("{}/redirected.json", outside.url)]).fails_with_one_line(1);
    assert!(
        e.contains(&format!(
            "redirect from '{}/moved.bin' to '{}/secret.bin' refused: 127.0.0.1 is a loopback \
             address",
            outside.url, inside.url
        )),
        "{e}"
    );
    assert!(inside.requests().is_empty(), "{:?}", inside.requests());
    // The public reference itself is read.
    outside.serve(
        "/ok.json",
        Answer::Body(refs_to(&format!("{}/public.bin", outside.url), 16).into_bytes()),
    );
    let got = run("nczdump", &[&format!("{}/ok.json", outside.url)]);
    got.success();
    assert!(got.stdout().contains("PUBLIC-61"), "{}", got.stdout());
}

/// A web server's redirect to a metadata service is not followed, whatever was asked
/// (a dataset named by the user too); one to the same kind of address is.
#[test]
fn redirects_to_metadata_services_are_not_followed() {
    let tmp = tempfile::tempdir().unwrap();
    let server = Recorder::start("127.0.0.1");
    server.serve(
        "/x.nc",
        Answer::Redirect("http://169.254.169.254/latest/meta-data/x.nc".into()),
    );
    let url = format!("{}/x.nc", server.url);
    let started = std::time::Instant::now();
    let e = run("nczdump", &[&url]).fails_with_one_line(1);
    assert!(
        e.contains(&format!(
            "redirect from '{url}' to 'http://169.254.169.254/latest/meta-data/x.nc' refused: \
             169.254.169.254 is a cloud metadata service, which a redirect may lead to only from \
             such an address"
        )),
        "{e}"
    );
    assert!(started.elapsed().as_secs() < 4, "not refused at once");
    // Loopback to loopback: followed.
    let cdl = tmp.path().join("r.cdl");
    fs::write(
        &cdl,
        "netcdf r {\ndimensions:\n\tx = 2 ;\nvariables:\n\tint v(x) ;\ndata:\n v = 1, 2 ;\n}\n",
    )
    .unwrap();
    let nc = tmp.path().join("r.nc");
    crate::util::nczgen(&["-k", "classic", "-o", &s(&nc), &s(&cdl)]).success();
    server.serve("/real.nc", Answer::Body(fs::read(&nc).unwrap()));
    server.serve(
        "/moved.nc",
        Answer::Redirect(format!("{}/real.nc", server.url)),
    );
    let got = run("nczdump", &[&format!("{}/moved.nc", server.url)]);
    got.success();
    assert!(got.stdout().contains("v = 1, 2 ;"), "{}", got.stdout());
}

/// A reference file in S3 read with the user's keys: a `http(s)://` reference is
/// fetched with no credentials at all (no signature, no session token), an `s3://`
/// reference goes to the user's own endpoint with the user's keys, and a reference
/// whose fragment would make it S3 at another host is refused without a request.
/// (The S3 endpoint is a recording server, which answers without checking signatures.)
#[test]
fn references_never_carry_the_credentials_of_the_reference_files_store() {
    let home = tempfile::tempdir().unwrap();
    let s3 = Recorder::start("127.0.0.1");
    let web = Recorder::start("127.0.0.1");
    web.serve("/data.bin", Answer::Body(b"WEBDATA1".to_vec()));
    s3.serve("/bucket2/chunk.bin", Answer::Body(b"S3DATA!!".to_vec()));
    let refs = refs_of(&[
        ("a", &format!("{}/data.bin", web.url), 8),
        ("b", "s3://bucket2/chunk.bin", 8),
    ]);
    s3.serve("/bucket/refs.json", Answer::Body(refs.into_bytes()));
    let sneaky = refs_to(&format!("{}/bucket3/k#mode=s3", web.url), 8);
    s3.serve("/bucket/sneaky.json", Answer::Body(sneaky.into_bytes()));
    let env = [
        ("AWS_ACCESS_KEY_ID", "AKIDTEST61".to_string()),
        ("AWS_SECRET_ACCESS_KEY", "secret61secret61".to_string()),
        ("AWS_SESSION_TOKEN", "TOKEN61TOKEN61".to_string()),
        ("AWS_ENDPOINT_URL", s3.url.clone()),
        ("AWS_ALLOW_HTTP", "true".to_string()),
        ("AWS_REGION", "us-east-1".to_string()),
    ];
    let got = run_clean(
        "nczdump",
        home.path(),
        &["s3://bucket/refs.json#mode=kerchunk"],
        &env,
    );
    got.success();
    assert!(
        got.stdout().contains("WEBDATA1") && got.stdout().contains("S3DATA!!"),
        "{}",
        got.stdout()
    );
    let signed = |r: &String| r.contains("Credential=AKIDTEST61") && r.contains("TOKEN61TOKEN61");
    // The reference file and the s3:// reference: the user's endpoint, the user's keys.
    assert!(s3.requests_for("/bucket/refs.json").iter().all(signed));
    let chunk = s3.requests_for("/bucket2/chunk.bin");
    assert!(!chunk.is_empty() && chunk.iter().all(signed), "{chunk:?}");
    // The web reference: nothing of them.
    let asked = web.requests();
    assert!(!asked.is_empty());
    for r in &asked {
        let lower = r.to_ascii_lowercase();
        assert!(
            !lower.contains("authorization")
                && !lower.contains("x-amz-")
                && !r.contains("AKIDTEST61")
                && !r.contains("TOKEN61"),
            "{r}"
        );
    }
    let e = run_clean(
        "nczdump",
        home.path(),
        &["s3://bucket/sneaky.json#mode=kerchunk"],
        &env,
    )
    .fails_with_one_line(1);
    assert!(
        e.contains(&format!(
            "key 'tas/0': reference to '{}/bucket3/k#mode=s3' refused: a reference's URL may \
             not have a '#' fragment",
            web.url
        )),
        "{e}"
    );
    assert!(web.requests_for("/bucket3/k").is_empty());
}

/// References are a dataset for every tool: nczcmp finds ours and kerchunk's own
/// (SingleHdf5ToZarr, NetCDF3ToZarr) equal to their files, nczcopy materialises
/// them, nczdump subsets them, zmapdump lists their keys.
#[test]
fn every_tool_reads_references_ours_and_kerchunks() {
    let tmp = tempfile::tempdir().unwrap();
    let cdl = tmp.path().join("t.cdl");
    let values: Vec<String> = (0..4 * 50).map(|i| (i * 3).to_string()).collect();
    fs::write(
        &cdl,
        format!(
            "netcdf t {{\ndimensions:\n\ttime = UNLIMITED ;\n\tx = 50 ;\nvariables:\n\
             \tdouble time(time) ;\n\t\ttime:units = \"hours since 2001-01-01\" ;\n\
             \tint v(time, x) ;\n\t\tv:units = \"m\" ;\ndata:\n time = 0, 1, 2, 3 ;\n v = {} ;\n}}\n",
            values.join(", ")
        ),
    )
    .unwrap();
    let mut sets = Vec::new();
    for kind in ["nc4", "classic"] {
        let nc = tmp.path().join(format!("t-{kind}.nc"));
        let ours = tmp.path().join(format!("ours-{kind}.json"));
        file_and_refs(&cdl, kind, &nc, &ours);
        sets.push((nc.clone(), ours));
        if let Some(py) = python_with("kerchunk, h5py, scipy") {
            let theirs = tmp.path().join(format!("theirs-{kind}.json"));
            let script = "import sys, json, warnings\nwarnings.simplefilter('ignore')\n\
                 import kerchunk.hdf, kerchunk.netCDF3\n\
                 f, out, kind = sys.argv[1:4]\n\
                 r = (kerchunk.hdf.SingleHdf5ToZarr(f, f, inline_threshold=0) if kind == 'nc4' else kerchunk.netCDF3.NetCDF3ToZarr(f, inline_threshold=0)).translate()\n\
                 json.dump(r, open(out, 'w'))\n";
            crate::util::python_succeeds(&py, script, &[&s(&nc), &s(&theirs), kind], "kerchunk");
            sets.push((nc, theirs));
        }
    }
    for (nc, refs) in &sets {
        let r = run("nczcmp", &[&s(nc), &s(refs)]);
        assert_eq!(r.code(), 0, "{}: {}{}", s(refs), r.stdout(), r.stderr());
        let out = refs.with_extension("zarr");
        run("nczcopy", &[&s(refs), &s(&out)]).success();
        assert_eq!(run("nczcmp", &[&s(nc), &s(&out)]).code(), 0, "{}", s(&out));
        let cut = run("nczdump", &["--dim", "time,2", "-v", "v", &s(refs)]);
        assert!(cut.stdout().contains("300, 303"), "{}", cut.stdout());
        let keys = run("zmapdump", &["list", &s(refs)]);
        assert!(keys.stdout().contains("v/.zarray"), "{}", keys.stdout());
    }
}
