//! Hostile CDL (nesting, sizes past u64, huge variables, huge strings), dataset names
//! (bad hosts, ports, modes, encoded NULs, 40 kB paths) and netCDF files with headers
//! that lie.

use std::path::Path;

use super::{put, Case, Expect};

/// nczgen of `x.cdl` (holding `cdl`) into `out.zarr`.
fn gen(name: &'static str, expect: Expect, cdl: impl Fn() -> Vec<u8> + 'static) -> Case {
    Case::new(
        "cdl",
        name,
        "nczgen",
        &["-o", "{dir}/out.zarr", "{dir}/x.cdl"],
        expect,
        move |d| {
            put(d, "x.cdl", cdl());
        },
    )
}

/// nczdump of a name, with nothing set up.
fn name(text: String, expect: Expect) -> Case {
    let label: String = text.chars().take(60).collect();
    Case {
        args: vec![text],
        ..Case::new("name", label, "nczdump", &[], expect, |_| {})
    }
}

/// A netCDF classic (`version` 1) or 64-bit offset (2) header: `numrecs`, dimensions,
/// and variables as (name, dimension ids, type, vsize, begin); no attributes.
fn classic(
    version: u8,
    numrecs: u32,
    dims: &[(&str, u32)],
    vars: &[(&str, &[u32], u32, u32, u64)],
) -> Vec<u8> {
    fn name(out: &mut Vec<u8>, n: &str) {
        out.extend_from_slice(&(n.len() as u32).to_be_bytes());
        out.extend_from_slice(n.as_bytes());
        out.resize(out.len().div_ceil(4) * 4, 0);
    }
    let mut h = vec![b'C', b'D', b'F', version];
    h.extend_from_slice(&numrecs.to_be_bytes());
    h.extend_from_slice(&[0, 0, 0, 0x0A]);
    h.extend_from_slice(&(dims.len() as u32).to_be_bytes());
    for (n, len) in dims {
        name(&mut h, n);
        h.extend_from_slice(&len.to_be_bytes());
    }
    h.extend_from_slice(&[0; 8]);
    h.extend_from_slice(&[0, 0, 0, 0x0B]);
    h.extend_from_slice(&(vars.len() as u32).to_be_bytes());
    for (n, ids, ty, vsize, begin) in vars {
        name(&mut h, n);
        h.extend_from_slice(&(ids.len() as u32).to_be_bytes());
        for id in *ids {
            h.extend_from_slice(&id.to_be_bytes());
        }
        h.extend_from_slice(&[0; 8]);
        h.extend_from_slice(&ty.to_be_bytes());
        h.extend_from_slice(&vsize.to_be_bytes());
        if version == 1 {
            h.extend_from_slice(&(*begin as u32).to_be_bytes());
        } else {
            h.extend_from_slice(&begin.to_be_bytes());
        }
    }
    h
}

/// nczdump of `f.nc` holding `bytes`.
fn ncfile(
    name: &'static str,
    args: &[&str],
    expect: Expect,
    bytes: impl Fn() -> Vec<u8> + 'static,
) -> Case {
    Case::new(
        "netcdf file",
        name,
        "nczdump",
        args,
        expect,
        move |d: &Path| put(d, "f.nc", bytes()),
    )
}

/// No chunk was written for `v` in `out.zarr`.
fn no_chunks(d: &Path) -> Result<(), String> {
    let v = d.join("out.zarr/v");
    let chunks: Vec<String> = std::fs::read_dir(&v)
        .map_err(|e| format!("{}: {e}", v.display()))?
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| !n.starts_with('.'))
        .collect();
    if chunks.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "chunks written for a variable with no data: {chunks:?}"
        ))
    }
}

