//! `zlib`: a zlib stream (numcodecs `Zlib`; netCDF's deflate filter, HDF5 id 1).
//! Config: `{"id": "zlib", "level": 1..9}`.
//!
//! Levels 2-9 are zlib-rs's. Level 1 picks one of two encoders per chunk. zlib-rs (like
//! zlib-ng) makes level 1 its "quick" strategy, which only uses the fixed Huffman codes
//! and so barely compresses bytes that are not text-like: byte-shuffled floats came out
//! at 68-77% of their size where C zlib's level 1 gives 61-67%. [`deflate_runs`], runs
//! and literals with codes fitted to each small block (zlib's run-length strategy, three
//! times faster), gives 58% on a year of them, but loses to the quick strategy on text
//! and on repeating sequences. So a small chunk is encoded both ways and the
//! smaller kept; a larger one by the encoder that wins on a sample of it (eight slices
//! spread through the chunk, so each byte plane of shuffled data is seen), which costs
//! an eighth of a second encoding. The choice depends only on the chunk's bytes, so
//! output stays reproducible. Both are ordinary zlib streams that every reader
//! inflates. Inputs of 2 MiB or more are deflated in pieces of 1 MiB in parallel and
//! joined into one stream (see [`PIECE_BYTES`]).
//!
//! [`deflate_runs`]: super::deflate_runs

use super::deflate_runs::{deflate_runs, End};
use super::hdf5_filter::{first_param, param_u32, FilterError, StoredChunk};
use super::{int_param, num, obj, read_bounded, ChunkFault, ChunkInfo, Codec, ConfigFault};
use crate::json::Json;
use zlib_rs::adler32::{adler32, adler32_combine};
use zlib_rs::{DeflateConfig, DeflateFlush};

/// The largest chunk inflated in one call into room for all of it; larger limits (the
/// HDF5 bound of 4 GiB, when the size is not known) go through a reader that grows its
/// output as the stream gives it.
const ONE_CALL_MAX: usize = 256 << 20;

thread_local! {
    /// libdeflate's decompressor, made once per thread (a few KiB of tables).
    static INFLATER: std::cell::RefCell<libdeflater::Decompressor> =
        std::cell::RefCell::new(libdeflater::Decompressor::new());
}

/// zlib compression.
#[derive(Debug, Clone)]
pub(crate) struct Zlib {
    pub(crate) level: u32,
}

impl Zlib {
    pub(crate) fn from_config(config: &Json) -> Result<Zlib, ConfigFault> {
        Ok(Zlib {
            level: int_param(config, "level", 1, 0..=9)? as u32,
        })
    }
}

impl Codec for Zlib {
    fn id(&self) -> &'static str {
        "zlib"
    }

    fn decode(&self, input: Vec<u8>, info: &ChunkInfo) -> Result<Vec<u8>, ChunkFault> {
        // A chunk's size is known: inflated in one call into room for all of it (the
        // stream through a reader grew its output by doubling, each time a copy, and
        // went through a buffer of its own: a seventh more time), by libdeflate, which
        // inflates a whole buffer at once a third faster than zlib-rs (shuffled floats
        // of a netCDF-4 file: 1130 against 820 MB/s on one core).
        // Only where the bound is a size the stream can plausibly have (64 times its
        // compressed bytes at most): a bound of strings' chunks (64 KiB an item) would
        // be memory asked for and never used.
        if info.max_decoded <= ONE_CALL_MAX && info.max_decoded / 64 <= input.len() {
            let mut out = vec![0; info.max_decoded];
            let inflated = INFLATER.with(|d| d.borrow_mut().zlib_decompress(&input, &mut out));
            if let Ok(n) = inflated {
                out.truncate(n);
                return Ok(out);
            }
        }
        // Through zlib's reader: what libdeflate refuses (damaged, or more than the
        // bound) gets zlib's own verdict, in its words.
        read_bounded(
            flate2::read::ZlibDecoder::new(&input[..]),
            info.max_decoded,
            "zlib stream",
        )
    }

    fn decode_to(
        &self,
        input: Vec<u8>,
        out: &mut [u8],
        info: &ChunkInfo,
    ) -> Result<(), ChunkFault> {
        let inflated = INFLATER.with(|d| d.borrow_mut().zlib_decompress(&input, out));
        match inflated {
            Ok(n) if n == out.len() => Ok(()),
            // Short, or refused: the whole way, for its error.
            _ => super::copy_whole(&self.decode(input, info)?, out),
        }
    }

    fn encode(&self, input: Vec<u8>, _: &ChunkInfo) -> Result<Vec<u8>, ChunkFault> {
        let level = self.level as i32;
        if level != 1 {
            return deflate(&input, Encoder::Zlib(level));
        }
        if input.len() < SAMPLED_FROM {
            let quick = deflate(&input, Encoder::Zlib(1))?;
            let runs = deflate(&input, Encoder::Runs)?;
            return Ok(if runs.len() < quick.len() {
                runs
            } else {
                quick
            });
        }
        let sample = sample_of(&input);
        let quick = deflate(&sample, Encoder::Zlib(1))?;
        let runs = deflate(&sample, Encoder::Runs)?;
        let encoder = if runs.len() < quick.len() {
            Encoder::Runs
        } else {
            Encoder::Zlib(1)
        };
        deflate(&input, encoder)
    }

    fn config(&self) -> Json {
        obj(vec![
            ("id", Json::String("zlib".into())),
            ("level", num(i64::from(self.level))),
        ])
    }
}

