//! zmapdump: look inside an NCZarr/Zarr store below the netCDF level: keys, objects,
//! chunks, and which metadata generation wrote it. The tool to reach for when a
//! dataset will not open.

use std::io::{self, BufWriter, Write};
use std::process::ExitCode;

use anyhow::{bail, Context as _};
use clap::{Parser, Subcommand};
use nczarr::formats::FileKind;
use nczarr::json;
use nczarr::model::{Dataset, Var, VarPath};
use nczarr::place::open_read;
use nczarr::store::StoreKey;
use nczarr::url::DatasetUrl;
use nczarr_tools::cli;

/// Inspect the raw keys and objects of a dataset: NCZarr, Zarr v2 and v3 stores (a
/// directory, a .zip, S3, GCS, Azure, a web server), and the chunks of netCDF files.
/// Shell completions and a man page: --generate completion=bash|zsh|fish|elvish|powershell,
/// --generate man.
#[derive(Parser, Debug)]
#[command(name = "zmapdump", version)]
struct Args {
    #[command(subcommand)]
    command: Command,
    #[command(flatten)]
    read: cli::ReadArgs,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// List every key with its size in bytes.
    List {
        /// The dataset (path, .zip, or URL).
        dataset: String,
    },
    /// List the names directly under PREFIX that lead to content (netcdf-c's zmap search).
    Search {
        /// The dataset.
        dataset: String,
        /// A key prefix such as `g1/v`; the root if omitted.
        #[arg(default_value = "")]
        prefix: String,
    },
    /// Print one object: JSON pretty-printed, anything else as a hex dump.
    Object {
        /// The dataset.
        dataset: String,
        /// The key, e.g. `v/.zarray` or `v/0.0`.
        key: String,
    },
    /// Decode one chunk of a variable and print its values, one row per line.
    Chunk {
        /// The dataset.
        dataset: String,
        /// The variable, group-qualified if needed (`g/v`).
        var: String,
        /// The chunk index, e.g. `0.1`, `0/1` or `0,1` (`0` for a scalar).
        index: String,
    },
    /// Say which format the dataset is: the NCZarr metadata generation, Zarr v2 or v3, or
    /// the netCDF file version.
    Format {
        /// The dataset.
        dataset: String,
    },
    /// An Icechunk repository's snapshots, newest first, one a line: id, time (UTC),
    /// message, as `git log --oneline`. From the `main` branch's tip, or the version
    /// the name chooses (`#branch=dev`, `#tag=v1`, `#snapshot=ID`).
    History {
        /// The repository.
        dataset: String,
    },
    /// An Icechunk repository's branches and tags, one a line: kind, name, snapshot id.
    Refs {
        /// The repository.
        dataset: String,
    },
}

/// The Icechunk repository `name` names (with the version its fragment chooses).
fn open_repository(
    name: &str,
) -> anyhow::Result<(
    nczarr::place::icechunk::Repo,
    nczarr::place::icechunk::Version,
)> {
    use nczarr::place::icechunk::{open_repository, Version};
    let url = DatasetUrl::parse(name).with_context(|| name.to_string())?;
    let version = Version::from_url(&url).with_context(|| name.to_string())?;
    let repo =
        open_repository(&url, cli::trace_sink("zmapdump").as_ref()).map_err(|e| match e {
            nczarr::store::StoreError::NotFound { .. } if url.path().is_none() => {
                anyhow::anyhow!("{name}: not an Icechunk repository (no repository object there)")
            }
            e => anyhow::Error::new(e).context(name.to_string()),
        })?;
    Ok((repo, version))
}

fn open_store(
    name: &str,
    read: &cli::ReadArgs,
) -> anyhow::Result<(DatasetUrl, nczarr::place::OpenedStore)> {
    let url = DatasetUrl::parse(name).with_context(|| name.to_string())?;
    if let Some(path) = url.path().filter(|p| p.is_file()) {
        let kind = nczarr::formats::sniff_file(path).with_context(|| name.to_string())?;
        let what = match kind {
            Some(FileKind::Classic) => "netCDF classic-format",
            Some(FileKind::Hdf5) => "netCDF-4 (HDF5)",
            None => "",
        };
        if !what.is_empty() {
            anyhow::bail!(
                "{name}: a {what} file has no keys or objects; `zmapdump format` describes it, \
                 `nczdump` prints it"
            );
        }
    }
    if let Some(protocol) = url.dap() {
        let documents = match protocol {
            nczarr::url::DapProtocol::Dap4 => "DMR",
            _ => "DDS and DAS",
        };
        anyhow::bail!(
            "{name}: an OPeNDAP dataset has no keys or objects; `zmapdump format` prints the \
             {documents} the server answered, `nczdump` the dataset"
        );
    }
    if url.modes.has("bytes") {
        anyhow::bail!(
            "{name}: a remote file read by byte ranges has no keys or objects; `zmapdump format` \
             describes it, `nczdump` prints it"
        );
    }
    let store = open_read(&url, cli::trace_sink("zmapdump"), read.refs())
        .with_context(|| name.to_string())?;
    Ok((url, store))
}

fn hex_dump(out: &mut dyn Write, bytes: &[u8]) -> io::Result<()> {
    for (i, line) in bytes.chunks(16).enumerate() {
        write!(out, "{:08x}  ", i * 16)?;
        for j in 0..16 {
            match line.get(j) {
                Some(b) => write!(out, "{b:02x} ")?,
                None => write!(out, "   ")?,
            }
            if j == 7 {
                write!(out, " ")?;
            }
        }
        let ascii: String = line
            .iter()
            .map(|&b| {
                if (0x20..0x7f).contains(&b) {
                    b as char
                } else {
                    '.'
                }
            })
            .collect();
        writeln!(out, " |{ascii}|")?;
    }
    writeln!(out, "{:08x}", bytes.len())
}

