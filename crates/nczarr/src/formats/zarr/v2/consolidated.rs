//! Consolidated metadata: `.zmetadata`, one object holding every metadata document.
//!
//! ```json
//! {"metadata": {".zgroup": {...}, "v/.zarray": {...}}, "zarr_consolidated_format": 1}
//! ```

use std::collections::HashMap;

use crate::json::Json;

/// The documents held in a `.zmetadata`, by key.
#[derive(Debug, Clone, Default)]
pub struct Consolidated {
    docs: HashMap<String, Json>,
}

impl Consolidated {
    /// Read a `.zmetadata` document; `None` when it is not a usable consolidated
    /// document (wrong format number, no `metadata` object). A `.zmetadata` that
    /// cannot be used is ignored, like netcdf-c and zarr-python do.
    pub fn from_json(json: &Json) -> Option<Consolidated> {
        if json
            .get("zarr_consolidated_format")
            .and_then(Json::as_i64_lenient)
            != Some(1)
        {
            return None;
        }
        let members = json.get("metadata")?.as_object()?;
        let docs = members
            .iter()
            .map(|(k, v)| (k.trim_start_matches('/').to_string(), v.clone()))
            .collect();
        Some(Consolidated { docs })
    }

    /// The document stored for `key` (e.g. `g/v/.zarray`).
    pub fn get(&self, key: &str) -> Option<&Json> {
        self.docs.get(key)
    }

    /// All keys held.
    pub fn keys(&self) -> impl Iterator<Item = &str> {
        self.docs.keys().map(String::as_str)
    }
}