/// Chunks at least this large choose level 1's strategy from a sample.
const SAMPLED_FROM: usize = 64 * 1024;
/// The sample: this many slices ...
const SAMPLE_SLICES: usize = 8;
/// ... of this many bytes, at the start of each eighth of the chunk.
const SLICE_BYTES: usize = 2048;

/// Slices of `input` spread evenly through it.
fn sample_of(input: &[u8]) -> Vec<u8> {
    let step = input.len() / SAMPLE_SLICES;
    (0..SAMPLE_SLICES)
        .flat_map(|i| {
            let start = i * step;
            &input[start..(start + SLICE_BYTES).min(input.len())]
        })
        .copied()
        .collect()
}

/// Inputs at least twice this long are deflated in pieces of this many bytes, in
/// parallel (as pigz does): one large chunk no longer keeps a core idle while another
/// does all the work (a year of daily maps into chunks of 30 days: 7.8 MB each, 12 of
/// them for 2 cores). The pieces depend only on the input's length, so the stream
/// does too, whatever the number of threads.
const PIECE_BYTES: usize = 1 << 20;

/// Which deflate encoder writes a stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Encoder {
    /// zlib-rs at this level (its default strategy; "quick" at level 1).
    Zlib(i32),
    /// [`deflate_runs`], with the header of level 1.
    Runs,
}

impl Encoder {
    fn level(self) -> i32 {
        match self {
            Encoder::Zlib(level) => level,
            Encoder::Runs => 1,
        }
    }
}

/// One zlib stream (header, deflate data, Adler-32) of `input`.
fn deflate(input: &[u8], encoder: Encoder) -> Result<Vec<u8>, ChunkFault> {
    if input.len() < 2 * PIECE_BYTES {
        return match encoder {
            Encoder::Zlib(level) => deflate_whole(input, level),
            Encoder::Runs => {
                let mut out = deflate_runs(input, End::Finish, zlib_header(1).to_vec());
                out.extend_from_slice(&adler32(1, input).to_be_bytes());
                Ok(out)
            }
        };
    }
    use rayon::prelude::*;
    let pieces: Vec<&[u8]> = input.chunks(PIECE_BYTES).collect();
    let last = pieces.len() - 1;
    // Each piece ends byte-aligned (a sync flush; the last ends the stream), so the
    // pieces' deflate data follow one another as one stream; each starts without the
    // others' window, which costs a few bytes at each seam.
    let raw: Vec<(Vec<u8>, u32)> = pieces
        .par_iter()
        .enumerate()
        .map(|(i, piece)| {
            let end = if i == last { End::Finish } else { End::Sync };
            let bytes = match encoder {
                Encoder::Zlib(level) => raw_deflate(piece, level, end)?,
                Encoder::Runs => deflate_runs(piece, end, Vec::new()),
            };
            Ok((bytes, adler32(1, piece)))
        })
        .collect::<Result<_, ChunkFault>>()?;
    let mut out = Vec::with_capacity(raw.iter().map(|(r, _)| r.len()).sum::<usize>() + 6);
    out.extend_from_slice(&zlib_header(encoder.level()));
    let mut sum = 1u32;
    for ((bytes, adler), piece) in raw.iter().zip(&pieces) {
        out.extend_from_slice(bytes);
        sum = adler32_combine(sum, *adler, piece.len() as u64);
    }
    out.extend_from_slice(&sum.to_be_bytes());
    Ok(out)
}

