//! Parse → print → parse is an identity: a dataset printed as CDL by our printer and
//! compiled again by our parser is the same dataset, with the same data
//! (property test over random datasets, names that need escapes included).

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};

use nczarr::cdl::print::{print_cdl, PrintOptions};
use nczarr::cdl::{compile, parse, Compiled};
use nczarr::chunking::Region;
use nczarr::encoding::Encoding;
use nczarr::model::{Attr, Dataset, Dim, DimRef, Group, NcType, Values, Var, VarPath};
use nczarr::source::{DataSource, DatasetSource, FormatInfo};
use proptest::prelude::*;

const NAMES: &[&str] = &[
    "a",
    "b2",
    "x_y",
    "with space",
    "1st",
    "data",
    "temp.k",
    "Ω",
    "p-q",
    "c(d)",
];

fn values_of(t: NcType, n: usize) -> BoxedStrategy<Values> {
    let text = prop::collection::vec(
        prop_oneof![
            Just(b'a'),
            Just(b'Z'),
            Just(b' '),
            Just(b'"'),
            Just(b'\\'),
            Just(b'\t'),
            Just(b'\n'),
            Just(b'\''),
            Just(0x01u8),
            Just(b'7')
        ],
        0..6,
    );
    match t {
        NcType::Byte => prop::collection::vec(any::<i8>(), n)
            .prop_map(Values::Byte)
            .boxed(),
        NcType::UByte => prop::collection::vec(any::<u8>(), n)
            .prop_map(Values::UByte)
            .boxed(),
        NcType::Short => prop::collection::vec(any::<i16>(), n)
            .prop_map(Values::Short)
            .boxed(),
        NcType::UShort => prop::collection::vec(any::<u16>(), n)
            .prop_map(Values::UShort)
            .boxed(),
        NcType::Int => prop::collection::vec(any::<i32>(), n)
            .prop_map(Values::Int)
            .boxed(),
        NcType::UInt => prop::collection::vec(any::<u32>(), n)
            .prop_map(Values::UInt)
            .boxed(),
        NcType::Int64 => prop::collection::vec(any::<i64>(), n)
            .prop_map(Values::Int64)
            .boxed(),
        NcType::UInt64 => prop::collection::vec(any::<u64>(), n)
            .prop_map(Values::UInt64)
            .boxed(),
        // Values with short decimal forms: %.7g and %.15g print them exactly.
        NcType::Float => prop::collection::vec(any::<i16>().prop_map(|v| f32::from(v) / 8.0), n)
            .prop_map(Values::Float)
            .boxed(),
        NcType::Double => prop::collection::vec(
            any::<i32>().prop_map(|v| f64::from(v % 10_000_000) / 16.0),
            n,
        )
        .prop_map(Values::Double)
        .boxed(),
        NcType::Char => prop::collection::vec(
            prop_oneof![
                Just(b'a'),
                Just(b' '),
                Just(b'"'),
                Just(b'\\'),
                Just(b'\t'),
                Just(0x02u8)
            ],
            n,
        )
        .prop_map(Values::Char)
        .boxed(),
        NcType::String => prop::collection::vec(
            prop_oneof![
                text.prop_map(Some),
                Just(None),
                Just(Some("é日".as_bytes().to_vec()))
            ],
            n,
        )
        .prop_map(|v| Values::String(v.into()))
        .boxed(),
    }
}

fn arb_type() -> impl Strategy<Value = NcType> {
    prop::sample::select(NcType::ALL.to_vec())
}

/// An attribute to generate: its type and number of values.
type AttrSpec = (NcType, usize);
/// A variable to generate: type, indexes of its dimensions, attributes.
type VarSpec = (NcType, Vec<usize>, Vec<AttrSpec>);

#[derive(Debug, Clone)]
struct Spec {
    dims: Vec<u64>,
    vars: Vec<VarSpec>,
    gattrs: Vec<AttrSpec>,
}

fn arb_spec() -> impl Strategy<Value = Spec> {
    let dims = prop::collection::vec(1u64..4, 0..3);
    dims.prop_flat_map(|dims| {
        let nd = dims.len();
        let var = (
            arb_type(),
            prop::collection::vec(0..nd.max(1), 0..=nd.min(2)),
            prop::collection::vec((arb_type(), 1usize..3), 0..3),
        );
        (
            Just(dims),
            prop::collection::vec(var, 0..4),
            prop::collection::vec((arb_type(), 1usize..3), 0..3),
        )
    })
    .prop_map(|(dims, vars, gattrs)| {
        let nd = dims.len();
        let vars = vars
            .into_iter()
            .map(|(t, d, a)| (t, if nd == 0 { vec![] } else { d }, a))
            .collect();
        Spec { dims, vars, gattrs }
    })
}

