//! Virtual references to netCDF files that are not on this disk: on a web server and
//! in an S3 bucket. The repository declares the server or the bucket (with the S3
//! server's address, so icechunk-python needs no settings of its own); our tools read
//! the chunks through our stores, icechunk-python and xarray through theirs, and both
//! read the files' values.

use std::path::Path;

use crate::util::icechunk::{assert_reads_as, ice, ice_python, ice_with};
use crate::util::s3::server;
use crate::util::{run, s, RangeServer};

/// Three netCDF-4 files `f0.nc`..`f2.nc` (time 4 each, chunked, compressed) in
/// `dir/files`, and `dir/joined.nc` holding their values joined along time.
fn three_files(py: &str, dir: &Path) -> Vec<std::path::PathBuf> {
    ice(py, &["virtual", &s(dir)]);
    let files = dir.join("files");
    std::fs::create_dir(&files).unwrap();
    (0..3)
        .map(|i| {
            let to = files.join(format!("f{i}.nc"));
            std::fs::rename(dir.join(format!("f{i}.nc")), &to).unwrap();
            to
        })
        .collect()
}

/// `nczcopy -k icechunk --virtual --concat time URLS... REPO` with `env`.
fn virtual_copy(urls: &[String], repo: &Path, env: &[(&str, String)]) {
    let mut args = vec!["-k", "icechunk", "--virtual", "--concat", "time"];
    args.extend(urls.iter().map(String::as_str));
    let repo = s(repo);
    args.push(&repo);
    let home = tempfile::tempdir().unwrap();
    crate::util::run_clean("nczcopy", home.path(), &args, env).success();
}

#[test]
fn references_to_files_on_a_web_server_are_read_by_us_and_icechunk_python() {
    let Some(py) = ice_python("references_to_files_on_a_web_server") else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    three_files(&py, d);
    let web = RangeServer::start(&d.join("files"), true);
    let urls: Vec<String> = (0..3)
        .map(|i| format!("{}/f{i}.nc#mode=bytes", web.url))
        .collect();
    let repo = d.join("web.ice");
    virtual_copy(&urls, &repo, &[]);
    let joined = d.join("joined.nc");
    run("nczcmp", &["-d", "-N", &s(&repo), &s(&joined)]).success();
    assert_reads_as(&py, &repo, "branch:main", &joined);
    let before = web.requests();
    // The chunks are the server's: nothing of the files is in the repository.
    assert_eq!(
        std::fs::read_dir(repo.join("chunks")).map_or(0, |r| r.count()),
        0
    );
    run("nczdump", &["-v", "tas", &s(&repo)]).success();
    assert!(web.requests() > before);
}

#[test]
fn references_to_files_in_an_s3_bucket_are_read_by_us_and_icechunk_python() {
    let Some(s3) = server("icechunk-virtual-s3") else {
        return;
    };
    let Some(py) = ice_python("references_to_files_in_an_s3_bucket") else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let files = three_files(&py, d);
    let local = nczarr::store::DirStore::open(&d.join("files")).unwrap();
    s3.upload(&local, "files");
    let urls: Vec<String> = files
        .iter()
        .map(|f| {
            let name = f.file_name().unwrap().to_string_lossy();
            format!("s3://{}/{}/files/{name}#mode=bytes", s3.bucket, s3.prefix)
        })
        .collect();
    let mut env = s3.keys();
    env.push(("AWS_ENDPOINT_URL", s3.endpoint.clone()));
    env.push(("AWS_ALLOW_HTTP", "true".into()));
    env.push(("AWS_REGION", "us-east-1".into()));
    let repo = d.join("s3.ice");
    virtual_copy(&urls, &repo, &env);
    let joined = d.join("joined.nc");
    s3.run("nczcmp", &["-d", "-N", &s(&repo), &s(&joined)], &env)
        .success();
    // icechunk-python finds the bucket where the repository says it is, with the keys
    // of its own environment.
    ice_with(
        &py,
        &["same", &s(&repo), "branch:main", &s(&joined)],
        &[
            ("AWS_ACCESS_KEY_ID", &s3.key),
            ("AWS_SECRET_ACCESS_KEY", &s3.secret),
        ],
    );
    // The files are read from the bucket, not from where they were made.
    std::fs::remove_dir_all(d.join("files")).unwrap();
    s3.run("nczcmp", &["-d", "-N", &s(&repo), &s(&joined)], &env)
        .success();
}
