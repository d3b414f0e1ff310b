//! The compiler on its own: scoping of names across groups, attribute type inference
//! as ncgen does it, special attributes, and data layout.

use super::*;
use crate::cdl::parse;
use crate::encoding::Chunking;

fn ok(text: &str) -> Compiled {
    let ast = parse(text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    compile(text, &ast).unwrap_or_else(|e| panic!("{e}\n{text}"))
}

fn err(text: &str) -> String {
    let ast = parse(text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    compile(text, &ast).unwrap_err().to_string()
}

fn var<'a>(c: &'a Compiled, group: &[&str], name: &str) -> &'a Var {
    let group: Vec<String> = group.iter().map(|g| (*g).to_string()).collect();
    c.dataset
        .var(&VarPath::new(&group, name))
        .unwrap_or_else(|| panic!("no variable {name}"))
}

fn attr<'a>(v: &'a Var, name: &str) -> &'a Values {
    &v.attr(name)
        .unwrap_or_else(|| panic!("no attribute {name}"))
        .values
}

#[test]
fn dimensions_are_found_in_the_nearest_enclosing_group() {
    let c = ok("netcdf x { dimensions: d = 2 ; e = 3 ;
        group: g { dimensions: d = 5 ; variables: int v(d, e) ;
            group: h { variables: int w(d) ; int a(/d) ; } } }");
    let v = var(&c, &["g"], "v");
    assert_eq!(v.dims[0].group, ["g"]);
    assert_eq!(v.dims[1].group, Vec::<String>::new());
    assert_eq!(c.dataset.var_shape(v), [5, 3]);
    // From a subgroup: the parent's d shadows the root's; an absolute name does not.
    assert_eq!(var(&c, &["g", "h"], "w").dims[0].group, ["g"]);
    assert_eq!(
        var(&c, &["g", "h"], "a").dims[0].group,
        Vec::<String>::new()
    );
}

#[test]
fn names_that_do_not_resolve_are_errors_at_their_place() {
    assert_eq!(
        err("netcdf x {\nvariables:\n  int v(nope) ;\n}"),
        "3:9: undefined or forward referenced dimension: nope"
    );
    assert!(
        err("netcdf x { dimensions: d = 1 ; group: g { variables: int v(/g/d) ; } }")
            .contains("undefined dimension d")
    );
    assert!(err("netcdf x { variables: int v ; v:a = 1 ; w:b = 2 ; }")
        .contains("undefined or forward referenced variable: w"));
    assert!(err("netcdf x { dimensions: d = 1 ; d = 2 ; }")
        .contains("duplicate dimension declaration for d"));
    assert!(err("netcdf x { variables: int v ; float v ; }")
        .contains("duplicate variable declaration for v"));
    assert!(
        err("netcdf x { group: g {} group: g {} }").contains("duplicate group declaration for g")
    );
    assert!(
        err("netcdf x { types: opaque(2) t ; compound t { int a ; } ; }")
            .contains("duplicate type declaration for t")
    );
    assert!(err("netcdf x { types: byte enum e { a = 1, a = 2 } ; }")
        .contains("duplicate enum constant a"));
    assert!(err("netcdf x { types: byte enum e { a = 300 } ; }").contains("does not fit"));
    assert!(err("netcdf x { variables: nothing_t v ; }").contains("undefined type nothing_t"));
}

