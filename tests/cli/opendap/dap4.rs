//! DAP4: every tool reading what a DAP4 server serves (`data/dap/dap4_server.py`, which
//! serves netCDF-4 files the tests write; pydap's DAP4 client and ncdump 4.9.0 read it).
//! `nczdump URL#dap4` is compared with `ncdump URL#dap4` over the same server, and the
//! values with the served files as netCDF4-python reads them.

use crate::util::dap::{dap4_server, ncdump, CountingProxy};
use crate::util::{have, run};

/// Files of many shapes and types; no Float32 attribute (netcdf-c 4.9.0 garbles those:
/// `-999.f` shows as `-999.0004f`; see `float_attributes_keep_their_values`).
const FILES: &str = r#"
with netCDF4.Dataset('t.nc', 'w') as ds:
    ds.title = 'a test'
    ds.history = 'made by a test'
    ds.createDimension('time', None); ds.createDimension('lat', 3); ds.createDimension('lon', 4)
    t = ds.createVariable('time', 'f8', ('time',)); t.units = 'days since 2000-01-01'; t[:] = [0, 1]
    v = ds.createVariable('tas', 'f8', ('time', 'lat', 'lon'), fill_value=-999.0); v.units = 'K'
    v[:] = np.arange(24.0).reshape(2, 3, 4) / 4; v[1, 2, 3] = np.ma.masked
    s = ds.createVariable('name', str, ('lat',)); s[:] = np.array(['a', 'bé', ''], dtype=object)
    b = ds.createVariable('u8', 'u1', ('lon',)); b[:] = [0, 1, 254, 255]
    i8 = ds.createVariable('i8', 'i1', ('lon',)); i8[:] = [-128, -1, 0, 127]
    us = ds.createVariable('us', 'u2', ('lon',)); us[:] = [0, 1, 65534, 65535]
    ui = ds.createVariable('ui', 'u4', ('lon',)); ui[:] = [0, 1, 4294967294, 7]
    i64 = ds.createVariable('i64', 'i8', ('lon',)); i64[:] = [-2**63, -1, 0, 2**63 - 1]
    u64 = ds.createVariable('u64', 'u8', ('lon',)); u64[:] = [0, 1, 2**64 - 2, 2**63]
    c = ds.createVariable('c', 'S1', ('lon',)); c[:] = np.array([b'a', b'b', b'c', b'd'])
    e = ds.createEnumType('i1', 'cloud_t', {'Clear': 0, 'Cloudy': 1, 'Missing': 127})
    ev = ds.createVariable('cloud', e, ('lon',), fill_value=127); ev[:] = [0, 1, 1, 0]
    sc = ds.createVariable('scalar', 'i4'); sc.assignValue(42); sc.valid_range = np.array([0, 100], 'i4')
    g = ds.createGroup('sub'); g.createDimension('k', 2)
    x = g.createVariable('x', 'i8', ('k',)); x[:] = [-5, 5]; g.note = 'in a group'
    y = g.createVariable('y', 'i2', ('k', 'lon')); y[:] = np.arange(8).reshape(2, 4)
    # A coordinate variable after the variables it maps: netcdf-c shows it first.
    lat = ds.createVariable('lat', 'f8', ('lat',)); lat.units = 'degrees_north'; lat[:] = [-45, 0, 45]
with netCDF4.Dataset('big.nc', 'w') as ds:
    ds.createDimension('time', 40); ds.createDimension('y', 30); ds.createDimension('x', 50)
    v = ds.createVariable('field', 'f4', ('time', 'y', 'x'))
    v[:] = np.arange(40 * 30 * 50, dtype='f4').reshape(40, 30, 50)
    w = ds.createVariable('label', str, ('time',)); w[:] = np.array(['t%d' % i for i in range(40)], dtype=object)
"#;

/// The attribute netcdf-c shows a DAP4 variable's maps in.
const MAPS: &str = "_edu.ucar.maps";