/// The two bytes that start zlib's stream at `level` (deflate with a 32 KiB window,
/// the level's class, the header check), as zlib and zlib-rs write them.
fn zlib_header(level: i32) -> [u8; 2] {
    let class: u16 = match level {
        0 | 1 => 0,
        2..=5 => 1,
        6 | -1 => 2,
        _ => 3,
    };
    let head = (0x78u16 << 8) | (class << 6);
    (head + 31 - head % 31).to_be_bytes()
}

/// `input` as raw deflate data (no header, no checksum), ended by `flush`.
fn raw_deflate(input: &[u8], level: i32, end: End) -> Result<Vec<u8>, ChunkFault> {
    let flush = match end {
        End::Finish => DeflateFlush::Finish,
        End::Sync => DeflateFlush::SyncFlush,
    };
    let fail = |detail: String| ChunkFault::EncodeFailed {
        format: "zlib",
        detail,
    };
    let mut stream = zlib_rs::Deflate::new_with_config(DeflateConfig {
        window_bits: -15,
        ..DeflateConfig::new(level)
    });
    // Room for the bound and the flush's marker; more only for input that does not
    // compress at all, in a second call.
    let mut out = vec![0u8; zlib_rs::compress_bound(input.len()) + 64];
    loop {
        let done = stream.total_out() as usize;
        let read = stream.total_in() as usize;
        let status = stream
            .compress(&input[read..], &mut out[done..], flush)
            .map_err(|e| fail(format!("zlib-rs: {}", e.as_str())))?;
        let finished = match flush {
            DeflateFlush::Finish => status == zlib_rs::Status::StreamEnd,
            _ => stream.total_in() as usize == input.len() && stream.total_out() < out.len() as u64,
        };
        if finished {
            out.truncate(stream.total_out() as usize);
            return Ok(out);
        }
        if stream.total_out() as usize == done && stream.total_in() as usize == read {
            out.resize(out.len() * 2, 0);
        } else if stream.total_out() as usize == out.len() {
            out.resize(out.len() + out.len() / 2, 0);
        }
    }
}

/// One zlib stream of `input` in one call.
fn deflate_whole(input: &[u8], level: i32) -> Result<Vec<u8>, ChunkFault> {
    let config = DeflateConfig::new(level);
    let mut out = vec![0u8; zlib_rs::compress_bound(input.len())];
    let (written, code) = zlib_rs::compress_slice(&mut out, input, config);
    if code != zlib_rs::ReturnCode::Ok {
        return Err(ChunkFault::EncodeFailed {
            format: "zlib",
            detail: format!("zlib-rs returned {code:?}"),
        });
    }
    let len = written.len();
    out.truncate(len);
    Ok(out)
}

/// What a netCDF-4 file stores for this codec as HDF5's deflate filter (1): the
/// level, 1 when none is given. The codec table's `hdf5_write`.
///
/// # Errors
/// Never; the signature is the table's [`StoredParams`](super::hdf5_filter::StoredParams).
pub(super) fn hdf5_params(config: &Json, _chunk: &StoredChunk) -> Result<Vec<u32>, ConfigFault> {
    Ok(vec![param_u32(config, "level", 1)])
}

/// The parameters netCDF's `_Filter` shows for this codec as HDF5's deflate filter (1):
/// the level, 1 when none is given. The codec table's `hdf5_attr`.
pub(super) fn hdf5_shown(config: &Json) -> Option<Vec<u32>> {
    Some(vec![param_u32(config, "level", 1)])
}

