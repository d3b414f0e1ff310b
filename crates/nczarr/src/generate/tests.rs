//! The streaming compiler against the whole-file one (`parse`, `compile`,
//! `write_dataset`): the same stores, warnings and errors, whichever lists are cut;
//! and what streaming holds at once.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use super::*;
use crate::cdl::{compile, parse};
use crate::copy::{copy_all, plan};
use crate::encoding::{Encoding, PlanOptions};
use crate::formats::zarr::{WriteOptions, ZarrSink};
use crate::json::Json;
use crate::model::VarPath;
use crate::store::{ListableStore, MemoryStore, ReadableStore, Target};

/// A store's keys and bytes.
type Contents = BTreeMap<String, Vec<u8>>;

fn contents(store: &MemoryStore) -> Contents {
    store
        .list()
        .unwrap()
        .into_iter()
        .map(|(k, _)| {
            let v = store.get(&k).unwrap().unwrap();
            (k.to_string(), v)
        })
        .collect()
}

/// What a run gave: the store, and the warnings; or the error.
type Outcome = Result<(Contents, Vec<String>), String>;

/// The whole-file compiler, as nczgen was.
fn whole(text: &str) -> Outcome {
    let ast = parse(text).map_err(|e| e.to_string())?;
    let compiled = compile(text, &ast).map_err(|e| e.to_string())?;
    let store = Arc::new(MemoryStore::new());
    let sink = ZarrSink::new(
        Target::in_place(Box::new(Arc::clone(&store))),
        WriteOptions::default(),
    )
    .unwrap();
    copy_all(&compiled, Box::new(sink)).map_err(|e| e.to_string())?;
    let warnings = compiled.warnings.iter().map(ToString::to_string).collect();
    Ok((contents(&store), warnings))
}

/// One write of a slab: the variable, the first row, the rows, and how far the
/// input had been read then.
type Write = (String, u64, u64, u64);

/// A sink that records the slabs written and whether it was finished.
struct Recording {
    inner: Box<dyn DatasetSink>,
    input: Arc<CdlInput>,
    writes: Arc<Mutex<Vec<Write>>>,
    finished: Arc<Mutex<bool>>,
}

impl DatasetSink for Recording {
    fn prepare(&self, dataset: &Dataset, plan: &mut Plan) -> crate::Result<Vec<String>> {
        self.inner.prepare(dataset, plan)
    }
    fn define(&mut self, dataset: &Dataset, plan: &Plan) -> crate::Result<()> {
        self.inner.define(dataset, plan)
    }
    fn slabs(
        &self,
        var: &VarPath,
        budget: u64,
        read_chunks: Option<&[u64]>,
        within: Option<&Region>,
    ) -> crate::Result<Vec<Region>> {
        self.inner.slabs(var, budget, read_chunks, within)
    }
    fn write(&self, var: &VarPath, region: &Region, values: &Values) -> crate::Result<()> {
        let (start, count) = (
            region.start.first().copied().unwrap_or(0),
            region.count.first().copied().unwrap_or(1),
        );
        let read = self
            .input
            .list_read
            .load(std::sync::atomic::Ordering::Relaxed);
        self.writes
            .lock()
            .unwrap()
            .push((var.to_string(), start, count, read));
        self.inner.write(var, region, values)
    }
    fn takes_chunks_of(&self, var: &VarPath, encoding: &Encoding) -> bool {
        self.inner.takes_chunks_of(var, encoding)
    }
    fn write_chunks(
        &self,
        var: &VarPath,
        chunks: Vec<(Vec<u64>, Vec<u8>)>,
        codecs: &[Json],
    ) -> crate::Result<()> {
        self.inner.write_chunks(var, chunks, codecs)
    }
    fn finish(self: Box<Self>) -> crate::Result<()> {
        *self.finished.lock().unwrap() = true;
        self.inner.finish()
    }
}

/// A target writing into memory, recording what it is given.
struct Memory {
    input: Arc<CdlInput>,
    store: Arc<MemoryStore>,
    warnings: Vec<String>,
    writes: Arc<Mutex<Vec<Write>>>,
    finished: Arc<Mutex<bool>>,
    /// Values the compiled dataset held in memory when the sink opened.
    held: usize,
}

impl GenTarget for Memory {
    fn warnings(&mut self, warnings: Vec<CdlError>) {
        self.warnings
            .extend(warnings.iter().map(ToString::to_string));
    }

