//! The behaviour every store backend must show, run by each backend's tests: reading
//! ([`check_read_store`]) on dir, zip (stored and deflated), memory and S3; writing
//! ([`check_put_and_overwrite`], [`check_staged_writes`]) on every writable backend.

use super::{ByteRange, GotInto, ReadStore, StoreError, StoreKey, WritableStore};

/// Keys and values every backend is loaded with before [`check_read_store`].
pub(crate) const FIXTURE: &[(&str, &[u8])] = &[
    (".zgroup", b"{\"zarr_format\": 2}"),
    (".zattrs", b"{}"),
    ("data1/0", b"\x01\x02"),
    ("data1/.zarray", b"{}"),
    ("g/sub/v/0.0", b""),
    ("g/sub/v/1.0", b"xyz"),
    ("g/.zgroup", b"{\"zarr_format\": 2}"),
    ("odd name#1/x[2]", b"ok"),
];

fn k(s: &str) -> StoreKey {
    StoreKey::new(s).unwrap()
}

/// Every key with its size, as text.
fn listed(store: &dyn ReadStore) -> Vec<(String, u64)> {
    store
        .list()
        .unwrap()
        .into_iter()
        .map(|(k, n)| (k.as_str().to_string(), n))
        .collect()
}

/// Check get, get_many, list and search on a store loaded with [`FIXTURE`].
pub(crate) fn check_read_store(store: &dyn ReadStore) {
    // get: present, empty, missing, and a prefix (not content) is missing too.
    assert_eq!(
        store.get(&k("data1/0")).unwrap().as_deref(),
        Some(&b"\x01\x02"[..])
    );
    assert_eq!(
        store.get(&k("g/sub/v/0.0")).unwrap().as_deref(),
        Some(&b""[..])
    );
    assert_eq!(store.get(&k("nope")).unwrap(), None);
    assert_eq!(store.get(&k("g/sub")).unwrap(), None);
    assert_eq!(
        store.get(&k("odd name#1/x[2]")).unwrap().as_deref(),
        Some(&b"ok"[..])
    );

    // get_into: a value of the buffer's length fills it; another length is returned
    // whole, the buffer untouched; a missing key (or a prefix) is missing.
    let mut buf = [0u8; 3];
    assert_eq!(
        store.get_into(&k("g/sub/v/1.0"), &mut buf).unwrap(),
        GotInto::Filled
    );
    assert_eq!(&buf, b"xyz");
    let mut buf = [9u8; 2];
    assert_eq!(
        store.get_into(&k("g/sub/v/1.0"), &mut buf).unwrap(),
        GotInto::Other(b"xyz".to_vec())
    );
    assert_eq!(buf, [9, 9]);
    assert_eq!(
        store.get_into(&k("nope"), &mut buf).unwrap(),
        GotInto::Missing
    );
    assert_eq!(
        store.get_into(&k("g/sub"), &mut buf).unwrap(),
        GotInto::Missing
    );
    assert_eq!(
        store.get_into(&k("g/sub/v/0.0"), &mut []).unwrap(),
        GotInto::Filled
    );

    let many = store.get_many(&[k("g/sub/v/1.0"), k("missing/0"), k(".zattrs")]);
    assert_eq!(many.len(), 3);
    assert_eq!(many[0].as_ref().unwrap().as_deref(), Some(&b"xyz"[..]));
    assert_eq!(many[1].as_ref().unwrap().as_deref(), None);
    assert_eq!(many[2].as_ref().unwrap().as_deref(), Some(&b"{}"[..]));

    let mut expect: Vec<(String, u64)> = FIXTURE
        .iter()
        .map(|(k, v)| ((*k).to_string(), v.len() as u64))
        .collect();
    expect.sort();
    assert_eq!(listed(store), expect);

    assert_eq!(
        store.search(&StoreKey::root()).unwrap(),
        [".zattrs", ".zgroup", "data1", "g", "odd name#1"]
    );
    assert_eq!(store.search(&k("g")).unwrap(), [".zgroup", "sub"]);
    assert_eq!(store.search(&k("g/sub/v")).unwrap(), ["0.0", "1.0"]);
    assert!(store.search(&k("data1/0")).unwrap().is_empty());
    assert!(store.search(&k("nothing/here")).unwrap().is_empty());

    // Byte ranges, by HTTP's rules.
    let range = |key: &str, r: ByteRange| store.get_range(&k(key), &r);
    let got = |key: &str, r: ByteRange| range(key, r).unwrap().unwrap();
    assert_eq!(got("g/sub/v/1.0", ByteRange::Bounded(1..3)), b"yz");
    assert_eq!(got("g/sub/v/1.0", ByteRange::Bounded(1..100)), b"yz");
    assert_eq!(got("g/sub/v/1.0", ByteRange::From(2)), b"z");
    assert_eq!(got("g/sub/v/1.0", ByteRange::Suffix(2)), b"yz");
    assert_eq!(got("g/sub/v/1.0", ByteRange::Suffix(10)), b"xyz");
    assert_eq!(got("data1/0", ByteRange::Bounded(0..1)), b"\x01");
    assert_eq!(range("nope", ByteRange::Bounded(0..1)).unwrap(), None);
    assert!(range("g/sub/v/1.0", ByteRange::Bounded(3..5)).is_err());
    assert!(range("g/sub/v/1.0", ByteRange::From(3)).is_err());
}