/// Materialise a spec with random values.
fn arb_compiled() -> impl Strategy<Value = Compiled> {
    arb_spec()
        .prop_flat_map(|spec| {
            let var_values: Vec<BoxedStrategy<Values>> = spec
                .vars
                .iter()
                .map(|(t, d, _)| {
                    let n: u64 = d.iter().map(|&i| spec.dims[i]).product();
                    values_of(*t, n as usize)
                })
                .collect();
            let attr_values: Vec<BoxedStrategy<Values>> = spec
                .vars
                .iter()
                .flat_map(|(_, _, a)| {
                    a.iter()
                        .map(|&(t, n)| values_of(t, if t == NcType::Char { 3 } else { n }))
                })
                .chain(
                    spec.gattrs
                        .iter()
                        .map(|&(t, n)| values_of(t, if t == NcType::Char { 3 } else { n })),
                )
                .collect();
            (Just(spec), var_values, attr_values)
        })
        .prop_map(|(spec, var_values, attr_values)| {
            let mut root = Group::new("");
            for (i, &len) in spec.dims.iter().enumerate() {
                root.dims.push(Dim {
                    name: format!("d{i}"),
                    len,
                    unlimited: false,
                });
            }
            let mut attr_iter = attr_values.into_iter();
            let mut plans = HashMap::new();
            for (k, ((t, dims, attrs), data)) in spec.vars.iter().zip(var_values).enumerate() {
                let name = NAMES[k % NAMES.len()].to_string();
                let mut var = Var {
                    name: name.clone(),
                    nc_type: *t,
                    user_type: None,
                    dims: dims
                        .iter()
                        .map(|&i| DimRef {
                            group: vec![],
                            name: format!("d{i}"),
                        })
                        .collect(),
                    attrs: Vec::new(),
                    notes: Vec::new(),
                };
                for (j, _) in attrs.iter().enumerate() {
                    let v = attr_iter.next().expect("attr values");
                    var.attrs.push(Attr::new(format!("att{j}"), v));
                }
                plans.insert(VarPath::new(&[], &name), data);
                root.vars.push(var);
            }
            for (j, _) in spec.gattrs.iter().enumerate() {
                let v = attr_iter.next().expect("attr values");
                root.attrs
                    .push(Attr::new(NAMES[(j + 3) % NAMES.len()].to_string(), v));
            }
            Compiled {
                name: "rt".into(),
                dataset: Dataset { root },
                encodings: HashMap::new(),
                data: plans,
                user_data: HashMap::new(),
                format: None,
                default_maxstrlen: None,
                warnings: Vec::new(),
            }
        })
}

fn print(c: &Compiled) -> String {
    print_in_slabs(c, PrintOptions::default().slab_elements)
}

/// The CDL of `c`, its variables read `slab` values at a time.
fn print_in_slabs(c: &Compiled, slab: u64) -> String {
    let mut out = Vec::new();
    let opts = PrintOptions {
        name: c.name.clone(),
        slab_elements: slab,
        ..PrintOptions::default()
    };
    print_cdl(&mut out, c, &opts).expect("print");
    String::from_utf8(out).expect("utf-8 output")
}

/// What a reader can tell apart: a string attribute of one value prints like a char
/// attribute would not; empty strings print as the fill, which reads back as "".
fn normalise(v: &Values) -> Values {
    match v {
        Values::Char(b) => {
            Values::Char(b[..b.iter().rposition(|&c| c != 0).map_or(0, |p| p + 1)].to_vec())
        }
        other => other.clone(),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]
    #[test]
    fn parse_print_parse_is_identity(c in arb_compiled()) {
        let text = print(&c);
        let ast = parse(&text).map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
        let back = compile(&text, &ast).map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
        prop_assert_eq!(&back.dataset.root.dims, &c.dataset.root.dims, "{}", text);
        prop_assert_eq!(back.dataset.root.vars.len(), c.dataset.root.vars.len());
        for (a, b) in back.dataset.root.vars.iter().zip(&c.dataset.root.vars) {
            prop_assert_eq!(&a.name, &b.name);
            prop_assert_eq!(a.nc_type, b.nc_type);
            prop_assert_eq!(&a.dims, &b.dims);
            prop_assert_eq!(a.attrs.len(), b.attrs.len(), "{}", text);
            for (x, y) in a.attrs.iter().zip(&b.attrs) {
                prop_assert_eq!(&x.name, &y.name);
                prop_assert_eq!(normalise(&x.values), normalise(&y.values), "{}", text);
            }
            let key = VarPath::new(&[], &a.name);
            let got = back.data.get(&key).cloned();
            let want = c.data.get(&key).cloned();
            let got = got.map(|v| match v {
                Values::String(s) => Values::String(s),
                other => other,
            });
            let want = want.map(|v| match v {
                // "" prints as `_` (the default string fill) and reads back as "".
                Values::String(s) => Values::String(s),
                other => other,
            });
            prop_assert_eq!(got, want, "{}", text);
        }
        prop_assert_eq!(back.dataset.root.attrs.len(), c.dataset.root.attrs.len());
        for (x, y) in back.dataset.root.attrs.iter().zip(&c.dataset.root.attrs) {
            prop_assert_eq!(&x.name, &y.name);
            prop_assert_eq!(normalise(&x.values), normalise(&y.values), "{}", text);
        }
        // And printing again gives the same text, also read in slabs of a few values
        // (several slabs in flight, from readers taking them in turn).
        prop_assert_eq!(print(&back), text.clone());
        for slab in [1, 4, 7] {
            prop_assert_eq!(print_in_slabs(&c, slab), text.clone(), "slab {}", slab);
        }
    }
}