/// The variable `spec` names, by ncdump's `-v` rule (`v` in any group, the root's
/// first; `g/v` in a group whose name ends with `g`; `/g/v` in `/g` only).
fn find_var<'a>(ds: &'a Dataset, spec: &str) -> Option<(VarPath, &'a Var)> {
    ds.vars()
        .into_iter()
        .find(|(p, _)| nczarr::model::select::var_matches(spec, &p.group, &p.name))
}

fn run(args: Args) -> anyhow::Result<ExitCode> {
    let mut out = BufWriter::new(io::stdout().lock());
    match args.command {
        Command::List { dataset } => {
            let (_, s) = open_store(&dataset, &args.read)?;
            for (key, size) in s.store.list().with_context(|| dataset.clone())? {
                writeln!(out, "{size:>12}  {key}")?;
            }
        }
        Command::Search { dataset, prefix } => {
            let (_, s) = open_store(&dataset, &args.read)?;
            let key = StoreKey::new(&prefix).with_context(|| dataset.clone())?;
            for name in s.store.search(&key).with_context(|| dataset.clone())? {
                writeln!(out, "{name}")?;
            }
        }
        Command::Object { dataset, key } => {
            let (_, s) = open_store(&dataset, &args.read)?;
            let k = StoreKey::new(&key).with_context(|| dataset.clone())?;
            let Some(bytes) = s.store.get(&k).with_context(|| dataset.clone())? else {
                bail!("{dataset}: key '{key}' does not exist");
            };
            let looks_json = k.name().starts_with('.')
                || bytes.first().is_some_and(|b| *b == b'{' || *b == b'[');
            match json::parse(&bytes) {
                Ok(doc) if looks_json => writeln!(out, "{}", doc.to_pretty())?,
                Err(e) if k.name().starts_with(".z") => {
                    bail!("{dataset}: key '{key}': not valid JSON: {e}");
                }
                _ => hex_dump(&mut out, &bytes)?,
            }
        }
        Command::Chunk {
            dataset,
            var,
            index,
        } => {
            let opened = cli::open_dataset("zmapdump", &dataset, &args.read)?;
            let source = opened.source.as_ref();
            let (path, v) = find_var(source.dataset(), &var)
                .ok_or_else(|| anyhow::anyhow!("{dataset}: no variable '{var}'"))?;
            let idx: Vec<u64> = index
                .split(['.', '/', ','])
                .map(|p| p.trim().parse::<u64>())
                .collect::<Result<_, _>>()
                .with_context(|| format!("chunk index '{index}' is not a list of integers"))?;
            let chunk = source.chunk(&path, &idx).with_context(|| dataset.clone())?;
            writeln!(out, "key: {}", chunk.key)?;
            writeln!(out, "variable: {} {}", v.nc_type, var)?;
            writeln!(out, "dtype: {}", chunk.stored_type)?;
            writeln!(out, "chunk shape: {:?}", chunk.chunk_shape)?;
            let chain: Vec<String> = chunk.codecs.iter().map(json::Json::to_text).collect();
            writeln!(out, "codecs: [{}]", chain.join(", "))?;
            match &chunk.values {
                None => {
                    let fill = chunk.fill.as_ref().map_or_else(
                        || "none (no fill: reads as zeros)".to_string(),
                        |f| nczarr::cdl::print::value_text(f, 0),
                    );
                    writeln!(out, "not stored: reads as the fill value {fill}")?;
                }
                Some(values) => {
                    let row = chunk.chunk_shape.last().copied().unwrap_or(1).max(1) as usize;
                    writeln!(out, "values:")?;
                    for start in (0..values.len()).step_by(row) {
                        let texts: Vec<String> = (start..(start + row).min(values.len()))
                            .map(|i| nczarr::cdl::print::value_text(values, i))
                            .collect();
                        writeln!(out, "  {}", texts.join(", "))?;
                    }
                }
            }
        }
        Command::History { dataset } => {
            let (repo, version) = open_repository(&dataset)?;
            let lines = nczarr::place::icechunk::history(&repo, &version)
                .with_context(|| dataset.clone())?;
            for l in lines {
                writeln!(out, "{} {} {}", l.id, l.time, cli::one_line(&l.message))?;
            }
        }
        Command::Refs { dataset } => {
            let (repo, _) = open_repository(&dataset)?;
            let refs =
                nczarr::place::icechunk::references(&repo).with_context(|| dataset.clone())?;
            for r in refs {
                writeln!(out, "{:<6} {} {}", r.kind, r.name, r.snapshot)?;
            }
        }
        Command::Format { dataset } => {
            let opened = cli::open_dataset("zmapdump", &dataset, &args.read)?;
            let source = opened.source.as_ref();
            let format = source.format();
            writeln!(out, "{}", format.detail)?;
            if let Some(store) = source.store() {
                writeln!(
                    out,
                    "storage: {:?} at {}",
                    opened.url.storage,
                    store.location()
                )?;
            }
            if let Some(p) = &format.nc_properties {
                writeln!(out, "_NCProperties: {p}")?;
            }
            for fact in &format.facts {
                writeln!(out, "{fact}")?;
            }
        }
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

/// The program (also run as a module of the wheel's one program, crates/wheel).
pub(crate) fn main() -> ExitCode {
    let args: Args = cli::about::parse("zmapdump");
    cli::run("zmapdump", || run(args))
}