    fn open(
        &mut self,
        compiled: &mut Compiled,
    ) -> Result<(Box<dyn DatasetSink>, Plan), Box<dyn std::error::Error + Send + Sync>> {
        self.held = compiled.data.values().map(Values::len).sum();
        let sink = ZarrSink::new(
            Target::in_place(Box::new(Arc::clone(&self.store))),
            WriteOptions::default(),
        )?;
        let mut p = plan(compiled, &PlanOptions::default())?;
        sink.prepare(&compiled.dataset, &mut p)?;
        let sink = Recording {
            inner: Box::new(sink),
            input: Arc::clone(&self.input),
            writes: Arc::clone(&self.writes),
            finished: Arc::clone(&self.finished),
        };
        Ok((Box::new(sink), p))
    }
}

fn streamed_with(text: &str, options: &GenOptions) -> (Outcome, Memory) {
    let input = Arc::new(CdlInput::from_bytes(text.as_bytes().to_vec()));
    let mut m = Memory {
        input: Arc::clone(&input),
        store: Arc::default(),
        warnings: Vec::new(),
        writes: Arc::default(),
        finished: Arc::default(),
        held: 0,
    };
    let out = match generate(&input, options, &mut m) {
        Ok(()) => Ok((contents(&m.store), m.warnings.clone())),
        Err(e) => Err(e.to_string()),
    };
    (out, m)
}

/// Every list cut that can be.
fn streamed(text: &str) -> Outcome {
    let options = GenOptions {
        stream_bytes: 1,
        slab_bytes: 64,
        ..GenOptions::default()
    };
    streamed_with(text, &options).0
}

fn same(text: &str) {
    let want = whole(text);
    let got = streamed(text);
    match (&want, &got) {
        (Ok((a, wa)), Ok((b, wb))) => {
            assert_eq!(wa, wb, "warnings\n{text}");
            assert_eq!(
                a.keys().collect::<Vec<_>>(),
                b.keys().collect::<Vec<_>>(),
                "{text}"
            );
            for (k, v) in a {
                assert!(b[k] == *v, "{k} differs\n{text}");
            }
        }
        _ => assert_eq!(want, got, "{text}"),
    }
}

const HEADER: &str = "netcdf t {
dimensions:
\tt = UNLIMITED ;
\tx = 4 ;
\ty = 3 ;
variables:
\tfloat f(x, y) ;
\t\tf:_ChunkSizes = 1, 3 ;
\tdouble d(x) ;
\tshort s(x, y) ;
\t\ts:_FillValue = -9s ;
\t\ts:_ChunkSizes = 2, 2 ;
\tubyte u(y) ;
\tint64 i(t, y) ;
\tint r(t) ;
\tint w(t, t) ;
\tchar c(x, y) ;
\tstring str(y) ;
\tuint n ;
";

fn cdl(data: &str) -> String {
    format!("{HEADER}data:\n{data}\n}}\n")
}

#[test]
fn streamed_data_is_written_as_the_whole_file_compiler_writes_it() {
    let cases = [
        // Several variables, any order, short lists, fill, every kind of constant.
        " d = 1.5, -2.25e3, 0x10L, NaN ;\n f = 1, 2.5, _, 3e-2, -Infinityf, 7.5f ;\n s = 1, 2,\n  3 ; u = 255, 1 ;",
        " u = {1, 2, 3} ; s = {1, 2, 3}, {4, 5, 6}, {7}, {} ;",
        // Integers that wrap, reported; doubles into integers.
        " s = 70000, -70000, 1.9, -1.9, 32768, 12, 13, 14, 15, 16, 17, 18 ; u = 256, 300, -1 ;",
        // Too many values.
        " u = 1, 2, 3, 4, 5 ; d = 1, 2, 3, 4, 5, 6 ;",
        // Unlimited lengths from streamed and kept lists alike.
        " r = 1, 2, 3, 4, 5 ; i = 1, 2, 3, 4, 5, 6, 7 ;",
        " i = 1, 2 ; w = {1, 2}, {3} ; r = 9 ;",
        // Char arrays and strings go the old way, beside streamed lists.
        " c = \"ab\", \"cde\" ; str = \"x\", \"yy\" ; f = 1, 2 ; n = 7 ;",
        // The last data statement of a variable wins.
        " d = 1, 2, 3, 4 ; d = 5 ; u = 1 ; u = 7, 8 ;",
        // An empty list.
        " d = ; f = 1 ;",
    ];
    for data in cases {
        same(&cdl(data));
    }
}