/// What the random datasets above do not hold: nested groups using a parent's
/// dimensions, an unlimited dimension sized by the data, fill values, NIL strings and
/// doubles that need 17 digits. Compiled values are compared one by one, then the
/// whole compiled dataset after a print and parse.
#[test]
fn nested_groups_unlimited_fills_nil_and_long_floats_round_trip_exactly() {
    let text = r#"netcdf n {
dimensions:
	t = UNLIMITED ;
	x = 2 ;
variables:
	double d(t) ;
	string s(x) ;
	short f(t, x) ;
		f:_FillValue = -7s ;
data:
 d = 0.1, 1.0000000000000002, 2.2250738585072014e-308 ;
 s = NIL, "b" ;
 f = 1, _, 3, 4, _, _ ;
group: g {
  dimensions:
  	y = 3 ;
  variables:
  	float w(x, y) ;
  data:
   w = 1.5, _, 3.25, 1e-38, 3.4028235e+38, -0. ;
  group: h {
    variables:
    	int k(t) ;
    data:
     k = 7, 8 ;
    } // group h
  } // group g
}
"#;
    let ast = parse(text).unwrap();
    let c = compile(text, &ast).unwrap();
    let root = &c.dataset.root;
    let t = root.dim("t").unwrap();
    assert!(t.unlimited);
    assert_eq!(
        t.len, 3,
        "the longest data list sizes the unlimited dimension"
    );
    let value = |g: &[&str], v: &str| {
        let g: Vec<String> = g.iter().map(|s| (*s).to_string()).collect();
        c.data.get(&VarPath::new(&g, v)).cloned()
    };
    assert_eq!(
        value(&[], "d"),
        Some(Values::Double(vec![
            0.1,
            1.0000000000000002,
            2.2250738585072014e-308
        ]))
    );
    assert_eq!(
        value(&[], "s"),
        Some(Values::String(vec![None, Some(b"b".to_vec())].into()))
    );
    assert_eq!(
        value(&[], "f"),
        Some(Values::Short(vec![1, -7, 3, 4, -7, -7]))
    );
    let w = value(&["g"], "w").unwrap();
    let Values::Float(w) = w else { panic!("{w:?}") };
    assert_eq!(w[..3], [1.5, 9.969_21e36, 3.25]);
    assert_eq!(w[3..5], [1e-38, 3.402_823_5e38]);
    assert!(w[5] == 0.0 && w[5].is_sign_negative());
    // k(t) gets fill for the third record: the unlimited length is the dataset's.
    assert_eq!(
        value(&["g", "h"], "k"),
        Some(Values::Int(vec![7, 8, -2147483647]))
    );
    let h = root.group("g").and_then(|g| g.group("h")).unwrap();
    assert_eq!(
        h.vars[0].dims[0].group,
        Vec::<String>::new(),
        "k uses the root's t"
    );

    // Printed as ncdump prints (7 significant digits for float, 15 for double, -0 as
    // "-0", which CDL reads back as the integer 0), then read again: the structure and
    // the exact values are kept, the long floats at the printed precision, and a
    // second print gives the same text.
    let printed = print(&c);
    let again = compile(&printed, &parse(&printed).unwrap()).unwrap();
    assert_eq!(again.dataset, c.dataset, "{printed}");
    for v in [&[][..], &["g", "h"][..]] {
        for name in ["f", "s", "k"] {
            let g: Vec<String> = v.iter().map(|s| (*s).to_string()).collect();
            let key = VarPath::new(&g, name);
            assert_eq!(again.data.get(&key), c.data.get(&key), "{key:?}");
        }
    }
    assert_eq!(
        again.data.get(&VarPath::new(&[], "d")),
        Some(&Values::Double(vec![0.1, 1.0, 2.2250738585072e-308]))
    );
    assert_eq!(
        again.data.get(&VarPath::new(&["g".to_string()], "w")),
        Some(&Values::Float(vec![
            1.5,
            9.969_21e36,
            3.25,
            1e-38, // printed 9.999999e-39: the same subnormal float
            3.402_823e38,
            0.0
        ]))
    );
    // Only the sign of -0 is lost on the way, as ncgen loses it.
    assert_eq!(print(&again), printed.replace(", -0 ;", ", 0 ;"));
}

