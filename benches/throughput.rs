//! Throughput of the two hot paths of a dump or a copy, for docs/performance.md:
//! each codec's encode and decode in MB/s (of raw bytes) on a float field shaped like
//! climate data, and the CDL printer's values per second for each type.
//!
//! Run: `cargo bench --bench throughput` (all cores), or under `taskset -c 0` for
//! single-core figures (the printer's workers follow the affinity); `-- codecs` or
//! `-- formatting` runs one of the two. Prints Markdown tables; every figure is the
//! best of several rounds.

use std::time::{Duration, Instant};

use nczarr::cdl::print::{print_cdl, PrintOptions};
use nczarr::cdl::{compile, parse, Compiled};
use nczarr::chunking::Region;
use nczarr::codec::{registry, ChunkInfo, Codec};
use nczarr::encoding::Encoding;
use nczarr::model::{Dataset, Values, VarPath};
use nczarr::{DataSource, DatasetSource, FormatInfo};

/// The tools' allocator (see src/lib.rs), so the printer is measured as they run it.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Bytes of raw data each codec round works on: 64 chunks of 1x180x360 floats.
const CHUNKS: usize = 64;
const CHUNK_VALUES: usize = 180 * 360;

fn main() {
    let only: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    let wanted = |name: &str| only.is_empty() || only.iter().any(|o| o == name);
    if wanted("codecs") {
        codecs();
    }
    if wanted("formatting") {
        formatting();
    }
}

/// xorshift64*: reproducible noise without a dependency.
struct Noise(u64);

impl Noise {
    fn next(&mut self) -> f64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// A temperature-like field: a smooth pattern plus noise, as `f32` bytes per chunk.
fn field_chunks() -> Vec<Vec<u8>> {
    let mut noise = Noise(0x9e37_79b9_7f4a_7c15);
    (0..CHUNKS)
        .map(|t| {
            let mut bytes = Vec::with_capacity(CHUNK_VALUES * 4);
            for j in 0..180 {
                for i in 0..360 {
                    let lat = (j as f64 - 90.0).to_radians();
                    let lon = (i as f64).to_radians();
                    let v = 280.0 + 25.0 * lat.cos() * (lon + t as f64 * 0.1).sin()
                        - 30.0 * lat.sin().powi(2)
                        + (noise.next() - 0.5) * 2.0;
                    bytes.extend_from_slice(&(v as f32).to_le_bytes());
                }
            }
            bytes
        })
        .collect()
}

/// The best time of `rounds` runs of `f`.
fn best(rounds: usize, mut f: impl FnMut()) -> Duration {
    (0..rounds)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed()
        })
        .min()
        .unwrap_or_default()
}

fn chain(configs: &[&str]) -> Vec<Box<dyn Codec>> {
    configs
        .iter()
        .map(|c| {
            let json = nczarr::json::parse_str(c).expect("codec JSON");
            registry::build(&json).expect("codec")
        })
        .collect()
}

