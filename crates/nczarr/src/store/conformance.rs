//! The behaviour every store backend must show, run by each backend's tests.

use super::{ReadStore, StoreKey};

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

    let many = store.get_many(&[k("g/sub/v/1.0"), k("missing/0"), k(".zattrs")]);
    assert_eq!(many.len(), 3);
    assert_eq!(many[0].as_ref().unwrap().as_deref(), Some(&b"xyz"[..]));
    assert_eq!(many[1].as_ref().unwrap().as_deref(), None);
    assert_eq!(many[2].as_ref().unwrap().as_deref(), Some(&b"{}"[..]));

    let listed: Vec<(String, u64)> = store
        .list()
        .unwrap()
        .into_iter()
        .map(|(k, n)| (k.as_str().to_string(), n))
        .collect();
    let mut expect: Vec<(String, u64)> = FIXTURE
        .iter()
        .map(|(k, v)| ((*k).to_string(), v.len() as u64))
        .collect();
    expect.sort();
    assert_eq!(listed, expect);

    assert_eq!(
        store.search(&StoreKey::root()).unwrap(),
        [".zattrs", ".zgroup", "data1", "g", "odd name#1"]
    );
    assert_eq!(store.search(&k("g")).unwrap(), [".zgroup", "sub"]);
    assert_eq!(store.search(&k("g/sub/v")).unwrap(), ["0.0", "1.0"]);
    assert!(store.search(&k("data1/0")).unwrap().is_empty());
    assert!(store.search(&k("nothing/here")).unwrap().is_empty());
}
