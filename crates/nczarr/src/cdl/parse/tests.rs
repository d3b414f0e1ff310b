use super::*;
use crate::cdl::ast::{Item, TypeRef, Value, Wide};
use crate::model::NcType;

fn ok(text: &str) -> crate::cdl::ast::CdlFile {
    parse(text).unwrap_or_else(|e| panic!("{e}\n{text}"))
}

fn err(text: &str) -> String {
    parse(text).unwrap_err().to_string()
}

#[test]
fn minimal_and_sections() {
    let f = ok("netcdf x {}");
    assert_eq!(f.name, "x");
    assert!(f.root.items.is_empty());
    let f = ok("netcdf  my file {\ndimensions:\n\tx = 2, y = UNLIMITED ;\nvariables:\n\tint v(x, y), w ;\n\t\tv:units = \"m\" ;\n\n// global attributes:\n\t\t:title = \"t\" ;\ndata:\n v = 1, 2 ;\n}\n");
    assert_eq!(f.name, "myfile");
    let kinds: Vec<&str> = f
        .root
        .items
        .iter()
        .map(|i| match i {
            Item::Dim(_) => "dim",
            Item::Var(_) => "var",
            Item::Attr(_) => "attr",
            Item::Data(_) => "data",
            Item::Type(_) => "type",
        })
        .collect();
    assert_eq!(kinds, ["dim", "dim", "var", "var", "attr", "attr", "data"]);
}

#[test]
fn numbers_and_tags() {
    let f = ok("netcdf x { :a = 1b, 2s, 3, 4l, 5ll, 6ub, 7us, 8u, 9ull, 10ULL, -11LL, 3000000000, 1.5, 2.5f, 1e3, 1.d, NaN, -Infinity, NaNf, Infinityf, 017, 0x1Fs ; }");
    let Item::Attr(a) = &f.root.items[0] else {
        panic!()
    };
    let types: Vec<String> = a
        .values
        .iter()
        .map(|d| match &d.value {
            Value::Int { value, typ } => format!("{}{typ}", value.get()),
            Value::Float(v) => format!("{v}f"),
            Value::Double(v) => format!("{v}d"),
            other => format!("{other:?}"),
        })
        .collect();
    assert_eq!(
        types,
        [
            "1byte",
            "2short",
            "3int",
            "4int",
            "5int64",
            "6ubyte",
            "7ushort",
            "8uint",
            "9uint64",
            "10uint64",
            "-11int64",
            "3000000000uint",
            "1.5d",
            "2.5f",
            "1000d",
            "1d",
            "NaNd",
            "-infd",
            "NaNf",
            "inff",
            "15int",
            "31ushort"
        ]
    );
    let _ = NcType::Int;
}

