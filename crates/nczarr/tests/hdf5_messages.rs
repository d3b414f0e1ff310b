//! The fixes of our patched `hdf5-reader` (vendor/README.md), message by message:
//! bytes as the HDF5 library writes them, parsed as the file format specifies.

use hdf5_reader::io::Cursor;
use hdf5_reader::messages::layout;
use hdf5_reader::messages::layout::DataLayout;

/// A data layout message of version 1 or 2 (`H5O__layout_encode` before 1.8):
/// version, dimensionality, class, five reserved bytes, the address unless compact,
/// then the dimension sizes.
fn old_layout(version: u8, class: u8, address: Option<u64>, dims: &[u32]) -> Vec<u8> {
    let mut m = vec![version, dims.len() as u8, class, 0, 0, 0, 0, 0];
    if let Some(a) = address {
        m.extend_from_slice(&a.to_le_bytes());
    }
    for d in dims {
        m.extend_from_slice(&d.to_le_bytes());
    }
    m
}

#[test]
fn an_old_contiguous_layout_has_its_size_from_its_dimensions() {
    for version in [1, 2] {
        // int dset1(3, 3): the last size is the element's.
        let m = old_layout(version, 1, Some(7672), &[3, 3, 4]);
        let parsed = layout::parse(&mut Cursor::new(&m), 8, 8, m.len()).unwrap();
        assert_eq!(
            parsed.layout,
            DataLayout::Contiguous {
                address: 7672,
                size: 36
            },
            "version {version}"
        );
    }
}

#[test]
fn an_old_compact_layout_has_no_address() {
    let mut m = old_layout(2, 0, None, &[2, 4]);
    m.extend_from_slice(&8u32.to_le_bytes());
    m.extend_from_slice(&[1, 0, 0, 0, 2, 0, 0, 0]);
    let parsed = layout::parse(&mut Cursor::new(&m), 8, 8, m.len()).unwrap();
    assert_eq!(
        parsed.layout,
        DataLayout::Compact {
            data: vec![1, 0, 0, 0, 2, 0, 0, 0]
        }
    );
}
