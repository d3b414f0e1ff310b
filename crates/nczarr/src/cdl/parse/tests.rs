use super::*;
use crate::cdl::ast::{Item, Value};
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
            Value::Int { value, typ } => format!("{value}{typ}"),
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
    assert!(
        matches!(&d.values[0].value, Value::List(l) if l.len() == 2 && l[1].value == Value::Fill)
    );
}

#[test]
fn typed_attributes_and_specials() {
    let f = ok("netcdf x { variables: float v ; string v:names = \"a\", \"b\" ; v:_FillValue = -1.f ; v:_ChunkSizes = 1 ; :_Format = \"netCDF-4\" ; }");
    let Item::Attr(a) = &f.root.items[1] else {
        panic!()
    };
    assert!(a.typ.is_some());
    let Item::Attr(a) = &f.root.items[2] else {
        panic!()
    };
    assert_eq!(a.name, "_FillValue");
}

#[test]
fn user_types_parse() {
    let f = ok("netcdf x { types: ubyte enum e {a = 1, b = 2} ; compound c { int x ; float y(2) ; } ; int(*) vl ; opaque(4) op ; }");
    assert_eq!(f.root.items.len(), 4);
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
