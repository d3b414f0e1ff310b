//! nczcopy to the Google Cloud Storage and Azure Blob emulators (started by
//! `scripts/test.sh` through `scripts/cloud_servers.sh`): peer datasets copied up and
//! read back, Zarr v3 sharded too. Skipped without them.

use std::path::PathBuf;

use crate::util::clouds::{clouds, renamed};
use crate::util::{data_dir, first_diff, run};

#[test]
fn peer_datasets_copied_up_and_read_back_zarr3_sharded_too() {
    let stores = data_dir().join("golden/stores");
    let zarr3 = data_dir().join("zarr3/stores");
    for cloud in clouds("copy") {
        let mut locals: Vec<(String, PathBuf)> = Vec::new();
        for writer in ["ncgen49-nczarr", "nc410-nczarr", "zarrpy", "xarray"] {
            let p = stores.join(writer).join("nested_groups.file");
            if p.is_dir() {
                locals.push((writer.to_string(), p));
            }
        }
        // Shards: each index is read from the shard's end (a suffix range, which
        // Azure does not answer: the store asks the size first).
        locals.push(("sharding".into(), zarr3.join("sharding.zarr")));
        assert!(locals.len() >= 4);
        for (name, local) in &locals {
            let local = local.to_string_lossy().into_owned();
            let url = cloud.url(name);
            cloud.run("nczcopy", &[&local, &url], &cloud.env).success();
            let want = run("nczdump", &[&local]).stdout();
            let got = cloud.run("nczdump", &[&url], &cloud.env);
            got.success();
            let want = renamed(&want, &got.stdout());
            assert_eq!(
                got.stdout(),
                want,
                "{name} ({:?}): {}",
                cloud.kind,
                first_diff(&got.stdout(), &want)
            );
        }
    }
}
