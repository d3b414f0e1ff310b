//! Several netCDF files joined into one virtual dataset (issue 44): `nczcopy -k
//! kerchunk a.nc b.nc ... refs.json` references each file's chunks along the joined
//! chunk grid, names each file once (`templates`), inlines the joined coordinate in the
//! first file's time units, and refuses what makes no one grid, in one line.

use std::fs;
use std::path::{Path, PathBuf};

use nczarr::store::WritableStore as _;

use crate::util::kerchunk::refs_in;
use crate::util::{
    assert_equal_datasets, nczgen, python_succeeds, python_with, run, s, RangeServer,
};

/// A day's file of `records` half-days, its time in hours since its own day (the units
/// differ from file to file, as in daily archives), `tas` in chunks of `chunk` along
/// time (netCDF-4 only), compressed when `deflate`.
fn day_cdl(day: usize, records: usize, chunk: usize, deflate: bool, netcdf4: bool) -> String {
    let list = |n: usize, f: &dyn Fn(usize) -> String| (0..n).map(f).collect::<Vec<_>>().join(", ");
    let specials = if netcdf4 {
        format!(
            "\t\ttas:_ChunkSizes = {chunk}, 2, 3 ;\n{}",
            if deflate {
                "\t\ttas:_DeflateLevel = 1 ;\n"
            } else {
                ""
            }
        )
    } else {
        String::new()
    };
    format!(
        "netcdf day {{\ndimensions:\n\ttime = UNLIMITED ;\n\tlat = 4 ;\n\tlon = 6 ;\nvariables:\n\
         \tdouble time(time) ;\n\t\ttime:units = \"hours since 2001-01-{:02} 00:00:00\" ;\n\t\ttime:calendar = \"standard\" ;\n\
         \tfloat lat(lat) ;\n\tfloat tas(time, lat, lon) ;\n\t\ttas:units = \"K\" ;\n\t\ttas:_FillValue = -999.f ;\n{specials}\
         \tint mask(lat, lon) ;\ndata:\n time = {} ;\n lat = 10, 20, 30, 40 ;\n tas = {} ;\n mask = {} ;\n}}\n",
        day + 1,
        list(records, &|r| (r * 24 / records).to_string()),
        list(records * 24, &|i| format!("{}.25", 250 + day * 100 + i)),
        list(24, &|i| (i % 2).to_string()),
    )
}

/// `n` day files of `kind` in `dir`, each from `day_cdl`.
fn day_files(dir: &Path, kind: &str, n: usize, records: usize, chunk: usize) -> Vec<PathBuf> {
    (0..n)
        .map(|d| {
            let cdl = dir.join(format!("day{d}-{kind}.cdl"));
            fs::write(&cdl, day_cdl(d, records, chunk, d != 99, kind == "nc4")).unwrap();
            let nc = dir.join(format!("day{d}-{kind}.nc"));
            // Some tests make a day's file again, of other records.
            nczgen(&["-O", "-k", kind, "-o", &s(&nc), &s(&cdl)]).success();
            nc
        })
        .collect()
}