#[test]
fn groups_and_absolute_paths_stream_alike() {
    let text = "netcdf g {
dimensions:
\tt = UNLIMITED ;
\tx = 3 ;
variables:
\tint a(t) ;
\tfloat b(x) ;
data:
 a = 1, 2 ;
 b = 0.5, 1.5, 2.5 ;
group: sub {
  dimensions:
\ty = 2 ;
  variables:
\tdouble c(x, y) ;
\t\tc:_ChunkSizes = 1, 2 ;
\tint e(t) ;
  data:
   c = 1, 2, 3, 4, 5 ;
   /a = 7, 8, 9, 10 ;
   e = 4 ;
  } // group sub
\t:after = \"group\" ;
}
";
    same(text);
}

#[test]
fn errors_are_the_whole_file_compilers() {
    let cases = [
        // Syntax errors in streamed lists.
        " d = 1, 2\n 3 ;",
        " d = 1, , 2 ;",
        " f = {1, 2 ;",
        " d = 1, 2 }\n",
        " d = 1.5.5 ;",
        " d = 1, 2x ;",
        " d = 1, float ;",
        // A syntax error in a streamed list before one in the rest of the file.
        " d = 1, 2 3 ; f = 1 2 ;",
        " d = 1 2 ; u = 1 ; $",
        // A semantic error in the header and a syntax error in a list: the syntax.
        " nothere = 1, 2 ; d = 1 2 ;",
        // Conversion errors in streamed lists, and before a later syntax error.
        " d = 1, NIL ;",
        " d = 1, e ; f = 2 ;",
        " d = 1, e ; f = 2 3 ;",
        " u = 1 ; d = 1, \"x\" ;",
        " s = 1e40, 2 ; i = 1 ; u = 1, 2, NIL ;",
    ];
    for data in cases {
        let text = cdl(data);
        let want = whole(&text);
        assert!(want.is_err(), "{data}");
        assert_eq!(want, streamed(&text), "{text}");
    }
    // An undefined dimension before a streamed list.
    let text = "netcdf e {\nvariables:\n\tint v(nodim) ;\ndata:\n v = 1, 2 ;\n}\n";
    assert_eq!(whole(text), streamed(text));
    // A list the file ends in.
    let text = "netcdf e {\ndimensions:\n\tx = 2 ;\nvariables:\n\tint v(x) ;\ndata:\n v = 1, 2";
    assert_eq!(whole(text), streamed(text));
}

#[test]
fn a_failed_stream_finishes_nothing() {
    let text = cdl(" f = 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 ;\n d = 1, 2 3 ;");
    let options = GenOptions {
        stream_bytes: 1,
        slab_bytes: 12,
        ..GenOptions::default()
    };
    let (out, m) = streamed_with(&text, &options);
    let err = out.unwrap_err();
    assert!(err.ends_with(": expected ',' or ';', found '3'"), "{err}");
    assert_eq!(Err(err), whole(&text));
    assert!(!*m.finished.lock().unwrap());
}

