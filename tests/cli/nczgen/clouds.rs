//! nczgen writing to the Google Cloud Storage and Azure Blob emulators (started by
//! `scripts/test.sh` through `scripts/cloud_servers.sh`): every golden case dumps like
//! the file store's. Skipped without them.

use crate::util::clouds::clouds;
use crate::util::{first_diff, run};

#[test]
fn nczgen_to_gcs_and_azure_dumps_like_the_file_store() {
    let tmp = tempfile::tempdir().unwrap();
    for cloud in clouds("gen") {
        for cdl in crate::util::golden_cases() {
            let case = cdl.file_stem().unwrap().to_string_lossy().into_owned();
            let local = tmp.path().join(format!("{case}.zarr"));
            if !local.exists() {
                run(
                    "nczgen",
                    &["-o", &local.to_string_lossy(), &cdl.to_string_lossy()],
                )
                .success();
            }
            let url = cloud.url(&format!("{case}.zarr"));
            cloud
                .run("nczgen", &["-o", &url, &cdl.to_string_lossy()], &cloud.env)
                .success();
            let want = run("nczdump", &["-s", &local.to_string_lossy()]).stdout();
            let got = cloud.run("nczdump", &["-s", &url], &cloud.env);
            got.success();
            assert_eq!(
                got.stdout(),
                want,
                "{case} ({:?}): {}",
                cloud.kind,
                first_diff(&got.stdout(), &want)
            );
        }
    }
}
