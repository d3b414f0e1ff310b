//! Where a dataset in a cloud bucket is ([`CloudPlace`]), checked before any request
//! for what the HTTP client would only find at the first one (and object_store would
//! find by panicking).

/// Where a dataset in a cloud bucket is, for keys and messages.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CloudPlace {
    /// The scheme locations are shown with: `s3`, `gs`, `az`.
    pub scheme: &'static str,
    /// The bucket (an Azure container).
    pub bucket: String,
    /// The dataset's root key in the bucket ("" for the bucket root).
    pub root: String,
    /// The service's endpoint, named in errors.
    pub endpoint: String,
}

impl CloudPlace {
    /// `scheme://bucket/root`.
    pub fn location(&self) -> String {
        let root = self.root.trim_matches('/');
        if root.is_empty() {
            format!("{}://{}", self.scheme, self.bucket)
        } else {
            format!("{}://{}/{root}", self.scheme, self.bucket)
        }
    }
}

/// Refuse what the HTTP client would only find at the first request, and some of it
/// by panicking (object_store 0.14 unwraps the parse of an endpoint with a bad IPv6
/// host or port): an endpoint that is not an http(s) URL with a valid host and port, a
/// bucket name with characters no cloud allows, a key past S3's 1024 bytes.
pub(super) fn check_place(place: &CloudPlace) -> Result<(), String> {
    check_endpoint(&place.endpoint)?;
    let bucket_ok = !place.bucket.is_empty()
        && place
            .bucket
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'));
    if !bucket_ok {
        return Err(format!(
            "bucket name '{}' is not one a cloud accepts (letters, digits, '.', '_', '-')",
            place.bucket.escape_default()
        ));
    }
    if place.root.len() > crate::store::MAX_KEY_BYTES {
        return Err(format!(
            "the key is {} bytes long, more than the 1024 bytes object stores allow",
            place.root.len()
        ));
    }
    Ok(())
}

/// An endpoint the HTTP client can use: `http://` or `https://`, a host, a valid port.
///
/// # Errors
/// What is wrong with it, in one line.
pub(crate) fn check_endpoint(endpoint: &str) -> Result<(), String> {
    let parsed = url::Url::parse(endpoint).map_err(|e| format!("endpoint '{endpoint}': {e}"))?;
    if !matches!(parsed.scheme(), "http" | "https") || parsed.host_str().is_none() {
        return Err(format!(
            "endpoint '{endpoint}' is not an http:// or https:// URL with a host"
        ));
    }
    Ok(())
}

#[cfg(test)]
mod place_tests {
    use super::*;

    fn place(endpoint: &str, bucket: &str, root: &str) -> CloudPlace {
        CloudPlace {
            scheme: "s3",
            bucket: bucket.into(),
            root: root.into(),
            endpoint: endpoint.into(),
        }
    }

    /// Found by the hostile-input suite: object_store 0.14 panics on these at the first
    /// request; they are refused before.
    #[test]
    fn bad_endpoints_buckets_and_keys_are_refused_before_any_request() {
        let e = check_place(&place("https://[zz::1]:9000", "b", "k")).unwrap_err();
        assert_eq!(e, "endpoint 'https://[zz::1]:9000': invalid IPv6 address");
        let e = check_place(&place("http://localhost:99999", "b", "k")).unwrap_err();
        assert_eq!(e, "endpoint 'http://localhost:99999': invalid port number");
        let e = check_place(&place("ftp://host", "b", "k")).unwrap_err();
        assert!(e.contains("not an http:// or https:// URL"), "{e}");
        let e = check_place(&place("https://s3.example", "[::1", "k")).unwrap_err();
        assert!(e.starts_with("bucket name '[::1' is not one"), "{e}");
        let e = check_place(&place("https://s3.example", "b", &"k".repeat(1025))).unwrap_err();
        assert!(e.contains("1025 bytes long"), "{e}");
        check_place(&place("http://127.0.0.1:8333", "my-bucket_1.x", "a/b.zarr")).unwrap();
        check_place(&place("https://[::1]:9000", "b", "")).unwrap();
    }
}