#[test]
fn user_defined_types_compile_with_their_values() {
    use crate::model::user::{TypeRef as T, UserKind};
    use crate::model::{TypeId, UValue};
    let c = ok(r#"netcdf x {
        types:
          compound c_t { int i ; string s ; char name(4) ; double d(2) ; } ;
          int(*) vi ;
          opaque(3) op ;
          ubyte enum e_t { A = 1, B = 2 } ;
        dimensions: n = 3 ; u = UNLIMITED ;
        variables:
          c_t c(n) ;
            c_t c:_FillValue = {0, "f", {"no"}, {-1, -2}} ;
          vi v(u) ;
          op o(n) ;
          e_t en(n) ;
          vi :glob = {1, 2}, {3} ;
          e_t en:flags = A, e_t.B ;
        data:
          c = {1, "x", {"ab"}, {1.5}}, _ ;
          v = {1, 2}, {3}, {} ;
          o = 0x0102, 0x010203040506, _ ;
          en = A, e_t.B, 1 ;
        }"#);
    let root = &c.dataset.root;
    let names: Vec<&str> = root.types.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["c_t", "vi", "op", "e_t"]);
    // Laid out as a C struct: int at 0, the string pointer at 8, chars at 16, doubles at 24.
    let UserKind::Compound { size, fields } = &root.types[0].kind else {
        panic!()
    };
    let offsets: Vec<u64> = fields.iter().map(|f| f.offset).collect();
    assert_eq!((*size, offsets), (40, vec![0, 8, 16, 24]));
    let id = |n: &str| TypeId {
        group: vec![],
        name: n.into(),
    };
    assert_eq!(var(&c, &[], "en").nc_type, NcType::UByte);
    assert_eq!(var(&c, &[], "en").user_type, Some(id("e_t")));
    assert_eq!(
        c.data[&VarPath::new(&[], "en")],
        Values::UByte(vec![1, 2, 1])
    );
    let flags = attr(var(&c, &[], "en"), "flags");
    assert_eq!(flags, &Values::UByte(vec![1, 2]));
    let chars = |s: &[u8]| {
        UValue::Array(
            s.iter()
                .map(|&b| UValue::Atomic(Values::Char(vec![b])))
                .collect(),
        )
    };
    let doubles = |d: &[f64]| {
        UValue::Array(
            d.iter()
                .map(|&x| UValue::Atomic(Values::Double(vec![x])))
                .collect(),
        )
    };
    let fill = UValue::Compound(vec![
        UValue::Atomic(Values::Int(vec![0])),
        UValue::Atomic(Values::String(vec![Some(&b"f"[..])].into())),
        chars(b"no\0\0"),
        doubles(&[-1.0, -2.0]),
    ]);
    let cs = &c.user_data[&VarPath::new(&[], "c")];
    assert_eq!(
        cs[0],
        UValue::Compound(vec![
            UValue::Atomic(Values::Int(vec![1])),
            UValue::Atomic(Values::String(vec![Some(&b"x"[..])].into())),
            chars(b"ab\0\0"),
            // A field's elements not given are the default fill.
            doubles(&[1.5, 9.969_209_968_386_869e36]),
        ])
    );
    // `_` and what the list does not give are the variable's _FillValue.
    assert_eq!((&cs[1], &cs[2]), (&fill, &fill));
    let ints = |v: &[i32]| {
        UValue::Vlen(
            v.iter()
                .map(|&x| UValue::Atomic(Values::Int(vec![x])))
                .collect(),
        )
    };
    assert_eq!(c.dataset.dim(&var(&c, &[], "v").dims[0]).unwrap().len, 3);
    assert_eq!(
        c.user_data[&VarPath::new(&[], "v")],
        [ints(&[1, 2]), ints(&[3]), ints(&[])]
    );
    // Opaque constants are padded with zeros or cut (with a warning) to the size.
    assert_eq!(
        c.user_data[&VarPath::new(&[], "o")],
        [
            UValue::Opaque(vec![1, 2, 0]),
            UValue::Opaque(vec![1, 2, 3]),
            UValue::Opaque(vec![0; 3])
        ]
    );
    assert!(c
        .warnings
        .iter()
        .any(|w| w.message.contains("cut to the 3")));
    let glob = root.attrs.iter().find(|a| a.name == "glob").unwrap();
    let user = glob.user.as_ref().unwrap();
    assert_eq!(
        (&user.ty, user.values.as_slice()),
        (&id("vi"), &[ints(&[1, 2]), ints(&[3])][..])
    );
    let UserKind::Vlen { base } = &root.types[1].kind else {
        panic!()
    };
    assert_eq!(base, &T::Atomic(NcType::Int));
    // A repeated attribute replaces the earlier one, its type too, in its place.
    let c = ok("netcdf x { types: int(*) vi ; variables: int v ;
        vi :a = {1} ; :b = 1 ; :a = 2 ; v:c = 1 ; vi v:c = {3} ; }");
    let names: Vec<&str> = c
        .dataset
        .root
        .attrs
        .iter()
        .map(|a| a.name.as_str())
        .collect();
    assert_eq!(names, ["a", "b"]);
    assert_eq!(c.dataset.root.attrs[0].user, None);
    assert_eq!(c.dataset.root.attrs[0].values, Values::Int(vec![2]));
    assert!(attr_of(var(&c, &[], "v"), "c").user.is_some());
}

