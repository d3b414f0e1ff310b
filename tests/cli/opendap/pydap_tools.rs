use super::pydap_dumps::FILES;
use crate::util::dap::pydap;
use crate::util::run;

#[test]
fn nczcopy_copies_a_dap_dataset_to_every_kind_and_nczcmp_finds_it_equal() {
    let Some(server) = pydap("nczcopy_copies_a_dap_dataset_to_every_kind") else {
        return;
    };
    server.write(FILES);
    let out = tempfile::tempdir().unwrap();
    let url = server.url("classic.nc");
    let served = server.dir.path().join("classic.nc");
    for (name, kind) in [
        ("c.zarr", None),
        ("c3.zarr", Some("zarr3")),
        ("c.nc", Some("nc4")),
        ("c3.nc", Some("classic")),
    ] {
        let target = out.path().join(name);
        let target = target.to_str().unwrap();
        let mut args = vec![];
        if let Some(k) = kind {
            args.extend(["-k", k]);
        }
        args.extend([url.as_str(), target]);
        run("nczcopy", &args).success();
        // What the server shows is what the file holds.
        // (pydap adds its `dimensions` table, which netcdf-c shows as attributes.)
        run(
            "nczcmp",
            &[
                "-G",
                "dimensions.rec,dimensions.x",
                target,
                served.to_str().unwrap(),
            ],
        )
        .success();
    }
    // What readers decode: xarray reads each copy as it reads the served file
    // (values, dtypes, attributes; pydap's `dimensions` table aside).
    if let Some(py) = crate::util::python_with("xarray, zarr, netCDF4") {
        let script = r#"
import sys, xarray as xr
want = xr.open_dataset(sys.argv[1])
for path, engine in zip(sys.argv[2::2], sys.argv[3::2]):
    got = xr.open_dataset(path, engine=engine)
    got.attrs = {k: v for k, v in got.attrs.items() if not k.startswith("dimensions.")}
    assert got.drop_encoding().identical(want.drop_encoding()), (path, got, want)
"#;
        let dir = out.path();
        let p = |n: &str| dir.join(n).to_string_lossy().into_owned();
        let args = [
            served.to_string_lossy().into_owned(),
            p("c.zarr"),
            "zarr".into(),
            p("c3.zarr"),
            "zarr".into(),
            p("c.nc"),
            "netcdf4".into(),
            p("c3.nc"),
            "netcdf4".into(),
        ];
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        crate::util::python_succeeds(
            &py,
            script,
            &args,
            "xarray reads the DAP copies as the file",
        );
    }
    // The DAP URL against the file it serves (pydap adds its `dimensions` table).
    run(
        "nczcmp",
        &[
            "-G",
            "dimensions.rec,dimensions.x",
            &url,
            served.to_str().unwrap(),
        ],
    )
    .success();
    // Several DAP URLs joined along time, as files are (pydap names no record
    // dimension: `--concat`), and one appended to a copy of another.
    server.write(
        "for i, name in enumerate(['jan.nc', 'feb.nc']):\n    d = netCDF4.Dataset(name, 'w', format='NETCDF4')\n    d.createDimension('time', None); d.createDimension('x', 2)\n    t = d.createVariable('time', 'f8', ('time',)); t.units = 'days since 2000-01-01'; t[:] = [i*2, i*2+1]\n    v = d.createVariable('v', 'f4', ('time', 'x')); v[:] = np.arange(4).reshape(2, 2) + 10*i\n    d.close()\n",
    );
    let (jan, feb) = (server.url("jan.nc"), server.url("feb.nc"));
    let joined = out.path().join("joined.zarr");
    let joined = joined.to_str().unwrap();
    run("nczcopy", &["--concat", "time", &jan, &feb, joined]).success();
    let want = " v =\n  0, 1,\n  2, 3,\n  10, 11,\n  12, 13 ;";
    let r = run("nczdump", &["-v", "v", joined]);
    assert!(r.stdout().contains(want), "{}", r.stdout());
    let grown = out.path().join("grown.zarr");
    let grown = grown.to_str().unwrap();
    run("nczcopy", &[&jan, grown]).success();
    run("nczcopy", &["--append", "--concat", "time", &feb, grown]).success();
    let r = run("nczdump", &["-v", "v", grown]);
    assert!(r.stdout().contains(want), "{}", r.stdout());
}

#[test]
fn zmapdump_says_what_the_server_is() {
    let Some(server) = pydap("zmapdump_says_what_the_server_is") else {
        return;
    };
    server.write(FILES);
    let r = run("zmapdump", &["format", &server.url("classic.nc")]);
    r.success();
    assert!(r.stdout().contains("OPeNDAP (DAP2)"), "{}", r.stdout());
    // The answers as received.
    assert!(r.stdout().contains("DDS:\n  Dataset {"), "{}", r.stdout());
    assert!(
        r.stdout().contains("DAS:\n  Attributes {"),
        "{}",
        r.stdout()
    );
    // No keys: said, with where to look.
    let r = run(
        "zmapdump",
        &["list", &format!("{}#dap2", server.url("classic.nc"))],
    );
    let line = r.fails_with_one_line(1);
    assert!(line.contains("zmapdump format"), "{line}");
}
