//! A copy in parts, for copies too large for one machine: one run writes the metadata
//! (`--metadata-only`), N runs write disjoint sets of output chunks (`--part K/N`), on as
//! many machines as a scheduler gives, and a last run (`--finish`) checks that every
//! part is done and makes the dataset openable. Until then nothing at the destination
//! opens: the root `.zgroup` and `.zmetadata` (or `zarr.json`) wait under `.nczcopy/`, with the copy's fingerprint (every
//! part must plan the same copy) and one marker per finished part.
//!
//! Which chunks a part writes does not depend on memory or threads: each variable's
//! chunk grid is cut into blocks along its outer dimensions (at least 4 blocks per part
//! where the grid has them), and the blocks of all variables are dealt to the parts in
//! turn.

use std::str::FromStr;

use super::identity;
use crate::chunking::Region;
use crate::encoding::Plan;
use crate::error::{Error, Result};
use crate::formats::zarr::{fills_to_leave_out, parts_opener, OPENERS, PARTS_PREFIX};
use crate::json::Json;
use crate::model::Dataset;
use crate::place::{parts_target, PartsRun};
use crate::store::{ReadStore, StoreKey};
use crate::url::DatasetUrl;

/// Part K of N (K from 1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Part {
    /// Which part, from 1.
    pub index: u64,
    /// How many parts.
    pub count: u64,
}

impl FromStr for Part {
    type Err = Error;

    fn from_str(text: &str) -> Result<Part> {
        let bad = || Error::Invalid(format!("part '{text}' is not K/N with 1 <= K <= N"));
        let (k, n) = text.split_once('/').ok_or_else(bad)?;
        let (index, count): (u64, u64) = (
            k.trim().parse().map_err(|_| bad())?,
            n.trim().parse().map_err(|_| bad())?,
        );
        if index == 0 || index > count {
            return Err(bad());
        }
        Ok(Part { index, count })
    }
}

impl Part {
    /// The object that says this part is done.
    pub fn marker(&self) -> String {
        format!("{PARTS_PREFIX}/part-{}-of-{}", self.index, self.count)
    }

    /// Whether this part writes the block number `n` (counting every variable's blocks).
    pub(crate) fn owns(&self, n: u64) -> bool {
        n % self.count == self.index - 1
    }
}

/// The object holding a copy's fingerprint.
pub fn fingerprint_key() -> String {
    format!("{PARTS_PREFIX}/plan")
}

/// The blocks a copy in `parts` parts deals out for a variable of `shape` chunked as
/// `chunks` (`None`: one piece): index tuples over the fewest outer dimensions that give
/// at least 4 blocks per part, in C order.
pub(crate) fn blocks(shape: &[u64], chunks: Option<&[u64]>, parts: u64) -> Vec<Region> {
    let Some(chunks) = chunks.filter(|c| c.len() == shape.len() && !shape.is_empty()) else {
        return vec![Region::whole(shape)];
    };
    if shape.contains(&0) {
        return Vec::new();
    }
    let grid: Vec<u64> = shape
        .iter()
        .zip(chunks)
        .map(|(s, c)| s.div_ceil((*c).max(1)))
        .collect();
    let want = parts.saturating_mul(4);
    let mut k = 0;
    let mut n = 1u64;
    while k < grid.len() && n < want {
        n = n.saturating_mul(grid[k]);
        k += 1;
    }
    let mut out = Vec::new();
    let mut idx = vec![0u64; k];
    loop {
        let mut start = vec![0u64; shape.len()];
        let mut count = shape.to_vec();
        for d in 0..k {
            start[d] = idx[d] * chunks[d];
            count[d] = chunks[d].min(shape[d] - start[d]);
        }
        out.push(Region::block(start, count));
        let mut d = k;
        loop {
            if d == 0 {
                return out;
            }
            d -= 1;
            idx[d] += 1;
            if idx[d] < grid[d] {
                break;
            }
            idx[d] = 0;
        }
    }
}

