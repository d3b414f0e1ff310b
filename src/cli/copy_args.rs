//! nczcopy's groups of options, each with its conversion into the library's types
//! (`docs/nczcopy.md`): storage changes, what is taken, how inputs are joined, what
//! `-k kerchunk` does, and nccopy's options that are accepted for its scripts.

use std::io;

use anyhow::{bail, Context as _};
use clap::Args;
use nczarr::copy::{parse_codec, ChunkSpec, Compression, FilterSpec, Selection, StorageChanges};
use nczarr::jobs::JoinOptions;
use nczarr::jobs::RefOptions;
use nczarr::json::Json;

use super::{comma_list, parse_size};

/// nczcopy's options for an Icechunk output: the snapshot's message and tag, and
/// references instead of values.
#[derive(Args, Debug, Clone, Default)]
pub struct IcechunkArgs {
    /// The message of the snapshot an Icechunk output gets (default: the command
    /// line). `-m TEXT` says the same when the output is an Icechunk repository (else
    /// `-m` is nccopy's buffer size, accepted and ignored).
    #[arg(long, value_name = "TEXT")]
    pub message: Option<String>,
    /// Tag the snapshot an Icechunk output gets (an existing tag is refused before
    /// anything is written: tags are never moved).
    #[arg(long, value_name = "NAME")]
    pub tag: Option<String>,
    /// With -k icechunk: commit references to the netCDF inputs' chunks (what -k
    /// kerchunk writes as JSON) instead of copying their values; the repository
    /// declares the files' directories (buckets, servers; --url-prefix) as its virtual
    /// chunk containers.
    #[arg(long = "virtual")]
    pub virtual_refs: bool,
}

impl IcechunkArgs {
    /// The commit of an Icechunk output: `--message` (or nccopy's `-m` value `buffer`
    /// when the output is a `repository`), else the command line; `--tag`.
    pub fn commit(
        &self,
        buffer: Option<&str>,
        repository: bool,
    ) -> nczarr::place::icechunk::CommitInfo {
        let message = self
            .message
            .clone()
            .or_else(|| buffer.filter(|_| repository).map(String::from))
            .unwrap_or_else(super::command_line);
        nczarr::place::icechunk::CommitInfo {
            message,
            tag: self.tag.clone(),
            ..Default::default()
        }
    }
}

/// nccopy's storage changes: deflate, shuffle, chunk shapes, filters, codecs.
#[derive(Args, Debug, Clone, Default)]
pub struct StorageArgs {
    /// Deflate level 1-9 for every variable; 0 removes every filter.
    #[arg(short = 'd', value_name = "N")]
    pub deflate: Option<u32>,
    /// Shuffle before the compressor -d or --codec adds.
    #[arg(short = 's')]
    pub shuffle: bool,
    /// Chunk shapes, nccopy's forms: dim/len,dim2/len2 (dim/ is the whole dimension;
    /// unnamed dimensions keep the input's chunking), var:len,len, var: (one chunk).
    /// Repeatable.
    #[arg(short = 'c', value_name = "SPEC")]
    pub chunks: Vec<String>,
    /// Balanced default chunk shapes of about BYTES (default 4 MiB) for every variable
    /// -c does not name: `auto` or `auto=BYTES`.
    #[arg(long = "chunks", value_name = "auto[=BYTES]")]
    pub auto_chunks: Option<String>,
    /// Filters, nccopy's form VARS,FILTERS: VARS is * or names joined by & or |, FILTERS
    /// is id,params|id,params (HDF5 ids) or none. Repeatable.
    #[arg(short = 'F', value_name = "SPEC")]
    pub filters: Vec<String>,
    /// A numcodecs codec for every variable: a compressor (zstd, zstd:level=5,
    /// blosc:cname=lz4,clevel=5,shuffle=1, lz4, zlib:level=4, gzip, bz2) replaces the
    /// variable's; a filter goes before it (bitround:keepbits=N and quantize:digits=N,
    /// lossy, on float variables; fixedscaleoffset, astype, delta, packbits). Or its
    /// JSON. Repeatable, in order.
    #[arg(long, value_name = "CODEC")]
    pub codec: Vec<String>,
}

