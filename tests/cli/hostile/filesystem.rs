//! Hostile file trees and archives: metadata that is a directory, special files,
//! symbolic links out of the store and in loops, `..` and absolute keys in metadata
//! lists, and zip archives with slips, duplicates, truncation, bad CRCs and huge
//! entries.

use std::io::Write;
use std::os::unix::fs::symlink;
use std::path::Path;

use super::{put, zarr, zarray, Case, Expect};

/// A small valid store `s.zarr`: `v` of 4 int values in one chunk.
fn valid(d: &Path) {
    let data: Vec<u8> = (1..=4i32).flat_map(i32::to_le_bytes).collect();
    zarr(
        d,
        &zarray(4, 4, "<i4", "null", "null"),
        Some(r#"["x"]"#),
        &[("0", data.as_slice())],
    );
}

/// A zip archive `s.zip` of these entries (stored, or deflated when `deflate`).
fn zip_of(d: &Path, entries: &[(&str, Vec<u8>)], deflate: bool) {
    let f = std::fs::File::create(d.join("s.zip")).expect("zip file");
    let mut z = zip::ZipWriter::new(f);
    let method = if deflate {
        zip::CompressionMethod::Deflated
    } else {
        zip::CompressionMethod::Stored
    };
    let opts = zip::write::SimpleFileOptions::default()
        .compression_method(method)
        .large_file(true);
    for (name, bytes) in entries {
        z.start_file(*name, opts).expect("entry");
        z.write_all(bytes).expect("write entry");
    }
    z.finish().expect("finish zip");
}

/// The entries of [`valid`]'s store, for archives.
fn valid_entries() -> Vec<(&'static str, Vec<u8>)> {
    let data: Vec<u8> = (1..=4i32).flat_map(i32::to_le_bytes).collect();
    vec![
        (".zgroup", br#"{"zarr_format": 2}"#.to_vec()),
        (
            "v/.zarray",
            zarray(4, 4, "<i4", "null", "null").into_bytes(),
        ),
        ("v/.zattrs", br#"{"_ARRAY_DIMENSIONS": ["x"]}"#.to_vec()),
        ("v/0", data),
    ]
}

/// Nothing named `evil` appeared anywhere under the case's directory or beside it.
fn nothing_escaped(d: &Path) -> Result<(), String> {
    for p in [
        d.join("evil"),
        d.join("out.zarr/../evil"),
        d.parent().map_or(d.join("x"), |p| p.join("evil")),
    ] {
        if p.exists() {
            return Err(format!("{} was written", p.display()));
        }
    }
    Ok(())
}

pub fn cases() -> Vec<Case> {
    use Expect::{Fails, Succeeds};
    let dump = ["{dir}/s.zarr"];
    vec![
        Case::new("files", ".zarray is a directory", "nczdump", &dump, Fails("s.zarr/v/.zarray: a metadata document that is a directory"), |d| {
            valid(d);
            std::fs::remove_file(d.join("s.zarr/v/.zarray")).expect("rm");
            std::fs::create_dir_all(d.join("s.zarr/v/.zarray/x")).expect("mkdir");
        }),
        Case::new("files", "a chunk is a directory", "nczdump", &dump, Succeeds("v = "), |d| {
            valid(d);
            std::fs::remove_file(d.join("s.zarr/v/0")).expect("rm");
            std::fs::create_dir_all(d.join("s.zarr/v/0/1")).expect("mkdir");
        }),
        Case::new("files", "a chunk is a named pipe", "nczdump", &dump, Fails("s.zarr/v/0: not a regular file (a named pipe, device or socket), not read"), |d| {
            valid(d);
            std::fs::remove_file(d.join("s.zarr/v/0")).expect("rm");
            let st = std::process::Command::new("mkfifo").arg(d.join("s.zarr/v/0")).status();
            assert!(st.is_ok_and(|s| s.success()), "mkfifo");
        }),
        Case::new("files", "a chunk links to /dev/zero", "nczdump", &dump, Fails("s.zarr/v/0: a symbolic link out of the dataset (to /dev/zero), not followed"), |d| {
            valid(d);
            std::fs::remove_file(d.join("s.zarr/v/0")).expect("rm");
            symlink("/dev/zero", d.join("s.zarr/v/0")).expect("symlink");
        }),
        Case::new("files", "a chunk links out of the store", "nczdump", &dump, Fails("s.zarr/v/0: a symbolic link out of the dataset (to "), |d| {
            valid(d);
            put(d, "secret", [7u8; 16]);
            std::fs::remove_file(d.join("s.zarr/v/0")).expect("rm");
            symlink(d.join("secret"), d.join("s.zarr/v/0")).expect("symlink");
        }),
        Case::new("files", "a chunk links to itself", "nczdump", &dump, Fails("s.zarr/v/0: Too many levels of symbolic links (os error 40)"), |d| {
            valid(d);
            std::fs::remove_file(d.join("s.zarr/v/0")).expect("rm");
            symlink("0", d.join("s.zarr/v/0")).expect("symlink");
        }),
        Case::new("files", "directory links in a loop: list", "zmapdump", &["list", "{dir}/s.zarr"], Succeeds("v/0"), |d| {
            valid(d);
            symlink(".", d.join("s.zarr/v/again")).expect("symlink");
            symlink("..", d.join("s.zarr/v/up")).expect("symlink");
        }),
        Case::new("files", "directory links in a loop: copy", "nczcopy", &["{dir}/s.zarr", "{dir}/out.zarr"], Succeeds(""), |d| {
            valid(d);
            symlink(".", d.join("s.zarr/v/again")).expect("symlink");
        }),
        Case::new("files", "a variable links out of the store: list", "zmapdump", &["list", "{dir}/s.zarr"], Succeeds("v/0"), |d| {
            valid(d);
            put(d, "outside/secret", [7u8; 16]);
            symlink(d.join("outside"), d.join("s.zarr/w")).expect("symlink");
        }),
        Case::new("keys", ".zmetadata names a key with ..", "nczdump", &dump, Succeeds("netcdf s {"), |d| {
            valid(d);
            put(d, "s.zarr/.zmetadata", r#"{"zarr_consolidated_format": 1, "metadata": {".zgroup": {"zarr_format": 2}, "../evil/.zarray": {"zarr_format": 2, "shape": [1], "chunks": [1], "dtype": "<i4", "fill_value": 0, "order": "C", "compressor": null, "filters": null}}}"#);
        }),
        Case::new("keys", ".zmetadata names an absolute key", "nczdump", &dump, Succeeds("netcdf s {"), |d| {
            valid(d);
            put(d, "s.zarr/.zmetadata", r#"{"zarr_consolidated_format": 1, "metadata": {".zgroup": {"zarr_format": 2}, "/etc/x/.zarray": {}}}"#);
        }),
        Case::new("keys", "NCZarr lists a variable ..", "nczdump", &dump, Fails("s.zarr: invalid key '..': '.' and '..' segments are not allowed"), |d| {
            put(d, "s.zarr/.zgroup", r#"{"zarr_format": 2}"#);
            put(d, "s.zarr/.zattrs", r#"{"_nczarr_superblock": {"version": "2.0.0"}, "_nczarr_group": {"dimensions": {}, "arrays": [".."], "groups": []}}"#);
        }),
        Case::new("keys", "NCZarr lists a group /etc", "nczdump", &dump, Fails("s.zarr: invalid key '//etc': a name may not be empty or contain '/'"), |d| {
            put(d, "s.zarr/.zgroup", r#"{"zarr_format": 2}"#);
            put(d, "s.zarr/.zattrs", r#"{"_nczarr_superblock": {"version": "2.0.0"}, "_nczarr_group": {"dimensions": {}, "arrays": [], "groups": ["/etc"]}}"#);
        }),
        Case::new("keys", "NCZarr dimension reference with ..", "nczdump", &dump, Fails("s.zarr: variable '/v': dimension reference '/../../x' names a group that does not exist"), |d| {
            put(d, "s.zarr/.zgroup", r#"{"zarr_format": 2}"#);
            put(d, "s.zarr/.zattrs", r#"{"_nczarr_superblock": {"version": "2.0.0"}, "_nczarr_group": {"dimensions": {"x": 4}, "arrays": ["v"], "groups": []}}"#);
            put(d, "s.zarr/v/.zarray", zarray(4, 4, "<i4", "null", "null"));
            put(d, "s.zarr/v/.zattrs", r#"{"_nczarr_array": {"dimension_references": ["/../../x"], "storage": "chunked"}}"#);
        }),
        Case::new("keys", "NCZarr names 10^5 nested groups", "nczdump", &dump, Fails("s.zarr: key 'g0/.zgroup': missing: the group is listed in its parent's _nczarr_group"), |d| {
            put(d, "s.zarr/.zgroup", r#"{"zarr_format": 2}"#);
            let groups: Vec<String> = (0..100_000).map(|i| format!("\"g{i}\"")).collect();
            put(d, "s.zarr/.zattrs", format!(r#"{{"_nczarr_superblock": {{"version": "2.0.0"}}, "_nczarr_group": {{"dimensions": {{}}, "arrays": [], "groups": [{}]}}}}"#, groups.join(",")));
        }),
        // Zip archives.
        Case::new("zip", "zip slip: an entry ../evil", "nczcopy", &["{dir}/s.zip", "{dir}/out.zarr"], Fails("s.zip: entry '../evil/.zgroup' leads out of the archive (an absolute name or '..'): refused"), |d| {
            let mut e = valid_entries();
            e.push(("../evil/.zgroup", b"{}".to_vec()));
            zip_of(d, &e, false);
        }).then(nothing_escaped),
        Case::new("zip", "zip slip: an absolute entry", "nczcopy", &["{dir}/s.zip", "{dir}/out.zarr"], Fails("s.zip: entry '/tmp/evil/.zgroup' leads out of the archive (an absolute name or '..'): refused"), |d| {
            let mut e = valid_entries();
            e.push(("/tmp/evil/.zgroup", b"{}".to_vec()));
            zip_of(d, &e, false);
        }).then(nothing_escaped),
        Case::new("zip", "duplicate entries", "nczdump", &["{dir}/s.zip"], Succeeds("v = "), |d| {
            // The zip writer refuses a name twice: write `v/9`, then rename it.
            let mut e = valid_entries();
            e.push(("v/9", vec![0u8; 16]));
            zip_of(d, &e, false);
            let bytes = std::fs::read(d.join("s.zip")).expect("read zip");
            let mut out = Vec::with_capacity(bytes.len());
            let mut i = 0;
            while i < bytes.len() {
                if bytes[i..].starts_with(b"v/9") {
                    out.extend_from_slice(b"v/0");
                    i += 3;
                } else {
                    out.push(bytes[i]);
                    i += 1;
                }
            }
            std::fs::write(d.join("s.zip"), out).expect("write");
        }),
        Case::new("zip", "truncated archive", "nczdump", &["{dir}/s.zip"], Fails("s.zip: not a readable zip archive: invalid Zip archive: Could not find EOCD"), |d| {
            zip_of(d, &valid_entries(), true);
            let bytes = std::fs::read(d.join("s.zip")).expect("read zip");
            std::fs::write(d.join("s.zip"), &bytes[..bytes.len() * 2 / 3]).expect("cut");
        }),
        Case::new("zip", "CRC error in a chunk", "nczdump", &["{dir}/s.zip"], Fails("s.zip: key 'v/0': CRC-32 mismatch in zip entry (damaged archive)"), |d| {
            zip_of(d, &valid_entries(), false);
            let mut bytes = std::fs::read(d.join("s.zip")).expect("read zip");
            // The chunk's bytes 1,2,3,4 as int32: flip the first data byte.
            let at = bytes.windows(16).position(|w| w == [1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 4, 0, 0, 0]).expect("chunk bytes");
            bytes[at] ^= 0xFF;
            std::fs::write(d.join("s.zip"), bytes).expect("write");
        }),
        Case::new("zip", "a 400 MB entry where a 16-byte chunk belongs", "nczdump", &["{dir}/s.zip"], Fails("s.zip: variable '/v', chunk 'v/0': chunk holds 400000000 bytes, expected 16 (4 elements of <i4); truncated or "), |d| {
            let mut e = valid_entries();
            e[3].1 = vec![0u8; 400_000_000];
            zip_of(d, &e, true);
        }),
        Case::new("zip", "an entry claiming 2^63 bytes", "nczdump", &["{dir}/s.zip"], Succeeds("v = 1, 2, 3, 4 ;"), |d| {
            zip_of(d, &valid_entries(), false);
            let mut bytes = std::fs::read(d.join("s.zip")).expect("read zip");
            // Every central directory record's uncompressed size (offset 24) to 0xFFFFFFFF.
            let mut i = 0;
            while let Some(at) = bytes[i..].windows(4).position(|w| w == b"PK\x01\x02") {
                let p = i + at + 24;
                bytes[p..p + 4].copy_from_slice(&[0xFF; 4]);
                i = p;
            }
            std::fs::write(d.join("s.zip"), bytes).expect("write");
        }),
        Case::new("zip", "10^5 empty entries", "nczdump", &["{dir}/s.zip"], Fails("s.zip: not a Zarr dataset: no .zgroup, .zarray, .zmetadata or zarr.json at the archive root or under a single "), |d| {
            let names: Vec<String> = (0..100_000).map(|i| format!("x/{i}")).collect();
            let e: Vec<(&str, Vec<u8>)> = names.iter().map(|n| (n.as_str(), Vec::new())).collect();
            zip_of(d, &e, false);
        }),
    ]
}