fn attr_of<'a>(v: &'a Var, name: &str) -> &'a crate::model::Attr {
    v.attr(name)
        .unwrap_or_else(|| panic!("no attribute {name}"))
}

#[test]
fn user_defined_types_are_found_as_ncgen_finds_them() {
    // Types used before their declaration, in other groups, by path and through the
    // one subtree that has them; ordered as ncgen defines them.
    let c = ok("netcdf x {
        types: compound outer { inner_t i ; } ; opaque(2) inner_t ;
        group: f { types: opaque(3) op_t1 ; }
        group: g { variables: op_t1 v1 ; op_t3 v3 ; /g/h/op_t3 v4 ;
          group: h { types: opaque(4) op_t3 ; } }
        }");
    let names: Vec<&str> = c
        .dataset
        .root
        .types
        .iter()
        .map(|t| t.name.as_str())
        .collect();
    assert_eq!(names, ["inner_t", "outer"]);
    let g = ["g"];
    assert_eq!(
        var(&c, &g, "v1").user_type.as_ref().unwrap().to_string(),
        "/f/op_t1"
    );
    assert_eq!(
        var(&c, &g, "v3").user_type.as_ref().unwrap().to_string(),
        "/g/h/op_t3"
    );
    assert_eq!(
        var(&c, &g, "v4").user_type.as_ref().unwrap().to_string(),
        "/g/h/op_t3"
    );
    assert!(err("netcdf x { variables: t v ; group: a { types: opaque(1) t ; } group: b { types: opaque(1) t ; } }")
        .contains("defined in several groups"));
    assert!(
        err("netcdf x { types: byte enum e { a = 1 } ; variables: e v ; data: v = b ; }")
            .contains("enum type /e has no constant b")
    );
    assert!(err(
        "netcdf x { types: compound c { int a(2) ; } ; variables: c v ; data: v = {1} ; }"
    )
    .contains("must be enclosed in {...}"));
    assert!(err(
        "netcdf x { types: compound c { int a ; } ; variables: c v ; data: v = {1, 2} ; }"
    )
    .contains("too many values for the compound type /c"));
}

