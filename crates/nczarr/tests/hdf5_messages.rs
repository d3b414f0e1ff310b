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

/// HDF5's shuffle of `data` in elements of `size` bytes (`H5Z__filter_shuffle`):
/// byte 0 of every element, then byte 1, ...; a tail shorter than an element stays.
fn shuffled(data: &[u8], size: usize) -> Vec<u8> {
    let n = data.len() / size;
    let mut out: Vec<u8> = (0..size)
        .flat_map(|b| (0..n).map(move |e| data[e * size + b]))
        .collect();
    out.extend_from_slice(&data[n * size..]);
    out
}

#[test]
fn shuffle_unshuffles_by_its_own_parameter_not_the_type() {
    // PyTables' vlen datasets (issue 61): shuffled in 8-byte elements (the parameter)
    // where the stored element is 16 bytes.
    use hdf5_reader::filters::apply_pipeline;
    use hdf5_reader::messages::filter_pipeline::FilterDescription;
    let data: Vec<u8> = (0..40).collect();
    let shuffle = FilterDescription {
        id: 2,
        name: None,
        client_data: vec![8],
    };
    let out = apply_pipeline(
        &shuffled(&data, 8),
        std::slice::from_ref(&shuffle),
        0,
        16,
        None,
    )
    .unwrap();
    assert_eq!(out, data);
    // Without a parameter, the type's size is all there is.
    let bare = FilterDescription {
        client_data: Vec::new(),
        ..shuffle
    };
    let out = apply_pipeline(&shuffled(&data, 16), &[bare], 0, 16, None).unwrap();
    assert_eq!(out, data);
}
