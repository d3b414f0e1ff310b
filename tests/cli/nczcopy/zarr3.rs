//! Zarr version 3 written by nczcopy: the bundled example's order kept, sharded copies
//! in small memory and in parts.

use crate::util::{first_diff, run};

#[test]
fn the_bundled_example_keeps_its_order_through_zarr3() {
    let example = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/ocean.zarr");
    let e = example.to_string_lossy();
    let tmp = tempfile::tempdir().expect("tempdir");
    let out = tmp.path().join("ocean3.zarr");
    let o = out.to_string_lossy();
    run("nczcopy", &["-k", "zarr3", "--shards", "time/4", &e, &o]).success();
    let want = run("nczdump", &[&e]).stdout();
    let got = run("nczdump", &["-n", "ocean", &o]).stdout();
    assert!(got == want, "{}", first_diff(&got, &want));
}

/// Copies into shards with less memory than a variable holds, whole and in parts:
/// every slab and every part's block is made of whole shards (a shard cut between
/// two writes would lose the first write's inner chunks).
#[test]
fn sharded_copies_in_small_memory_and_in_parts_keep_every_value() {
    fn refs(a: &[String]) -> Vec<&str> {
        a.iter().map(String::as_str).collect()
    }
    let tmp = tempfile::tempdir().expect("tempdir");
    let p = |name: &str| tmp.path().join(name).to_string_lossy().into_owned();
    let values: Vec<String> = (0..400 * 1000).map(|i| i.to_string()).collect();
    let cdl = format!(
        "netcdf big {{\ndimensions:\n\ttime = 400 ;\n\tx = 1000 ;\nvariables:\n\tint v(time, x) ;\n\t\tv:_ChunkSizes = 1, 1000 ;\ndata:\n v = {} ;\n}}\n",
        values.join(", ")
    );
    std::fs::write(p("big.cdl"), cdl).expect("write cdl");
    run("nczgen", &["-o", &p("in.zarr"), &p("big.cdl")]).success();
    let want = run("nczdump", &["-n", "x", &p("in.zarr")])
        .success()
        .stdout();
    let layout = ["-k", "zarr3", "--shards", "time/150", "--memory", "1M"];
    let args: Vec<String> = layout
        .iter()
        .map(|s| s.to_string())
        .chain([p("in.zarr"), p("whole.zarr")])
        .collect();
    run("nczcopy", &refs(&args)).success();
    let got = run("nczdump", &["-n", "x", &p("whole.zarr")])
        .success()
        .stdout();
    assert!(got == want, "{}", first_diff(&want, &got));
    let parts = |extra: &str| -> Vec<String> {
        layout
            .iter()
            .map(|s| s.to_string())
            .chain(extra.split(' ').map(str::to_string))
            .chain([p("in.zarr"), p("parts.zarr")])
            .collect()
    };
    run("nczcopy", &refs(&parts("--metadata-only"))).success();
    for k in 1..=3 {
        run("nczcopy", &refs(&parts(&format!("--part {k}/3")))).success();
    }
    run("nczcopy", &["--finish", &p("parts.zarr")]).success();
    let got = run("nczdump", &["-n", "x", &p("parts.zarr")])
        .success()
        .stdout();
    assert!(got == want, "{}", first_diff(&want, &got));
}