/// Daily netCDF-4 and classic files become one virtual dataset: it equals their copy
/// joined by nczcopy (nczcmp), each file is named once, the data are byte ranges of the
/// files (none inlined), the time coordinate is inlined in the first file's units, and
/// xarray through fsspec reads it as `open_mfdataset` reads the files.
#[test]
fn daily_files_join_into_one_virtual_dataset_read_as_the_files_joined() {
    let tmp = tempfile::tempdir().unwrap();
    for kind in ["nc4", "classic"] {
        let files = day_files(tmp.path(), kind, 4, 2, 1);
        let names: Vec<String> = files.iter().map(|f| s(f)).collect();
        let refs = tmp.path().join(format!("year-{kind}.json"));
        nczcopy(&["-k", "kerchunk"], &names, &refs).success();
        // The same files joined by a copy: the references read as it.
        let joined = tmp.path().join(format!("year-{kind}.zarr"));
        nczcopy(&[], &names, &joined).success();
        assert_equal_datasets(&refs, &joined, kind);
        let json = nczarr::json::parse(&fs::read(&refs).unwrap()).unwrap();
        let templates = json.get("templates").and_then(|t| t.as_object()).unwrap();
        assert_eq!(templates.len(), 4, "{kind}: one template a file");
        for (i, (_, url)) in templates.iter().enumerate() {
            let want = fs::canonicalize(&files[i]).unwrap();
            assert_eq!(url.as_str(), Some(s(&want).as_str()));
        }
        let all = refs_in(&refs);
        let tas: Vec<&nczarr::json::Json> = all
            .iter()
            .filter(|(k, _)| k.starts_with("tas/") && !k.contains(".z"))
            .map(|(_, v)| v)
            .collect();
        // 8 records; netCDF-4 in chunks of 1x2x3, classic one chunk a record.
        assert_eq!(tas.len(), if kind == "nc4" { 8 * 2 * 2 } else { 8 });
        assert!(
            tas.iter().all(|v| v.as_array().is_some()),
            "{kind}: inlined data"
        );
        let last = &all.iter().find(|(k, _)| k.starts_with("tas/7.")).unwrap().1;
        assert_eq!(last.as_array().unwrap()[0].as_str(), Some("{{f3}}"));
        let time = run("nczdump", &["-v", "time", &s(&refs)]);
        assert!(
            time.stdout()
                .contains("time = 0, 12, 24, 36, 48, 60, 72, 84 ;"),
            "{}",
            time.stdout()
        );
        if let Some(py) = python_with("xarray, zarr, fsspec, dask") {
            let script = "import sys, warnings\nwarnings.simplefilter('ignore')\nimport xarray as xr\n\
                 refs, files = sys.argv[1], sys.argv[2:]\n\
                 want = xr.open_mfdataset(files, combine='nested', concat_dim='time', data_vars='minimal', coords='minimal', compat='override').load()\n\
                 got = xr.open_dataset('reference://', engine='zarr', backend_kwargs={'consolidated': False, 'storage_options': {'fo': refs}}).load()\n\
                 xr.testing.assert_identical(got, want)\n";
            let mut py_args = vec![s(&refs)];
            py_args.extend(names.iter().cloned());
            let pa: Vec<&str> = py_args.iter().map(String::as_str).collect();
            python_succeeds(&py, script, &pa, kind);
        }
        // kerchunk's own join of the same files reads as the files joined too.
        if let Some(py) = python_with("kerchunk, h5py, scipy") {
            let theirs = tmp.path().join(format!("theirs-{kind}.json"));
            let script = "import sys, json, warnings\nwarnings.simplefilter('ignore')\n\
                 import kerchunk.hdf, kerchunk.netCDF3, kerchunk.combine\n\
                 out, kind, files = sys.argv[1], sys.argv[2], sys.argv[3:]\n\
                 one = (lambda f: kerchunk.hdf.SingleHdf5ToZarr(f, f, inline_threshold=0).translate()) if kind == 'nc4' else (lambda f: kerchunk.netCDF3.NetCDF3ToZarr(f, inline_threshold=0).translate())\n\
                 mzz = kerchunk.combine.MultiZarrToZarr([one(f) for f in files], concat_dims=['time'], identical_dims=['lat', 'mask'], coo_map={'time': 'cf:time'})\n\
                 json.dump(mzz.translate(), open(out, 'w'))\n";
            let mut py_args = vec![s(&theirs), kind.to_string()];
            py_args.extend(names.iter().cloned());
            let pa: Vec<&str> = py_args.iter().map(String::as_str).collect();
            python_succeeds(&py, script, &pa, "MultiZarrToZarr");
            // It writes times as int64 in its own units: compared as instants.
            let r = run(
                "nczcmp",
                &["-d", "--ignore-types", &s(&theirs), &s(&joined)],
            );
            assert_eq!(r.code(), 0, "{kind}: {}{}", r.stdout(), r.stderr());
        }
    }
}

/// `--sort` joins the files in time order whatever the order given, and the
/// references name them in that order.
#[test]
fn sorted_inputs_are_referenced_in_time_order() {
    let tmp = tempfile::tempdir().unwrap();
    let files = day_files(tmp.path(), "nc4", 3, 2, 1);
    let refs = tmp.path().join("sorted.json");
    let (a, b, c, out) = (s(&files[2]), s(&files[0]), s(&files[1]), s(&refs));
    run("nczcopy", &["-k", "kerchunk", "--sort", &a, &b, &c, &out]).success();
    let json = nczarr::json::parse(&fs::read(&refs).unwrap()).unwrap();
    let templates = json.get("templates").and_then(|t| t.as_object()).unwrap();
    assert!(templates[0].1.as_str().unwrap().ends_with("day0-nc4.nc"));
    assert!(templates[2].1.as_str().unwrap().ends_with("day2-nc4.nc"));
    let time = run("nczdump", &["-v", "time", &out]);
    assert!(time.stdout().contains("time = 0, 12, 24, 36, 48, 60 ;"));
}

