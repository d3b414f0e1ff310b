//! nczdump -x's printer on compiled CDL seen as each netCDF kind (NcML, as ncdump 4.9.0
//! prints it): an integration test, as it needs the CDL compiler beside the printer.

use nczarr::cdl::print::{print_ncml, PrintOptions, NCML_REFUSED};
use nczarr::cdl::Compiled;
use nczarr::chunking::Region;
use nczarr::encoding::Encoding;
use nczarr::model::{Dataset, Values, VarPath};
use nczarr::source::{DataSource, DatasetSource, FormatInfo};
use nczarr::{Error, Result};

/// Compiled CDL seen as a dataset of `kind` (compiled CDL is netCDF-4).
struct AsKind(Compiled, FormatInfo);

impl DataSource for AsKind {
    fn read(&self, var: &VarPath, region: &Region) -> Result<Values> {
        self.0.read(var, region)
    }
}

impl DatasetSource for AsKind {
    fn dataset(&self) -> &Dataset {
        self.0.dataset()
    }
    fn format(&self) -> &FormatInfo {
        &self.1
    }
    fn encoding(&self, var: &VarPath) -> Option<Encoding> {
        self.0.encoding(var)
    }
}

fn compiled(cdl: &str, kind: &str) -> AsKind {
    let file = nczarr::cdl::parse(cdl).expect("parse");
    let c = nczarr::cdl::compile(cdl, &file).expect("compile");
    let format = FormatInfo {
        kind: kind.into(),
        ..c.format().clone()
    };
    AsKind(c, format)
}

fn ncml(src: &AsKind, opts: &PrintOptions) -> String {
    let mut out = Vec::new();
    print_ncml(&mut out, src, opts, "dir/a&b.nc").expect("printed");
    String::from_utf8(out).expect("UTF-8")
}

const SMALL: &str = r#"netcdf small {
dimensions:
	t = UNLIMITED ;
	x = 2 ;
variables:
	double x(x) ;
		x:units = "m" ;
	int t(t) ;
	short s ;
	float v(t, x) ;
		v:valid = 0.f, 1.5f ;
		v:note = "a\nb" ;
:title = "A < B" ;
:n = 1, 2, 3 ;
}"#;

#[test]
fn small_classic_dataset() {
    let src = compiled(SMALL, "classic");
    let want = r#"<?xml version="1.0" encoding="UTF-8"?>
<netcdf xmlns="https://www.unidata.ucar.edu/namespaces/netcdf/ncml-2.2" location="dir/a&b.nc">
  <dimension name="t" length="0" isUnlimited="true" />
  <dimension name="x" length="2" />
  <attribute name="title" value="A &lt; B" />
  <attribute name="n" type="int" value="1 2 3" />
  <variable name="x" shape="x" type="double">
    <attribute name="units" value="m" />
  </variable>
  <variable name="t" shape="t" type="int" />
  <variable name="s" type="short">
  </variable>
  <variable name="v" shape="t x" type="float">
    <attribute name="valid" type="float" value="0. 1.5" />
    <attribute name="note" value="a&#xA;b" />
  </variable>
</netcdf>
"#;
    assert_eq!(ncml(&src, &PrintOptions::default()), want);
}

#[test]
fn attributeless_variables_close_by_options() {
    let src = compiled(SMALL, "cdf5");
    let line = |opts: &PrintOptions| {
        ncml(&src, opts)
            .lines()
            .find(|l| l.contains("name=\"s\""))
            .map(str::to_string)
    };
    let closed = Some("  <variable name=\"s\" type=\"short\" />".to_string());
    let header = PrintOptions {
        header_only: true,
        ..PrintOptions::default()
    };
    assert_eq!(line(&header), closed);
    let coords = PrintOptions {
        coords_only: true,
        ..PrintOptions::default()
    };
    assert_eq!(line(&coords), closed);
    let other = PrintOptions {
        vars: vec!["x".into()],
        ..PrintOptions::default()
    };
    assert_eq!(line(&other), closed);
    let named = PrintOptions {
        vars: vec!["s".into()],
        ..PrintOptions::default()
    };
    assert_eq!(
        line(&named),
        Some("  <variable name=\"s\" type=\"short\">".into())
    );
}

#[test]
fn digits_follow_p() {
    let src = compiled("netcdf d { :f = 3.14159274f ; :d = 0.1 ; }", "classic");
    let opts = PrintOptions {
        float_digits: Some(3),
        double_digits: Some(20),
        ..PrintOptions::default()
    };
    let out = ncml(&src, &opts);
    assert!(out.contains("type=\"float\" value=\"3.14\""), "{out}");
    assert!(
        out.contains("type=\"double\" value=\"0.10000000000000000555\""),
        "{out}"
    );
}

#[test]
fn nul_in_text_is_a_note() {
    let src = compiled("netcdf n { :a = \"x\\000y\" ; }", "64-bit offset");
    let mut out = Vec::new();
    let notes = print_ncml(&mut out, &src, &PrintOptions::default(), "n.nc").expect("printed");
    assert_eq!(
        notes,
        ["Attribute: 'a'; value contains nul characters; producing illegal xml"]
    );
}

#[test]
fn netcdf4_kind_refused() {
    let src = compiled("netcdf x { variables: int v ; }", "netCDF-4");
    let err =
        print_ncml(&mut Vec::new(), &src, &PrintOptions::default(), "x.nc").expect_err("refused");
    assert_eq!(err.to_string(), NCML_REFUSED);
}

#[test]
fn enhanced_model_under_a_classic_kind_refused() {
    let src = compiled("netcdf x { variables: string s ; }", "classic");
    let err =
        print_ncml(&mut Vec::new(), &src, &PrintOptions::default(), "x.nc").expect_err("refused");
    assert!(matches!(err, Error::Unsupported(_)), "{err}");
}