/// What a copy takes of its input: variables, groups, a subset, unlimited dimensions made fixed.
#[derive(Args, Debug, Clone, Default)]
pub struct SelectArgs {
    /// Unlimited dimensions become fixed.
    #[arg(short = 'u')]
    pub fix_unlimited: bool,
    /// A subset, as ncks -d: `DIM,MIN[,MAX[,STRIDE]]` (indices; coordinate values with a
    /// decimal point; dates on a time axis), repeatable. (-d is the deflate level, as
    /// nccopy's.)
    #[arg(long = "dim", value_name = "DIM,MIN[,MAX[,STRIDE]]")]
    pub dims: Vec<String>,
    /// Data only for these variables (comma-separated); definitions for all.
    #[arg(short = 'v', value_name = "VAR,...")]
    pub data_vars: Option<String>,
    /// Only these variables (comma-separated), with their coordinate variables and the
    /// variables they name by CF's attributes (coordinates, bounds, climatology,
    /// grid_mapping, ancillary_variables, cell_measures, formula_terms), as ncks -v.
    #[arg(short = 'V', value_name = "VAR,...")]
    pub only_vars: Option<String>,
    /// With -V: leave out the coordinate variables and CF-named variables -V would
    /// bring (ncks's -C); attributes naming them lose those names.
    #[arg(short = 'C')]
    pub no_coords: bool,
    /// Every variable but these (comma-separated), as NCO's -x -v; attributes naming
    /// them lose those names.
    #[arg(long, value_name = "VAR,...", conflicts_with_all = ["data_vars", "only_vars"])]
    pub exclude: Option<String>,
    /// Data only for variables in these groups (comma-separated); all groups' definitions.
    #[arg(short = 'g', value_name = "GROUP,...")]
    pub data_groups: Option<String>,
    /// Only these groups (comma-separated), and the groups that contain them.
    #[arg(short = 'G', value_name = "GROUP,...")]
    pub only_groups: Option<String>,
}

/// nccopy's buffer and cache options (accepted, no effect), and -M.
#[derive(Args, Debug, Clone, Default)]
pub struct NccopyArgs {
    /// nccopy's copy buffer size (accepted; memory is bounded by --memory).
    #[arg(short = 'm', value_name = "N", hide_short_help = true)]
    pub buffer: Option<String>,
    /// nccopy's chunk cache size (accepted; no effect).
    #[arg(short = 'h', value_name = "N", hide_short_help = true)]
    pub cache: Option<String>,
    /// nccopy's chunk cache elements (accepted; no effect).
    #[arg(short = 'e', value_name = "N", hide_short_help = true)]
    pub cache_elems: Option<String>,
    /// With -c dim/len: a variable with no unlimited dimension whose chunks would be
    /// smaller than N bytes (default 8192, as nccopy) is stored as one chunk.
    #[arg(short = 'M', value_name = "N")]
    pub min_chunk: Option<String>,
    /// nccopy's diskless read (accepted; no effect).
    #[arg(short = 'r', hide_short_help = true)]
    pub diskless_read: bool,
    /// nccopy's diskless write (accepted; no effect).
    #[arg(short = 'w', hide_short_help = true)]
    pub diskless_write: bool,
    /// nccopy's experimental caches (accepted; no effect).
    #[arg(short = 'x', hide_short_help = true)]
    pub experimental: bool,
    /// Log level (accepted; use NCTRACING=1 for tracing).
    #[arg(short = 'L', value_name = "N", hide_short_help = true)]
    pub log_level: Option<String>,
}

/// How several inputs are joined, and where more of their names come from.
#[derive(Args, Debug, Clone, Default)]
pub struct JoinArgs {
    /// Join several inputs along this dimension (a name or a path; default: the record
    /// dimension), as ncrcat does.
    #[arg(long = "concat", value_name = "DIM")]
    pub concat: Option<String>,
    /// Join the inputs in the order of their first coordinate value along the joined
    /// dimension (dates compared as dates), not the order given.
    #[arg(long = "sort")]
    pub sort: bool,
    /// Join inputs even where the joined coordinate jumps between two of them by more
    /// than its regular step.
    #[arg(long = "allow-gaps")]
    pub allow_gaps: bool,
    /// More inputs, one name a line (`-` for stdin), after those given as arguments
    /// (with it, OUTPUT may be the only name given).
    #[arg(long = "inputs-from", value_name = "FILE")]
    pub inputs_from: Option<String>,
    /// `--check first`: take the variables without the joined dimension from the first
    /// input without reading the others' (default: all are read and must be equal).
    #[arg(long = "check", value_name = "first|all")]
    pub check: Option<String>,
}

