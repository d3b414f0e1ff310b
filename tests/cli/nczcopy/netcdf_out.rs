//! netCDF files as output of nczcopy (issue 41): every golden store copied to classic
//! kinds and to netCDF-4 dumps as its input, storage, filters and user-defined types
//! kept, and the file name choosing a file and its kind as nccopy does.

use std::fs;
use std::path::Path;
use std::process::Command;

use crate::util::peers::{
    decoded_alike, dump, dump_s, h5dump_reads, nczdump_body, python_with_readers,
};
use crate::util::{case_name, have, ncgen_kind as ncgen, nczgen, path_str, run, s};

/// Every dataset of the golden corpus (netcdf-c 4.9.0 and 4.10.1, xarray and
/// zarr-python stores) copied to a netCDF-4 file (nczcopy's default for a `.nc` name),
/// compressed with zlib (Debian's netcdf-c has no blosc or zstd plugin): ncdump of the
/// file prints what nczdump prints of the input. A fixed dimension of length 0 is
/// unlimited in netCDF-4, as netcdf-c reads it.
#[test]
fn golden_stores_copied_to_netcdf4_dump_as_their_inputs() {
    if !have("ncdump") {
        eprintln!("skipped: no ncdump");
        return;
    }
    let stores = crate::util::data_dir().join("golden/stores");
    let tmp = tempfile::tempdir().unwrap();
    let mut same = 0;
    let mut problems = Vec::new();
    for writer in fs::read_dir(&stores).unwrap().flatten() {
        for store in fs::read_dir(writer.path()).unwrap().flatten() {
            let input = s(&store.path());
            let want = run("nczdump", &[&input]).stdout();
            let want: String = want
                .split_once('\n')
                .map_or("", |(_, r)| r)
                .lines()
                .map(
                    |l| match l.strip_prefix('\t').and_then(|l| l.strip_suffix(" = 0 ;")) {
                        Some(name) if !name.contains(' ') => {
                            format!("\t{name} = UNLIMITED ; // (0 currently)\n")
                        }
                        _ => format!("{l}\n"),
                    },
                )
                .collect();
            let out = tmp.path().join(format!("{same}-{}.nc", problems.len()));
            let copied = run("nczcopy", &["--codec", "zlib:level=1", &input, &s(&out)]);
            if copied.code() != 0 {
                problems.push(format!("{input}: {}", copied.stderr()));
                continue;
            }
            let bytes = fs::read(&out).unwrap();
            assert_eq!(&bytes[..4], b"\x89HDF", "{input}: not a netCDF-4 file");
            let got = Command::new("ncdump").arg(&out).output().unwrap();
            let got = String::from_utf8_lossy(&got.stdout);
            let got = got.split_once('\n').map_or("", |(_, r)| r);
            let got = crate::util::without_carried_fills(&want, got);
            if got == want {
                same += 1;
            } else {
                problems.push(format!("{input}: {}", crate::util::first_diff(&want, &got)));
            }
        }
    }
    assert!(problems.is_empty(), "{problems:#?}");
    assert!(same >= 60, "{same} copied alike");
}

