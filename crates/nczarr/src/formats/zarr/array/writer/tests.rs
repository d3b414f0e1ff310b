//! Tests of [`super::ArrayWriter`] (its helpers `stored` and `values` serve the
//! reader's tests too).

use super::watch::contains_element;
use super::*;
use crate::chunking::{slabs, SlabOrder};
use crate::formats::zarr::array::{ArrayReader, ChunkKeys};
use crate::formats::zarr::v2::Dtype;
use crate::model::NcType;
use crate::store::{ListableStore, MemoryStore, ReadableStore};

pub(in crate::formats::zarr::array) fn stored(
    shape: &[u64],
    chunks: &[u64],
    compressor: Option<&str>,
) -> StoredArray {
    StoredArray {
        dtype: Dtype::parse("<i4").unwrap(),
        shape: shape.to_vec(),
        chunks: chunks.to_vec(),
        fill: Some(Values::Int(vec![-1])),
        filters: vec![],
        compressor: compressor.map(|c| crate::json::parse_str(c).unwrap()),
        transpose: None,
        keys: ChunkKeys::V2('.'),
        sharding: None,
        fill_implied: false,
    }
}

pub(in crate::formats::zarr::array) fn values(region: &Region, shape: &[u64]) -> Values {
    // Each element holds its flat index in the whole array.
    let mut out = Vec::new();
    let n = region.len().unwrap();
    let mut idx = region.start.clone();
    for _ in 0..n {
        let flat = idx.iter().zip(shape).fold(0u64, |a, (i, s)| a * s + i);
        out.push(flat as i32);
        for d in (0..idx.len()).rev() {
            idx[d] += 1;
            if idx[d] < region.start[d] + region.count[d] {
                break;
            }
            idx[d] = region.start[d];
        }
    }
    Values::Int(out)
}

