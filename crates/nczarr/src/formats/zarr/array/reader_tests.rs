//! Tests of [`super::ArrayReader`]: reads into reused memory and straight into place.
//! They write what they read with [`super::ArrayWriter`], so they sit beside the reader
//! rather than inside it: the reader depends on the writer in no way.

use super::writer::tests::{stored, values};
use super::{ArrayReader, ArrayWriter};
use crate::chunking::Region;
use crate::formats::zarr::v2::Dtype;
use crate::model::{NcType, Values, VarPath};
use crate::store::{MemoryStore, StoreKey};

/// Reads into the memory of earlier values (longer, shorter, another type, full
/// of other numbers) give what fresh reads give: missing chunks and positions past
/// the stored shape are written as fill, zero fill too.
#[test]
fn reads_into_spare_values_give_what_fresh_reads_give() {
    let var = VarPath::new(&[], "v");
    let shape = [4u64, 4];
    for fill in [
        Some(Values::Int(vec![-1])),
        Some(Values::Int(vec![0])),
        None,
    ] {
        let mut st = stored(&shape, &[2, 2], None);
        st.fill = fill;
        let store = MemoryStore::new();
        let key = StoreKey::new("v").unwrap();
        let whole = Region::whole(&shape);
        let w = ArrayWriter::new(key.clone(), &var, st.clone()).unwrap();
        w.write(&store, &whole, &values(&whole, &shape)).unwrap();
        store.remove(&StoreKey::new("v/1.0").unwrap());
        // The variable is longer than what is stored: its last rows are fill.
        let reader = ArrayReader::new(&store, key, &var, NcType::Int, &st, vec![6, 4]).unwrap();
        for region in [
            Region::whole(&[6, 4]),
            Region::block(vec![1, 1], vec![5, 2]),
        ] {
            let fresh = reader.read(&region).unwrap();
            for spare in [
                Values::Int(vec![12345; 100]),
                Values::Int(vec![777; 3]),
                Values::Float(vec![1.5; 24]),
            ] {
                let reused = reader.read_reusing(&region, Some(spare)).unwrap();
                assert_eq!(reused, fresh, "{region}");
            }
        }
    }
}

/// Whole rows of a big-endian array read straight into place give the values, the
/// fill for a missing row and past the stored rows, into fresh or reused memory; a
/// stored row of the wrong length is an error naming its key.
#[test]
fn whole_chunks_read_in_place_give_the_values() {
    let var = VarPath::new(&[], "v");
    let shape = [4u64, 4];
    let mut st = stored(&shape, &[1, 4], None);
    st.dtype = Dtype::parse(">i4").unwrap();
    let store = MemoryStore::new();
    let key = StoreKey::new("v").unwrap();
    let whole = Region::whole(&shape);
    let w = ArrayWriter::new(key.clone(), &var, st.clone()).unwrap();
    w.write(&store, &whole, &values(&whole, &shape)).unwrap();
    store.remove(&StoreKey::new("v/1.0").unwrap());
    let reader = ArrayReader::new(&store, key, &var, NcType::Int, &st, vec![6, 4]).unwrap();
    assert_eq!(reader.in_place_swap(), Some(cfg!(target_endian = "little")));
    let Values::Int(mut want) = values(&whole, &shape) else {
        unreachable!()
    };
    want[4..8].fill(-1);
    want.extend([-1; 8]);
    for spare in [None, Some(Values::Int(vec![7; 30]))] {
        let got = reader.read_reusing(&Region::whole(&[6, 4]), spare).unwrap();
        assert_eq!(got, Values::Int(want.clone()));
    }
    crate::store::WritableStore::put(&store, &StoreKey::new("v/2.0").unwrap(), &[0; 12]).unwrap();
    let e = reader
        .read(&Region::whole(&[4, 4]))
        .unwrap_err()
        .to_string();
    assert!(e.contains("v/2.0") && e.contains("12 bytes"), "{e}");
}