/// What makes no one regular chunk grid is inlined when small (said in a warning),
/// refused in one line when larger than --inline-limit, naming the file and why:
/// a file holding part of a chunk along time; files compressed otherwise. A Zarr
/// input is refused; nothing is written.
#[test]
fn files_whose_chunks_make_no_grid_are_refused_in_one_line() {
    let tmp = tempfile::tempdir().unwrap();
    // Three records a file in chunks of two along time.
    let files = day_files(tmp.path(), "nc4", 2, 3, 2);
    let refs = tmp.path().join("r.json");
    let (a, b, out) = (s(&files[0]), s(&files[1]), s(&refs));
    let small = run("nczcopy", &["-k", "kerchunk", &a, &b, &out]);
    assert_eq!(small.code(), 0, "{}", small.stderr());
    assert!(
        small.stderr().contains("variable '/tas'") && small.stderr().contains("inlined"),
        "{}",
        small.stderr()
    );
    assert_equal_datasets(&refs, &files_joined(tmp.path(), &files), "inlined");
    fs::remove_file(&refs).unwrap();
    let line = run(
        "nczcopy",
        &["-k", "kerchunk", "--inline-limit", "100", &a, &b, &out],
    )
    .fails_with_one_line(1);
    assert!(
        line.contains("day0-nc4.nc holds 3 along 'time', not a whole number of its chunks of 2"),
        "{line}"
    );
    assert!(!refs.exists());
    // The second file not compressed: other codecs.
    let other = tmp.path().join("plain.cdl");
    fs::write(&other, day_cdl(1, 2, 1, false, true)).unwrap();
    let plain = tmp.path().join("plain.nc");
    nczgen(&["-k", "nc4", "-o", &s(&plain), &s(&other)]).success();
    let first = day_files(&tmp.path().join("."), "nc4", 1, 2, 1);
    let line = run(
        "nczcopy",
        &[
            "-k",
            "kerchunk",
            "--inline-threshold",
            "0",
            "--inline-limit",
            "0",
            &s(&first[0]),
            &s(&plain),
            &out,
        ],
    )
    .fails_with_one_line(1);
    assert!(
        line.contains("with zlib") && line.contains("one regular chunk grid cannot be made"),
        "{line}"
    );
    assert!(!refs.exists());
    // A Zarr dataset among the inputs.
    let zarr = tmp.path().join("z.zarr");
    run("nczcopy", &[&s(&first[0]), &s(&zarr)]).success();
    let line = run(
        "nczcopy",
        &["-k", "kerchunk", &s(&first[0]), &s(&zarr), &out],
    )
    .fails_with_one_line(1);
    assert!(
        line.contains("z.zarr") && line.contains("Zarr dataset"),
        "{line}"
    );
    assert!(!refs.exists());
}

/// `files` joined by a copy into a Zarr store in `dir`.
fn files_joined(dir: &Path, files: &[PathBuf]) -> PathBuf {
    let out = dir.join("joined-copy.zarr");
    let names: Vec<String> = files.iter().map(|f| s(f)).collect();
    nczcopy(&[], &names, &out).success();
    out
}

/// `nczcopy OPTIONS INPUTS... OUTPUT`.
fn nczcopy(options: &[&str], inputs: &[String], output: &Path) -> crate::util::Run {
    let output = s(output);
    let mut args: Vec<&str> = options.to_vec();
    args.extend(inputs.iter().map(String::as_str));
    args.push(&output);
    run("nczcopy", &args)
}

/// Files on a web server: their references name their URLs, and every tool reads the
/// chunks back from the server by byte ranges, equal to the local files joined.
#[test]
fn remote_files_are_referenced_by_their_urls_and_read_back_from_the_server() {
    let tmp = tempfile::tempdir().unwrap();
    let files = day_files(tmp.path(), "nc4", 3, 2, 1);
    let server = RangeServer::start(tmp.path(), true);
    let urls: Vec<String> = files
        .iter()
        .map(|f| {
            let name = f.file_name().unwrap().to_string_lossy();
            format!("{}/{name}#mode=bytes", server.url)
        })
        .collect();
    let refs = tmp.path().join("remote.json");
    nczcopy(&["-k", "kerchunk", "--inline-threshold", "0"], &urls, &refs).success();
    let json = nczarr::json::parse(&fs::read(&refs).unwrap()).unwrap();
    let templates = json.get("templates").and_then(|t| t.as_object()).unwrap();
    assert_eq!(
        templates[1].1.as_str(),
        Some(format!("{}/day1-nc4.nc", server.url).as_str())
    );
    let before = server.requests();
    assert_equal_datasets(&refs, &files_joined(tmp.path(), &files), "remote");
    assert!(
        server.requests() > before,
        "the chunks were not read from the server"
    );
}

