//! Arrays written by zarr-python 3 (`data/zarr_python/make_zarr_python_fixture.py`) read
//! back with the values zarr-python itself reads: every dtype, ragged edge chunks,
//! missing chunks, big-endian data, Fortran order and nested chunk keys.

use std::path::Path;

use nczarr::chunking::Region;
use nczarr::formats::zarr::{ReadOptions, ZarrSource};
use nczarr::json::{parse_str, Json};
use nczarr::model::{Values, VarPath};
use nczarr::store::DirStore;
use nczarr::{DataSource, DatasetSource};

fn expected_number(j: &Json) -> f64 {
    match j {
        Json::String(s) if s == "NaN" => f64::NAN,
        Json::Bool(b) => f64::from(u8::from(*b)),
        other => other.as_number().and_then(|n| n.as_f64()).expect("number"),
    }
}

#[test]
fn zarr_python_arrays_read_as_zarr_python_reads_them() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/zarr_python");
    let expected =
        parse_str(&std::fs::read_to_string(dir.join("expected_values.json")).unwrap()).unwrap();
    let store = DirStore::open(&dir.join("arrays.zarr")).unwrap();
    let source = ZarrSource::open(Box::new(store), &ReadOptions::default()).unwrap();
    assert!(source.problems().is_empty(), "{:?}", source.problems());
    let mut checked = 0;
    for (name, exp) in expected.as_object().unwrap() {
        let var = source
            .dataset()
            .root
            .var(name)
            .unwrap_or_else(|| panic!("no variable {name}"));
        let shape = source.dataset().var_shape(var);
        let want_shape: Vec<u64> = exp
            .get("shape")
            .unwrap()
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_number().unwrap().as_u64().unwrap())
            .collect();
        assert_eq!(shape, want_shape, "{name}");
        let values = source
            .read(&VarPath::new(&[], name), &Region::whole(&shape))
            .unwrap();
        let want = exp.get("values").unwrap().as_array().unwrap();
        assert_eq!(values.len(), want.len(), "{name}");
        let latin1 = exp.get("dtype").unwrap().as_str().unwrap().contains('S');
        for (i, w) in want.iter().enumerate() {
            match &values {
                Values::String(items) => {
                    let text = w.as_str().unwrap();
                    let bytes: Vec<u8> = if latin1 {
                        text.chars().map(|c| c as u8).collect()
                    } else {
                        text.as_bytes().to_vec()
                    };
                    assert_eq!(items.value(i), Some(&bytes[..]), "{name}[{i}]");
                }
                Values::Char(b) => {
                    let text = w.as_str().unwrap();
                    assert_eq!(
                        b[i],
                        text.chars().next().map_or(0, |c| c as u8),
                        "{name}[{i}]"
                    );
                }
                v => {
                    let got = v.get_f64(i);
                    let w = expected_number(w);
                    assert!(
                        got == w || (got.is_nan() && w.is_nan()),
                        "{name}[{i}]: {got} != {w}"
                    );
                }
            }
        }
        checked += 1;
    }
    assert_eq!(checked, expected.as_object().unwrap().len());
}
