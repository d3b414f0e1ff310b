//! Repositories on GCS and Azure (fake-gcs-server and Azurite, started by
//! `scripts/test.sh`): written, appended, read, replaced with their history kept, found
//! by their content. Skipped without the emulators.

use crate::util::clouds::clouds;
use crate::util::icechunk::two_days;
use crate::util::s;

#[test]
fn a_repository_on_gcs_and_azure_is_written_appended_and_read() {
    let tmp = tempfile::tempdir().unwrap();
    let [a, b, ab] = two_days(tmp.path());
    for cloud in clouds("icechunk on GCS and Azure") {
        let env = &cloud.env;
        // Any name: found by its content.
        let url = cloud.url("year");
        cloud
            .run("nczcopy", &["-k", "icechunk", &s(&a), &url], env)
            .success();
        cloud.run("nczcmp", &[&url, &s(&a)], env).success();
        cloud
            .run("nczcopy", &["--append", "--tag", "d2", &s(&b), &url], env)
            .success();
        cloud.run("nczcmp", &[&url, &s(&ab)], env).success();
        cloud
            .run("nczcmp", &[&format!("{url}#tag=d2"), &s(&ab)], env)
            .success();
        let history = cloud
            .run("zmapdump", &["history", &url], env)
            .success()
            .stdout();
        assert_eq!(history.lines().count(), 3, "{:?}: {history}", cloud.kind);
        cloud
            .run("nczcopy", &["-O", "-k", "icechunk", &s(&a), &url], env)
            .success();
        cloud.run("nczcmp", &[&url, &s(&a)], env).success();
        let refs = cloud
            .run("zmapdump", &["refs", &url], env)
            .success()
            .stdout();
        assert!(refs.contains("tag    d2 "), "{:?}: {refs}", cloud.kind);
    }
}