/// A reference file on a web server is a dataset too (by its `.json` name, by
/// `#mode=kerchunk` whatever its name), and the files it names relatively are looked
/// for beside it on the server.
#[test]
fn reference_files_on_a_web_server_are_read_with_relative_names_beside_them() {
    let tmp = tempfile::tempdir().unwrap();
    let files = day_files(tmp.path(), "nc4", 2, 2, 1);
    let refs = tmp.path().join("rel.json");
    let (a, b, out) = (s(&files[0]), s(&files[1]), s(&refs));
    // Past the threshold, so that the chunks are references, not inline.
    run(
        "nczcopy",
        &[
            "-k",
            "kerchunk",
            "--inline-threshold",
            "0",
            "--url-prefix",
            ".",
            &a,
            &b,
            &out,
        ],
    )
    .success();
    fs::copy(&refs, tmp.path().join("rel.refs")).unwrap();
    let server = RangeServer::start(tmp.path(), true);
    let joined = files_joined(tmp.path(), &files);
    for url in [
        format!("{}/rel.json", server.url),
        format!("{}/rel.refs#mode=kerchunk", server.url),
    ] {
        let before = server.requests();
        let r = run("nczcmp", &["-N", &url, &s(&joined)]);
        assert_eq!(r.code(), 0, "{url}: {}{}", r.stdout(), r.stderr());
        // The reference file and the chunks of both files, from the server.
        let used = server.requests() - before;
        assert!(used >= 3, "{url}: {used} requests");
        let keys = run("zmapdump", &["list", &url]);
        assert!(
            keys.stdout().contains("tas/.zarray"),
            "{url}: {}",
            keys.stdout()
        );
    }
}

/// Files in S3 objects are referenced as `s3://bucket/key` (fsspec's names), and the
/// references read back through the S3 settings of the reader (its endpoint and keys),
/// equal to the files joined.
#[test]
fn s3_objects_are_referenced_as_s3_urls_and_read_back_with_the_readers_settings() {
    let Some(s3) = crate::util::s3::server("kerchunk") else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let files = day_files(tmp.path(), "nc4", 2, 2, 1);
    let store = s3.store("files");
    let mut urls = Vec::new();
    for f in &files {
        let name = f.file_name().unwrap().to_string_lossy().to_string();
        store
            .put(
                &nczarr::store::StoreKey::new(&name).unwrap(),
                &fs::read(f).unwrap(),
            )
            .unwrap();
        urls.push(format!(
            "{}/{}/{}/files/{name}#mode=bytes,s3",
            s3.endpoint, s3.bucket, s3.prefix
        ));
    }
    let refs = tmp.path().join("s3.json");
    let (out, joined) = (s(&refs), files_joined(tmp.path(), &files));
    s3.run(
        "nczcopy",
        &[
            "-k",
            "kerchunk",
            "--inline-threshold",
            "0",
            &urls[0],
            &urls[1],
            &out,
        ],
        &s3.keys(),
    )
    .success();
    let json = nczarr::json::parse(&fs::read(&refs).unwrap()).unwrap();
    let templates = json.get("templates").and_then(|t| t.as_object()).unwrap();
    assert_eq!(
        templates[0].1.as_str(),
        Some(format!("s3://{}/{}/files/day0-nc4.nc", s3.bucket, s3.prefix).as_str())
    );
    let mut env = s3.keys();
    env.push(("AWS_ENDPOINT_URL", s3.endpoint.clone()));
    env.push(("AWS_ALLOW_HTTP", "true".into()));
    let r = s3.run("nczcmp", &["-N", &out, &s(&joined)], &env);
    assert_eq!(r.code(), 0, "{}{}", r.stdout(), r.stderr());
    // The reference file itself in S3: read whole, a dataset as the local one.
    store
        .put(
            &nczarr::store::StoreKey::new("year.json").unwrap(),
            &fs::read(&refs).unwrap(),
        )
        .unwrap();
    let remote = format!(
        "{}/{}/{}/files/year.json#mode=s3",
        s3.endpoint, s3.bucket, s3.prefix
    );
    let r = s3.run("nczcmp", &["-N", &remote, &s(&joined)], &env);
    assert_eq!(r.code(), 0, "{remote}: {}{}", r.stdout(), r.stderr());
}
