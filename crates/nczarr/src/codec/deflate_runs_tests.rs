use super::*;
use std::io::Read;

/// `stream` inflated by libdeflate and by zlib-rs (through flate2), which must agree.
fn inflate(stream: &[u8], len: usize) -> Vec<u8> {
    let mut out = vec![0u8; len];
    let n = libdeflater::Decompressor::new()
        .deflate_decompress(stream, &mut out)
        .expect("libdeflate inflates it");
    assert_eq!(n, len);
    let mut again = Vec::new();
    flate2::read::DeflateDecoder::new(stream)
        .read_to_end(&mut again)
        .expect("zlib-rs inflates it");
    assert_eq!(again, out);
    out
}

fn round_trip(data: &[u8]) -> Vec<u8> {
    let stream = deflate_runs(data, End::Finish, Vec::new());
    assert_eq!(inflate(&stream, data.len()), data, "{} bytes", data.len());
    stream
}

/// xorshift: the same noise every run.
fn noise(len: usize, seed: u64) -> Vec<u8> {
    let mut state = seed | 1;
    (0..len)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 24) as u8
        })
        .collect()
}

/// Byte planes of noisy floats, as shuffle leaves them.
fn shuffled_floats(count: usize) -> Vec<u8> {
    let noise = noise(count, 7);
    let values: Vec<f32> = (0..count)
        .map(|i| 280.0 + (i / 360) as f32 * 0.05 + f32::from(noise[i]) / 64.0)
        .collect();
    let bytes: &[u8] = bytemuck::cast_slice(&values);
    (0..4)
        .flat_map(|plane| bytes.iter().skip(plane).step_by(4).copied())
        .collect()
}

/// The type of a stream's first block (0 stored, 1 fixed, 2 fitted).
fn first_block_type(stream: &[u8]) -> u8 {
    (stream[0] >> 1) & 3
}

#[test]
fn length_codes_match_rfc_1951() {
    for (len, &code) in LEN_CODE.iter().enumerate().skip(MIN_RUN) {
        let code = usize::from(code);
        let base = usize::from(LEN_BASE[code]);
        assert!(base <= len, "{len}");
        assert!(len - base < 1 << LEN_EXTRA[code], "{len}");
        assert_eq!(code == 28, len == MAX_RUN, "{len}");
    }
}

#[test]
fn every_kind_of_input_inflates_back() {
    let mut inputs: Vec<Vec<u8>> = (0..40).map(|n| noise(n, n as u64)).collect();
    inputs.extend((0..12).map(|n| vec![b'x'; n]));
    for len in [BLOCK - 1, BLOCK, BLOCK + 1, 3 * BLOCK + 2] {
        inputs.push(shuffled_floats(len / 4 + 1)[..len].to_vec());
        inputs.push(vec![0; len]);
        inputs.push(noise(len, len as u64));
    }
    // Runs of every length, across block boundaries, between literals.
    let mut runs = Vec::new();
    for len in 1..600 {
        runs.extend(std::iter::repeat_n((len % 251) as u8, len));
        runs.push(0xff);
    }
    inputs.push(runs);
    inputs.push(b"netcdf x { dimensions: lat = 180, lon = 360 ; } // ".repeat(400));
    inputs.push(shuffled_floats(100_000));
    for input in &inputs {
        round_trip(input);
    }
}

#[test]
fn each_block_takes_the_smallest_form() {
    assert_eq!(first_block_type(&round_trip(&noise(BLOCK, 3))), 0);
    assert_eq!(first_block_type(&round_trip(b"abcab")), 1);
    assert_eq!(first_block_type(&round_trip(&shuffled_floats(BLOCK))), 2);
    // Noise costs its size and a few bytes a block.
    let noisy = noise(10 * BLOCK, 5);
    assert!(round_trip(&noisy).len() <= noisy.len() + 10 * 6);
}

#[test]
fn pieces_ended_by_sync_flushes_join_into_one_stream() {
    let data = shuffled_floats(50_000);
    let pieces: Vec<&[u8]> = data.chunks(30_001).collect();
    let mut stream = Vec::new();
    for (i, piece) in pieces.iter().enumerate() {
        let end = if i + 1 == pieces.len() {
            End::Finish
        } else {
            End::Sync
        };
        let before = stream.len();
        stream = deflate_runs(piece, end, stream);
        if end == End::Sync {
            assert_eq!(stream[stream.len() - 4..], [0, 0, 0xff, 0xff]);
        }
        assert!(stream.len() > before);
    }
    assert_eq!(inflate(&stream, data.len()), data);
    // An empty piece between them is an empty stored block, still one stream.
    let mut stream = deflate_runs(b"abc", End::Sync, Vec::new());
    stream = deflate_runs(b"", End::Sync, stream);
    stream = deflate_runs(b"def", End::Finish, stream);
    assert_eq!(inflate(&stream, 6), b"abcdef");
}

/// On shuffled floats, as small as zlib's run-length strategy or smaller.
#[test]
fn as_small_as_zlibs_run_length_strategy() {
    let data = shuffled_floats(200_000);
    let ours = round_trip(&data).len();
    let config = zlib_rs::DeflateConfig {
        strategy: zlib_rs::Strategy::Rle,
        window_bits: -15,
        ..zlib_rs::DeflateConfig::new(1)
    };
    let mut out = vec![0u8; zlib_rs::compress_bound(data.len())];
    let (zlib, _) = zlib_rs::compress_slice(&mut out, &data, config);
    assert!(
        ours <= zlib.len(),
        "ours {ours} bytes, zlib-rs {}",
        zlib.len()
    );
}

/// Mixtures of noise, runs, text and planes, cut at lengths that fall anywhere in a
/// block.
#[test]
fn random_mixtures_inflate_back() {
    let lengths = noise(4 * 300, 11);
    for case in 0..300 {
        let mut data = Vec::new();
        for part in 0..4 {
            let len = usize::from(lengths[case * 4 + part]) * (1 + case % 40);
            let seed = (case * 4 + part) as u64;
            match (case + part) % 4 {
                0 => data.extend(noise(len, seed)),
                1 => data.extend(std::iter::repeat_n(part as u8, len)),
                2 => data.extend(b"time lat lon ".iter().cycle().take(len)),
                _ => data.extend(shuffled_floats(len / 4 + 1)),
            }
        }
        round_trip(&data);
    }
}
