//! `zstd` (numcodecs `Zstd`, HDF5 filter 32015). Config: `{"id": "zstd", "level": L}`;
//! level 0 means zstd's default (3). Frames without a content size are streamed.
//!
//! Each thread keeps one compression and one decompression context: made per chunk they
//! cost a third of the zstd time of a rechunk (zeroing the context's tables, ~2% of the
//! run in `ZSTD_createDCtx` alone), and a known content size is decompressed in one call
//! straight into its place, where the stream went through a buffer and a copy.

use super::hdf5_filter::{first_param, param_u32, FilterError, StoredChunk};
use super::{
    encode_failed, int_param, num, obj, read_bounded, ChunkFault, ChunkInfo, Codec, ConfigFault,
};
use crate::json::Json;
use std::cell::RefCell;

thread_local! {
    static DECOMPRESSOR: RefCell<Option<zstd::bulk::Decompressor<'static>>> =
        const { RefCell::new(None) };
    /// The compressor and the level and checksum it is set to.
    static COMPRESSOR: RefCell<Option<(zstd::bulk::Compressor<'static>, i32, bool)>> =
        const { RefCell::new(None) };
}

/// The content size the first frame of `input` records (more frames than one do not
/// fit in it: the one-call decompression then fails and the stream takes over).
fn content_size(input: &[u8]) -> Option<usize> {
    let size = zstd::zstd_safe::get_frame_content_size(input).ok()??;
    usize::try_from(size).ok()
}

/// Decompress `input` into `out` (room for the whole content) with this thread's
/// context; `None` when zstd refuses (the caller streams it for zstd's own words).
fn decompress_into<C: zstd::zstd_safe::WriteBuf + ?Sized>(
    input: &[u8],
    out: &mut C,
) -> Option<usize> {
    DECOMPRESSOR.with(|cell| {
        let mut slot = cell.try_borrow_mut().ok()?;
        if slot.is_none() {
            *slot = Some(zstd::bulk::Decompressor::new().ok()?);
        }
        slot.as_mut()?.decompress_to_buffer(input, out).ok()
    })
}

/// zstd compression.
#[derive(Debug, Clone)]
pub(crate) struct Zstd {
    level: i32,
    checksum: bool,
}

impl Zstd {
    pub(crate) fn from_config(config: &Json) -> Result<Zstd, ConfigFault> {
        let level = int_param(config, "level", 0, -131072..=22)? as i32;
        let checksum = matches!(config.get("checksum"), Some(Json::Bool(true)));
        Ok(Zstd { level, checksum })
    }
}

impl Codec for Zstd {
    fn id(&self) -> &'static str {
        "zstd"
    }

    fn decode(&self, input: Vec<u8>, info: &ChunkInfo) -> Result<Vec<u8>, ChunkFault> {
        if let Some(size) = content_size(&input).filter(|n| *n <= info.max_decoded) {
            let mut out = Vec::with_capacity(size);
            if decompress_into(&input, &mut out) == Some(size) {
                return Ok(out);
            }
        }
        let decoder =
            zstd::stream::read::Decoder::new(&input[..]).map_err(|e| ChunkFault::Corrupt {
                what: "zstd data",
                detail: e.to_string(),
            })?;
        read_bounded(decoder, info.max_decoded, "zstd data")
    }

    fn decode_to(
        &self,
        input: Vec<u8>,
        out: &mut [u8],
        info: &ChunkInfo,
    ) -> Result<(), ChunkFault> {
        if content_size(&input) == Some(out.len())
            && decompress_into(&input, out) == Some(out.len())
        {
            return Ok(());
        }
        super::copy_whole(&self.decode(input, info)?, out)
    }

    fn encode(&self, input: Vec<u8>, _: &ChunkInfo) -> Result<Vec<u8>, ChunkFault> {
        let failed = encode_failed("zstd");
        COMPRESSOR.with(|cell| {
            let mut slot = cell
                .try_borrow_mut()
                .map_err(|e| failed(std::io::Error::other(e.to_string())))?;
            let stale =
                !matches!(&*slot, Some((_, l, c)) if *l == self.level && *c == self.checksum);
            if stale {
                let mut c = zstd::bulk::Compressor::new(self.level).map_err(&failed)?;
                c.include_checksum(self.checksum).map_err(&failed)?;
                c.include_contentsize(true).map_err(&failed)?;
                *slot = Some((c, self.level, self.checksum));
            }
            match slot.as_mut() {
                Some((c, _, _)) => c.compress(&input).map_err(&failed),
                None => Err(failed(std::io::Error::other("no compressor"))),
            }
        })
    }

    fn config(&self) -> Json {
        let mut m = vec![
            ("id", Json::String("zstd".into())),
            ("level", num(i64::from(self.level))),
        ];
        if self.checksum {
            m.push(("checksum", Json::Bool(true)));
        }
        obj(m)
    }
}

