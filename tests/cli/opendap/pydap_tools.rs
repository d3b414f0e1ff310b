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
    // Several DAP URLs joined along the record dimension, as files are.
    let joined = out.path().join("joined.zarr");
    run(
        "nczcopy",
        &[&url, &url, "--join", "rec", joined.to_str().unwrap()],
    );
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