/// What `-k kerchunk` inlines, splits, and how it names the files.
#[derive(Args, Debug, Clone, Default)]
pub struct KerchunkArgs {
    /// With -k kerchunk: name the file in the references as PREFIX/NAME (index a local
    /// copy, serve it from s3://bucket/dir or https://host/dir).
    #[arg(long, value_name = "PREFIX")]
    pub url_prefix: Option<String>,
    /// With -k kerchunk: inline (as values) every variable whose chunks cannot be
    /// referenced, however large, instead of refusing it.
    #[arg(long)]
    pub inline_all: bool,
    /// With -k kerchunk: variables of at most SIZE bytes are inlined as values, not
    /// referenced (kerchunk's inline_threshold; default 500).
    #[arg(long, value_name = "SIZE")]
    pub inline_threshold: Option<String>,
    /// With -k kerchunk: a variable whose chunks cannot be referenced is inlined as
    /// values up to SIZE bytes, refused over it (default 16M; 0 inlines none).
    #[arg(long, value_name = "SIZE")]
    pub inline_limit: Option<String>,
    /// With -k kerchunk: a contiguous variable larger than SIZE is referenced in pieces
    /// of at most SIZE along its first dimension (default 16M; 0 never cuts).
    #[arg(long, value_name = "SIZE")]
    pub split: Option<String>,
}

impl SelectArgs {
    /// `-v`/`-V`, `-C`, `--exclude`, `-g`/`-G` and `-u` as a selection.
    ///
    /// # Errors
    /// Options that cannot be given together.
    pub fn selection(&self) -> anyhow::Result<Selection> {
        if self.data_vars.is_some() && self.only_vars.is_some() {
            bail!("-v and -V cannot be given together");
        }
        if self.no_coords && self.only_vars.is_none() {
            // With -v every variable is defined anyway: -C would only leave the
            // coordinate variables without values (nccopy's flaw), and alone it does
            // nothing.
            bail!("-C leaves out what -V brings along (coordinate variables and the variables named by CF's attributes): give it with -V");
        }
        if self.data_groups.is_some() && self.only_groups.is_some() {
            bail!("-g and -G cannot be given together");
        }
        Ok(Selection {
            vars: comma_list(if self.only_vars.is_some() {
                &self.only_vars
            } else {
                &self.data_vars
            }),
            vars_data_only: self.data_vars.is_some(),
            groups: comma_list(if self.only_groups.is_some() {
                &self.only_groups
            } else {
                &self.data_groups
            }),
            groups_data_only: self.data_groups.is_some(),
            fix_unlimited: self.fix_unlimited,
            no_coords: self.no_coords,
            exclude: comma_list(&self.exclude),
        })
    }
}

