//! What a new user met trying the tools (issue 38), one test each: options that were
//! silently ignored or accepted, messages that said too little, layouts a reader could
//! not open, defaults that wasted the disk.

use std::fs;
use std::process::Command;
use std::sync::Arc;
use std::time::Duration;

use crate::util::{exe, have, run, RangeServer};

const CDL: &str = "netcdf s {\ndimensions:\n\tx = 4 ;\nvariables:\n\tfloat f(x) ;\n\tint i(x) ;\ndata:\n f = 1, 2, NaN, Infinity ;\n i = 1, 0, 5, 7 ;\n}\n";

fn dataset(dir: &std::path::Path) -> String {
    let cdl = dir.join("s.cdl");
    fs::write(&cdl, CDL).unwrap();
    let out = dir.join("s.zarr").to_string_lossy().into_owned();
    run("nczgen", &["-o", &out, &cdl.to_string_lossy()]).success();
    out
}

#[test]
fn unknown_codec_parameters_are_refused_everywhere() {
    let tmp = tempfile::tempdir().unwrap();
    let input = dataset(tmp.path());
    let out = tmp.path().join("o.zarr").to_string_lossy().into_owned();
    for (args, expect) in [
        (
            vec!["--codec", "zstd:levl=3"],
            r#"unknown parameter "levl" (it takes level, checksum)"#,
        ),
        (
            vec!["--codec", r#"{"id": "blosc", "cname": "lz4", "level": 5}"#],
            r#"unknown parameter "level""#,
        ),
        (
            vec!["-F", "*,32015,3,9"],
            "takes at most 1 parameter, not 2",
        ),
        (
            vec!["-d", "9", "--codec", "zstd"],
            "-d 9 and --codec both choose",
        ),
    ] {
        let mut all = args.clone();
        all.extend([input.as_str(), out.as_str()]);
        let e = run("nczcopy", &all).fails_with_one_line(1);
        assert!(e.contains(expect), "{args:?}: {e}");
        assert!(!std::path::Path::new(&out).exists());
    }
    // _Codecs in CDL, as nczgen reads it.
    let cdl = tmp.path().join("c.cdl");
    fs::write(
        &cdl,
        "netcdf c {\ndimensions:\n\tx = 2 ;\nvariables:\n\tint v(x) ;\n\t\tv:_Codecs = \"[{\\\"id\\\": \\\"zlib\\\", \\\"lvl\\\": 1}]\" ;\ndata:\n v = 1, 2 ;\n}\n",
    )
    .unwrap();
    let e = run("nczgen", &["-o", &out, &cdl.to_string_lossy()]).fails_with_one_line(1);
    assert!(
        e.contains(r#"unknown parameter "lvl" (it takes level)"#),
        "{e}"
    );
}

#[test]
fn a_missing_output_is_a_usage_error() {
    let tmp = tempfile::tempdir().unwrap();
    let input = dataset(tmp.path());
    let r = run("nczcopy", &[&input]);
    assert_eq!(r.code(), 2, "{}", r.stderr());
    assert!(r.stderr().contains("OUTPUT is required"), "{}", r.stderr());
}

#[test]
fn dry_run_names_the_output_kind_the_padding_and_too_little_memory() {
    let tmp = tempfile::tempdir().unwrap();
    let cdl = tmp.path().join("m.cdl");
    fs::write(
        &cdl,
        "netcdf m {\ndimensions:\n\tt = 365 ;\n\ty = 180 ;\n\tx = 36 ;\nvariables:\n\tfloat v(t, y, x) ;\n\t\tv:_ChunkSizes = 1, 180, 36 ;\n}\n",
    )
    .unwrap();
    let maps = tmp.path().join("maps.zarr").to_string_lossy().into_owned();
    run("nczgen", &["-o", &maps, &cdl.to_string_lossy()]).success();
    let out = tmp.path().join("o.zarr").to_string_lossy().into_owned();
    let r = run(
        "nczcopy",
        &[
            "--dry-run",
            "--memory",
            "1K",
            "-c",
            "t/365,y/10,x/10",
            &maps,
            &out,
        ],
    );
    assert!(r.output.status.success(), "{}", r.stderr());
    let plan = r.stdout();
    assert!(
        plan.starts_with("output: NCZarr") && plan.contains("as the input's Zarr version"),
        "{plan}"
    );
    // 180 in chunks of 10 and 36 in chunks of 10: 36 -> 40 along x, 11.1% more.
    assert!(
        plan.contains("9460800 bytes to read; 10512000 bytes stored before compression (11.1% padding in edge chunks)"),
        "{plan}"
    );
    let err = r.stderr();
    assert!(
        err.contains("--memory 1K is below the least a copy uses; using 1M"),
        "{err}"
    );
    assert!(
        err.contains("variable /v: with --memory 1M, each input chunk is read about 72 times")
            && err.contains("reads each about once"),
        "{err}"
    );
    assert!(!std::path::Path::new(&out).exists());
    // A Zarr v3 input copies to Zarr v3 by default.
    let v3 = tmp.path().join("v3.zarr").to_string_lossy().into_owned();
    run("nczcopy", &["-k", "zarr3", &maps, &v3]).success();
    let r = run("nczcopy", &["--dry-run", &v3, &out]);
    assert!(
        r.stdout()
            .starts_with("output: Zarr version 3, as the input's"),
        "{}",
        r.stdout()
    );
    run("nczcopy", &[&v3, &out]).success();
    assert!(tmp.path().join("o.zarr/zarr.json").exists());
}

#[test]
fn default_chunks_waste_little_disk() {
    let tmp = tempfile::tempdir().unwrap();
    let cdl = tmp.path().join("big.cdl");
    fs::write(
        &cdl,
        "netcdf big {\ndimensions:\n\tt = 365 ;\n\ty = 180 ;\n\tx = 360 ;\nvariables:\n\tfloat v(t, y, x) ;\n}\n",
    )
    .unwrap();
    let out = tmp.path().join("b.zarr");
    run(
        "nczgen",
        &["-o", &out.to_string_lossy(), &cdl.to_string_lossy()],
    )
    .success();
    let zarray = fs::read_to_string(out.join("v/.zarray")).unwrap();
    assert!(zarray.contains(r#""chunks": [73,90,180]"#), "{zarray}");
}

#[test]
fn json_refuses_the_options_that_shape_cdl() {
    let tmp = tempfile::tempdir().unwrap();
    let input = dataset(tmp.path());
    for (flag, what) in [
        (vec!["-t"], "-t (dates)"),
        (vec!["-s"], "-s (special attributes)"),
        (vec!["-b", "c"], "-b (row indices)"),
        (vec!["-p", "3"], "-p (digits)"),
    ] {
        let mut args = vec!["--json"];
        args.extend(flag.iter().copied());
        args.push(&input);
        let e = run("nczdump", &args).fails_with_one_line(1);
        assert!(e.contains(&format!("--json does not take {what}")), "{e}");
    }
    run("nczdump", &["--json", "-h", "-n", "x", &input]).success();
}

#[test]
fn zmapdump_prints_nan_and_infinities() {
    let tmp = tempfile::tempdir().unwrap();
    let input = dataset(tmp.path());
    let r = run("zmapdump", &["chunk", &input, "f", "0"]);
    r.success();
    assert!(
        r.stdout().contains("  1, 2, NaN, Infinity\n"),
        "{}",
        r.stdout()
    );
}

#[test]
fn a_damaged_array_document_leaves_out_its_variable_only() {
    let tmp = tempfile::tempdir().unwrap();
    for (kind, doc) in [("zarr", ".zarray"), ("zarr3", "zarr.json")] {
        let out = tmp.path().join(format!("{kind}.zarr"));
        let cdl = tmp.path().join("s.cdl");
        fs::write(&cdl, CDL).unwrap();
        run(
            "nczgen",
            &[
                "-k",
                kind,
                "-o",
                &out.to_string_lossy(),
                &cdl.to_string_lossy(),
            ],
        )
        .success();
        // Without consolidated metadata, as a store another tool changed.
        let _ = fs::remove_file(out.join(".zmetadata"));
        if kind == "zarr3" {
            let root = fs::read_to_string(out.join("zarr.json")).unwrap();
            let cut = root.find(", \"consolidated_metadata\"").unwrap();
            fs::write(out.join("zarr.json"), format!("{}}}", &root[..cut])).unwrap();
        }
        fs::write(out.join("i").join(doc), "{\"broken").unwrap();
        let r = run("nczdump", &[&out.to_string_lossy()]);
        assert_eq!(r.code(), 1, "{kind}: {}", r.stderr());
        assert!(
            r.stdout().contains(" f = 1, 2, NaNf, Infinityf ;"),
            "{kind}: {}",
            r.stdout()
        );
        assert!(!r.stdout().contains(" i ="), "{kind}: {}", r.stdout());
        assert!(
            r.stderr().contains(&format!("key 'i/{doc}'")),
            "{kind}: {}",
            r.stderr()
        );
    }
}

#[test]
fn a_zarr_v2_store_of_one_array_is_a_dataset_of_one_variable() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("one.zarr");
    fs::create_dir(&root).unwrap();
    fs::write(
        root.join(".zarray"),
        r#"{"zarr_format": 2, "shape": [3], "chunks": [3], "dtype": "<i2", "fill_value": null, "order": "C", "compressor": null, "filters": null}"#,
    )
    .unwrap();
    fs::write(root.join("0"), [1u8, 0, 2, 0, 3, 0]).unwrap();
    let r = run("nczdump", &[&root.to_string_lossy()]);
    r.success();
    assert!(
        r.stdout().contains("\tshort one(_Anonymous_Dim_3) ;"),
        "{}",
        r.stdout()
    );
    assert!(r.stdout().contains(" one = 1, 2, 3 ;"), "{}", r.stdout());
}

#[test]
fn the_4_9_0_layout_keeps_chunks_within_dimensions() {
    let tmp = tempfile::tempdir().unwrap();
    let cdl = tmp.path().join("u.cdl");
    fs::write(
        &cdl,
        "netcdf u {\ndimensions:\n\ttime = UNLIMITED ;\n\tx = 4 ;\nvariables:\n\tfloat t(time, x) ;\n\t\tt:_ChunkSizes = 512, 4 ;\ndata:\n t = 1,2,3,4,5,6,7,8,9,10,11,12 ;\n}\n",
    )
    .unwrap();
    let out = tmp.path().join("u.zarr");
    let r = run(
        "nczgen",
        &[
            "--nczarr-layout",
            "4.9.0",
            "-o",
            &out.to_string_lossy(),
            &cdl.to_string_lossy(),
        ],
    );
    assert!(r.output.status.success(), "{}", r.stderr());
    let zarray = fs::read_to_string(out.join("t/.zarray")).unwrap();
    assert!(zarray.contains(r#""chunks": [3,4]"#), "{zarray}");
    if have("ncdump") {
        let url = format!("file://{}#mode=nczarr,file", out.display());
        let o = Command::new("ncdump").arg(&url).output().unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        assert!(String::from_utf8_lossy(&o.stdout).contains("9, 10, 11, 12 ;"));
    } else {
        eprintln!("skipped the ncdump 4.9.0 read: no ncdump");
    }
}

#[test]
fn progress_into_a_log_says_how_far_a_long_variable_is() {
    let tmp = tempfile::tempdir().unwrap();
    let values: Vec<String> = (0..400).map(|i| i.to_string()).collect();
    let cdl = tmp.path().join("p.cdl");
    fs::write(
        &cdl,
        format!(
            "netcdf p {{\ndimensions:\n\tn = 400 ;\nvariables:\n\tint v(n) ;\n\t\tv:_ChunkSizes = 1 ;\ndata:\n v = {} ;\n}}\n",
            values.join(", ")
        ),
    )
    .unwrap();
    let src = tmp.path().join("www/p.zarr");
    fs::create_dir(tmp.path().join("www")).unwrap();
    run(
        "nczgen",
        &["-o", &src.to_string_lossy(), &cdl.to_string_lossy()],
    )
    .success();
    // 400 chunks at 80 ms, 16 at a time: about 2 s of one variable.
    let server = RangeServer::start_with_delay(
        &tmp.path().join("www"),
        true,
        Arc::new(|p: &str| p.contains("/v/").then(|| Duration::from_millis(80))),
    );
    let out = tmp.path().join("o.zarr");
    let r = Command::new(exe("nczcopy"))
        .env("NCZCOPY_PROGRESS_EVERY", "0.5")
        .args([
            "--progress",
            &format!("{}/p.zarr", server.url),
            &out.to_string_lossy(),
        ])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&r.stderr);
    assert!(r.status.success(), "{err}");
    let ticks = err
        .lines()
        .filter(|l| l.starts_with("nczcopy: progress: /v: ") && l.contains(" bytes ("))
        .count();
    assert!(ticks >= 2, "{err}");
    // The totals line is the copy's, not labelled with its last variable (issue 61).
    let last = err.lines().last().unwrap_or("");
    assert!(last.starts_with("nczcopy: progress: done: "), "{err}");
    assert!(
        !last.contains("/v:") && last.contains(" bytes (100%)"),
        "{err}"
    );
}

#[test]
fn gcs_errors_name_the_endpoint_requests_went_to() {
    let home = tempfile::tempdir().unwrap();
    // Port 9 (discard) refuses connections on loopback: nothing answers.
    let sa = home.path().join("sa.json");
    fs::write(
        &sa,
        r#"{"type": "service_account", "gcs_base_url": "http://127.0.0.1:9", "disable_oauth": true, "client_email": "t@example.invalid", "private_key_id": "", "private_key": ""}"#,
    )
    .unwrap();
    for env in [
        vec![(
            "GOOGLE_APPLICATION_CREDENTIALS",
            sa.to_string_lossy().into_owned(),
        )],
        vec![("STORAGE_EMULATOR_HOST", "127.0.0.1:9".to_string())],
    ] {
        let e = crate::util::run_clean("nczdump", home.path(), &["gs://b/x.zarr"], &env)
            .fails_with_one_line(1);
        assert!(e.contains("(http://127.0.0.1:9)"), "{env:?}: {e}");
        assert!(!e.contains("storage.googleapis.com"), "{e}");
    }
}
