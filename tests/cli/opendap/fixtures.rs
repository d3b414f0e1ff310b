//! Against a server answering as THREDDS and Hyrax do (`data/dap/fixture_server.py`):
//! grids, global and nested tables, escaped names, structures and sequences, answers
//! over a response limit, a login through NASA Earthdata's redirects, and broken
//! answers.

use crate::util::dap::{fixtures, ncdump};
use crate::util::{have, run, run_clean};

/// `nczdump args URL` prints what `ncdump args URL` prints, and both succeed.
fn same_as_ncdump(args: &[&str], url: &str) {
    let mut all = args.to_vec();
    all.push(url);
    let ours = run("nczdump", &all);
    let (stdout, stderr, ok) = ncdump(&all).expect("ncdump");
    assert!(ok, "ncdump {all:?}: {stderr}");
    assert!(
        ours.stdout() == stdout,
        "nczdump {all:?} differs from ncdump: {}\nours: {}",
        crate::util::first_diff(&ours.stdout(), &stdout),
        ours.stderr()
    );
    ours.success();
}

#[test]
fn thredds_and_hyrax_answers_print_as_ncdump_prints_them() {
    let Some(server) = fixtures("thredds_and_hyrax_answers_print_as_ncdump_prints_them") else {
        return;
    };
    if !have("ncdump") {
        eprintln!("skipped: no ncdump (netcdf-bin) to compare with");
        return;
    }
    for path in [
        "thredds/dodsC/grid.nc",
        "hyrax/data/hdf.h5",
        "thredds/dodsC/struct.nc",
        "thredds/dodsC/seq.nc",
        "thredds/dodsC/big.nc",
    ] {
        let url = server.url(path);
        for args in [&[][..], &["-h"], &["-c"], &["-v", "air,sst"], &["-s", "-h"]] {
            if args.contains(&"air,sst") && !path.contains("grid") {
                continue;
            }
            same_as_ncdump(args, &url);
        }
    }
    // Constraints in the URL: a grid's array alone (`air.air`), the whole grid cut,
    // a grid's map (`air.time`), a sequence's field.
    let grid = server.url("thredds/dodsC/grid.nc");
    for ce in [
        "?air.air[0:1][0:3][0:4]",
        "?air[0][0:1:3][0:1:4]",
        "?air.time",
        "?station,name",
        // As a browser writes it.
        "?air.air%5B0:1:1%5D%5B0:1:3%5D%5B0:1:4%5D",
    ] {
        same_as_ncdump(&["-h"], &format!("{grid}{ce}"));
    }
    // The values, numbered from the constraint's start: air is (i*20 + j*5 + k) * 0.5.
    let cut = format!("{grid}?air.air[1:2][1:2][2:3]");
    same_as_ncdump(&["-v", "air.air"], &cut);
    let r = run("nczdump", &["-v", "air.air", &cut]);
    assert!(
        r.stdout()
            .contains(" air.air =\n  13.5, 14,\n  16, 16.5,\n  23.5, 24,\n  26, 26.5 ;"),
        "{}",
        r.stdout()
    );
}

#[test]
fn an_answer_over_the_server_s_limit_is_asked_for_in_pieces() {
    let Some(server) = fixtures("an_answer_over_the_server_s_limit_is_asked_for_in_pieces") else {
        return;
    };
    // 1500 values where the server answers 1000 at most: ncdump fails here (its one
    // request is refused), we ask again in pieces under the limit the refusal states.
    let r = run(
        "nczdump",
        &["-v", "w", &server.url("thredds/dodsC/big1d.nc")],
    );
    r.success();
    let values: Vec<f64> = r
        .stdout()
        .split(" w = ")
        .nth(1)
        .unwrap()
        .replace([';', '}', '\n'], " ")
        .split(',')
        .map(|v| v.trim().parse().unwrap())
        .collect();
    assert_eq!(values, (0..1500).map(f64::from).collect::<Vec<_>>());
    // And a copy of the whole variable of 5000 values.
    let out = tempfile::tempdir().unwrap();
    let target = out.path().join("big.zarr");
    run(
        "nczcopy",
        &[
            &server.url("thredds/dodsC/big.nc"),
            target.to_str().unwrap(),
        ],
    )
    .success();
    let r = run("nczdump", &["-v", "v", target.to_str().unwrap()]);
    assert!(r.stdout().contains("4998, 4999 ;"), "{}", r.stdout());
}

