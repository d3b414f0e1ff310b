//! A copy run through the library's [`CopyJob`], as nczcopy runs it but with no code of
//! nczcopy's: whole, in parts (start, each part, finish), its cost, and its refusals.

use std::path::Path;

use nczarr::cdl::{compile, parse};
use nczarr::chunking::Region;
use nczarr::copy::{copy_all, finish_parts, ChunkSpec, MemoryBudget, Part, StorageChanges};
use nczarr::jobs::{CopyJob, CopyRun};
use nczarr::model::{Values, VarPath};
use nczarr::{create, open, CreateOptions, Error, OpenOptions};

const CDL: &str = r#"netcdf t {
dimensions:
	t = 6 ;
	x = 4 ;
variables:
	int v(t, x) ;
		v:_ChunkSizes = 1, 4 ;
	float w(x) ;
data:
 v = 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23 ;
 w = 0.5, 1.5, 2.5, 3.5 ;
}
"#;

/// The input dataset, written from `CDL` to `dir/in.zarr`; its name.
fn input(dir: &Path) -> String {
    let name = dir.join("in.zarr").display().to_string();
    let compiled = compile(CDL, &parse(CDL).unwrap()).unwrap();
    copy_all(&compiled, create(&name, &CreateOptions::default()).unwrap()).unwrap();
    name
}

/// `-c SPEC`, for variables of any size (`-M 1`: nccopy stores small ones whole).
fn chunks(spec: &str) -> ChunkSpec {
    let mut chunks = ChunkSpec::parse(&[spec]).unwrap();
    chunks.min_chunk_bytes = 1;
    chunks
}

fn job(input: &str, output: &str, run: CopyRun) -> CopyJob {
    CopyJob {
        input: input.to_string(),
        output: output.to_string(),
        selection: Default::default(),
        changes: StorageChanges {
            chunks: chunks("t/3"),
            ..Default::default()
        },
        create: CreateOptions::default(),
        budget: MemoryBudget::new(64 << 20),
        skip_unreadable: false,
        run,
        refs: Default::default(),
    }
}

fn run(job: &CopyJob) {
    let opened = job.open(None).unwrap();
    let prepared = job.prepare(opened.source.as_ref()).unwrap();
    assert!(prepared.warnings.is_empty(), "{:?}", prepared.warnings);
    let started = job.create(prepared, &mut |w| panic!("{w:?}")).unwrap();
    started.write(None).unwrap();
}

fn values(name: &str, var: &str, shape: &[u64]) -> Values {
    let opened = open(name, &OpenOptions::default()).unwrap();
    opened
        .source
        .read(&VarPath::new(&[], var), &Region::whole(shape))
        .unwrap()
}

#[test]
fn a_copy_in_parts_through_the_library_equals_the_whole_copy() {
    let dir = tempfile::tempdir().unwrap();
    let input = input(dir.path());
    let whole = dir.path().join("whole.zarr").display().to_string();
    run(&job(&input, &whole, CopyRun::Whole));
    let parted = dir.path().join("parts.zarr").display().to_string();
    run(&job(&input, &parted, CopyRun::Start));
    for index in [2, 1] {
        run(&job(
            &input,
            &parted,
            CopyRun::Part(Part { index, count: 2 }),
        ));
    }
    finish_parts(&parted, &Default::default()).unwrap();
    for out in [&whole, &parted] {
        assert_eq!(values(out, "v", &[6, 4]), values(&input, "v", &[6, 4]));
        assert_eq!(values(out, "w", &[4]), values(&input, "w", &[4]));
        let opened = open(out, &OpenOptions::default()).unwrap();
        let enc = opened.source.encoding(&VarPath::new(&[], "v")).unwrap();
        assert_eq!(enc.chunk_shape(), Some(&[3u64, 4][..]));
    }
}

#[test]
fn a_part_of_another_copy_is_refused_and_the_cost_is_said_before_writing() {
    let dir = tempfile::tempdir().unwrap();
    let input = input(dir.path());
    let out = dir.path().join("out.zarr").display().to_string();
    run(&job(&input, &out, CopyRun::Start));
    // Other chunks: another plan than the one started.
    let mut other = job(&input, &out, CopyRun::Part(Part { index: 1, count: 2 }));
    other.changes.chunks = chunks("t/2");
    let opened = other.open(None).unwrap();
    let prepared = other.prepare(opened.source.as_ref()).unwrap();
    let cost = prepared.cost(other.budget);
    assert_eq!(cost.bytes, 6 * 4 * 4 + 4 * 4);
    assert_eq!(cost.vars.len(), 2);
    let err = other.create(prepared, &mut |_| {}).err().unwrap();
    assert!(matches!(err, Error::Parts(_)), "{err:?}");
}

#[test]
fn a_copy_onto_itself_or_of_a_missing_variable_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let input = input(dir.path());
    let err = job(&input, &input, CopyRun::Whole).check().unwrap_err();
    assert!(
        err.to_string().contains("the same dataset as the input"),
        "{err}"
    );
    let mut missing = job(&input, &format!("{input}.out"), CopyRun::Whole);
    missing.selection.vars = vec!["nothing".into()];
    let opened = missing.open(None).unwrap();
    let err = missing.prepare(opened.source.as_ref()).err().unwrap();
    assert!(matches!(err, Error::Selection(_)), "{err:?}");
}