/// This codec for a `_Filter` entry of HDF5's deflate filter (1): level 1 unless given,
/// brought into 0..=9. The codec table's `hdf5_attr`.
///
/// # Errors
/// Never; the signature is the table's.
pub(super) fn from_hdf5(params: &[u32]) -> Result<Json, FilterError> {
    Ok(obj(vec![
        ("id", Json::String("zlib".into())),
        ("level", num(first_param(params, 1).clamp(0, 9))),
    ]))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info(len: usize) -> ChunkInfo {
        ChunkInfo {
            item_size: 4,
            max_decoded: len,
        }
    }

    fn round_trip(level: u32, data: &[u8]) -> usize {
        let codec = Zlib { level };
        let encoded = codec.encode(data.to_vec(), &info(data.len())).unwrap();
        let decoded = codec.decode(encoded.clone(), &info(data.len())).unwrap();
        assert_eq!(decoded, data, "level {level}");
        encoded.len()
    }

    /// Byte planes of noisy floats: where the run-length strategy wins.
    fn shuffled_floats() -> Vec<u8> {
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        let values: Vec<f32> = (0..40_000)
            .map(|i| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                280.0 + (i % 100) as f32 * 0.1 + (state % 4096) as f32 / 1024.0
            })
            .collect();
        let bytes: &[u8] = bytemuck::cast_slice(&values);
        (0..4)
            .flat_map(|plane| bytes.iter().skip(plane).step_by(4).copied())
            .collect()
    }

    /// Inflated in one call (a known size) or through a reader (a bound only), a
    /// stream gives the same bytes, and the same faults: more than the chunk holds,
    /// cut short, or not zlib.
    #[test]
    fn one_call_and_reader_decode_alike() {
        let data = shuffled_floats();
        let codec = Zlib { level: 1 };
        let stream = codec.encode(data.clone(), &info(data.len())).unwrap();
        // A bound far above the stream's size (strings' chunks) takes the reader.
        assert_eq!(
            codec
                .decode(stream.clone(), &info(data.len() * 100))
                .unwrap(),
            data
        );
        for max in [data.len(), ONE_CALL_MAX + 1] {
            assert_eq!(codec.decode(stream.clone(), &info(max)).unwrap(), data);
            let short = codec.decode(stream.clone(), &info(data.len() - 1));
            assert!(
                matches!(short, Err(ChunkFault::TooLarge { .. })),
                "{short:?}"
            );
            let cut = codec.decode(stream[..stream.len() / 2].to_vec(), &info(max));
            assert!(matches!(cut, Err(ChunkFault::Corrupt { .. })), "{cut:?}");
            let junk = codec.decode(b"not a zlib stream".to_vec(), &info(max));
            assert!(matches!(junk, Err(ChunkFault::Corrupt { .. })), "{junk:?}");
        }
    }

    /// Inputs of several pieces make one stream that libdeflate and zlib-rs's reader
    /// both inflate, with zlib's header for the level, whatever the thread count.
    #[test]
    fn large_inputs_deflate_in_pieces_to_one_stream() {
        for level in 0..=9 {
            assert_eq!(
                zlib_header(level),
                deflate_whole(b"", level).unwrap()[..2],
                "level {level}"
            );
        }
        let floats = shuffled_floats();
        let mut data = Vec::new();
        while data.len() < 5 * PIECE_BYTES / 2 {
            data.extend_from_slice(&floats);
        }
        data.extend_from_slice(b"a tail of another kind");
        for level in [0, 1, 6, 9] {
            let codec = Zlib { level };
            let stream = codec.encode(data.clone(), &info(data.len())).unwrap();
            assert_eq!(stream[..2], zlib_header(level as i32), "level {level}");
            assert_eq!(
                codec.decode(stream.clone(), &info(data.len())).unwrap(),
                data
            );
            assert_eq!(
                codec
                    .decode(stream.clone(), &info(data.len() * 100))
                    .unwrap(),
                data
            );
            let one_thread = rayon::ThreadPoolBuilder::new()
                .num_threads(1)
                .build()
                .unwrap()
                .install(|| codec.encode(data.clone(), &info(data.len())).unwrap());
            assert_eq!(one_thread, stream, "level {level}");
        }
    }

    #[test]
    fn every_level_round_trips() {
        let text = b"netcdf x { dimensions: time = UNLIMITED ; } ".repeat(500);
        for level in 0..=9 {
            round_trip(level, &text);
            round_trip(level, &shuffled_floats());
            round_trip(level, &[]);
        }
    }

    #[test]
    fn level_one_picks_the_smaller_of_its_strategies() {
        let text = b"netcdf x { dimensions: lat = 180, lon = 360 ; } // ".repeat(2000);
        for data in [
            shuffled_floats(),
            text.clone(),
            shuffled_floats()[..30_000].to_vec(),
            text[..30_000].to_vec(),
        ] {
            assert!(data.len() != SAMPLED_FROM);
            let ours = round_trip(1, &data);
            let quick = deflate(&data, Encoder::Zlib(1)).unwrap().len();
            let runs = deflate(&data, Encoder::Runs).unwrap().len();
            assert_eq!(ours, quick.min(runs), "{} bytes", data.len());
        }
        // The two kinds of data each pick a different strategy, so both are exercised.
        let floats = shuffled_floats();
        assert!(
            deflate(&floats, Encoder::Runs).unwrap().len()
                < deflate(&floats, Encoder::Zlib(1)).unwrap().len()
        );
        assert!(
            deflate(&text, Encoder::Zlib(1)).unwrap().len()
                < deflate(&text, Encoder::Runs).unwrap().len()
        );
    }
}
