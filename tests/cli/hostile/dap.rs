//! Hostile OPeNDAP answers, saved in files (`file:///dir/x` reads `x.dds`, `x.das`,
//! `x.dods`, as netcdf-c's DAP2 client does): documents nested past any stack,
//! lengths past the answer, markers that never end, names and strings of any bytes.

use std::path::Path;

use super::{put, Case, Expect};
use Expect::{Fails, Succeeds};

/// A dataset `x` saved as its three answers (`dods` after the DDS and `Data:`).
fn saved(dir: &Path, dds: &str, das: &str, body: &[u8]) {
    put(dir, "x.dds", dds);
    put(dir, "x.das", das);
    let mut dods = dds.as_bytes().to_vec();
    dods.extend_from_slice(b"\nData:\n");
    dods.extend_from_slice(body);
    put(dir, "x.dods", dods);
}

fn be(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_be_bytes()).collect()
}

fn dump(name: &str, args: &[&str], expect: Expect, setup: impl Fn(&Path) + 'static) -> Case {
    let mut all: Vec<&str> = args.to_vec();
    all.push("file://{dir}/x");
    Case::new("opendap", name, "nczdump", &all, expect, setup)
}

const NO_DAS: &str = "Attributes {\n}\n";

pub fn cases() -> Vec<Case> {
    vec![
        dump(
            "DDS nested 100,000 structures deep",
            &["-h"],
            Fails("containers nested more than 64 deep"),
            |d| {
                let dds = format!(
                    "Dataset {{ {} Int32 x; {} }} x;",
                    "Structure {".repeat(100_000),
                    "} s;".repeat(100_000)
                );
                saved(d, &dds, NO_DAS, b"");
            },
        ),
        // Shown without attributes, as netcdf-c shows a DAS it cannot read; and said.
        dump(
            "DAS nested 100,000 tables deep",
            &["-h"],
            Fails("tables nested more than 64 deep; the dataset is shown without its attributes"),
            |d| {
                let das = format!(
                    "Attributes {{ {} }}",
                    "a { ".repeat(100_000) + &"} ".repeat(100_000)
                );
                saved(
                    d,
                    "Dataset { Int32 v[n = 2]; } x;",
                    &das,
                    &be(&[2, 2, 1, 2]),
                );
            },
        ),
        dump(
            "array length past the answer",
            &["-v", "v"],
            Fails("the answer ends early"),
            |d| {
                saved(
                    d,
                    "Dataset { Float64 v[n = 4]; } x;",
                    NO_DAS,
                    &be(&[4, 4, 0, 1]),
                );
            },
        ),
        dump(
            "lengths that disagree",
            &["-v", "v"],
            Fails("lengths 4 and 5 disagree"),
            |d| {
                saved(
                    d,
                    "Dataset { Int32 v[n = 4]; } x;",
                    NO_DAS,
                    &be(&[4, 5, 1, 2, 3, 4]),
                );
            },
        ),
        dump(
            "a length other than the DDS's",
            &["-v", "v"],
            Fails("3 values sent, its DDS says 4"),
            |d| {
                saved(
                    d,
                    "Dataset { Int32 v[n = 4]; } x;",
                    NO_DAS,
                    &be(&[3, 3, 1, 2, 3]),
                );
            },
        ),
        dump(
            "10^29 values claimed",
            &["-v", "v"],
            Fails("more values than 2^64"),
            |d| {
                saved(
                    d,
                    "Dataset { Float64 v[a = 4294967295][b = 4294967295][c = 4294967295]; } x;",
                    NO_DAS,
                    &be(&[0, 0]),
                );
            },
        ),
        dump(
            "a string of 4 GiB claimed",
            &["-v", "s"],
            Fails("the answer ends early"),
            |d| {
                saved(
                    d,
                    "Dataset { String s[n = 1]; } x;",
                    NO_DAS,
                    &be(&[1, 0xFFFF_FFF0]),
                );
            },
        ),
        dump(
            "a sequence without its end marker",
            &["-v", "obs.a"],
            Fails("the answer ends early"),
            |d| {
                saved(
                    d,
                    "Dataset { Sequence { Int32 a; } obs; } x;",
                    NO_DAS,
                    &be(&[0x5A00_0000, 7, 0x5A00_0000, 8]),
                );
            },
        ),
        dump(
            "a sequence marker that is no marker",
            &["-h"],
            Fails("where a row marker belongs"),
            |d| {
                saved(
                    d,
                    "Dataset { Sequence { Int32 a; } obs; } x;",
                    NO_DAS,
                    &be(&[0x1234_5678]),
                );
            },
        ),
        dump(
            "4 billion empty structures",
            &["-h"],
            Succeeds("netcdf x {"),
            |d| {
                saved(
                    d,
                    "Dataset { Structure { } s[n = 4294967295]; Int32 v[m = 1]; } x;",
                    NO_DAS,
                    &be(&[4_294_967_295, 1, 1, 5]),
                );
            },
        ),
        dump(
            "no Data: line",
            &["-v", "v"],
            Fails("no 'Data:' line"),
            |d| {
                put(d, "x.dds", "Dataset { Int32 v[n = 1]; } x;");
                put(d, "x.das", NO_DAS);
                put(d, "x.dods", "Dataset { Int32 v[n = 1]; } x;");
            },
        ),
        dump("a DAP error body", &["-h"], Fails("no such dataset"), |d| {
            put(
                d,
                "x.dds",
                "Error {\n    code = 404;\n    message = \"no such dataset\";\n};\n",
            );
        }),
        dump(
            "a DDS of binary garbage",
            &["-h"],
            Fails("x.dds: DDS line 1"),
            |d| {
                put(d, "x.dds", b"\x89HDF\r\n\x1a\n\x00\x00\x00\xff\xfe");
            },
        ),
        dump("a DAS that does not parse", &[], Fails("DAS line 1"), |d| {
            saved(
                d,
                "Dataset { Int32 v[n = 1]; } x;",
                "Attributes { v { Int64 big 1; } }",
                &be(&[1, 1, 9]),
            );
        }),
        dump(
            "names and strings of any bytes",
            &[],
            Succeeds("  \"\\377\\376\" ;"),
            |d| {
                let mut body = be(&[1, 2]);
                body.extend_from_slice(b"\xff\xfe\0\0");
                saved(
                    d,
                    "Dataset { String s[n = 1]; } x;",
                    "Attributes { s { String a \"\\x\\\\\\777\"; } }",
                    &body,
                );
            },
        ),
        dump(
            "attribute values out of every range",
            &["-h"],
            Succeeds("v:b = -1b"),
            |d| {
                saved(d, "Dataset { Int32 v[n = 1]; } x;", "Attributes { v { Byte b 255; Int16 s 1e300; Int32 i -99999999999999999999; Float32 f 1e999; Float64 g nan; } }", b"");
            },
        ),
        Case::new(
            "opendap",
            "a constraint on saved answers",
            "nczdump",
            &["-h", "file://{dir}/x?v#dap2"],
            Fails("cannot be constrained"),
            |d| {
                saved(d, "Dataset { Int32 v[n = 1]; } x;", NO_DAS, b"");
            },
        ),
    ]
}