/// What every run of one copy in parts must agree on: the input, the output's structure
/// and storage, and the layout options (`options`, the sink's stable text of them),
/// hashed (FNV-1a, 64 bits). Each part is written in stable text of our own (not a
/// `Debug` print, which changes when a type does).
pub fn fingerprint(input: &str, dataset: &Dataset, plan: &Plan, options: &str) -> String {
    let mut text = format!("{input}\n{options}\n");
    identity::dataset(&mut text, &dataset.root, "");
    for (path, _) in dataset.vars() {
        let encoding = plan.get(&path).map_or(Json::Null, identity::encoding);
        text.push_str(&format!("{path}: {}\n", encoding.to_text()));
    }
    let hash = text.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    });
    format!("{hash:016x}")
}

/// Check that the copy in parts at `reader` was started with `fingerprint`.
///
/// # Errors
/// [`Error::Parts`] when it was started for another copy, or not started.
pub fn check_fingerprint(reader: &dyn ReadStore, fingerprint: &str) -> Result<()> {
    match reader.get(&StoreKey::new(&fingerprint_key())?)? {
        Some(f) if f == fingerprint.as_bytes() => Ok(()),
        Some(_) => Err(Error::Parts(
            "this part plans another copy than the one started here (input, selection, chunking, codecs and layout options must be the same in every run)".into(),
        )),
        None => Err(Error::Parts(
            "no copy in parts started here (run --metadata-only first)".into(),
        )),
    }
}

/// Finish the copy in parts at `output`: check that every part is done, and make the
/// dataset openable (for a directory, move it into place, replacing what was there; an
/// Icechunk repository gets one snapshot, whose message and tag `commit` gives).
///
/// # Errors
/// [`Error::Parts`] naming the parts not done, or when no copy in parts was started;
/// store errors.
pub fn finish_parts(output: &str, commit: &crate::place::icechunk::CommitInfo) -> Result<()> {
    let url = DatasetUrl::parse(output)?;
    // An Icechunk repository: the parts' documents and chunk references are committed
    // as one snapshot, `commit` saying its message and tag.
    let (target, reader) = if crate::place::icechunk::write::names_repository(&url)? {
        crate::place::icechunk::parts::parts_target(&url, PartsRun::Resume, false, commit.clone())?
    } else {
        parts_target(&url, PartsRun::Resume, false)?
    };
    let prefix = StoreKey::new(PARTS_PREFIX)?;
    let notes: Vec<String> = reader.search(&prefix)?.into_iter().collect();
    let mut openers = Vec::new();
    for name in OPENERS {
        if let Some(aside) = parts_opener(name) {
            if let Some(doc) = reader.get(&StoreKey::new(&aside)?)? {
                openers.push((*name, doc));
            }
        }
    }
    if !openers.iter().any(|(n, _)| *n != ".zmetadata") {
        return Err(Error::Parts(
            "no copy in parts started here (run --metadata-only first)".into(),
        ));
    }
    let mut count = None;
    let mut done = Vec::new();
    let mut reports = Vec::new();
    for n in &notes {
        let Some(rest) = n.strip_prefix("part-") else {
            continue;
        };
        let Some((k, total)) = rest.split_once("-of-") else {
            continue;
        };
        let (Ok(k), Ok(total)) = (k.parse::<u64>(), total.parse::<u64>()) else {
            continue;
        };
        if count.is_some_and(|c| c != total) {
            return Err(Error::Parts(format!(
                "parts of different counts were run here ({} and {total})",
                count.unwrap_or(0)
            )));
        }
        count = Some(total);
        done.push(k);
        // A part's report of what it stored; an older part's marker is empty.
        if let Some(report) = reader.get(&prefix.join(n)?)? {
            if let Ok(r) = crate::json::parse(&report) {
                reports.push(r);
            }
        }
    }
    let Some(count) = count else {
        return Err(Error::Parts("no part has finished yet".into()));
    };
    let missing: Vec<String> = (1..=count)
        .filter(|k| !done.contains(k))
        .map(|k| format!("{k}/{count}"))
        .collect();
    if !missing.is_empty() {
        return Err(Error::Parts(format!(
            "parts not finished: {}",
            missing.join(", ")
        )));
    }
    if reports.len() == done.len() {
        let (keys, nczarr) = fills_to_leave_out(&reports);
        leave_fills_out(
            reader.as_ref(),
            target.store.as_ref(),
            &keys,
            nczarr,
            &mut openers,
        )?;
    }
    for n in notes {
        target.store.delete(&prefix.join(&n)?)?;
    }
    for (name, doc) in openers {
        target.store.put(&StoreKey::new(name)?, &doc)?;
    }
    target.commit()?;
    Ok(())
}

