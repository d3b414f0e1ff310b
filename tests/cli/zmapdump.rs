use crate::util::{run, TempStore};

#[test]
fn list_and_search() {
    let s = TempStore::nczarr_sample("z.file");
    let out = run("zmapdump", &["list", &s.path_str()]);
    out.success();
    let lines: Vec<String> = out
        .stdout()
        .lines()
        .map(|l| l.split_whitespace().last().unwrap().to_string())
        .collect();
    assert_eq!(
        lines,
        [".zattrs", ".zgroup", "v/.zarray", "v/.zattrs", "v/0.0"]
    );
    assert!(out.stdout().contains("          24  v/0.0\n"));
    run("zmapdump", &["search", &s.path_str()])
        .success()
        .stdout_is(".zattrs\n.zgroup\nv\n");
    run("zmapdump", &["search", &s.path_str(), "v"])
        .success()
        .stdout_is(".zarray\n.zattrs\n0.0\n");
}

#[test]
fn object_json_and_hex() {
    let s = TempStore::nczarr_sample("o.file");
    let out = run("zmapdump", &["object", &s.path_str(), "v/.zarray"]);
    out.success();
    assert!(
        out.stdout()
            .starts_with("{\n  \"zarr_format\": 2,\n  \"shape\": [2,3],\n"),
        "{}",
        out.stdout()
    );
    let out = run("zmapdump", &["object", &s.path_str(), "v/0.0"]);
    out.success();
    assert!(
        out.stdout().starts_with(
            "00000000  01 00 00 00 02 00 00 00  03 00 00 00 04 00 00 00  |................|\n"
        ),
        "{}",
        out.stdout()
    );
    let err = run("zmapdump", &["object", &s.path_str(), "v/9.9"]).fails_with_one_line(1);
    assert!(err.ends_with("key 'v/9.9' does not exist"), "{err}");
}

#[test]
fn chunk_values_and_missing_chunks() {
    let s = TempStore::nczarr_sample("c.file");
    let out = run("zmapdump", &["chunk", &s.path_str(), "v", "0.0"]);
    out.success();
    assert!(out.stdout().contains("key: v/0.0\n"));
    assert!(
        out.stdout().ends_with("values:\n  1, 2, 3\n  4, 5, 6\n"),
        "{}",
        out.stdout()
    );
    s.remove("v/0.0");
    let out = run("zmapdump", &["chunk", &s.path_str(), "v", "0,0"]);
    out.success();
    assert!(
        out.stdout()
            .ends_with("not stored: reads as the fill value -2147483647\n"),
        "{}",
        out.stdout()
    );
    let err = run("zmapdump", &["chunk", &s.path_str(), "v", "3.0"]).fails_with_one_line(1);
    assert!(
        err.contains("chunk index [3, 0] is outside the chunk grid [1, 1]"),
        "{err}"
    );
}

#[test]
fn format_names_the_generation() {
    let s = TempStore::nczarr_sample("g.file");
    let out = run("zmapdump", &["format", &s.path_str()]);
    out.success();
    assert!(
        out.stdout()
            .starts_with("NCZarr 2.0.0, netcdf-c 4.9.3+/4.10 layout"),
        "{}",
        out.stdout()
    );
}
