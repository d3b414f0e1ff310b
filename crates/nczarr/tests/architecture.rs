//! `docs/architecture.md` is the map of the crate: every top-level module of `lib.rs`
//! must be in its layers table, and every folder it names must exist, so that the map
//! cannot fall behind the code unnoticed.

use std::path::PathBuf;

mod import_graph;

use import_graph::{code_of, folder_cycles, read_source, rust_files};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The top-level modules `lib.rs` declares.
fn modules() -> Vec<String> {
    let lib = std::fs::read_to_string(root().join("src/lib.rs")).unwrap();
    lib.lines()
        .filter_map(|l| {
            let l = l.trim();
            let rest = l
                .strip_prefix("pub mod ")
                .or_else(|| l.strip_prefix("mod "))?;
            rest.strip_suffix(';').map(str::to_string)
        })
        .collect()
}

fn map() -> String {
    std::fs::read_to_string(root().join("../../docs/architecture.md")).unwrap()
}

#[test]
fn every_top_level_module_is_in_the_layers_table() {
    let map = map();
    let table: Vec<&str> = map
        .lines()
        .skip_while(|l| !l.starts_with("## Layers"))
        .take_while(|l| !l.starts_with("## Data flow"))
        .filter(|l| l.starts_with('|'))
        .collect();
    let modules = modules();
    assert!(modules.len() > 15, "{modules:?}");
    let missing: Vec<&String> = modules
        .iter()
        .filter(|m| {
            !table.iter().any(|row| {
                row.split('|')
                    .nth(2)
                    .is_some_and(|c| c.contains(&format!("`{m}`")))
            })
        })
        .collect();
    assert!(
        missing.is_empty(),
        "modules missing from docs/architecture.md's layers table: {missing:?}"
    );
}

#[test]
fn every_folder_in_the_tree_exists() {
    let map = map();
    let tree: Vec<&str> = map
        .lines()
        .skip_while(|l| !l.starts_with("crates/nczarr/src/"))
        .take_while(|l| !l.starts_with("```"))
        .collect();
    assert!(!tree.is_empty(), "no source tree in docs/architecture.md");
    let mut parents: Vec<(usize, String)> = Vec::new();
    for line in &tree[1..] {
        let Some(at) = line.find(|c: char| c.is_ascii_alphanumeric()) else {
            continue;
        };
        let name = line[at..].split_whitespace().next().unwrap_or("");
        let Some(dir) = name.strip_suffix('/') else {
            continue;
        };
        parents.retain(|(depth, _)| *depth < at);
        let mut path = root().join("src");
        for (_, p) in &parents {
            path = path.join(p);
        }
        let path = path.join(dir);
        assert!(
            path.is_dir(),
            "docs/architecture.md names {} , which is not a folder",
            path.display()
        );
        parents.push((at, dir.to_string()));
    }
}

/// The modules of each row of the layers table, top row first.
fn layer_rows() -> Vec<Vec<String>> {
    let map = map();
    map.lines()
        .skip_while(|l| !l.starts_with("## Layers"))
        .take_while(|l| !l.starts_with("## Data flow"))
        .filter(|l| l.starts_with('|') && !l.starts_with("|---") && !l.starts_with("| layer"))
        .map(|row| {
            let cell = row.split('|').nth(2).unwrap_or("");
            cell.split('`')
                .skip(1)
                .step_by(2)
                .map(str::to_string)
                .collect()
        })
        .collect()
}