/// Leave the fill out of the `.zarray` of the arrays at `keys` (each a Zarr v2 array
/// of this copy, as one run writing the whole copy would have: see
/// `nczarr::PartReport`), marking each as having netCDF's default fill in NCZarr, and
/// the same in the consolidated metadata among `openers`.
///
/// # Errors
/// Store errors, and documents this copy wrote that no longer parse.
fn leave_fills_out(
    reader: &dyn ReadStore,
    store: &dyn crate::store::WritableStore,
    keys: &[String],
    nczarr: bool,
    openers: &mut [(&str, Vec<u8>)],
) -> Result<()> {
    use crate::json::Json;
    let edit = |name: &str, doc: &mut Json| {
        if name == ".zarray" {
            doc.set("fill_value", Json::Null);
        } else if let Some(info) = doc.get_mut("_nczarr_array").filter(|_| nczarr) {
            info.set("fill", Json::String("default".into()));
        }
    };
    let mut consolidated = match openers.iter().find(|(n, _)| *n == ".zmetadata") {
        Some((_, bytes)) => Some(crate::json::parse(bytes).map_err(|e| Error::Json {
            key: ".zmetadata".into(),
            error: e,
        })?),
        None => None,
    };
    for key in keys {
        for name in [".zarray", ".zattrs"] {
            let k = StoreKey::new(key)?.join(name)?;
            let Some(bytes) = reader.get(&k)? else {
                continue;
            };
            let mut doc = crate::json::parse(&bytes).map_err(|error| Error::Json {
                key: k.to_string(),
                error,
            })?;
            edit(name, &mut doc);
            store.put(&k, doc.to_text().as_bytes())?;
            if let Some(entry) = consolidated
                .as_mut()
                .and_then(|c| c.get_mut("metadata"))
                .and_then(|m| m.get_mut(k.as_str()))
            {
                edit(name, entry);
            }
        }
    }
    if let Some(c) = consolidated {
        for (name, bytes) in openers.iter_mut() {
            if *name == ".zmetadata" {
                *bytes = c.to_text().into_bytes();
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_parse() {
        assert_eq!("2/4".parse::<Part>().unwrap(), Part { index: 2, count: 4 });
        assert!("0/4".parse::<Part>().is_err());
        assert!("5/4".parse::<Part>().is_err());
        assert!("x".parse::<Part>().is_err());
        let p = Part { index: 2, count: 3 };
        assert!(p.owns(1) && p.owns(4) && !p.owns(2));
        assert_eq!(p.marker(), ".nczcopy/part-2-of-3");
    }

    #[test]
    fn blocks_cover_the_variable_once() {
        for (shape, chunks, parts) in [
            (vec![10u64, 7], Some(vec![3u64, 2]), 2u64),
            (vec![1, 100, 50], Some(vec![1, 10, 50]), 4),
            (vec![5], Some(vec![5]), 3),
            (vec![5], None, 3),
        ] {
            let b = blocks(&shape, chunks.as_deref(), parts);
            let total: u64 = b.iter().map(|r| r.len().unwrap()).sum();
            assert_eq!(total, shape.iter().product::<u64>(), "{shape:?}");
            for r in &b {
                if let Some(c) = &chunks {
                    assert!(r.start.iter().zip(c).all(|(s, c)| s % c == 0));
                }
            }
        }
        // Enough blocks for 4 per part along the outer dimensions that have them.
        assert_eq!(blocks(&[1, 100, 50], Some(&[1, 10, 50]), 2).len(), 10);
        assert_eq!(blocks(&[], None, 2), vec![Region::whole(&[])]);
    }
}
