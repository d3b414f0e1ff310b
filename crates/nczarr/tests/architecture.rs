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
