use crate::util::dap::{ncdump, pydap};
use crate::util::{have, run};

/// Files pydap 3.5 serves whole (its netCDF handler cannot cut a variable of two or
/// more dimensions, nor serve scalars or strings: ncdump fails on those too).
pub(crate) const FILES: &str = r#"
d = netCDF4.Dataset('rich.nc', 'w', format='NETCDF4')
d.Conventions = "CF-1.8"; d.mixed = np.array([1, 2, 3], 'i2'); d.pi = np.pi
d.multi = ["a", "b"]; d.back = "a\\b"; d.empty = ""
d.createDimension('time', None); d.createDimension('lat', 5); d.createDimension('lon', 7)
d.createDimension('lev', 2)
t = d.createVariable('time', 'f8', ('time',)); t.units = 'days since 2000-01-01 00:00:00'
t.calendar = 'standard'; t[:] = np.arange(4)
la = d.createVariable('lat', 'f4', ('lat',)); la[:] = np.linspace(-60, 60, 5); la.units = 'degrees_north'
lo = d.createVariable('lon', 'f8', ('lon',)); lo[:] = np.linspace(0, 300, 7)
v = d.createVariable('tas', 'f4', ('time', 'lev', 'lat', 'lon'), fill_value=np.float32(1e20))
a = np.random.default_rng(1).normal(280, 10, (4, 2, 5, 7)).astype('f4'); a[0, 0, 0, 0] = np.nan
a[1, 0, 0, 0] = 1e20
v[:] = a; v.units = 'K'; v.long_name = 'air temperature'; v.valid_range = np.array([100, 400], 'f4')
q = d.createVariable('q', 'i2', ('lat', 'lon'), fill_value=np.int16(-1))
q[:] = np.arange(35).reshape(5, 7); q.scale_factor = 0.1; q.add_offset = np.float32(1)
b = d.createVariable('b', 'i1', ('lat',)); b[:] = [-128, -1, 0, 1, 127]
ub = d.createVariable('ub', 'u1', ('lat',)); ub[:] = [0, 1, 127, 128, 255]
us = d.createVariable('us', 'u2', ('lat',)); us[:] = [0, 1, 32767, 32768, 65535]
ui = d.createVariable('ui', 'u4', ('lat',)); ui[:] = [0, 1, 2**31 - 1, 2**31, 2**32 - 1]
i8 = d.createVariable('i8', 'i8', ('lat',)); i8[:] = [-1, 0, 1, 2**31 - 1, -2**31]
ub.flags = np.array([1, 255], 'u1'); us.big = np.array([65535], 'u2'); ui.big = np.array([2**31 - 1], 'u4')
d.close()

d = netCDF4.Dataset('classic.nc', 'w', format='NETCDF3_CLASSIC')
d.history = "made by a test"
d.createDimension('rec', None); d.createDimension('x', 2)
v = d.createVariable('v', 'i2', ('rec', 'x')); v[:] = [[1, 2], [3, 4], [5, 6]]
v.scale_factor = 0.5; v.valid_range = np.array([0, 10], 'i2')
w = d.createVariable('w', 'f8', ('x',)); w[:] = [1.5, -2.25]
d.close()

d = netCDF4.Dataset('one_record.nc', 'w', format='NETCDF4')
d.createDimension('time', None); d.createDimension('x', 1)
t = d.createVariable('time', 'i4', ('time',)); t.units = 'hours since 1990-01-01'; t[:] = [5]
v = d.createVariable('v', 'f4', ('time', 'x')); v[:] = [[2.5]]
d.close()

d = netCDF4.Dataset('long1d.nc', 'w', format='NETCDF4')
d.createDimension('n', 300000)
v = d.createVariable('series', 'f8', ('n',)); v[:] = np.sin(np.arange(300000) / 100.0)
d.close()

d = netCDF4.Dataset('quoted.nc', 'w', format='NETCDF4')
d.createDimension('x', 2)
v = d.createVariable('v', 'f4', ('x',)); v[:] = [1, 2]; v.long_name = 'a "quoted" word'
d.close()
"#;

/// `nczdump args URL` and `ncdump args URL`: the same standard output, and both
/// succeed or both fail.
fn same_as_ncdump(args: &[&str], url: &str, ncdump_url: &str) {
    let mut ours_args = args.to_vec();
    ours_args.push(url);
    let ours = run("nczdump", &ours_args);
    let mut theirs_args = args.to_vec();
    theirs_args.push(ncdump_url);
    let (stdout, stderr, ok) = ncdump(&theirs_args).expect("ncdump");
    assert!(
        ours.stdout() == stdout,
        "nczdump {args:?} {url} differs from ncdump: {}\nncdump's stderr: {stderr}\nours: {}",
        crate::util::first_diff(&ours.stdout(), &stdout),
        ours.stderr()
    );
    assert_eq!(
        ours.code() == 0,
        ok,
        "nczdump {args:?} {url}: exit {} where ncdump {}: {}",
        ours.code(),
        if ok { "succeeds" } else { "fails" },
        ours.stderr()
    );
}

