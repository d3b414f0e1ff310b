//! Our JSON reader (every metadata document goes through it): any input parses or
//! fails with an error, and what parses prints back to text that parses the same.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(doc) = nczarr::json::parse(data) else {
        return;
    };
    let text = doc.to_text();
    let again = nczarr::json::parse(text.as_bytes());
    assert!(again.is_ok(), "printed JSON does not parse: {text:?}");
    let _ = doc.to_pretty();
    let _ = doc.to_python_text();
});
