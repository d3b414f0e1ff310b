//! `docs/architecture.md` is the map of the crate: every top-level module of `lib.rs`
//! must be in its layers table, and every folder it names must exist, so that the map
//! cannot fall behind the code unnoticed.

use std::path::PathBuf;

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

fn rust_files(dir: &std::path::Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
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

/// The module path of `file` under `src` (`a/b.rs` and `a/b/mod.rs` are `[a, b]`; the
/// crate's root file is `[]`).
fn module_of(src: &std::path::Path, file: &std::path::Path) -> Vec<String> {
    let rel = file.strip_prefix(src).unwrap().with_extension("");
    let mut parts: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if parts
        .last()
        .is_some_and(|l| ["mod", "lib", "main"].contains(&l.as_str()))
    {
        parts.pop();
    }
    parts
}

/// The module paths a line of the module `module` names through `crate::` and
/// `super::` (each item of a `{...}` list too, its first segment).
fn paths_named(line: &str, module: &[String]) -> Vec<Vec<String>> {
    let ident = |s: &str| -> String {
        s.chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect()
    };
    let mut out = Vec::new();
    let mut rest = line;
    while let Some(at) = ["crate::", "super::"]
        .iter()
        .filter_map(|p| rest.find(p))
        .min()
    {
        let before = rest[..at].chars().last();
        let mut tail = &rest[at..];
        rest = &rest[at + 7..];
        if before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_') {
            continue;
        }
        let mut base: Vec<String> = if tail.starts_with("crate::") {
            tail = &tail[7..];
            Vec::new()
        } else {
            let mut up = 0;
            while let Some(t) = tail.strip_prefix("super::") {
                tail = t;
                up += 1;
            }
            module[..module.len().saturating_sub(up)].to_vec()
        };
        loop {
            let name = ident(tail);
            if name.is_empty() {
                break;
            }
            tail = &tail[name.len()..];
            base.push(name);
            match tail.strip_prefix("::") {
                Some(t) => tail = t,
                None => break,
            }
        }
        if let Some(list) = tail.strip_prefix('{') {
            let list = list.split('}').next().unwrap_or("");
            for item in list.split(',') {
                let name = ident(item.trim());
                if !name.is_empty() {
                    out.push([base.clone(), vec![name]].concat());
                }
            }
        } else {
            out.push(base);
        }
        rest = tail;
    }
    out
}

/// Cycles among the files (and sub-folders) of each folder of the crate whose sources
/// are under `src`: an edge from `a` to `b` where a file of `a` names a path into `b`,
/// `a` and `b` children of one folder.
fn folder_cycles(src: &std::path::Path) -> Vec<String> {
    use std::collections::{BTreeMap, BTreeSet};
    let mut files = Vec::new();
    rust_files(src, &mut files);
    let mut edges: BTreeMap<Vec<String>, BTreeMap<String, BTreeSet<String>>> = BTreeMap::new();
    for file in &files {
        let module = module_of(src, file);
        let text = std::fs::read_to_string(file).unwrap();
        for line in text.lines().filter(|l| !l.trim_start().starts_with("//")) {
            for path in paths_named(line, &module) {
                let common = module.iter().zip(&path).take_while(|(a, b)| a == b).count();
                if common < module.len() && common < path.len() {
                    edges
                        .entry(module[..common].to_vec())
                        .or_default()
                        .entry(module[common].clone())
                        .or_default()
                        .insert(path[common].clone());
                }
            }
        }
    }
    let mut cycles = Vec::new();
    for (folder, graph) in &edges {
        // Depth first; a child met again while on the stack closes a cycle.
        fn visit(
            node: &str,
            graph: &BTreeMap<String, BTreeSet<String>>,
            stack: &mut Vec<String>,
            done: &mut BTreeSet<String>,
            found: &mut Vec<String>,
        ) {
            stack.push(node.to_string());
            for next in graph.get(node).into_iter().flatten() {
                if let Some(at) = stack.iter().position(|s| s == next) {
                    found.push(format!("{} -> {next}", stack[at..].join(" -> ")));
                } else if !done.contains(next) {
                    visit(next, graph, stack, done, found);
                }
            }
            stack.pop();
            done.insert(node.to_string());
        }
        let mut done = BTreeSet::new();
        let mut found = Vec::new();
        for node in graph.keys() {
            if !done.contains(node) {
                visit(node, graph, &mut Vec::new(), &mut done, &mut found);
            }
        }
        cycles.extend(
            found
                .into_iter()
                .map(|c| format!("{}: {c}", src.join(folder.join("/")).display())),
        );
    }
    cycles
}

#[test]
fn no_import_cycle_between_the_files_of_a_folder() {
    let workspace = root().join("../..");
    let mut cycles = Vec::new();
    for src in ["crates/nczarr/src", "src", "tests/cli"] {
        cycles.extend(folder_cycles(&workspace.join(src)));
    }
    assert!(cycles.is_empty(), "import cycles: {cycles:#?}");
    // The check sees a cycle when there is one.
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("f")).unwrap();
    std::fs::write(dir.path().join("f/a.rs"), "use super::b::B;\n").unwrap();
    std::fs::write(dir.path().join("f/b.rs"), "use crate::f::{c, a};\n").unwrap();
    std::fs::write(dir.path().join("f/c.rs"), "// use super::a;\n").unwrap();
    let found = folder_cycles(dir.path());
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].ends_with("f: a -> b -> a"), "{found:?}");
    let line = "use super::{heap, collection::Collection};";
    assert_eq!(
        paths_named(line, &["formats".into(), "nc4".into(), "x".into()]),
        [
            vec!["formats", "nc4", "heap"],
            vec!["formats", "nc4", "collection"]
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