#[test]
fn attributes_and_data_reach_variables_in_other_groups_by_path() {
    let c = ok("netcdf x { variables: int v ;
        group: g { variables: int v ; /v:units = \"m\" ; data: /v = 7 ; v = 8 ; } }");
    assert_eq!(attr(var(&c, &[], "v"), "units"), &Values::text("m"));
    assert!(var(&c, &["g"], "v").attrs.is_empty());
    assert_eq!(c.data[&VarPath::new(&[], "v")], Values::Int(vec![7]));
    assert_eq!(
        c.data[&VarPath::new(&["g".to_string()], "v")],
        Values::Int(vec![8])
    );
}

#[test]
fn attribute_types_are_inferred_as_ncgen_does() {
    let c = ok(r#"netcdf x { variables: short v ;
        v:i = 1, 2 ; v:bs = 1b, 2s ; v:sl = 3s, 4 ; v:d = 1, 2.5 ; v:f = 1.5f, 2 ;
        v:df = 1.5f, 2.5 ; v:c = "a", "bc" ; v:u = 18446744073709551615ULL ;
        v:big = 3000000000 ; v:ch = '\0' ; v:e = "" ; v:_FillValue = -3 ;
        short v:t = 1, 2 ; string v:s = "a", "b" ; }"#);
    let v = var(&c, &[], "v");
    assert_eq!(attr(v, "i"), &Values::Int(vec![1, 2]));
    assert_eq!(attr(v, "bs"), &Values::Short(vec![1, 2]));
    assert_eq!(attr(v, "sl"), &Values::Int(vec![3, 4]));
    assert_eq!(attr(v, "d"), &Values::Double(vec![1.0, 2.5]));
    assert_eq!(attr(v, "f"), &Values::Float(vec![1.5, 2.0]));
    assert_eq!(attr(v, "df"), &Values::Double(vec![1.5, 2.5]));
    assert_eq!(attr(v, "c"), &Values::text("abc"));
    assert_eq!(attr(v, "u"), &Values::UInt64(vec![u64::MAX]));
    assert_eq!(attr(v, "big"), &Values::UInt(vec![3_000_000_000]));
    assert_eq!(attr(v, "ch"), &Values::Byte(vec![0]));
    assert_eq!(attr(v, "e"), &Values::text(""));
    // An untyped _FillValue takes the variable's type, and is the variable's fill.
    assert_eq!(attr(v, "_FillValue"), &Values::Short(vec![-3]));
    let enc = &c.encodings[&VarPath::new(&[], "v")];
    assert_eq!(enc.fill, Some(Values::Short(vec![-3])));
    assert_eq!(attr(v, "t"), &Values::Short(vec![1, 2]));
    assert_eq!(attr(v, "s").nc_type(), NcType::String);
    assert!(err("netcdf x { :a = \"t\", 1 ; }").contains("mixes text and numbers"));
    assert!(err("netcdf x { variables: int v ; v:_FillValue = 1, 2 ; }")
        .contains("_FillValue must be a single value"));
    // ncgen: an empty char _FillValue is the NUL character.
    let c = ok("netcdf x { dimensions: n = 2 ; variables: char c(n) ; c:_FillValue = \"\" ; }");
    let v = c.dataset.var(&VarPath::new(&[], "c")).unwrap();
    assert_eq!(attr(v, "_FillValue"), &Values::Char(vec![0]));
    assert_eq!(
        c.encodings[&VarPath::new(&[], "c")].fill,
        Some(Values::Char(vec![0]))
    );
}

#[test]
fn special_attributes_are_storage_not_attributes() {
    let c = ok("netcdf x { dimensions: t = 10 ; variables: float v(t) ;
        v:_ChunkSizes = 5 ; v:_DeflateLevel = 2 ; v:_Shuffle = \"true\" ;
        v:_Endianness = \"big\" ; v:_NoFill = \"true\" ; v:units = \"K\" ;
        v:_QuantizeBitRoundNumberOfSignificantBits = 3 ; }");
    let v = var(&c, &[], "v");
    // The quantization is kept as an attribute too, as netcdf-c keeps it.
    let names: Vec<&str> = v.attrs.iter().map(|a| a.name.as_str()).collect();
    assert_eq!(names, ["units", "_QuantizeBitRoundNumberOfSignificantBits"]);
    let enc = &c.encodings[&VarPath::new(&[], "v")];
    assert_eq!(enc.chunking, Some(Chunking::Chunked(vec![5])));
    assert_eq!(enc.codec_ids().collect::<Vec<_>>(), ["shuffle", "zlib"]);
    assert!(enc.no_fill && enc.endian.is_some());
    assert_eq!(
        enc.quantize.map(|q| (q.mode, q.nsd)),
        Some((crate::encoding::quantize::QuantizeMode::BitRound, 3))
    );
    assert!(c.warnings.is_empty(), "{:?}", c.warnings);
    for bad in [
        "int v(t) ; v:_QuantizeBitRoundNumberOfSignificantBits = 3",
        "float v(t) ; v:_QuantizeBitGroomNumberOfSignificantDigits = 7",
        "double v(t) ; v:_QuantizeBitRoundNumberOfSignificantBits = 0",
        "float v(t) ; v:_QuantizeBitRoundNumberOfSignificantDigits = 3",
    ] {
        let text = format!("netcdf x {{ dimensions: t = 10 ; variables: {bad} ; }}");
        assert!(err(&text).contains("_Quantize"), "{bad}");
    }
    // _Codecs fixes the chain: later filter attributes do not change it.
    let c = ok(r#"netcdf x { dimensions: t = 10 ; variables: int v(t) ;
        v:_Codecs = "[{\"id\": \"zstd\", \"level\": 1}]" ; v:_DeflateLevel = 9 ; }"#);
    let enc = &c.encodings[&VarPath::new(&[], "v")];
    assert_eq!(enc.codec_ids().collect::<Vec<_>>(), ["zstd"]);
    assert!(
        err("netcdf x { dimensions: t = 10 ; variables: int v(t) ; v:_ChunkSizes = 0 ; }")
            .contains("chunk sizes must be positive")
    );
    assert!(
        err("netcdf x { variables: int v ; v:_DeflateLevel = 10 ; }")
            .contains("_DeflateLevel must be 0..9, not 10")
    );
}

#[test]
fn data_is_laid_out_with_fill_and_unlimited_lengths() {
    let c = ok("netcdf x { dimensions: r = UNLIMITED ; c = 3 ; variables:
        int v(r, c) ; v:_FillValue = -1 ; int w(c) ; char s(r, c) ;
        data: v = 1, 2, 3, 4 ; w = 9 ; s = \"ab\", \"xyz\" ; }");
    let r = &c.dataset.root.dims[0];
    assert!(r.unlimited);
    assert_eq!(r.len, 2, "the longest data given for r");
    let at = |n: &str| &c.data[&VarPath::new(&[], n)];
    assert_eq!(at("v"), &Values::Int(vec![1, 2, 3, 4, -1, -1]));
    assert_eq!(at("w"), &Values::Int(vec![9, -2147483647, -2147483647]));
    assert_eq!(at("s"), &Values::Char(b"ab\0xyz".to_vec()));
}

#[test]
fn string_widths_come_from_the_file_or_the_data() {
    let c = ok("netcdf x { dimensions: n = 2 ; variables: string a(n) ; string b(n) ;
        b:_nczarr_maxstrlen = 9 ; string e(n) ; data: a = \"abc\", \"abcdefg\" ; b = \"x\", \"y\" ; }");
    let width = |n: &str| c.encodings[&VarPath::new(&[], n)].string_width;
    assert_eq!(width("a"), Some(7));
    assert_eq!(width("b"), Some(9));
    assert_eq!(width("e"), None);
    // A width given smaller than the data, or than the fill value, is widened: strings
    // are never cut (issue 61).
    let c = ok(
        "netcdf x { dimensions: n = 1 ; variables: string a(n) ; string b(n) ;
        b:_FillValue = \"missing\" ; string c(n) ; c:_nczarr_maxstrlen = 2 ;
        :_nczarr_default_maxstrlen = 4 ; data: a = \"abcdefg\" ; b = \"x\" ; c = \"abc\" ; }",
    );
    let width = |n: &str| c.encodings[&VarPath::new(&[], n)].string_width;
    assert_eq!(width("a"), Some(7));
    assert_eq!(width("b"), Some(7));
    assert_eq!(width("c"), Some(3));
}