#[test]
fn nczdump_prints_what_ncdump_prints_over_a_dap2_server() {
    let Some(server) = pydap("nczdump_prints_what_ncdump_prints_over_a_dap2_server") else {
        return;
    };
    if !have("ncdump") {
        eprintln!("skipped: no ncdump (netcdf-bin) to compare with");
        return;
    }
    server.write(FILES);
    let options: &[&[&str]] = &[
        &[],
        &["-h"],
        &["-c"],
        &["-k"],
        &["-s", "-h"],
        &["-v", "tas,lat"],
        &["-t", "-v", "time"],
        &["-p", "3,5", "-v", "tas"],
        &["-b", "c", "-v", "q"],
        &["-f", "f", "-v", "q"],
        &["-l", "20", "-v", "ub,us,ui"],
        &["-n", "other", "-h"],
    ];
    for file in ["rich.nc", "classic.nc", "one_record.nc"] {
        let url = server.url(file);
        for args in options {
            same_as_ncdump(args, &url, &url);
        }
    }
    // `-K` says more than ncdump's `DAP2 mode=00000000`.
    let r = run("nczdump", &["-K", &server.url("rich.nc")]);
    assert!(r.stdout().contains("DAP2"), "{}", r.stdout());
    // A long 1-D variable, read in slices.
    let url = server.url("long1d.nc");
    same_as_ncdump(&["-v", "series"], &url, &url);
}

#[test]
fn every_spelling_netcdf_c_takes_reads_the_same_dataset() {
    let Some(server) = pydap("every_spelling_netcdf_c_takes_reads_the_same_dataset") else {
        return;
    };
    if !have("ncdump") {
        eprintln!("skipped: no ncdump (netcdf-bin) to compare with");
        return;
    }
    server.write(FILES);
    let url = server.url("classic.nc");
    let host_path = url.trim_start_matches("http://");
    for spelling in [
        format!("{url}#mode=dap2"),
        format!("{url}#dap2"),
        format!("dods://{host_path}"),
        format!("[log=0]{url}"),
        format!("{url}#protocol=dap2"),
    ] {
        same_as_ncdump(&[], &spelling, &url);
    }
    // A constraint in the URL: only what it selects, numbered from its start (the
    // dimension a constraint cut is another dimension: `x_1`, as netcdf-c names it).
    // (pydap cannot cut a variable of two dimensions, nor answer one value: the
    // constraints here are what it answers right.)
    // ncdump's header, and the values the file holds (netcdf-c 4.9.0 prints other
    // values for some of these: it reads past what it asked pydap for).
    for (ce, data) in [
        ("?w", " w = 1.5, -2.25 ;"),
        ("?w[0:1]", " w = 1.5, -2.25 ;"),
        (
            "?v,w",
            " v =\n  1, 2,\n  3, 4,\n  5, 6 ;\n\n w = 1.5, -2.25 ;",
        ),
        // In the constraint's order, as the server's DDS has them.
        (
            "?w[0:1:1],v[0:2][0:1]",
            " w = 1.5, -2.25 ;\n\n v =\n  1, 2,\n  3, 4,\n  5, 6 ;",
        ),
    ] {
        let with = format!("{url}{ce}");
        same_as_ncdump(&["-h"], &with, &with);
        let r = run("nczdump", &[&with]);
        r.success();
        assert!(r.stdout().contains(data), "{with}: {}", r.stdout());
    }
}

#[test]
fn a_server_s_broken_answers_are_one_line_and_a_failure() {
    let Some(server) = pydap("a_server_s_broken_answers_are_one_line_and_a_failure") else {
        return;
    };
    server.write(FILES);
    // A file the server does not have.
    let url = server.url("absent.nc");
    let r = run("nczdump", &["-h", &format!("{url}#dap2")]);
    let line = r.fails_with_one_line(1);
    assert!(line.contains("absent.nc"), "{line}");
    // A DAS that does not parse (pydap writes a quote inside a string unescaped):
    // the dataset is shown as ncdump shows it, without attributes, and the run fails
    // saying why.
    let url = server.url("quoted.nc");
    let r = run("nczdump", &[&url]);
    assert_eq!(r.code(), 1, "{}", r.stderr());
    assert!(
        r.stderr().contains("quoted.nc.das: DAS line"),
        "{}",
        r.stderr()
    );
    assert!(r.stdout().contains("v = 1, 2 ;"), "{}", r.stdout());
    if let Some((stdout, _, _)) = ncdump(&[&url]) {
        assert_eq!(r.stdout(), stdout);
    }
    // DAP4 is asked for by name: said in one line, nothing printed.
    let r = run(
        "nczdump",
        &["-h", &format!("{}#dap4", server.url("classic.nc"))],
    );
    assert!(r.code() != 0);
    assert!(r.stdout().is_empty());
}