#[test]
fn no_module_uses_a_module_of_a_lower_row() {
    let rows = layer_rows();
    let rank = |m: &str| rows.iter().position(|r| r.iter().any(|x| x == m));
    let src = root().join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut upward = Vec::new();
    for file in files {
        let rel = file
            .strip_prefix(&src)
            .unwrap()
            .to_string_lossy()
            .into_owned();
        let top = rel.split('/').next().unwrap_or("").trim_end_matches(".rs");
        let Some(own) = rank(top) else {
            continue;
        };
        let text = std::fs::read_to_string(&file).unwrap();
        for (n, line) in text.lines().enumerate() {
            if line.trim_start().starts_with("//") {
                continue;
            }
            for used in line.split("crate::").skip(1) {
                let name: String = used
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect();
                if rank(&name).is_some_and(|r| r > own) {
                    upward.push(format!("{rel}:{}: {top} uses {name}", n + 1));
                }
            }
        }
    }
    assert!(
        upward.is_empty(),
        "modules using a module of a lower row of docs/architecture.md's layers table:\n{}",
        upward.join("\n")
    );
}

#[test]
fn no_import_cycle_between_the_files_of_a_folder() {
    let workspace = root().join("../..");
    let mut cycles = Vec::new();
    for (src, crates_under) in [
        ("crates/nczarr/src", None),
        ("crates/nczarr/tests", Some("")),
        ("src", Some("bin")),
        ("tests/cli", None),
    ] {
        cycles.extend(folder_cycles(&workspace.join(src), crates_under));
    }
    assert!(cycles.is_empty(), "import cycles: {cycles:#?}");
}

/// Writes `files` (path, text) under a new temporary folder.
fn fixture(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (path, text) in files {
        let path = dir.path().join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    dir
}

#[test]
fn the_cycle_check_sees_a_cycle() {
    let dir = fixture(&[
        ("f/a.rs", "use super::b::B;\n"),
        ("f/b.rs", "use crate::f::{c, a};\n"),
        ("f/c.rs", "// use super::a;\n"),
    ]);
    let found = folder_cycles(dir.path(), None);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].ends_with("f: a -> b -> a"), "{found:?}");
}

#[test]
fn the_cycle_check_follows_re_exports_of_mod_rs() {
    for re_export in [
        "pub use a::Thing;",
        "pub(crate) use a::{Other, Thing};",
        "pub use self::a::Thing;",
        "pub use a::*;",
        "mod a;\nmod b;\nuse self::a::{\n    Other,\n    Thing as Thing,\n};",
    ] {
        let dir = fixture(&[
            ("f/mod.rs", re_export),
            (
                "f/a.rs",
                "pub struct Thing;\npub struct Other;\nuse super::b::helper;\n",
            ),
            ("f/b.rs", "pub fn helper(_: &super::Thing) {}\n"),
        ]);
        let found = folder_cycles(dir.path(), None);
        assert_eq!(found.len(), 1, "{re_export}: {found:?}");
        assert!(
            found[0].ends_with("f: a -> b -> a"),
            "{re_export}: {found:?}"
        );
    }
    // Through `crate::f::Thing`, and a glob of the parent in a test module.
    for b in [
        "fn f(_: crate::f::Thing) {}",
        "#[cfg(test)]\nmod tests {\n    use crate::f::{\n        Thing,\n    };\n}",
        "#[cfg(test)]\nmod tests {\n    use super::super::Thing;\n}",
        "use super::*;\nfn f(_: Thing) {}",
    ] {
        let dir = fixture(&[
            ("f/mod.rs", "mod a;\nmod b;\npub use a::Thing;\n"),
            ("f/a.rs", "pub struct Thing;\nfn g() { super::b::f(); }\n"),
            ("f/b.rs", b),
        ]);
        let found = folder_cycles(dir.path(), None);
        assert_eq!(found.len(), 1, "{b}: {found:?}");
        assert!(found[0].ends_with("f: a -> b -> a"), "{b}: {found:?}");
    }
}