impl StorageArgs {
    /// `-c`, `--chunks`, `-d`, `-s`, `-F` and `--codec` as storage changes, with `-M`
    /// (`min_chunk`).
    ///
    /// # Errors
    /// A value that does not parse, `-d` and a compressing `--codec` together.
    pub fn changes(&self, min_chunk: Option<&str>) -> anyhow::Result<StorageChanges> {
        let codecs: Vec<Json> = self
            .codec
            .iter()
            .map(|c| parse_codec(c))
            .collect::<Result<_, _>>()?;
        if let Some(d) = self.deflate {
            if d > 9 {
                bail!("invalid deflation level: {d} (0 to 9)");
            }
            if codecs.iter().any(nczarr::copy::filters::is_compressor) {
                bail!(
                    "-d {d} and --codec both choose the compressor: give one (--codec zlib:level={d} is -d {d})"
                );
            }
        }
        let auto_chunks = match self.auto_chunks.as_deref() {
            None => None,
            Some("auto") => Some(nczarr::chunking::DEFAULT_CHUNK_BYTES),
            Some(s) => match s.strip_prefix("auto=") {
                Some(bytes) => Some(parse_size(bytes)?.max(1)),
                None => bail!("--chunks takes auto or auto=BYTES, not '{s}'"),
            },
        };
        let mut chunks = ChunkSpec::parse(&self.chunks)?;
        if let Some(m) = min_chunk {
            chunks.min_chunk_bytes = parse_size(m).context("-M")?;
        }
        Ok(StorageChanges {
            chunks,
            auto_chunks,
            compression: Compression {
                deflate: self.deflate,
                shuffle: self.shuffle,
                filters: self
                    .filters
                    .iter()
                    .map(|f| FilterSpec::parse(f))
                    .collect::<Result<_, _>>()?,
                codec: codecs,
            },
        })
    }
}

impl JoinArgs {
    /// How inputs are joined: `--concat`, `--check`, `--sort`, `--allow-gaps`; the
    /// headers only for a copy's first run in parts, the first input the dataset
    /// grown when appending.
    ///
    /// # Errors
    /// `--check` neither `first` nor `all`.
    pub fn options(&self, headers_only: bool, appending: bool) -> anyhow::Result<JoinOptions> {
        let trust_first = match self.check.as_deref() {
            None | Some("all") => false,
            Some("first") => true,
            Some(other) => bail!("--check {other}: first or all"),
        };
        Ok(JoinOptions {
            dim: self.concat.clone(),
            trust_first,
            sort: self.sort,
            allow_gaps: self.allow_gaps,
            headers_only,
            appending,
        })
    }

    /// `given` (the names on the command line), then `--inputs-from`'s (read once: it
    /// may be stdin).
    ///
    /// # Errors
    /// The list cannot be read or names nothing; no input at all.
    pub fn inputs(&self, mut given: Vec<String>) -> anyhow::Result<Vec<String>> {
        if let Some(file) = &self.inputs_from {
            let text = if file == "-" {
                io::read_to_string(io::stdin()).context("--inputs-from -")?
            } else {
                std::fs::read_to_string(file).with_context(|| format!("--inputs-from {file}"))?
            };
            given.extend(
                text.lines()
                    .map(str::trim)
                    .filter(|l| !l.is_empty())
                    .map(String::from),
            );
            if given.is_empty() {
                bail!("--inputs-from {file}: no input names in it");
            }
        }
        if given.is_empty() {
            bail!("give INPUT... and OUTPUT");
        }
        Ok(given)
    }
}

impl KerchunkArgs {
    /// What is inlined and split, as kerchunk's options (the file's URL is the job's to
    /// set).
    ///
    /// # Errors
    /// A size that does not parse, naming its option.
    pub fn options(&self) -> anyhow::Result<RefOptions> {
        let defaults = RefOptions::default();
        let size = |given: &Option<String>, option: &str, default: u64| match given {
            Some(text) => parse_size(text).with_context(|| option.to_string()),
            None => Ok(default),
        };
        Ok(RefOptions {
            url: String::new(),
            inline_all: self.inline_all,
            inline_threshold: size(
                &self.inline_threshold,
                "--inline-threshold",
                defaults.inline_threshold,
            )?,
            inline_limit: size(&self.inline_limit, "--inline-limit", defaults.inline_limit)?,
            split: size(&self.split, "--split", defaults.split)?,
        })
    }
}

impl StorageArgs {
    /// The first storage option given (`-d`, `-s`, `-c`, `--chunks`, `-F`, `--codec`),
    /// for jobs that keep the storage as it is and refuse one.
    pub fn first_given(&self) -> Option<&'static str> {
        [
            ("-d", self.deflate.is_some()),
            ("-s", self.shuffle),
            ("-c", !self.chunks.is_empty()),
            ("--chunks", self.auto_chunks.is_some()),
            ("-F", !self.filters.is_empty()),
            ("--codec", !self.codec.is_empty()),
        ]
        .into_iter()
        .find_map(|(flag, given)| given.then_some(flag))
    }
}