#[test]
fn earthdata_login_s_redirects_with_a_netrc_login_sent_only_to_its_host() {
    let Some(server) = fixtures("earthdata_login_s_redirects") else {
        return;
    };
    let home = tempfile::tempdir().unwrap();
    let url = server.url("protected/struct.nc");
    // Without a login: the server's refusal, and where a login goes.
    let r = run_clean("nczdump", home.path(), &["-h", &url], &[]);
    let line = r.fails_with_one_line(1);
    assert!(line.contains("401") && line.contains(".netrc"), "{line}");
    assert!(!line.contains("secret"));
    // With one in ~/.netrc for the login host (`localhost`): through the redirects,
    // the session cookie kept, the data read.
    std::fs::write(
        home.path().join(".netrc"),
        "machine localhost login me password secret\n",
    )
    .unwrap();
    let r = run_clean("nczdump", home.path(), &[&url], &[]);
    r.success();
    assert!(r.stdout().contains(" plain = 4, 5, 6 ;"), "{}", r.stdout());
    // The data host (127.0.0.1) never saw the login.
    let leaks = run_clean(
        "nczdump",
        home.path(),
        &["-h", &server.url("debug/auth_leaks")],
        &[],
    );
    drop(leaks);
    let body = std::process::Command::new("curl")
        .args(["-s", &server.url("debug/auth_leaks")])
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string());
    if let Ok(body) = body {
        assert_eq!(body, "0", "the login was sent to the data host");
    }
    // HTTP.NETRC in .ncrc names another file.
    std::fs::rename(home.path().join(".netrc"), home.path().join("logins")).unwrap();
    std::fs::write(
        home.path().join(".ncrc"),
        format!("HTTP.NETRC={}\n", home.path().join("logins").display()),
    )
    .unwrap();
    run_clean("nczdump", home.path(), &["-h", &url], &[]).success();
}