#[test]
fn the_cycle_check_reads_code_not_comments_or_strings() {
    let dir = fixture(&[
        ("f/mod.rs", "pub use a::Thing;\n"),
        ("f/a.rs", "pub struct Thing;\nuse super::b::helper;\n"),
        (
            "f/b.rs",
            "/// [`super::Thing`]\n/* super::Thing */\nconst S: &str = \"super::Thing\";\n\
             const R: &str = r#\"use super::Thing;\"#;\nconst C: char = '{';\n\
             fn g<'a>(x: &'a str) -> &'a str { x }\nmod inner {\n    use super::*;\n}\n\
             pub fn helper() {}\n",
        ),
        // A file of a test module (`#[path]`): its `super` is `a`, not `f`.
        (
            "f/c.rs",
            "#[cfg(test)]\n#[path = \"c_tests.rs\"]\nmod tests;\n",
        ),
        ("f/c_tests.rs", "use super::super::a::Thing;\n"),
    ]);
    let found = folder_cycles(dir.path(), None);
    assert!(found.is_empty(), "{found:?}");
    let code = code_of("let s = \"}\"; // {\nlet c = '}'; let e = '\\'';");
    assert_eq!(code, "let s = \"\"; \nlet c = ' '; let e = ' ';");
}

#[test]
fn use_lists_are_read_whole_over_lines() {
    let module: Vec<String> = ["formats", "nc4", "x"].map(String::from).to_vec();
    let paths = |text: &str| -> Vec<String> {
        read_source(text, &module, &[])
            .paths
            .iter()
            .map(|n| n.path.join("::"))
            .collect()
    };
    assert_eq!(
        paths("use super::{heap, collection::Collection};"),
        ["formats::nc4::heap", "formats::nc4::collection::Collection"]
    );
    assert_eq!(
        paths("use super::{\n    a::{self, B},\n    c as d,\n};\nfn f() { crate::e::F::new() }"),
        [
            "formats::nc4::a",
            "formats::nc4::a::B",
            "formats::nc4::c",
            "e::F::new"
        ]
    );
}
#[test]
fn no_source_file_is_over_800_lines() {
    let workspace = root().join("../..");
    let mut files = Vec::new();
    for dir in ["crates/nczarr/src", "crates/nczarr/tests", "src", "tests"] {
        rust_files(&workspace.join(dir), &mut files);
    }
    assert!(files.len() > 100, "{}", files.len());
    let long: Vec<String> = files
        .iter()
        .filter_map(|f| {
            let n = std::fs::read_to_string(f).ok()?.lines().count();
            (n > 800).then(|| format!("{}: {n} lines", f.display()))
        })
        .collect();
    assert!(long.is_empty(), "files over 800 lines: {long:#?}");
}

/// The tools only parse, call one job and print (issue 62): no binary (a file of
/// `src/bin`, or a folder with its files) is over 500 lines, and none builds a view of
/// its inputs itself (`concat`, `subset`) or writes references (`kerchunk`): the jobs'
/// inputs step and jobs do.
#[test]
fn binaries_are_thin() {
    let bin = root().join("../../src/bin");
    let mut files = Vec::new();
    rust_files(&bin, &mut files);
    assert!(files.len() >= 5, "{files:?}");
    let mut lines: std::collections::BTreeMap<String, usize> = Default::default();
    let mut reaching = Vec::new();
    for f in &files {
        let rel = f.strip_prefix(&bin).unwrap().to_string_lossy().into_owned();
        let tool = rel
            .split('/')
            .next()
            .unwrap()
            .trim_end_matches(".rs")
            .to_string();
        let text = std::fs::read_to_string(f).unwrap();
        *lines.entry(tool).or_default() += text.lines().count();
        for (n, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            for layer in ["concat", "subset", "kerchunk"] {
                if code.contains(&format!("nczarr::{layer}")) {
                    reaching.push(format!("{rel}:{}: nczarr::{layer}", n + 1));
                }
            }
        }
    }
    let long: Vec<_> = lines.iter().filter(|(_, n)| **n > 500).collect();
    assert!(long.is_empty(), "binaries over 500 lines: {long:?}");
    assert!(
        reaching.is_empty(),
        "binaries using what the jobs do: {reaching:#?}"
    );
}