fn ours_as_ncdump(args: &[&str], url: &str) {
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
fn dap4_dumps_as_ncdump_dumps_them_over_the_same_server() {
    let Some(server) = dap4_server("dap4_dumps_as_ncdump_dumps_them") else {
        return;
    };
    if !have("ncdump") {
        eprintln!("skipped: no ncdump (netcdf-bin) to compare with");
        return;
    }
    server.write(FILES);
    for file in ["t.nc", "big.nc"] {
        for prefix in ["", "be/", "nocrc/"] {
            let url = format!("{}#dap4", server.url(&format!("{prefix}{file}")));
            for args in [&[][..], &["-h"], &["-c"]] {
                ours_as_ncdump(args, &url);
            }
        }
    }
    let t = format!("{}#dap4", server.url("t.nc"));
    ours_as_ncdump(&["-v", "tas,name"], &t);
    ours_as_ncdump(&["-v", "/sub/y"], &t);
    // The other spellings of DAP4 name the same dataset.
    let plain = run("nczdump", &[&t]).stdout();
    for spelling in [
        format!("dap4://127.0.0.1:{}/t.nc", server.port),
        format!("{}#mode=dap4", server.url("t.nc")),
        format!("{}#protocol=dap4", server.url("t.nc")),
        format!("[dap4]{}", server.url("t.nc")),
    ] {
        let out = run("nczdump", &[&spelling]);
        out.success();
        assert_eq!(out.stdout(), plain, "{spelling}");
    }
}

#[test]
fn dap4_values_are_the_served_files_values_in_every_tool() {
    let Some(server) = dap4_server("dap4_values_are_the_served_files_values") else {
        return;
    };
    server.write(FILES);
    let out = tempfile::tempdir().unwrap();
    for file in ["t.nc", "big.nc"] {
        let served = server.dir.path().join(file);
        let served = served.to_str().unwrap();
        for (prefix, flag) in [("", ""), ("be/", ""), ("hyrax/", "&hyrax"), ("limit/", "")] {
            let url = format!("{}#dap4{flag}", server.url(&format!("{prefix}{file}")));
            // (`_edu.ucar.maps` is the maps netcdf-c shows: the server's, not the file's.)
            run("nczcmp", &["-A", MAPS, &url, served]).success();
        }
        // A copy to a file and to Zarr holds what netCDF4-python reads in the
        // served file.
        // (Zarr holds no enum type: t.nc's `cloud` becomes bytes with flag_values
        // there, by design, so Zarr is compared on big.nc.)
        for (name, kind) in [("o.nc", "nc4"), ("o.zarr", "zarr")] {
            if file == "t.nc" && kind == "zarr" {
                continue;
            }
            let target = out.path().join(format!("{file}.{name}"));
            let target = target.to_str().unwrap();
            let url = format!("{}#dap4", server.url(file));
            run("nczcopy", &["-k", kind, &url, target]).success();
            run("nczcmp", &["-A", MAPS, target, served]).success();
        }
        let copy = out.path().join(format!("{file}.o.nc"));
        crate::util::assert_same_values(server.python(), &copy, std::path::Path::new(served), file);
    }
    // Hyrax's string checksums, asked for with netcdf-c's `#hyrax`.
    let hyrax = format!("{}#dap4&hyrax", server.url("hyrax/big.nc"));
    run(
        "nczcmp",
        &[&hyrax, server.dir.path().join("big.nc").to_str().unwrap()],
    )
    .success();
    // Without it, Hyrax's string checksums are a mismatch, said naming the variable.
    let plain = format!("{}#dap4", server.url("hyrax/big.nc"));
    let line = run("nczdump", &[&plain]).fails_with_one_line(1);
    assert!(
        line.contains("variable 'label': checksum mismatch"),
        "{line}"
    );
}

#[test]
fn float_attributes_keep_their_values() {
    let Some(server) = dap4_server("float_attributes_keep_their_values") else {
        return;
    };
    server.write(
        "with netCDF4.Dataset('f.nc', 'w') as ds:\n    ds.createDimension('x', 2)\n    v = ds.createVariable('v', 'f4', ('x',), fill_value=np.float32(-999.0))\n    v.scale_factor = np.float32(0.1)\n    v[:] = [1, 2]\n",
    );
    let url = format!("{}#dap4", server.url("f.nc"));
    let out = run("nczdump", &["-h", &url]);
    out.success();
    assert!(
        out.stdout().contains("v:_FillValue = -999.f ;"),
        "{}",
        out.stdout()
    );
    assert!(
        out.stdout().contains("v:scale_factor = 0.1f ;"),
        "{}",
        out.stdout()
    );
}

#[test]
fn dap4_selections_move_only_their_values() {
    let Some(server) = dap4_server("dap4_selections_move_only_their_values") else {
        return;
    };
    server.write(FILES);
    let proxy = CountingProxy::start(server.port);
    let url = format!("http://127.0.0.1:{}/big.nc#dap4", proxy.port);
    let header = {
        proxy.reset();
        run("nczdump", &["-h", &url]).success();
        proxy.bytes()
    };
    // One point's series: 40 floats.
    proxy.reset();
    let out = run(
        "nczdump",
        &["-v", "field", "--dim", "y,7", "--dim", "x,9", &url],
    );
    out.success();
    assert!(out.stdout().contains("field =\n  359,"), "{}", out.stdout());
    let moved = proxy.bytes();
    let values = 40 * 4;
    assert!(
        moved <= header + values * 11 / 10 + 4096,
        "a 40-value series moved {moved} bytes (metadata {header})"
    );
    // A URL constraint shows the constrained dataset, as netcdf-c does.
    let ce = format!(
        "{}?dap4.ce=/field%5B1%5D%5B0:1%5D%5B0:20:49%5D;/label#dap4",
        server.url("big.nc")
    );
    let out = run("nczdump", &[&ce]);
    out.success();
    let text = out.stdout();
    assert!(
        text.contains("float field(_Anonymous1, _Anonymous2, _Anonymous3) ;"),
        "{text}"
    );
    assert!(
        text.contains("field =\n  1500, 1520, 1540,\n  1550, 1570, 1590 ;"),
        "{text}"
    );
    assert!(!text.contains("double "), "{text}");
}

#[test]
fn saved_dap4_responses_read_as_ncdump_reads_them() {
    let Some(server) = dap4_server("saved_dap4_responses_read_as_ncdump_reads_them") else {
        return;
    };
    server.write(FILES);
    let dir = tempfile::tempdir().unwrap();
    for (path, saved) in [
        ("t.nc.dap", "t.nc.dap"),
        ("be/big.nc.dap?dap4.checksum=false", "big.nc.dap"),
    ] {
        let body = get(server.python(), &server.url(path));
        std::fs::write(dir.path().join(saved), body).unwrap();
    }
    for name in ["t.nc", "big.nc"] {
        let file = format!("file://{}/{name}", dir.path().display());
        let ours = run("nczdump", &[&format!("{file}#dap4")]);
        ours.success();
        // Known by its `.dap` beside it, with no fragment.
        assert_eq!(run("nczdump", &[&file]).stdout(), ours.stdout());
        run(
            "nczcmp",
            &[
                "-A",
                MAPS,
                &format!("{file}#dap4"),
                server.dir.path().join(name).to_str().unwrap(),
            ],
        )
        .success();
        if have("ncdump") {
            let (stdout, stderr, ok) = ncdump(&[&format!("[dap4]{file}")]).unwrap();
            assert!(ok, "{stderr}");
            assert_eq!(ours.stdout(), stdout, "{name}");
        }
    }
}

#[test]
fn broken_dap4_answers_fail_in_one_line() {
    let Some(server) = dap4_server("broken_dap4_answers_fail_in_one_line") else {
        return;
    };
    server.write(FILES);
    for (path, said) in [
        ("badcrc/t.nc", "checksum mismatch"),
        ("trunc/t.nc", "truncated"),
        ("errchunk/t.nc", "the server failed while sending the data"),
        ("nosuch.nc", "No such dataset: /nosuch.nc"),
    ] {
        let url = format!("{}#dap4", server.url(path));
        let out = run("nczdump", &[&url]);
        let line = out.fails_with_one_line(1);
        assert!(
            line.contains(said) && line.contains("127.0.0.1"),
            "{path}: {line}"
        );
    }
    // A variable the constraint names that is not there: the server's message.
    let url = format!("{}?dap4.ce=/nothere#dap4", server.url("t.nc"));
    let line = run("nczdump", &[&url]).fails_with_one_line(1);
    assert!(line.contains("No such variable: /nothere"), "{line}");
    // zmapdump shows the DMR as received.
    let out = run(
        "zmapdump",
        &["format", &format!("{}#dap4", server.url("t.nc"))],
    );
    out.success();
    assert!(out.stdout().contains("protocol: DAP4"), "{}", out.stdout());
    assert!(out.stdout().contains("<Dataset"), "{}", out.stdout());
}

/// A GET's body (the saved-response test's download), through the server's Python.
fn get(python: &str, url: &str) -> Vec<u8> {
    let out = std::process::Command::new(python)
        .args([
            "-c",
            "import sys, urllib.request; sys.stdout.buffer.write(urllib.request.urlopen(sys.argv[1]).read())",
            url,
        ])
        .output()
        .expect("python");
    assert!(
        out.status.success(),
        "GET {url}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}