#[test]
fn broken_answers_are_one_line_naming_the_url_and_a_failure() {
    let Some(server) = fixtures("broken_answers_are_one_line_naming_the_url") else {
        return;
    };
    let home = tempfile::tempdir().unwrap();
    // A DAP error body: the server's own message.
    let r = run(
        "nczdump",
        &[
            "-h",
            &format!("{}#dap2", server.url("thredds/dodsC/missing.nc")),
        ],
    );
    let line = r.fails_with_one_line(1);
    assert!(line.contains("404") && line.contains("Cant find"), "{line}");
    // An HTML error page: its title.
    let r = run(
        "nczdump",
        &["-h", &format!("{}#dap2", server.url("html/error.nc"))],
    );
    let line = r.fails_with_one_line(1);
    assert!(
        line.contains("500") && line.contains("an HTML page"),
        "{line}"
    );
    // A DDS that does not parse: the line and what is wrong.
    let r = run(
        "nczdump",
        &["-h", &server.url("thredds/dodsC/baddds.nc#dap2")],
    );
    let line = r.fails_with_one_line(1);
    assert!(line.contains("baddds.nc.dds: DDS line"), "{line}");
    // A mistyped path on an OPeNDAP server, without `#dap2`: its DAP error, not a
    // guess at another kind of dataset.
    let r = run("nczdump", &["-h", &server.url("thredds/dodsC/nope.nc")]);
    let line = r.fails_with_one_line(1);
    assert!(
        line.contains("nope.nc.dds: the server answered 404: Cant find"),
        "{line}"
    );
    // A DAS the server refuses: the dataset without attributes (as ncdump shows
    // it), said, and a failure, so that no copy loses `scale_factor` unnoticed.
    let r = run("nczdump", &["-h", &server.url("thredds/dodsC/nodas.nc")]);
    assert_eq!(r.code(), 1, "{}", r.stderr());
    assert!(
        r.stderr().contains("nodas.nc.das: the server answered 404"),
        "{}",
        r.stderr()
    );
    assert!(r.stdout().contains("int plain(n) ;"), "{}", r.stdout());
    // A data answer cut short: said, never zeros printed as data.
    let r = run(
        "nczdump",
        &["-v", "v", &server.url("thredds/dodsC/trunc.nc")],
    );
    assert_eq!(r.code(), 1, "{}", r.stderr());
    assert!(r.stderr().contains("trunc.nc.dods"), "{}", r.stderr());
    assert!(!r.stdout().contains(" v = 0, 1"), "{}", r.stdout());
    // A server that stops answering: given up after HTTP.TIMEOUT.
    std::fs::write(home.path().join(".ncrc"), "HTTP.TIMEOUT=2\n").unwrap();
    let started = std::time::Instant::now();
    let r = run_clean(
        "nczdump",
        home.path(),
        &["-v", "v", &server.url("thredds/dodsC/stall.nc")],
        &[],
    );
    assert_eq!(r.code(), 1, "{}", r.stderr());
    assert!(r.stderr().contains("stall.nc.dods"), "{}", r.stderr());
    // Given up once: a stalled request is not asked again.
    assert!(
        started.elapsed() < std::time::Duration::from_secs(8),
        "{:?}",
        started.elapsed()
    );
    // Nothing partial is left as a copy.
    let out = tempfile::tempdir().unwrap();
    let target = out.path().join("t.zarr");
    let r = run(
        "nczcopy",
        &[
            &server.url("thredds/dodsC/trunc.nc"),
            target.to_str().unwrap(),
        ],
    );
    assert_ne!(r.code(), 0);
    assert!(!target.exists());
}

#[test]
fn a_subset_moves_its_values_and_no_more() {
    use crate::util::dap::CountingProxy;
    let Some(server) = fixtures("a_subset_moves_its_values_and_no_more") else {
        return;
    };
    let proxy = CountingProxy::start(server.port);
    let url = format!("http://127.0.0.1:{}/thredds/dodsC/era.nc", proxy.port);
    let out = tempfile::tempdir().unwrap();
    // What any subset reads first: the DDS, the DAS and the coordinates.
    run("nczdump", &["-v", "time,lat,lon", &url]).success();
    let metadata = proxy.bytes();
    // One month of tas (28 x 90 x 180 floats) with its coordinates.
    proxy.reset();
    let month = out.path().join("feb.nc");
    run(
        "nczcopy",
        &[
            "--dim",
            "time,2001-02-01,2001-02-28",
            "-V",
            "tas",
            &url,
            month.to_str().unwrap(),
        ],
    )
    .success();
    let values = 28 * 90 * 180 * 4 + 28 * 8 + 90 * 4 + 180 * 4;
    let moved = proxy.bytes();
    assert!(
        moved <= metadata + values * 11 / 10,
        "a month moved {moved} bytes: {values} of values, {metadata} of metadata"
    );
    // One point's series (365 floats): its values, each answer's description and headers.
    proxy.reset();
    let point = out.path().join("point.nc");
    run(
        "nczcopy",
        &[
            "--dim",
            "lat,45.",
            "--dim",
            "lon,10.",
            "-V",
            "tas",
            &url,
            point.to_str().unwrap(),
        ],
    )
    .success();
    let moved = proxy.bytes();
    let values = 365 * 4 + 365 * 8 + 4 + 4;
    assert!(
        moved <= metadata + values * 11 / 10 + 3 * 400,
        "a point's series moved {moved} bytes: {values} of values, {metadata} of metadata"
    );
    // The copies hold what the server serves.
    let r = run("nczdump", &["-v", "tas", point.to_str().unwrap()]);
    r.success();
    assert!(r.stdout().contains("tas =\n  "), "{}", r.stdout());
}