/// A copy from Zarr to netCDF-4 keeps each variable's chunks, codecs, byte order and
/// fill as `ncdump -s` shows them, as a copy from netCDF-4 to Zarr does.
#[test]
fn a_copy_to_netcdf4_keeps_storage_and_filters() {
    if !have("ncdump") {
        eprintln!("skipped: no ncdump");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let cdl = tmp.path().join("s.cdl");
    fs::write(
        &cdl,
        "netcdf s {\ndimensions:\n\ttime = UNLIMITED ;\n\ty = 6 ;\n\tx = 5 ;\nvariables:\n\
         \tfloat t(time, y, x) ;\n\t\tt:_ChunkSizes = 2, 3, 5 ;\n\t\tt:_DeflateLevel = 2 ;\n\
         \t\tt:_Shuffle = \"true\" ;\n\t\tt:_Fletcher32 = \"true\" ;\n\
         \tint b(y, x) ;\n\t\tb:_Endianness = \"big\" ;\n\t\tb:_ChunkSizes = 6, 5 ;\n\
         \tshort n(x) ;\n\t\tn:_NoFill = \"true\" ;\n\
         \tint c ;\n\t\tc:_Storage = \"compact\" ;\n\
         data:\n t = 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60 ;\n\
         b = 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30 ;\n\
         n = 1, 2, 3, 4, 5 ;\n c = 7 ;\n}\n",
    )
    .unwrap();
    let zarr = tmp.path().join("s.zarr");
    let nc = tmp.path().join("s.nc");
    let gen = tmp.path().join("g.nc");
    nczgen(&["-o", &s(&zarr), &s(&cdl)]).success();
    run("nczcopy", &[&s(&zarr), &s(&nc)]).success();
    nczgen(&["-k", "nc4", "-o", &s(&gen), &s(&cdl)]).success();
    let specials = |text: &str| -> Vec<String> {
        text.lines()
            .filter(|l| {
                [
                    "_ChunkSizes",
                    "_DeflateLevel",
                    "_Shuffle",
                    "_Fletcher32",
                    "_Endianness",
                    "_NoFill",
                ]
                .iter()
                .any(|k| l.contains(k))
            })
            .map(str::to_string)
            .collect()
    };
    let want = specials(&run("nczdump", &["-s", &s(&zarr)]).stdout());
    assert!(want.len() >= 7, "{want:?}");
    assert_eq!(specials(&dump_s(&nc)), want);
    // nczgen keeps _Storage = "compact" where Zarr cannot, and "contiguous" where a
    // Zarr store holds one chunk.
    let generated = dump_s(&gen);
    assert!(
        generated.contains("c:_Storage = \"compact\""),
        "{generated}"
    );
    assert!(
        generated.contains("n:_Storage = \"contiguous\""),
        "{generated}"
    );
    let chunked_n = |l: &String| !l.contains("n:_ChunkSizes");
    assert_eq!(
        specials(&generated),
        want.iter()
            .filter(|l| chunked_n(l))
            .cloned()
            .collect::<Vec<_>>()
    );
    let values = |p: &Path| {
        let t = run("nczdump", &[&s(p)]).stdout();
        t.split_once("data:")
            .map(|(_, d)| d.to_string())
            .unwrap_or_default()
    };
    assert_eq!(values(&nc), values(&zarr));
}

/// An enum type, its variable (with an enum `_FillValue`) and an enum attribute copied
/// from a netCDF-4 file to a netCDF-4 file stay enums: ncdump prints the copy as the
/// input, type section included; to the classic model they become their base type with
/// CF's flag attributes, as to Zarr.
#[test]
fn enums_are_kept_from_netcdf4_to_netcdf4() {
    if !have("ncgen") {
        eprintln!("skipped: no ncgen/ncdump");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let cdl = tmp.path().join("e.cdl");
    fs::write(
        &cdl,
        "netcdf e {\ntypes:\n  byte enum cloud_t {Clear = 0, Cumulonimbus = 1, Stratus = 2, Missing = 127} ;\n\
         dimensions:\n\tstation = 5 ;\nvariables:\n\tcloud_t primary(station) ;\n\
         \t\tcloud_t primary:_FillValue = Missing ;\n\tint other(station) ;\n\
         \n// global attributes:\n\t\tcloud_t :sky = Stratus ;\n\
         data:\n primary = Clear, Stratus, Clear, Missing, Cumulonimbus ;\n other = 1, 2, 3, 4, 5 ;\n}\n",
    )
    .unwrap();
    let input = tmp.path().join("in.nc");
    assert!(ncgen("nc4", &cdl, &input));
    let out = tmp.path().join("out.nc");
    run("nczcopy", &[&s(&input), &s(&out)]).success();
    if let Err(e) = h5dump_reads(&out) {
        panic!("h5dump: {e}");
    }
    let want = dump_s(&input);
    let got = dump_s(&out);
    assert_eq!(got, want, "{}", crate::util::first_diff(&want, &got));
    assert!(got.contains("byte enum cloud_t"), "{got}");
    if let Some(py) = python_with_readers() {
        decoded_alike(&py, &input, &out).unwrap();
    }
    let classic = tmp.path().join("c.nc");
    run("nczcopy", &["-k", "nc7", &s(&input), &s(&classic)]).success();
    let text = dump_s(&classic);
    assert!(
        text.contains("primary:flag_meanings = \"Clear Cumulonimbus Stratus Missing\""),
        "{text}"
    );
}

/// netcdf-c's CDL files with user-defined types (when `../shared/conformance` is
/// present), made by ncgen and copied by nczcopy to netCDF-4: ncdump `-s` prints the copy
/// as ncgen's file (types in groups and their scopes, compound, opaque and vlen values,
/// fill values) and h5dump reads it; the readers decode the copies of the files of each
/// kind as the input.
#[test]
fn netcdf_cs_user_type_files_copy_to_netcdf4_as_they_are() {
    let Some(cdls) = crate::util::conformance_cdls() else {
        eprintln!("skipped: no ../shared/conformance");
        return;
    };
    if !have("ncgen") {
        eprintln!("skipped: no ncgen/ncdump");
        return;
    }
    // Files whose readers' checks are worth their time: one of each kind.
    const READ_BY_ALL: [&str; 6] = [
        "ref_tst_comp",
        "ref_tst_opaque_data",
        "ref_tst_vlen_data",
        "ref_tst_vlen_data2",
        "ref_tst_compounds4",
        "ref_typescope",
    ];
    // A `_NoFill` variable never written: netcdf-c reads whatever HDF5 gives.
    const UNWRITTEN: [&str; 2] = ["ref_tst_special_atts", "ref_tst_ncf213"];
    let py = python_with_readers();
    let tmp = tempfile::tempdir().unwrap();
    let (mut same, mut problems) = (0, Vec::new());
    for cdl in cdls {
        if !fs::read_to_string(&cdl).is_ok_and(|t| t.contains("types:")) {
            continue;
        }
        let name = case_name(&cdl);
        let input = tmp.path().join(format!("{name}-in.nc"));
        let out = tmp.path().join(format!("{name}.nc"));
        if !ncgen("nc4", &cdl, &input) {
            continue;
        }
        // Cases of one name in two folders of the corpus share the output.
        let copied = run("nczcopy", &["-O", &s(&input), &s(&out)]);
        if copied.code() != 0 {
            problems.push(format!("{name}: {}", copied.fails_with_one_line(1)));
            continue;
        }
        if let Err(e) = h5dump_reads(&out) {
            problems.push(format!("{name}: h5dump: {e}"));
        }
        let header = |text: String| text.split("data:").next().unwrap_or_default().to_string();
        let (want, got) = match UNWRITTEN.contains(&name.as_str()) {
            true => (header(dump_s(&input)), header(dump_s(&out))),
            false => (dump_s(&input), dump_s(&out)),
        };
        if want != got {
            problems.push(format!("{name}: {}", crate::util::first_diff(&want, &got)));
            continue;
        }
        same += 1;
        if let Some(py) = py
            .as_deref()
            .filter(|_| READ_BY_ALL.contains(&name.as_str()))
        {
            if let Err(e) = decoded_alike(py, &input, &out) {
                problems.push(format!("{name}: readers: {e}"));
            }
        }
    }
    assert!(problems.is_empty(), "{problems:#?}");
    assert!(same >= 30, "{same} copied alike");
}

/// Our own file of every kind of user-defined type (compound with char, array, string
/// fields, nested compounds, an enum, a vlen, an opaque type; compound `_FillValue`;
/// vlen and opaque attributes) and h5py's uncommitted types, copied to netCDF-4: nczdump
/// (and ncdump, for netcdf-c's file) prints the copies as the inputs, h5dump reads them
/// and the readers decode netcdf-c's file's copy alike.
#[test]
fn every_kind_of_user_type_is_kept_from_netcdf4_to_netcdf4() {
    let tmp = tempfile::tempdir().unwrap();
    let py = python_with_readers();
    for name in ["user_types.nc", "anonymous.h5", "committed.h5"] {
        let input = crate::util::data_dir().join("hdf5_other").join(name);
        let out = tmp.path().join(format!("{name}.nc"));
        run("nczcopy", &[&s(&input), &s(&out)]).success();
        let (want, got) = (nczdump_body(&input), nczdump_body(&out));
        assert_eq!(
            got,
            want,
            "{name}: {}",
            crate::util::first_diff(&want, &got)
        );
        // committed.h5's named types are atomic ones: netCDF has no such thing.
        assert_eq!(got.contains("types:"), name != "committed.h5", "{got}");
        if let Err(e) = h5dump_reads(&out) {
            panic!("{name}: h5dump: {e}");
        }
        if have("ncdump") && name.ends_with(".nc") {
            let (want, got) = (dump_s(&input), dump_s(&out));
            assert_eq!(
                got,
                want,
                "{name}: {}",
                crate::util::first_diff(&want, &got)
            );
        }
        // netCDF4-python does not see h5py's attributes of uncommitted types, which the
        // copy commits: the readers are compared on netcdf-c's file.
        if let Some(py) = py.as_ref().filter(|_| name.ends_with(".nc")) {
            decoded_alike(py, &input, &out).unwrap_or_else(|e| panic!("{name}: {e}"));
        }
    }
}

#[test]
fn a_file_name_chooses_a_file_and_its_kind_as_ncgen_and_nccopy_do() {
    let tmp = tempfile::tempdir().unwrap();
    let cdl = tmp.path().join("k.cdl");
    fs::write(
        &cdl,
        "netcdf k { dimensions: t = UNLIMITED ; variables: short v(t) ; data: v = 1, 2 ; }",
    )
    .unwrap();
    let nc = tmp.path().join("k.nc");
    // nczgen: classic when the CDL fits (as ncgen).
    nczgen(&["-o", &path_str(&nc), &path_str(&cdl)]).success();
    assert_eq!(&fs::read(&nc).unwrap()[..4], b"CDF\x01");
    // nczcopy: the input's kind, and the same values.
    let copy = tmp.path().join("copy.cdf");
    run("nczcopy", &[&path_str(&nc), &path_str(&copy)]).success();
    assert_eq!(fs::read(&copy).unwrap(), fs::read(&nc).unwrap());
    // -5: CDF-5, into a Zarr name and back.
    let zarr = tmp.path().join("k.zarr");
    run("nczcopy", &[&path_str(&nc), &path_str(&zarr)]).success();
    assert!(zarr.join(".zgroup").exists());
    let five = tmp.path().join("five.nc");
    run("nczcopy", &["-5", &path_str(&zarr), &path_str(&five)]).success();
    assert_eq!(&fs::read(&five).unwrap()[..4], b"CDF\x05");
    let text = run("nczdump", &[&path_str(&five)]);
    assert!(text.stdout().contains(" v = 1, 2 ;"), "{}", text.stdout());
    // A classic kind to a Zarr name is NCZarr, as in netcdf-c; a 64-bit one is refused.
    let z = tmp.path().join("c.zarr");
    run("nczcopy", &["-k", "classic", &path_str(&nc), &path_str(&z)]).success();
    assert!(z.join(".zgroup").exists());
    let err = run(
        "nczcopy",
        &[
            "-k",
            "nc6",
            &path_str(&nc),
            &path_str(&tmp.path().join("d.zarr")),
        ],
    )
    .fails_with_one_line(1);
    assert!(err.contains("cannot be stored as NCZarr"), "{err}");
    // An object-store name ending like a file's is a file there too (one object), not
    // a Zarr store that looks like one; a .zarr or #mode=nczarr name is Zarr.
    for target in ["s3://bucket/x.nc", "gs://bucket/x.nc4"] {
        let plan = run("nczcopy", &["--dry-run", &path_str(&nc), target]).stdout();
        assert!(plan.starts_with("output: a netCDF classic file"), "{plan}");
    }
    let plan = run(
        "nczcopy",
        &["--dry-run", &path_str(&nc), "s3://bucket/x.nc#mode=nczarr"],
    )
    .stdout();
    assert!(!plan.starts_with("output: a netCDF"), "{plan}");
}

/// ncdump's text with its classic-format rendering of char attributes undone: in
/// those formats it breaks a char attribute's text after each newline
/// (`"a\n",` then `"b"` on the next line), where netCDF-4 and Zarr print one string.
fn joined_char_attributes(text: &str) -> String {
    text.replace("\\n\",\n\t\t\t\"", "\\n")
}

/// Every dataset of the golden corpus (written by netcdf-c 4.9.0 and 4.10.1, xarray and
/// zarr-python) copied to a classic and a CDF-5 file where it fits: netcdf-c's ncdump
/// of the file prints what nczdump prints of the input; where it does not fit, one line
/// says why. A fixed dimension of length 0 becomes the record dimension, as in
/// netcdf-c (a classic header has no other way to say length 0).
#[test]
fn golden_stores_copied_to_classic_files_dump_as_their_inputs() {
    if !have("ncdump") {
        eprintln!("skipped: no ncdump");
        return;
    }
    let stores = crate::util::data_dir().join("golden/stores");
    let tmp = tempfile::tempdir().unwrap();
    let (mut same, mut refused) = (0, 0);
    let mut problems = Vec::new();
    for writer in fs::read_dir(&stores).unwrap().flatten() {
        for store in fs::read_dir(writer.path()).unwrap().flatten() {
            let input = path_str(&store.path());
            let want = run("nczdump", &[&input]).stdout();
            let want = want
                .split_once('\n')
                .map_or("", |(_, rest)| rest)
                .to_string();
            for kind in ["classic", "cdf5"] {
                let out = tmp.path().join(format!("{}-{kind}.nc", same + refused));
                let copied = run("nczcopy", &["-k", kind, &input, &path_str(&out)]);
                if copied.code() != 0 {
                    copied.fails_with_one_line(1);
                    refused += 1;
                    continue;
                }
                let got = joined_char_attributes(&dump(&out));
                // An empty fixed dimension becomes the record dimension.
                let want: String = want
                    .lines()
                    .map(
                        |l| match l.strip_prefix('\t').and_then(|l| l.strip_suffix(" = 0 ;")) {
                            Some(name) if !name.contains(' ') => {
                                format!("\t{name} = UNLIMITED ; // (0 currently)\n")
                            }
                            _ => format!("{l}\n"),
                        },
                    )
                    .collect();
                let got = crate::util::without_carried_fills(&want, &got);
                if got == want {
                    same += 1;
                } else {
                    problems.push(format!(
                        "{input} -k {kind}: {}",
                        crate::util::first_diff(&want, &got)
                    ));
                }
            }
        }
    }
    assert!(problems.is_empty(), "{problems:#?}");
    assert!(
        same >= 90 && refused >= 40,
        "{same} copied alike, {refused} refused"
    );
}
