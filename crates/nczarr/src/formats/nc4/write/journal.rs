//! The last step of an edit in place: each changed object header's chunk 0 written
//! over the old one. One object's is one write; several are first recorded in a
//! journal beside the file (`.NAME.nczedit`), so that a run killed between two of
//! them is completed by the next edit, and the file has all of the edit or none.

use std::fs::{File, OpenOptions};
use std::os::unix::fs::FileExt as _;
use std::path::{Path, PathBuf};

use super::encode::checksum;
use crate::error::Result;

/// The journal's first bytes.
const MAGIC: &[u8; 8] = b"NCZEDIT1";

/// One chunk 0 replaced: where, what it holds, what it will hold (as many bytes).
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Switch {
    pub(super) address: u64,
    pub(super) old: Vec<u8>,
    pub(super) new: Vec<u8>,
}

/// The journal of the file at `path`.
fn journal_path(path: &Path) -> PathBuf {
    let name = path
        .file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    path.with_file_name(format!(".{name}.nczedit"))
}

/// The record of an edit's switches, its file made before anything else is written
/// (so that a directory where it cannot be made stops the edit with nothing written).
pub(super) struct Journal {
    /// Where the record goes (none for a single switch: one write needs no record).
    at: Option<(PathBuf, File)>,
}

impl Journal {
    /// The journal of the file at `path` for `switches`.
    ///
    /// # Errors
    /// [`crate::error::Error::Invalid`] naming the journal when it cannot be made.
    pub(super) fn start(path: &Path, switches: &[Switch]) -> Result<Journal> {
        if switches.len() < 2 {
            return Ok(Journal { at: None });
        }
        let j = journal_path(path);
        let f = File::create(&j).map_err(|e| {
            crate::error::Error::Invalid(format!(
                "cannot write the record of its edit, {}: {e}; nothing was changed (edit into a copy: a second name)",
                j.display()
            ))
        })?;
        Ok(Journal { at: Some((j, f)) })
    }

    /// Write `switches` to `file` in order, recorded first when there are several;
    /// durable when this returns.
    ///
    /// # Errors
    /// Write errors (the record then completes the edit at the next run).
    pub(super) fn switch(self, file: &File, switches: &[Switch]) -> Result<()> {
        if let Some((j, f)) = &self.at {
            f.write_all_at(&encode(switches), 0)?;
            if crate::store::durable() {
                f.sync_all()?;
                if let Some(dir) = j.parent().and_then(|d| File::open(d).ok()) {
                    let _ = dir.sync_all();
                }
            }
        }
        stop_point("journal");
        for (k, s) in switches.iter().enumerate() {
            file.write_all_at(&s.new, s.address)?;
            stop_point(&format!("switch {}", k + 1));
        }
        barrier(file)?;
        if let Some((j, _)) = &self.at {
            std::fs::remove_file(j)?;
        }
        Ok(())
    }
}

/// What was written to `file` before reaches the disk before what is written after
/// (against a power loss; a killed run needs no more than the order of the writes):
/// its data made durable, unless `NCZARR_FSYNC=0` says a scratch file needs none.
pub(super) fn barrier(file: &File) -> std::io::Result<()> {
    if crate::store::durable() {
        file.sync_data()
    } else {
        Ok(())
    }
}

/// Where the tests stop a run as a kill would (debug builds only): at
/// `NCZARR_STOP_AT=nc4 <point>`, the process aborts.
pub(super) fn stop_point(point: &str) {
    #[cfg(debug_assertions)]
    if std::env::var("NCZARR_STOP_AT").is_ok_and(|v| v.strip_prefix("nc4 ") == Some(point)) {
        std::process::abort();
    }
    #[cfg(not(debug_assertions))]
    let _ = point;
}

/// Complete the switches recorded beside the file at `path`: true when a journal was
/// there and the file now has all of them. A journal cut short (the run stopped while
/// writing it, before any switch) is removed.
///
/// # Errors
/// [`crate::error::Error::Invalid`] when a place holds neither its old nor its new
/// bytes (another program changed the file since; the record is kept); read and write
/// errors.
pub(super) fn complete(path: &Path) -> Result<bool> {
    let j = journal_path(path);
    let Ok(bytes) = std::fs::read(&j) else {
        return Ok(false);
    };
    let Some(switches) = decode(&bytes) else {
        std::fs::remove_file(&j)?;
        return Ok(false);
    };
    let file = OpenOptions::new().read(true).write(true).open(path)?;
    for s in &switches {
        let now = super::header_map::read_at(&file, s.address, s.new.len())?;
        if now != s.old && now != s.new {
            // Another program changed the file since: neither finished nor undone here.
            return Err(crate::error::Error::Invalid(format!(
                "an edit stopped half way is recorded in {}, and the file was changed since by another program: it cannot be completed (the file may hold part of it); check the file, then remove the record",
                j.display()
            )));
        }
    }
    for s in &switches {
        file.write_all_at(&s.new, s.address)?;
    }
    barrier(&file)?;
    std::fs::remove_file(&j)?;
    Ok(true)
}