pub fn cases() -> Vec<Case> {
    use Expect::{Fails, Succeeds};
    let f = ["{dir}/f.nc"];
    let fh = ["-h", "{dir}/f.nc"];
    vec![
        gen("groups nested 100,000 deep", Fails("x.cdl:257:10: braces nested more than 256 deep"), || {
            format!("netcdf x {{\n{}{}}}\n", "group: g {\n".repeat(100_000), "}\n".repeat(100_000)).into_bytes()
        }),
        gen("braces nested 100,000 deep in data", Fails("x.cdl:5:261: braces nested more than 256 deep"), || {
            format!("netcdf x {{\ndimensions: d = 1 ;\nvariables: int v(d) ;\ndata:\n v = {}1{} ;\n}}\n", "{".repeat(100_000), "}".repeat(100_000)).into_bytes()
        }),
        gen("parentheses nested 100,000 deep", Fails("x.cdl:2:6: expected a value, found '('"), || {
            format!("netcdf x {{\n:a = {}1{} ;\n}}\n", "(".repeat(100_000), ")".repeat(100_000)).into_bytes()
        }),
        gen("dimension of 2^64-1", Succeeds(""), || b"netcdf x {\ndimensions: d = 18446744073709551615 ;\n}\n".to_vec()),
        gen("dimension of 2^64", Fails("x.cdl:2:17: expected a dimension size or UNLIMITED, found '18446744073709551616'"), || b"netcdf x {\ndimensions: d = 18446744073709551616 ;\n}\n".to_vec()),
        gen("dimension products past u64", Succeeds(""), || {
            b"netcdf x {\ndimensions: a = 4294967296 ; b = 4294967296 ; c = 65536 ;\nvariables: int v(a, b, c) ;\n}\n".to_vec()
        }),
        gen("10^10 values and no data", Succeeds(""), || {
            b"netcdf x {\ndimensions: d = 10000000000 ;\nvariables: float v(d) ;\n}\n".to_vec()
        }).then(no_chunks),
        gen("10^10 values and one datum", Fails("x.cdl:4:7: variable '/v' has 10000000000 values: data for it would take more than 2 GiB of memory (give it no "), || {
            b"netcdf x {\ndimensions: d = 10000000000 ;\nvariables: float v(d) ;\ndata: v = 1 ;\n}\n".to_vec()
        }),
        gen("string attribute of 20 MB", Succeeds(""), || {
            format!("netcdf x {{\n:big = \"{}\" ;\n}}\n", "x".repeat(20 << 20)).into_bytes()
        }),
        gen("unterminated string of 20 MB", Fails("x.cdl:2:8: unterminated string"), || {
            format!("netcdf x {{\n:big = \"{}", "x".repeat(20 << 20)).into_bytes()
        }),
        gen("NUL bytes", Fails("x.cdl:2:3: expected '=', found '\0'"), || b"netcdf x {\n:a\0b = 1 ;\n}\n".to_vec()),
        gen("a float of 1e999", Succeeds(""), || b"netcdf x {\n:a = 1e999f ;\n}\n".to_vec()),
        gen("an integer of 30 digits", Fails("x.cdl:2:6: integer constant out of range: 999999999999999999999999999999"), || b"netcdf x {\n:a = 999999999999999999999999999999 ;\n}\n".to_vec()),
        gen("an empty file", Fails("x.cdl:1:1: expected 'netcdf', found end of input"), Vec::new),
        // Names.
        name("s3://[::1/bucket/x#mode=nczarr,s3".into(), Fails("s3://[::1/bucket/x#mode=nczarr,s3: bucket name '[::1' is not one a cloud accepts (letters, digits, '.', '_', '")),
        name("https://[zz::1]:9000/b/x#mode=nczarr,s3".into(), Fails("https://[zz::1]:9000/b/x#mode=nczarr,s3: endpoint 'https://[zz::1]:9000': invalid IPv6 address")),
        name("http://localhost:99999/b/x#mode=nczarr,s3".into(), Fails("http://localhost:99999/b/x#mode=nczarr,s3: endpoint 'http://localhost:99999': invalid port number")),
        name("http://127.0.0.1:9/bucket/x#mode=nczarr,s3".into(), Fails("http://127.0.0.1:9/bucket/x#mode=nczarr,s3: s3://bucket/x/.zmetadata: request failed (http://127.0.0.1:9): Con")),
        name("x.zarr#mode=".into(), Fails("x.zarr#mode=: no such file or directory")),
        name("x.zarr#mode=,,,".into(), Fails("x.zarr#mode=,,,: no such file or directory")),
        name("file:///tmp/a%00b#mode=nczarr,file".into(), Fails("file:///tmp/a%00b#mode=nczarr,file: /tmp/a\0b: file name contained an unexpected NUL byte")),
        name(format!("/tmp/{}", "a/".repeat(20_000)), Fails("/tmp/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a")),
        name(format!("s3://bucket/{}#mode=nczarr,s3", "k".repeat(40_000)), Fails("s3://bucket/kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk")),
        name("ftp://example.org/x.zarr".into(), Fails("ftp://example.org/x.zarr: unsupported URL scheme 'ftp' (use a path, file://, s3://, gs://, az://, abfs:// or h")),
        name(String::new(), Fails("malformed URL: empty dataset name")),
        name("s3://#mode=nczarr,s3".into(), Fails("s3://#mode=nczarr,s3: malformed URL: s3:// URL without a host or bucket")),
        name("#mode=nczarr".into(), Fails("#mode=nczarr: no such file or directory")),
        // netCDF files.
        ncfile("classic header cut short", &f, Fails("f.nc: truncated or damaged: the header needs 8 bytes, the file has 6"), || b"CDF\x01\0\0".to_vec()),
        ncfile("a dimension list of 2^31 entries", &f, Fails("f.nc: truncated or damaged: the header needs 17179869192 bytes, the file has 32"), || {
            let mut h = b"CDF\x01\0\0\0\0\0\0\0\x0A\x7F\xFF\xFF\xFF".to_vec();
            h.extend_from_slice(&[0; 16]);
            h
        }),
        ncfile("a name of 2^31 bytes", &f, Fails("f.nc: truncated or damaged: the header needs 2147483668 bytes, the file has 24"), || {
            let mut h = b"CDF\x01\0\0\0\0\0\0\0\x0A\0\0\0\x01\x7F\xFF\xFF\xFF".to_vec();
            h.extend_from_slice(b"abcd");
            h
        }),
        ncfile("data past the end of the file", &f, Fails("f.nc: variable '/v': the file ends at byte 80, before the values at bytes 1048576..1048592"), || classic(1, 0, &[("d", 4)], &[("v", &[0], 4, 16, 1 << 20)])),
        ncfile("2^31 records in a tiny file", &f, Fails("f.nc: variable '/v': the file ends at byte 84, before the values at bytes 200..262344"), || classic(2, 0x7FFF_FFFF, &[("t", 0)], &[("v", &[0], 4, 4, 200)])),
        ncfile("a dimension id past the list", &f, Fails("f.nc: damaged header at byte 56: dimension id 7 does not exist"), || classic(1, 0, &[("d", 4)], &[("v", &[7], 4, 16, 100)])),
        ncfile("huge dimensions, header only", &fh, Succeeds("v(a, b)"), || classic(2, 0, &[("a", 0x7FFF_FFFF), ("b", 0x7FFF_FFFF)], &[("v", &[0, 1], 5, 0xFFFF_FFFF, 200)])),
        ncfile("an unknown type", &f, Fails("f.nc: damaged header at byte 68: type id 99 is not a type of the classic format"), || classic(1, 0, &[("d", 4)], &[("v", &[0], 99, 16, 100)])),
        ncfile("HDF5 signature, then garbage", &f, Fails("f.nc: not a readable HDF5 file: unsupported size of offsets: 188"), || {
            let mut h = b"\x89HDF\r\n\x1a\n".to_vec();
            h.extend((0..4096u32).map(|i| (i * 7919 % 251) as u8));
            h
        }),
    ]
}