/// Put, overwrite and read back on a store that can be read while it is written.
pub(crate) fn check_put_and_overwrite<S: WritableStore + ReadStore>(store: &S) {
    store.put(&k("a/b"), b"1").unwrap();
    store.put(&k("a/b"), b"22").unwrap();
    assert_eq!(store.get(&k("a/b")).unwrap().as_deref(), Some(&b"22"[..]));
    store
        .put_many(&[(k("c"), b"3".to_vec()), (k("a/d"), Vec::new())])
        .unwrap();
    assert_eq!(
        listed(store),
        [("a/b".into(), 2), ("a/d".into(), 0), ("c".into(), 1)]
    );
    store.delete(&k("a/b")).unwrap();
    store.delete(&k("never/written")).unwrap();
    assert_eq!(store.get(&k("a/b")).unwrap(), None);
    assert_eq!(listed(store).len(), 2);
    store.finish().unwrap();
}

/// A dataset being written, as [`check_staged_writes`] sees it: its store, and the commit
/// that puts it in place. [`super::Target`] is one; the suite names the trait, not the
/// type, so that it depends on no backend it tests.
pub(crate) trait StagedWrite {
    /// The store to write into.
    fn store(&self) -> &dyn WritableStore;
    /// Put the finished dataset in place.
    fn commit(self) -> Result<(), StoreError>;
}

/// A backend that writes a dataset as a [`StagedWrite`] (a [`super::Target`]) at a
/// destination.
pub(crate) struct WriteCase<'a, T> {
    /// Start writing a new dataset at the destination.
    pub(crate) create: &'a dyn Fn() -> Result<T, StoreError>,
    /// What is at the destination now, or `None` when nothing is.
    pub(crate) read_back: &'a dyn Fn() -> Option<Box<dyn ReadStore>>,
    /// Whether what is written is visible before the commit (S3 has no staging).
    pub(crate) staged: bool,
    /// Whether a key written twice takes the second value (else: refused clearly).
    pub(crate) overwrite_replaces: bool,
    /// Whether a dataset already at the destination is replaced by a commit (else:
    /// creating over it is refused).
    pub(crate) replaces_existing: bool,
}

/// What [`check_staged_writes`] writes: a dataset by the rule of
/// [`super::existing`] (so that a later write may replace it), with [`EXTRA`].
const DATASET: &[(&str, &[u8])] = &[
    (".zgroup", b"{\"zarr_format\": 2}"),
    (".zattrs", b"{}"),
    ("data1/0", b"\x01\x02"),
    ("data1/.zarray", b"{}"),
    ("g/sub/v/0.0", b""),
    ("g/sub/v/1.0", b"xyz"),
    ("g/sub/v/.zarray", b"{}"),
    ("g/.zgroup", b"{\"zarr_format\": 2}"),
];

/// The key [`check_staged_writes`] writes twice.
const EXTRA: &str = "data1/1";

fn write_fixture(store: &dyn WritableStore, extra: &[u8]) {
    let items: Vec<(StoreKey, Vec<u8>)> = DATASET
        .iter()
        .map(|(key, v)| (k(key), v.to_vec()))
        .collect();
    store.put_many(&items).unwrap();
    store.put(&k(EXTRA), extra).unwrap();
}

fn check_holds_fixture(store: &dyn ReadStore, extra: &[u8]) {
    for (key, v) in DATASET {
        assert_eq!(store.get(&k(key)).unwrap().as_deref(), Some(*v), "{key}");
    }
    assert_eq!(store.get(&k(EXTRA)).unwrap().as_deref(), Some(extra));
    assert_eq!(store.list().unwrap().len(), DATASET.len() + 1);
}

/// Staged writing: nothing at the destination before the commit (where the backend
/// stages), everything after it; an abandoned write leaves nothing; a key written
/// twice is replaced or refused with an error naming it; an existing dataset is kept
/// until a new one is committed (or never written over).
pub(crate) fn check_staged_writes<T: StagedWrite>(case: &WriteCase<'_, T>) {
    // Abandoned: nothing left at the destination.
    {
        let t = (case.create)().unwrap();
        write_fixture(t.store(), b"1");
        if case.staged {
            assert!((case.read_back)().is_none(), "visible before the commit");
        }
    }
    assert!(
        (case.read_back)().is_none(),
        "an abandoned write left keys behind"
    );

    // Committed, with one key written twice.
    let t = (case.create)().unwrap();
    write_fixture(t.store(), b"1");
    let again = t.store().put(&k(EXTRA), b"2");
    let extra: &[u8] = if case.overwrite_replaces {
        again.unwrap();
        b"2"
    } else {
        let e = again.unwrap_err().to_string();
        assert!(e.contains(EXTRA), "{e}");
        b"1"
    };
    t.commit().unwrap();
    let back = (case.read_back)().expect("committed dataset");
    check_holds_fixture(back.as_ref(), extra);

    // Over an existing dataset.
    if case.replaces_existing {
        {
            let t = (case.create)().unwrap();
            t.store().put(&k(".zgroup"), b"{}").unwrap();
        }
        let back = (case.read_back)().expect("old dataset");
        check_holds_fixture(back.as_ref(), extra);
        let t = (case.create)().unwrap();
        t.store().put(&k(".zgroup"), b"{}").unwrap();
        t.commit().unwrap();
        let back = (case.read_back)().expect("new dataset");
        assert_eq!(back.list().unwrap().len(), 1);
    } else {
        assert!((case.create)().is_err(), "created over an existing dataset");
        let back = (case.read_back)().expect("old dataset");
        check_holds_fixture(back.as_ref(), extra);
    }
}