#[test]
fn slabs_of_whole_chunks_write_every_chunk_once_and_read_back() {
    let var = VarPath::new(&[], "v");
    for (shape, chunks, budget) in [
        (vec![1u64, 7, 5], vec![1u64, 2, 5], 10u64),
        (vec![5, 6], vec![2, 4], 1),
        (vec![5, 6], vec![2, 4], 1000),
        (vec![9], vec![4], 5),
    ] {
        let store = MemoryStore::new();
        let key = StoreKey::new("v").unwrap();
        let st = stored(&shape, &chunks, Some(r#"{"id": "zlib", "level": 1}"#));
        let w = ArrayWriter::new(key.clone(), &var, st.clone()).unwrap();
        let parts = slabs(&shape, &chunks, budget, SlabOrder::Chunks);
        for r in &parts {
            let chunk_elems: u64 = chunks.iter().product();
            assert!(
                r.len().unwrap() <= budget.max(chunk_elems),
                "{r} over budget"
            );
            w.write(&store, r, &values(r, &shape)).unwrap();
        }
        let grid = w.grid();
        let nchunks: u64 = shape
            .iter()
            .zip(&chunks)
            .map(|(s, c)| s.div_ceil(*c))
            .product();
        assert_eq!(store.list().unwrap().len() as u64, nchunks);
        let _ = grid;
        let reader = ArrayReader::new(&store, key, &var, NcType::Int, &st, shape.clone()).unwrap();
        let whole = Region::whole(&shape);
        assert_eq!(reader.read(&whole).unwrap(), values(&whole, &shape));
    }
}

/// A memory store that counts the partial reads asked of it.
#[derive(Debug, Default)]
struct CountingRanges {
    inner: MemoryStore,
    ranges: std::sync::atomic::AtomicUsize,
}

impl crate::store::ReadableStore for CountingRanges {
    fn get(&self, key: &StoreKey) -> crate::store::GetResult {
        self.inner.get(key)
    }
    fn get_range(
        &self,
        key: &StoreKey,
        range: &crate::store::ByteRange,
    ) -> crate::store::GetResult {
        self.ranges
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        self.inner.get_range(key, range)
    }
    fn location(&self) -> String {
        "counting".into()
    }
}

#[test]
fn uncompressed_chunks_are_read_in_part_where_a_region_needs_little_of_them() {
    let var = VarPath::new(&[], "v");
    let shape = [6u64, 8, 10];
    let st = stored(&shape, &[1, 8, 10], None);
    let store = CountingRanges::default();
    let key = StoreKey::new("v").unwrap();
    let w = ArrayWriter::new(key.clone(), &var, st.clone()).unwrap();
    let whole = Region::whole(&shape);
    w.write(&store.inner, &whole, &values(&whole, &shape))
        .unwrap();
    let reader = ArrayReader::new(&store, key, &var, NcType::Int, &st, shape.to_vec()).unwrap();
    let region = |start: [u64; 3], count: [u64; 3]| Region {
        start: start.to_vec(),
        count: count.to_vec(),
        stride: vec![1; 3],
    };
    // (region, whether it is read in part)
    for (r, partial) in [
        (region([0, 2, 0], [6, 2, 10]), true),
        (region([1, 7, 9], [4, 1, 1]), true),
        (region([2, 3, 4], [2, 3, 5]), true),
        (region([0, 0, 0], [3, 8, 10]), false),
        (region([0, 0, 0], [6, 5, 10]), false),
        (region([0, 0, 0], [6, 6, 10]), false),
    ] {
        let before = store.ranges.load(std::sync::atomic::Ordering::Relaxed);
        assert_eq!(reader.read(&r).unwrap(), values(&r, &shape), "{r}");
        let after = store.ranges.load(std::sync::atomic::Ordering::Relaxed);
        assert_eq!(after > before, partial, "{r}");
    }
    // A missing chunk read in part is fill; a truncated one is an error.
    store.inner.remove(&StoreKey::new("v/4.0.0").unwrap());
    let r = region([4, 0, 0], [1, 2, 10]);
    assert_eq!(reader.read(&r).unwrap(), Values::Int(vec![-1; 20]));
    store
        .inner
        .insert(StoreKey::new("v/2.0.0").unwrap(), vec![0u8; 40]);
    let e = reader.read(&region([2, 0, 0], [1, 2, 10])).unwrap_err();
    assert!(e.to_string().contains("v/2.0.0"), "{e}");
}

#[test]
fn a_watching_writer_counts_chunks_and_sees_the_fill_only_inside_the_array() {
    let var = VarPath::new(&[], "v");
    let key = StoreKey::new("v").unwrap();
    // 5 values in chunks of 2: the last chunk is padded with the fill (-1).
    let st = stored(&[3, 5], &[2, 2], Some(r#"{"id": "zlib", "level": 1}"#));
    let store = MemoryStore::new();
    let w = ArrayWriter::new(key.clone(), &var, st.clone())
        .unwrap()
        .watching_fill(true);
    let whole = Region::whole(&[3, 5]);
    w.write(&store, &whole, &values(&whole, &[3, 5])).unwrap();
    let written = w.written().unwrap();
    assert_eq!(
        (written.chunks, written.of, written.fill_seen),
        (6, 6, false)
    );
    // A value equal to the fill is seen.
    let w = ArrayWriter::new(key.clone(), &var, st.clone())
        .unwrap()
        .watching_fill(true);
    let mut v = values(&whole, &[3, 5]);
    if let Values::Int(x) = &mut v {
        x[7] = -1;
    }
    w.write(&store, &whole, &v).unwrap();
    assert!(w.written().unwrap().fill_seen);
    // Chunks put as they are: decoded to be looked at, padding not counted.
    let from = ArrayWriter::new(key.clone(), &var, st.clone()).unwrap();
    let encoded: Vec<(Vec<u64>, Vec<u8>)> = store
        .list()
        .unwrap()
        .into_iter()
        .map(|(k, _)| {
            let index: Vec<u64> = k
                .as_str()
                .trim_start_matches("v/")
                .split('.')
                .map(|i| i.parse().unwrap())
                .collect();
            (index, store.get(&k).unwrap().unwrap())
        })
        .collect();
    drop(from);
    let again = MemoryStore::new();
    let w = ArrayWriter::new(key.clone(), &var, st.clone())
        .unwrap()
        .watching_fill(true);
    let first: Vec<_> = encoded.iter().filter(|(i, _)| i[0] == 0).cloned().collect();
    w.write_encoded(&again, first, None).unwrap();
    let written = w.written().unwrap();
    assert_eq!((written.chunks, written.fill_seen), (3, true));
    let w = ArrayWriter::new(key, &var, st).unwrap().watching_fill(true);
    let clean: Vec<_> = encoded.into_iter().filter(|(i, _)| i[0] == 1).collect();
    w.write_encoded(&again, clean, None).unwrap();
    let written = w.written().unwrap();
    assert_eq!((written.chunks, written.fill_seen), (3, false));
}

#[test]
fn elements_are_found_at_every_width_and_place() {
    for width in [1usize, 2, 3, 4, 8] {
        let item: Vec<u8> = (0..width as u8).map(|b| b + 0x40).collect();
        for len in [0usize, 1, 63, 64, 65, 200] {
            let mut elements = vec![0u8; len * width];
            assert!(!contains_element(&elements, &item), "{width} {len}");
            for at in [0, len / 2, len.saturating_sub(1)] {
                if len == 0 {
                    continue;
                }
                elements.fill(0);
                elements[at * width..(at + 1) * width].copy_from_slice(&item);
                assert!(contains_element(&elements, &item), "{width} {len} {at}");
            }
            // The item's bytes across two elements are not the item.
            if width > 1 && len >= 2 {
                elements.fill(0);
                elements[width / 2..width / 2 + width].copy_from_slice(&item);
                assert!(
                    !contains_element(&elements, &item),
                    "{width} {len} straddling"
                );
            }
        }
    }
}

#[test]
fn chunks_of_only_fill_are_left_out_when_asked() {
    let var = VarPath::new(&[], "v");
    let st = stored(&[4, 4], &[2, 2], None);
    let whole = Region::whole(&[4, 4]);
    let key = || StoreKey::new("v").unwrap();
    let mut v = vec![-1i32; 16];
    v[0] = 7;
    for (skip, expect) in [(false, 4), (true, 1)] {
        let store = MemoryStore::new();
        let w = ArrayWriter::new(key(), &var, st.clone())
            .unwrap()
            .skipping_fill_chunks(skip);
        w.write(&store, &whole, &Values::Int(v.clone())).unwrap();
        assert_eq!(store.list().unwrap().len(), expect);
        let reader = ArrayReader::new(&store, key(), &var, NcType::Int, &st, vec![4, 4]).unwrap();
        assert_eq!(reader.read(&whole).unwrap(), Values::Int(v.clone()));
    }
    // Without a fill value every chunk is kept.
    let mut nofill = st.clone();
    nofill.fill = None;
    let store = MemoryStore::new();
    let w = ArrayWriter::new(key(), &var, nofill)
        .unwrap()
        .skipping_fill_chunks(true);
    w.write(&store, &whole, &Values::Int(vec![0; 16])).unwrap();
    assert_eq!(store.list().unwrap().len(), 4);
}

#[test]
fn regions_that_cut_chunks_are_refused() {
    let var = VarPath::new(&["g".into()], "v");
    let w = ArrayWriter::new(
        StoreKey::new("g/v").unwrap(),
        &var,
        stored(&[4, 4], &[2, 2], None),
    )
    .unwrap();
    let store = MemoryStore::new();
    let r = Region::block(vec![1, 0], vec![2, 4]);
    let e = w.write(&store, &r, &values(&r, &[4, 4])).unwrap_err();
    assert_eq!(
        e.to_string(),
        "variable '/g/v': region [1:3, 0:4] does not consist of whole chunks [2, 2]"
    );
    let r = Region::block(vec![0, 0], vec![2, 2]);
    let e = w.write(&store, &r, &Values::Int(vec![1])).unwrap_err();
    assert!(e.to_string().contains("1 values given"), "{e}");
}

#[test]
fn shards_are_cut_from_slabs_that_hold_them_whole_or_in_part_and_read_back() {
    // Shards of 2x4x6 of inner chunks 1x2x3 over 5x7x12: the last shard along the
    // first two dimensions is cut by the array's end (assembled with fill); slabs of
    // many shards put the others at offsets inside the slab (cut from the slab itself).
    let var = VarPath::new(&[], "v");
    let shape = vec![5u64, 7, 12];
    for budget in [48u64, 200, 10_000] {
        let store = MemoryStore::new();
        let key = StoreKey::new("v").unwrap();
        let mut st = stored(&shape, &[1, 2, 3], Some(r#"{"id": "zlib", "level": 1}"#));
        st.sharding = Some(crate::formats::zarr::array::stored::Sharding {
            shape: vec![2, 4, 6],
            index_checksum: true,
            index_at_start: false,
        });
        let w = ArrayWriter::new(key.clone(), &var, st.clone()).unwrap();
        for r in &slabs(&shape, &[2, 4, 6], budget, SlabOrder::Chunks) {
            w.write(&store, r, &values(r, &shape)).unwrap();
        }
        // One object per shard.
        assert_eq!(store.list().unwrap().len(), 3 * 2 * 2, "budget {budget}");
        let reader = ArrayReader::new(&store, key, &var, NcType::Int, &st, shape.clone()).unwrap();
        let whole = Region::whole(&shape);
        assert_eq!(
            reader.read(&whole).unwrap(),
            values(&whole, &shape),
            "budget {budget}"
        );
    }
}