/// Streaming holds a few slabs of whole chunk rows, never the variable: slabs reach
/// the sink in order, while the list is still being read (the first well before the
/// end of the file), and the compiled dataset holds none of the streamed values.
#[test]
fn streaming_hands_on_chunk_rows_as_they_fill() {
    let values: Vec<String> = (0..100 * 20 * 30).map(|k| format!("{k}.5")).collect();
    let text = format!(
        "netcdf big {{\ndimensions:\n\tt = 100 ;\n\ty = 20 ;\n\tx = 30 ;\nvariables:\n\tfloat v(t, y, x) ;\n\t\tv:_ChunkSizes = 10, 20, 15 ;\n\tint small(y) ;\ndata:\n v = {} ;\n small = 1, 2 ;\n}}\n",
        values.join(", ")
    );
    let options = GenOptions {
        stream_bytes: 1 << 10,
        // Less than a chunk row: one row of chunks per slab.
        slab_bytes: 1000,
        ..GenOptions::default()
    };
    let (out, m) = streamed_with(&text, &options);
    let (store, _) = out.unwrap();
    assert_eq!(store, whole(&text).unwrap().0);
    let writes = m.writes.lock().unwrap().clone();
    let v: Vec<(u64, u64)> = writes
        .iter()
        .filter(|w| w.0 == "/v")
        .map(|w| (w.1, w.2))
        .collect();
    let rows: Vec<(u64, u64)> = (0..10).map(|k| (k * 10, 10)).collect();
    assert_eq!(v, rows);
    // Only the small list was held in memory.
    assert_eq!(m.held, 20);
    // With a larger budget, slabs are several chunk rows, still never the variable.
    let options = GenOptions {
        slab_bytes: 100_000,
        ..options
    };
    let (out, m) = streamed_with(&text, &options);
    assert!(out.is_ok());
    let v: Vec<(u64, u64)> = m
        .writes
        .lock()
        .unwrap()
        .iter()
        .filter(|w| w.0 == "/v")
        .map(|w| (w.1, w.2))
        .collect();
    assert_eq!(v, [(0, 40), (40, 40), (80, 20)]);
    // A list longer than what is read at a time: its first slabs are written before
    // the half of it is read.
    let values = vec!["7"; 3_000_000].join(", ");
    let text = format!(
        "netcdf big {{\ndimensions:\n\tt = 1000 ;\n\tx = 3000 ;\nvariables:\n\tbyte v(t, x) ;\n\t\tv:_ChunkSizes = 10, 3000 ;\ndata:\n v = {values} ;\n}}\n"
    );
    let (out, m) = streamed_with(&text, &options);
    assert!(out.is_ok());
    let writes = m.writes.lock().unwrap().clone();
    assert_eq!(writes.len(), 34);
    let first = &writes[0];
    assert!(
        first.3 < text.len() as u64 / 2,
        "{first:?} of {}",
        text.len()
    );
}

/// Lists long enough to be read in parallel runs, with values that are not plain
/// decimals, integers that wrap and too many values here and there.
#[test]
fn long_lists_read_in_parallel_alike() {
    let n = 300_000;
    let ints: Vec<String> = (0..n)
        .map(|k| match k {
            1000 => "_".to_string(),
            150_000 => "70000".to_string(),
            250_001 => "0x7fs".to_string(),
            k => (k % 30_000).to_string(),
        })
        .collect();
    let doubles: Vec<String> = (0..n)
        .map(|k| match k {
            200_000 => "NaN".to_string(),
            k => format!("{}.{:03}e{}", k % 997, k % 1000, k % 7),
        })
        .collect();
    for (extra, room) in [("", n), (", 1, 2, 3", n)] {
        let text = format!(
            "netcdf p {{\ndimensions:\n\tn = {room} ;\nvariables:\n\tshort s(n) ;\n\t\ts:_ChunkSizes = 7000 ;\n\tdouble d(n) ;\ndata:\n s = {}{extra} ;\n d = {} ;\n}}\n",
            ints.join(", "),
            doubles.join(",\n ")
        );
        assert!(text.len() > 3 << 20);
        let options = GenOptions {
            stream_bytes: 1,
            ..GenOptions::default()
        };
        assert_eq!(streamed_with(&text, &options).0, whole(&text));
    }
}

#[test]
fn header_only_reads_the_data_and_writes_none() {
    let text = cdl(" d = 1, 2, 3, 4 ; u = 300 ;");
    let options = GenOptions {
        stream_bytes: 1,
        header_only: true,
        ..GenOptions::default()
    };
    let (out, m) = streamed_with(&text, &options);
    let (_, warnings) = out.unwrap();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(m.writes.lock().unwrap().is_empty());
    let text = cdl(" d = 1, 2 3 ;");
    assert!(streamed_with(&text, &options).0.is_err());
}

#[test]
fn gen_errors_keep_their_kinds_in_the_crates_error() {
    let e: crate::Error = GenError::Write(crate::Error::NoSuchVar { var: "/x".into() }).into();
    assert!(matches!(e, crate::Error::NoSuchVar { .. }));
    let e: crate::Error = GenError::Read(std::io::Error::other("gone")).into();
    assert!(
        matches!(&e, crate::Error::Layer { layer: "generate", source } if source.downcast_ref::<GenError>().is_some())
    );
    assert_eq!(e.to_string(), "reading the CDL: gone");
}