/// What a netCDF-4 file stores for this codec as the zstd filter (32015): the
/// level, 0 (zstd's default) when none is given. The codec table's `hdf5_write`.
///
/// # Errors
/// Never; the signature is the table's [`StoredParams`](super::hdf5_filter::StoredParams).
pub(super) fn hdf5_params(config: &Json, _chunk: &StoredChunk) -> Result<Vec<u32>, ConfigFault> {
    Ok(vec![param_u32(config, "level", 0)])
}

/// The parameters netCDF's `_Filter` shows for this codec as the zstd filter (32015):
/// the level, 0 when none is given. The codec table's `hdf5_attr`.
pub(super) fn hdf5_shown(config: &Json) -> Option<Vec<u32>> {
    Some(vec![param_u32(config, "level", 0)])
}

/// This codec for a `_Filter` entry of the zstd filter (32015): level 3 unless given.
/// The codec table's `hdf5_attr`.
///
/// # Errors
/// Never; the signature is the table's.
pub(super) fn from_hdf5(params: &[u32]) -> Result<Json, FilterError> {
    Ok(obj(vec![
        ("id", Json::String("zstd".into())),
        ("level", num(first_param(params, 3))),
    ]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn info(max_decoded: usize) -> ChunkInfo {
        ChunkInfo {
            item_size: 4,
            max_decoded,
        }
    }

    fn zstd(level: i64) -> Zstd {
        Zstd::from_config(&obj(vec![
            ("id", Json::String("zstd".into())),
            ("level", num(level)),
        ]))
        .unwrap()
    }

    fn data(n: usize) -> Vec<u8> {
        (0..n).map(|i| (i * 7 % 251) as u8).collect()
    }

    #[test]
    fn chunks_round_trip_with_one_context_per_thread_whatever_the_level() {
        let raw = data(100_000);
        for level in [1, 5, 1, -3] {
            let z = zstd(level);
            let packed = z.encode(raw.clone(), &info(raw.len())).unwrap();
            assert_eq!(content_size(&packed), Some(raw.len()));
            assert_eq!(z.decode(packed.clone(), &info(raw.len())).unwrap(), raw);
            let mut out = vec![0; raw.len()];
            z.decode_to(packed, &mut out, &info(raw.len())).unwrap();
            assert_eq!(out, raw);
        }
    }

    #[test]
    fn frames_without_a_size_and_several_frames_are_streamed() {
        let raw = data(50_000);
        let z = zstd(3);
        // A streamed frame records no content size.
        let mut e = zstd::stream::write::Encoder::new(Vec::new(), 3).unwrap();
        e.write_all(&raw).unwrap();
        let unsized_frame = e.finish().unwrap();
        assert_eq!(content_size(&unsized_frame), None);
        assert_eq!(z.decode(unsized_frame, &info(raw.len())).unwrap(), raw);
        // Two frames: the first's size is not the whole.
        let mut two = z.encode(raw.clone(), &info(raw.len())).unwrap();
        two.extend(z.encode(raw.clone(), &info(raw.len())).unwrap());
        let whole = [raw.clone(), raw.clone()].concat();
        assert_eq!(z.decode(two.clone(), &info(whole.len())).unwrap(), whole);
        let mut out = vec![0; whole.len()];
        z.decode_to(two.clone(), &mut out, &info(whole.len()))
            .unwrap();
        assert_eq!(out, whole);
        // Into room for the first frame alone: the size is wrong, said so.
        let mut short = vec![0; raw.len()];
        assert!(z.decode_to(two, &mut short, &info(whole.len())).is_err());
    }

    #[test]
    fn more_than_the_bound_and_damaged_frames_are_refused() {
        let raw = data(10_000);
        let z = zstd(1);
        let packed = z.encode(raw.clone(), &info(raw.len())).unwrap();
        assert!(matches!(
            z.decode(packed.clone(), &info(100)),
            Err(ChunkFault::TooLarge { max: 100 })
        ));
        let mut bad = packed;
        let n = bad.len();
        bad[n / 2] ^= 0xff;
        bad.truncate(n - 3);
        assert!(z.decode(bad, &info(raw.len())).is_err());
    }
}