/// The journal's bytes: magic, count, then per switch its address, length, old and new
/// bytes; a checksum of all that last.
fn encode(switches: &[Switch]) -> Vec<u8> {
    let mut b = MAGIC.to_vec();
    b.extend_from_slice(&(switches.len() as u32).to_le_bytes());
    for s in switches {
        b.extend_from_slice(&s.address.to_le_bytes());
        b.extend_from_slice(&(s.new.len() as u32).to_le_bytes());
        b.extend_from_slice(&s.old);
        b.extend_from_slice(&s.new);
    }
    let sum = checksum(&b);
    b.extend_from_slice(&sum.to_le_bytes());
    b
}

/// The switches of a whole journal; `None` for one cut short or damaged.
fn decode(b: &[u8]) -> Option<Vec<Switch>> {
    let (body, sum) = b.split_at(b.len().checked_sub(4)?);
    if body.get(..8)? != MAGIC || checksum(body).to_le_bytes() != sum {
        return None;
    }
    let u32_at = |at: usize| Some(u32::from_le_bytes(body.get(at..at + 4)?.try_into().ok()?));
    let count = u32_at(8)?;
    let mut at = 12;
    let mut out = Vec::new();
    for _ in 0..count {
        let address = u64::from_le_bytes(body.get(at..at + 8)?.try_into().ok()?);
        let len = usize::try_from(u32_at(at + 8)?).ok()?;
        at += 12;
        let old = body.get(at..at + len)?.to_vec();
        let new = body.get(at + len..at + 2 * len)?.to_vec();
        at += 2 * len;
        out.push(Switch { address, old, new });
    }
    (at == body.len()).then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_journal_reads_back_and_a_cut_one_does_not() {
        let switches = vec![
            Switch {
                address: 48,
                old: vec![1, 2, 3],
                new: vec![4, 5, 6],
            },
            Switch {
                address: 4096,
                old: vec![7; 10],
                new: vec![8; 10],
            },
        ];
        let b = encode(&switches);
        assert_eq!(decode(&b), Some(switches));
        for cut in [0, 3, 12, b.len() - 1] {
            assert_eq!(decode(&b[..cut]), None, "{cut}");
        }
        let mut damaged = b.clone();
        damaged[20] ^= 1;
        assert_eq!(decode(&damaged), None);
    }

    #[test]
    fn a_stopped_switch_is_completed_and_a_changed_file_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f.nc");
        std::fs::write(&path, [0u8; 64]).unwrap();
        let switches = vec![
            Switch {
                address: 0,
                old: vec![0; 4],
                new: vec![1; 4],
            },
            Switch {
                address: 32,
                old: vec![0; 4],
                new: vec![2; 4],
            },
        ];
        // Stopped after the first switch.
        std::fs::write(journal_path(&path), encode(&switches)).unwrap();
        let f = OpenOptions::new().write(true).open(&path).unwrap();
        f.write_all_at(&[1; 4], 0).unwrap();
        assert!(complete(&path).unwrap());
        let bytes = std::fs::read(&path).unwrap();
        assert_eq!(
            (&bytes[..4], &bytes[32..36]),
            (&[1u8; 4][..], &[2u8; 4][..])
        );
        assert!(!journal_path(&path).exists());
        assert!(!complete(&path).unwrap());
        // Another program wrote there since: refused, nothing written, the record kept.
        std::fs::write(journal_path(&path), encode(&switches)).unwrap();
        f.write_all_at(&[9; 4], 32).unwrap();
        let e = complete(&path).unwrap_err().to_string();
        assert!(e.contains("changed since by another program"), "{e}");
        assert_eq!(std::fs::read(&path).unwrap()[32..36], [9; 4]);
        assert!(journal_path(&path).exists());
    }
}