impl SelectArgs {
    /// The first selection option given (`-u`, `--dim`, `-v`, `-V`, `-C`, `--exclude`,
    /// `-g`, `-G`), for jobs that take whole inputs and refuse one.
    pub fn first_given(&self) -> Option<&'static str> {
        [
            ("-u", self.fix_unlimited),
            ("--dim", !self.dims.is_empty()),
            ("-v", self.data_vars.is_some()),
            ("-V", self.only_vars.is_some()),
            ("-C", self.no_coords),
            ("--exclude", self.exclude.is_some()),
            ("-g", self.data_groups.is_some()),
            ("-G", self.only_groups.is_some()),
        ]
        .into_iter()
        .find_map(|(flag, given)| given.then_some(flag))
    }
}

/// Refuse, naming the first, an option references (`-k kerchunk`, `--virtual`) cannot
/// honour: they point at the files' chunks as stored, cover whole files, and are
/// written in one run (`runs`: the run options given). Accepted and ignored, each
/// would leave a user believing the references were subset or recompressed, or a dry
/// run that wrote.
///
/// # Errors
/// The refusal, naming the option.
pub fn refuse_for_references(
    storage: &StorageArgs,
    select: &SelectArgs,
    runs: &[(&'static str, bool)],
) -> anyhow::Result<()> {
    if let Some(flag) = storage.first_given() {
        anyhow::bail!("{flag}: references keep each file's chunks and codecs as stored; a copy (-k icechunk or zarr3, without --virtual) changes them");
    }
    if let Some(flag) = select.first_given() {
        anyhow::bail!("{flag}: references cover the whole files; a copy (-k icechunk or zarr3, without --virtual) keeps a selection");
    }
    if let Some((flag, _)) = runs.iter().find(|(_, given)| *given) {
        anyhow::bail!("{flag}: references are written in one run, from the files' metadata only; nothing was written");
    }
    Ok(())
}

/// `--in-place`: a Zarr version 2 store given version 3 metadata where it is.
#[derive(Args, Debug, Clone, Default)]
pub struct MigrateArgs {
    /// With -k zarr3 and no OUTPUT: give the Zarr version 2 store INPUT version 3
    /// metadata in place, no chunk read or rewritten (zarr-python's `zarr migrate v3`):
    /// each array's chunk keys and codecs kept, the version 2 documents left beside
    /// (netcdf-c and version 2 readers read those), the root's zarr.json written last.
    #[arg(long, requires = "kind", conflicts_with_all = [
        "append", "finish", "metadata_only", "part", "overwrite", "dims", "chunks", "codec",
    ])]
    pub in_place: bool,
}

impl MigrateArgs {
    /// Migrate `input` (`kind` must be zarr3, and no other name given).
    ///
    /// # Errors
    /// The migration's, in one line.
    pub fn run(
        &self,
        kind: Option<&str>,
        input: &str,
        more: &[String],
    ) -> anyhow::Result<std::process::ExitCode> {
        if kind != Some("zarr3") || !more.is_empty() {
            bail!("--in-place migrates a Zarr version 2 store to version 3: nczcopy -k zarr3 --in-place STORE");
        }
        nczarr::jobs::MigrateJob {
            dataset: input.to_string(),
        }
        .run()?;
        Ok(std::process::ExitCode::SUCCESS)
    }
}

/// The hyperslab given to `-d`, if one is: nczcopy's `-d` is nccopy's deflate level,
/// while NCO's `-d` (`ncks -d time,0,9`) is nczcopy's `--dim`; clap would say only
/// that `time,0,9` is not a number.
pub fn hyperslab_after_deflate(args: &[String]) -> Option<String> {
    let mut it = args.iter().skip(1);
    while let Some(arg) = it.next() {
        if arg == "--" {
            return None;
        }
        if arg == "-d" {
            if let Some(next) = it.next().filter(|n| super::looks_like_hyperslab(n)) {
                return Some(next.clone());
            }
        } else if let Some(rest) = arg.strip_prefix("-d").filter(|r| r.contains(',')) {
            return Some(rest.to_string());
        }
    }
    None
}
