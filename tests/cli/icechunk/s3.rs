//! Repositories on S3 (the local SeaweedFS of `scripts/test.sh`): written, appended,
//! read back by icechunk-python through its own S3 client; a remote repository's
//! references to local files refused unless allowed. Skipped without the server.

use nczarr::store::DirStore;

use crate::util::icechunk::{ice_python, ice_with, two_days};
use crate::util::s3::{dump_content, server};
use crate::util::{run, s};

/// ice.py against the test server: `s3://bucket/prefix/name` for icechunk-python.
fn ice_s3(py: &str, s3: &crate::util::s3::Server, args: &[&str]) -> String {
    ice_with(
        py,
        args,
        &[
            ("ICE_S3_ENDPOINT", &s3.endpoint),
            ("AWS_ACCESS_KEY_ID", &s3.key),
            ("AWS_SECRET_ACCESS_KEY", &s3.secret),
        ],
    )
}

#[test]
fn a_repository_on_s3_written_appended_and_read_by_icechunk_python() {
    let Some(s3) = server("icechunk") else { return };
    let Some(py) = ice_python("a_repository_on_s3") else {
        return;
    };
    let keys = s3.keys();
    let tmp = tempfile::tempdir().unwrap();
    let [a, b, ab] = two_days(tmp.path());
    let url = s3.url("r.ice").replace("mode=nczarr,s3", "mode=s3");
    let theirs = format!("s3://{}/{}/r.ice", s3.bucket, s3.prefix);
    s3.run("nczcopy", &["-k", "icechunk", &s(&a), &url], &keys)
        .success();
    ice_s3(&py, &s3, &["same", &theirs, "branch:main", &s(&a)]);
    // Found by its content, with no mode saying so.
    let expected = dump_content(&run("nczdump", &[&s(&a)]).stdout());
    assert_eq!(
        dump_content(&s3.run("nczdump", &[&url], &keys).success().stdout()),
        expected
    );
    s3.run(
        "nczcopy",
        &["--append", "--message", "more", &s(&b), &url],
        &keys,
    )
    .success();
    ice_s3(&py, &s3, &["same", &theirs, "branch:main", &s(&ab)]);
    let history = s3
        .run("zmapdump", &["history", &url], &keys)
        .success()
        .stdout();
    assert_eq!(history.lines().count(), 3, "{history}");
    assert!(
        history.lines().next().unwrap().ends_with(" more"),
        "{history}"
    );
    s3.run("nczcmp", &[&url, &s(&ab)], &keys).success();
    // Refused again without --overwrite; replaced with it, history kept.
    let e = s3
        .run("nczcopy", &["-k", "icechunk", &s(&a), &url], &keys)
        .fails_with_one_line(1);
    assert!(e.contains("an Icechunk repository already exists"), "{e}");
    s3.run("nczcopy", &["-O", "-k", "icechunk", &s(&a), &url], &keys)
        .success();
    ice_s3(&py, &s3, &["same", &theirs, "branch:main", &s(&a)]);
    let log = ice_s3(&py, &s3, &["log", &theirs]);
    assert_eq!(
        log.lines().filter(|l| !l.starts_with("branch")).count(),
        4,
        "{log}"
    );
}

#[test]
fn a_repository_on_s3_refers_to_local_files_only_when_allowed() {
    let Some(s3) = server("icechunk-local-refs") else {
        return;
    };
    let Some(py) = ice_python("a_repository_on_s3_refers_to_local_files") else {
        return;
    };
    let keys = s3.keys();
    let tmp = tempfile::tempdir().unwrap();
    crate::util::icechunk::ice(&py, &["virtual", &s(tmp.path())]);
    let local = DirStore::open(&tmp.path().join("virt.ice")).unwrap();
    s3.upload(&local, "virt.ice");
    let url = s3.url("virt.ice").replace("mode=nczarr,s3", "mode=s3");
    // Metadata reads; a chunk of a local file is refused, naming the rule and the way.
    s3.run("nczdump", &["-h", &url], &keys).success();
    let e = s3
        .run("nczdump", &["-v", "tas", &url], &keys)
        .fails_with_one_line(1);
    assert!(
        e.contains("reference to local file")
            && e.contains("f0.nc")
            && e.contains("--allow-local-refs"),
        "{e}"
    );
    let joined = s(&tmp.path().join("joined.nc"));
    s3.run(
        "nczcmp",
        &["-d", "-N", "--allow-local-refs", &url, &joined],
        &keys,
    )
    .success();
    let allowed = format!("{url}&refs.local=allow");
    s3.run("nczcmp", &["-d", "-N", &allowed, &joined], &keys)
        .success();
}