/// A source whose `at`th read fails.
struct FailingRead {
    inner: Compiled,
    reads: AtomicUsize,
    at: usize,
}

impl DataSource for FailingRead {
    fn read(&self, var: &VarPath, region: &Region) -> nczarr::Result<Values> {
        if self.reads.fetch_add(1, Ordering::SeqCst) == self.at {
            return Err(nczarr::Error::Invalid("chunk 3 is damaged".into()));
        }
        self.inner.read(var, region)
    }
}

impl DatasetSource for FailingRead {
    fn dataset(&self) -> &Dataset {
        self.inner.dataset()
    }

    fn format(&self) -> &FormatInfo {
        self.inner.format()
    }

    fn encoding(&self, var: &VarPath) -> Option<Encoding> {
        self.inner.encoding(var)
    }
}

/// A source that gives one value fewer than a slab of `v` asks for.
struct ShortRead(Compiled);

impl DataSource for ShortRead {
    fn read(&self, var: &VarPath, region: &Region) -> nczarr::Result<Values> {
        let values = self.0.read(var, region)?;
        Ok(values.slice(0..values.len().saturating_sub(1)))
    }
}

impl DatasetSource for ShortRead {
    fn dataset(&self) -> &Dataset {
        self.0.dataset()
    }

    fn format(&self) -> &FormatInfo {
        self.0.format()
    }

    fn encoding(&self, var: &VarPath) -> Option<Encoding> {
        self.0.encoding(var)
    }
}

/// Slabs of fewer values than asked for fail the print (whole rows read by the piece
/// of work that lays them out, on this thread or on workers), never panic.
#[test]
fn a_slab_short_of_values_fails_the_print() {
    let text = "netcdf f {\ndimensions:\n\tx = 6 ;\n\ty = 2 ;\nvariables:\n\tint v(x, y) ;\ndata:\n v = 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12 ;\n}\n";
    let ast = parse(text).unwrap();
    for slab in [4, PrintOptions::default().slab_elements] {
        let source = ShortRead(compile(text, &ast).unwrap());
        let opts = PrintOptions {
            name: "f".into(),
            slab_elements: slab,
            ..PrintOptions::default()
        };
        let err = print_cdl(&mut Vec::new(), &source, &opts)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("values read for a slab of"),
            "slab {slab}: {err}"
        );
    }
}

/// A slab that cannot be read fails the print with its error, wherever it falls among
/// the slabs read at once (or, each variable one small slab, printed on the calling
/// thread); the text before it is all that was written.
#[test]
fn a_slab_that_cannot_be_read_fails_the_print() {
    let text = "netcdf f {\ndimensions:\n\tx = 6 ;\n\ty = 2 ;\nvariables:\n\tint v(x, y) ;\n\tstring s(x) ;\ndata:\n v = 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12 ;\n s = \"a\", \"b\", \"c\", \"d\", \"e\", \"f\" ;\n}\n";
    let ast = parse(text).unwrap();
    let whole = print(&compile(text, &ast).unwrap());
    for at in 0..2 {
        let source = FailingRead {
            inner: compile(text, &ast).unwrap(),
            reads: AtomicUsize::new(0),
            at,
        };
        let mut out = Vec::new();
        let opts = PrintOptions {
            name: "f".into(),
            ..PrintOptions::default()
        };
        let err = print_cdl(&mut out, &source, &opts).unwrap_err().to_string();
        assert!(err.contains("chunk 3 is damaged"), "read {at}: {err}");
        let out = String::from_utf8(out).unwrap();
        assert!(whole.starts_with(&out), "read {at}: {out}");
        assert!(out.len() < whole.len(), "read {at}");
    }
    for at in 0..8 {
        let source = FailingRead {
            inner: compile(text, &ast).unwrap(),
            reads: AtomicUsize::new(0),
            at,
        };
        let opts = PrintOptions {
            name: "f".into(),
            slab_elements: 4,
            ..PrintOptions::default()
        };
        let mut out = Vec::new();
        let err = print_cdl(&mut out, &source, &opts).unwrap_err().to_string();
        assert!(err.contains("chunk 3 is damaged"), "read {at}: {err}");
        let out = String::from_utf8(out).unwrap();
        assert!(whole.starts_with(&out), "read {at}: {out}");
        assert!(out.len() < whole.len(), "read {at}");
    }
}