fn codecs() {
    let chunks = field_chunks();
    let raw: usize = chunks.iter().map(Vec::len).sum();
    let info = ChunkInfo {
        item_size: 4,
        max_decoded: CHUNK_VALUES * 4,
    };
    let cases: &[(&str, &[&str])] = &[
        ("zlib 1", &[r#"{"id":"zlib","level":1}"#]),
        (
            "shuffle + zlib 1",
            &[
                r#"{"id":"shuffle","elementsize":4}"#,
                r#"{"id":"zlib","level":1}"#,
            ],
        ),
        ("zlib 6", &[r#"{"id":"zlib","level":6}"#]),
        ("gzip 1", &[r#"{"id":"gzip","level":1}"#]),
        ("zstd 1", &[r#"{"id":"zstd","level":1}"#]),
        ("zstd 3", &[r#"{"id":"zstd","level":3}"#]),
        ("lz4", &[r#"{"id":"lz4","acceleration":1}"#]),
        (
            "blosc lz4 5 shuffle",
            &[r#"{"id":"blosc","cname":"lz4","clevel":5,"shuffle":1,"blocksize":0}"#],
        ),
        (
            "blosc zstd 3 shuffle",
            &[r#"{"id":"blosc","cname":"zstd","clevel":3,"shuffle":1,"blocksize":0}"#],
        ),
        (
            "blosc blosclz 5 shuffle",
            &[r#"{"id":"blosc","cname":"blosclz","clevel":5,"shuffle":1,"blocksize":0}"#],
        ),
        (
            "blosc zlib 1 bitshuffle",
            &[r#"{"id":"blosc","cname":"zlib","clevel":1,"shuffle":2,"blocksize":0}"#],
        ),
        ("bz2 9", &[r#"{"id":"bz2","level":9}"#]),
    ];
    println!(
        "codec throughput, {} MB of float32 (64 chunks of 180x360), best of 3 rounds",
        raw / 1_000_000
    );
    println!("| codec | ratio | encode MB/s | decode MB/s |");
    println!("|---|---:|---:|---:|");
    for (name, configs) in cases {
        let codecs = chain(configs);
        let encode = |c: &Vec<u8>| {
            codecs
                .iter()
                .try_fold(c.clone(), |b, codec| codec.encode(b, &info))
                .expect("encode")
        };
        let mut stored = Vec::new();
        let t_enc = best(3, || stored = chunks.iter().map(encode).collect());
        let stored_bytes: usize = stored.iter().map(Vec::len).sum();
        let mut decoded = Vec::new();
        let t_dec = best(3, || {
            decoded = stored
                .iter()
                .map(|s| {
                    codecs
                        .iter()
                        .rev()
                        .try_fold(s.clone(), |b, codec| codec.decode(b, &info))
                        .expect("decode")
                })
                .collect();
        });
        assert_eq!(decoded, chunks, "{name}: round trip");
        let mbs = |t: Duration| raw as f64 / 1e6 / t.as_secs_f64();
        println!(
            "| {name} | {:.2} | {:.0} | {:.0} |",
            raw as f64 / stored_bytes as f64,
            mbs(t_enc),
            mbs(t_dec)
        );
    }
    println!();
}

/// A dataset whose one variable's rows are handed out as they lie in memory: what
/// is measured is the printer, not a reader.
struct Rows {
    compiled: Compiled,
    values: Values,
    cols: u64,
}

impl DataSource for Rows {
    fn read(&self, _var: &VarPath, region: &Region) -> nczarr::Result<Values> {
        let first = (region.start[0] * self.cols) as usize;
        let n = (region.count[0] * self.cols) as usize;
        Ok(self.values.slice(first..first + n))
    }
}

impl DatasetSource for Rows {
    fn dataset(&self) -> &Dataset {
        self.compiled.dataset()
    }
    fn format(&self) -> &FormatInfo {
        self.compiled.format()
    }
    fn encoding(&self, var: &VarPath) -> Option<Encoding> {
        self.compiled.encoding(var)
    }
}

/// One variable `v` of `cdl_type`, rows of 1000 values, printed into memory: values
/// per second and the bytes of text.
fn print_rate(cdl_type: &str, values: Values, opts: &PrintOptions) -> (f64, usize) {
    let n = values.len();
    let text = format!(
        "netcdf t {{\ndimensions:\n\tr = {} ;\n\tc = 1000 ;\nvariables:\n\t{cdl_type} v(r, c) ;\n}}\n",
        n / 1000
    );
    let ast = parse(&text).expect("CDL");
    let compiled = compile(&text, &ast).expect("compile");
    let source = Rows {
        compiled,
        values,
        cols: 1000,
    };
    let mut out = Vec::with_capacity(n * 12);
    let t = best(3, || {
        out.clear();
        print_cdl(&mut out, &source, opts).expect("print");
    });
    (n as f64 / t.as_secs_f64(), out.len())
}

fn formatting() {
    const N: usize = 4_000_000;
    let mut noise = Noise(42);
    let mut normal = || (noise.next() + noise.next() + noise.next() - 1.5) * 2.0;
    let floats: Vec<f32> = (0..N).map(|_| (normal() * 10.0 + 280.0) as f32).collect();
    let doubles: Vec<f64> = (0..N)
        .map(|i| normal() * 10f64.powi(i as i32 % 12 - 6))
        .collect();
    let shorts: Vec<i16> = (0..N).map(|_| (normal() * 1500.0) as i16).collect();
    let ints: Vec<i32> = (0..N).map(|_| (normal() * 1e6) as i32).collect();
    let int64s: Vec<i64> = (0..N).map(|_| (normal() * 1e15) as i64).collect();
    let bytes: Vec<i8> = (0..N).map(|_| (normal() * 40.0) as i8).collect();
    let strings: Vec<Option<Vec<u8>>> = (0..N / 4)
        .map(|i| Some(format!("station {i} \"{}\"", i % 97).into_bytes()))
        .collect();
    let default = PrintOptions::default();
    let p49 = PrintOptions {
        float_digits: Some(4),
        double_digits: Some(9),
        ..PrintOptions::default()
    };
    let full = PrintOptions {
        full: Some(nczarr::cdl::print::IndexStyle::C),
        ..PrintOptions::default()
    };
    let cases: Vec<(&str, &str, Values, &PrintOptions)> = vec![
        ("float", "float", Values::Float(floats.clone()), &default),
        ("float -p 4", "float", Values::Float(floats.clone()), &p49),
        ("float -f c", "float", Values::Float(floats), &full),
        (
            "double",
            "double",
            Values::Double(doubles.clone()),
            &default,
        ),
        ("double -p 9", "double", Values::Double(doubles), &p49),
        ("byte", "byte", Values::Byte(bytes), &default),
        ("short", "short", Values::Short(shorts), &default),
        ("int", "int", Values::Int(ints), &default),
        ("int64", "int64", Values::Int64(int64s), &default),
        ("string", "string", Values::String(strings.into()), &default),
    ];
    let threads = std::thread::available_parallelism().map_or(1, usize::from);
    println!("CDL printer (format and lay out, into memory), {threads} core(s), best of 3 rounds");
    println!("| values | count | values/s | ns/value/core | text MB/s |");
    println!("|---|---:|---:|---:|---:|");
    for (name, cdl_type, values, opts) in cases {
        let n = values.len();
        let (rate, text) = print_rate(cdl_type, values, opts);
        let secs = n as f64 / rate;
        println!(
            "| {name} | {n} | {:.0}M | {:.1} | {:.0} |",
            rate / 1e6,
            1e9 / rate * threads as f64,
            text as f64 / 1e6 / secs
        );
    }
}