#[test]
fn strings_chars_and_escapes() {
    let f = ok(r#"netcdf x { :s = "a\tb\"c\\\101\x41\n" ; :c = 'x', '\n', '\0', '\101' ; }"#);
    let Item::Attr(a) = &f.root.items[0] else {
        panic!()
    };
    assert_eq!(a.values[0].value, Value::Text(b"a\tb\"c\\AA\n".to_vec()));
    let Item::Attr(c) = &f.root.items[1] else {
        panic!()
    };
    let bytes: Vec<Value> = c.values.iter().map(|d| d.value.clone()).collect();
    assert_eq!(
        bytes,
        [
            Value::Char(b'x'),
            Value::Char(b'\n'),
            Value::Char(0),
            Value::Char(b'A')
        ]
    );
}

#[test]
fn names_escapes_paths_and_keywords() {
    let f = ok("netcdf x { dimensions: a\\ b = 1 ; variables: int \\1x(/a\\ b) ; int data ; data :att = 1 ; data: data = 5 ; }");
    let Item::Dim(d) = &f.root.items[0] else {
        panic!()
    };
    assert_eq!(d.name, "a b");
    let Item::Var(v) = &f.root.items[1] else {
        panic!()
    };
    assert_eq!(v.name, "1x");
    assert_eq!(v.dims[0].groups, Some(vec![]));
    assert_eq!(v.dims[0].name, "a b");
    let Item::Attr(a) = &f.root.items[3] else {
        panic!()
    };
    assert_eq!(a.var.as_ref().unwrap().name, "data");
}

#[test]
fn names_ncdump_prints_bare() {
    // Issue 61: ncdump prints names that start with `.@+-`, hold `%` or are `_` bare
    // (HDF5 writers other than netcdf-c make them); values beside them stay values.
    let f = ok("netcdf x { dimensions: .d = 2 ; variables: int -w(.d) ; -w:.specloc = -1, .5, _ ; -w:p%q = 1 ; :_ = 2 ; :@x = +3 ; data: -w = -1, _ ; group: .g { :+a = 1 ; } }");
    let names: Vec<String> = f
        .root
        .items
        .iter()
        .map(|i| match i {
            Item::Dim(d) => d.name.clone(),
            Item::Var(v) => format!("{}({})", v.name, v.dims[0].name),
            Item::Attr(a) => format!("{}:{}", a.var.as_ref().map_or("", |v| &v.name), a.name),
            Item::Data(d) => format!("{} =", d.var.name),
            Item::Type(t) => t.name.clone(),
        })
        .collect();
    assert_eq!(
        names,
        [".d", "-w(.d)", "-w:.specloc", "-w:p%q", ":_", ":@x", "-w ="]
    );
    let Item::Attr(a) = &f.root.items[2] else {
        panic!()
    };
    assert!(matches!(a.values[0].value, Value::Int { .. }));
    assert_eq!(a.values[1].value, Value::Double(0.5));
    assert_eq!(a.values[2].value, Value::Fill);
    assert_eq!(f.root.groups[0].name, ".g");
}

#[test]
fn groups_and_trailing_attributes() {
    let f = ok("netcdf x { dimensions: n = 2 ; group: g { variables: int v(n) ; data: v = 1, 2 ; group: h { :deep = 1 ; } } :after = 1 ; }");
    assert_eq!(f.root.groups.len(), 1);
    assert_eq!(f.root.groups[0].name, "g");
    assert_eq!(f.root.groups[0].groups[0].name, "h");
    assert!(matches!(f.root.items.last(), Some(Item::Attr(a)) if a.name == "after"));
}

#[test]
fn comments_braces_fill_and_nil() {
    let f =
        ok("netcdf x { // c\n /* block\n comment */ data: v = {1, _}, {_, 2} ; s = NIL, \"a\" ; }");
    let Item::Data(d) = &f.root.items[0] else {
        panic!()
    };
    /// A datum as CDL spells it (positions left out).
    fn spelled(v: &Value) -> String {
        match v {
            Value::List(l) => format!(
                "{{{}}}",
                l.iter()
                    .map(|d| spelled(&d.value))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            Value::Int { value, typ } => format!("{value:?}:{typ:?}"),
            Value::Fill => "_".into(),
            Value::Nil => "NIL".into(),
            Value::Text(t) => format!("{:?}", String::from_utf8_lossy(t)),
            other => format!("{other:?}"),
        }
    }
    let values = |d: &crate::cdl::ast::DataDecl| -> Vec<String> {
        d.values.iter().map(|v| spelled(&v.value)).collect()
    };
    let one = format!("{:?}:Int", Wide::new(1));
    let two = format!("{:?}:Int", Wide::new(2));
    assert_eq!(
        values(d),
        [format!("{{{one}, _}}"), format!("{{_, {two}}}")]
    );
    let Item::Data(s) = &f.root.items[1] else {
        panic!()
    };
    assert_eq!(values(s), ["NIL", "\"a\""]);
}

#[test]
fn typed_attributes_and_specials() {
    let f = ok("netcdf x { variables: float v ; string v:names = \"a\", \"b\" ; v:_FillValue = -1.f ; v:_ChunkSizes = 1 ; :_Format = \"netCDF-4\" ; }");
    let Item::Attr(a) = &f.root.items[1] else {
        panic!()
    };
    assert_eq!(a.typ, Some(TypeRef::Atomic(NcType::String)));
    assert_eq!(a.name, "names");
    let texts: Vec<&Value> = a.values.iter().map(|d| &d.value).collect();
    assert_eq!(
        texts,
        [&Value::Text(b"a".to_vec()), &Value::Text(b"b".to_vec())]
    );
    let Item::Attr(a) = &f.root.items[2] else {
        panic!()
    };
    assert_eq!(a.name, "_FillValue");
    assert_eq!(a.typ, None);
    assert_eq!(a.values[0].value, Value::Float(-1.0));
}

#[test]
fn user_types_parse() {
    let f = ok("netcdf x { types: ubyte enum e {a = 1, b = 2} ; compound c { int x ; float y(2) ; } ; int(*) vl ; opaque(4) op ; }");
    let types: Vec<(&str, &str)> = f
        .root
        .items
        .iter()
        .map(|i| match i {
            Item::Type(t) => (t.kind(), t.name.as_str()),
            other => panic!("not a type: {other:?}"),
        })
        .collect();
    assert_eq!(
        types,
        [
            ("enum", "e"),
            ("compound", "c"),
            ("vlen", "vl"),
            ("opaque", "op")
        ]
    );
}

#[test]
fn error_positions_and_messages() {
    assert_eq!(
        err("netcdf x {\ndimensions:\n x = ;\n}"),
        "3:6: expected a dimension size or UNLIMITED, found ';'"
    );
    assert_eq!(
        err("netcdf x {\nvariables:\n int v(x ;\n}"),
        "3:10: expected ',' or ')', found ';'"
    );
    assert_eq!(
        err("netcdf x {\n :a = 1\n}"),
        "3:1: expected ';', found '}'"
    );
    assert_eq!(
        err("netcdf x {"),
        "1:11: expected '}' or a declaration, found end of input"
    );
    assert_eq!(err("x {}"), "1:1: expected 'netcdf', found 'x'");
    assert_eq!(
        err("netcdf x { :a = \"abc ; }"),
        "1:17: unterminated string"
    );
    assert_eq!(err("netcdf x { :a = 5q ; }"), "1:17: bad number '5q'");
    assert_eq!(
        err("netcdf x { :a = -1u ; }"),
        "1:17: unsigned integer cannot be negative: -1u"
    );
    assert_eq!(
        err("netcdf x { } trailing"),
        "1:14: expected end of input, found 'trailing'"
    );
    assert_eq!(err("netcdf x { /* open"), "1:12: unterminated /* comment");
}

/// The leaves of a data list, braces and parallel runs removed: (value, position).
fn leaves(list: &[crate::cdl::ast::Datum]) -> Vec<(Value, usize)> {
    let mut out = Vec::new();
    for d in list {
        match &d.value {
            Value::List(inner) | Value::Run(inner) => out.extend(leaves(inner)),
            v => out.push((v.clone(), d.pos)),
        }
    }
    out
}

/// A list over the parallel threshold, with every kind of item that can trip a split:
/// strings and comments holding `, ; { }`, character constants, braces, suffixes.
fn big_list() -> String {
    let mut s = String::new();
    let mut k = 0u64;
    while s.len() < 5 << 20 {
        s.push_str(match k % 9 {
            0 => "1.5, -2, 3e-3, 0x1Fs, 017, 4000000000, 7ub, NaN, -Infinity",
            1 => "\"a, b; {c}\", \"esc\\\"aped, \\\\\"",
            2 => "'x', ',', ';', '\\''",
            3 => "{1, 2, {3, 4}}, 5",
            4 => "// a comment, with; {braces}\n 6",
            5 => "/* block, comment; } */ 7",
            6 => "_, 8.25f, 9.d, 1e5",
            7 => "12345678901234567890, -9223372036854775808",
            _ => "\n  10, 11, 12",
        });
        s.push_str(",\n  ");
        k += 1;
    }
    s.push_str("99");
    s
}

#[test]
fn large_data_lists_parse_in_parallel_like_small_ones() {
    let list = big_list();
    // An attribute's list is always parsed sequentially; the variable's in parallel.
    let text = format!("netcdf x {{\n:a = {list} ;\ndata:\n v = {list} ;\n}}\n");
    let f = ok(&text);
    let Item::Attr(a) = &f.root.items[0] else {
        panic!()
    };
    let Item::Data(d) = &f.root.items[1] else {
        panic!()
    };
    assert!(
        d.values.iter().any(|x| matches!(x.value, Value::Run(_))),
        "the parallel path was not taken"
    );
    let seq = leaves(&a.values);
    let par = leaves(&d.values);
    assert_eq!(seq.len(), par.len());
    let shift = par[0].1 - seq[0].1;
    for (s, p) in seq.iter().zip(&par) {
        // NaN != NaN: compare the debug text.
        assert_eq!(format!("{:?}", s.0), format!("{:?}", p.0));
        assert_eq!(s.1 + shift, p.1);
    }
    assert_eq!(&text[par[0].1..par[0].1 + 3], "1.5");
}

#[test]
fn an_error_deep_in_a_large_list_is_reported_where_it_is() {
    let mut list = big_list();
    let at = list.len() / 2;
    let cut = list[at..].find(",\n").unwrap() + at;
    list.replace_range(cut..cut + 1, " @");
    let text = format!("netcdf x {{\ndata:\n v = {list} ;\n}}\n");
    let e = parse(&text).unwrap_err();
    let line = text[..cut + " v = ".len() + "netcdf x {\ndata:\n".len()]
        .matches('\n')
        .count()
        + 1;
    assert_eq!(e.line, line, "{e}");
    assert!(e.message.contains("found '@'"), "{e}");
}

#[test]
fn decimals_in_data_lists_read_like_ncgen() {
    let f = ok("netcdf x { :a = 0, -1, +2, 2147483647, 2147483648, 4294967296, -2147483649, 1., .5, -0.25, 1e3, 2E-2, 123456789012345678 ; }");
    let Item::Attr(a) = &f.root.items[0] else {
        panic!()
    };
    let shown: Vec<String> = a
        .values
        .iter()
        .map(|d| match &d.value {
            Value::Int { value, typ } => format!("{}{typ}", value.get()),
            Value::Double(x) => format!("{x}d"),
            other => format!("{other:?}"),
        })
        .collect();
    assert_eq!(
        shown,
        [
            "0int",
            "-1int",
            "2int",
            "2147483647int",
            "2147483648uint",
            // As ncgen: unsuffixed positive integers beyond uint are uint64
            // (`:a = 4294967296` dumps as `4294967296ULL`).
            "4294967296uint64",
            "-2147483649int64",
            "1d",
            "0.5d",
            "-0.25d",
            "1000d",
            "0.02d",
            "123456789012345678uint64"
        ]
    );
}

#[test]
fn bytes_that_are_not_utf8_are_text_in_strings_and_refused_in_names() {
    let text = crate::cdl::source_text(
        b"netcdf x { // caf\xe9\nvariables: char c ; c:a = \"\xe9t\xe9\" ; data: c = '\\'' ; }"
            .to_vec(),
    );
    assert!(parse(&text).is_ok(), "{:?}", parse(&text).err());
    let bad = crate::cdl::source_text(b"netcdf x {\ndimensions:\n\tn\xe9 = 1 ;\n}\n".to_vec());
    assert_eq!(
        parse(&bad).unwrap_err().to_string(),
        "3:3: a byte that is not UTF-8 outside a string or comment: names must be valid UTF-8"
    );
}

#[test]
fn a_cdl_error_converts_with_its_place() {
    let e = CdlError {
        line: 3,
        column: 9,
        message: "expected ','".into(),
    };
    let text = e.to_string();
    let e = crate::Error::from(e);
    assert!(matches!(
        e,
        crate::Error::Cdl {
            line: 3,
            column: 9,
            ..
        }
    ));
    assert_eq!(e.to_string(), text);
}
