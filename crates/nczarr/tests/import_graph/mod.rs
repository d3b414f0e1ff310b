//! The import graph of a tree of Rust sources, read without a compiler: which module
//! names which (`crate::`, `super::`, `self::` paths and every `use`, lists over many
//! lines, inline modules and `#[path]` files placed where they belong, re-exports of a
//! folder's `mod.rs` followed to the file that defines the item), and the cycles among
//! the files of each folder. Comments and the insides of literals are not read.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The `.rs` files under `dir`, into `out`.
pub(crate) fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The module path of `file` under `src` (`a/b.rs` and `a/b/mod.rs` are `[a, b]`; the
/// crate's root file is `[]`).
fn module_of(src: &Path, file: &Path) -> Vec<String> {
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

fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Rust source without its comments, with the insides of string and character literals
/// blanked, so that paths and braces can be read from what is left.
pub(crate) fn code_of(text: &str) -> String {
    let c: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < c.len() {
        let next = c.get(i + 1).copied();
        match c[i] {
            '/' if next == Some('/') => {
                while i < c.len() && c[i] != '\n' {
                    i += 1;
                }
            }
            '/' if next == Some('*') => {
                let mut depth = 0;
                while i < c.len() {
                    if c[i] == '/' && c.get(i + 1) == Some(&'*') {
                        depth += 1;
                        i += 2;
                    } else if c[i] == '*' && c.get(i + 1) == Some(&'/') {
                        depth -= 1;
                        i += 2;
                        if depth == 0 {
                            break;
                        }
                    } else {
                        i += 1;
                    }
                }
                out.push(' ');
            }
            '"' => {
                i += 1;
                while i < c.len() && c[i] != '"' {
                    i += if c[i] == '\\' { 2 } else { 1 };
                }
                i += 1;
                out.push_str("\"\"");
            }
            // Raw strings: `r"..."`, `r#"..."#`, `br#"..."#`.
            'r' | 'b' if i == 0 || !is_ident(c[i - 1]) => {
                let mut j = i + 1;
                if c[i] == 'b' && next == Some('r') {
                    j += 1;
                } else if c[i] == 'b' {
                    out.push('b');
                    i += 1;
                    continue;
                }
                let hashes = c[j..].iter().take_while(|&&h| h == '#').count();
                if c.get(j + hashes) != Some(&'"') {
                    out.push(c[i]);
                    i += 1;
                    continue;
                }
                i = j + hashes + 1;
                while i < c.len()
                    && !(c[i] == '"' && c[i + 1..].iter().take(hashes).all(|&h| h == '#'))
                {
                    i += 1;
                }
                i += 1 + hashes;
                out.push_str("\"\"");
            }
            '\'' if next == Some('\\') => {
                i += 3;
                while i < c.len() && c[i] != '\'' {
                    i += 1;
                }
                i += 1;
                out.push_str("' '");
            }
            '\'' if c.get(i + 2) == Some(&'\'') => {
                i += 3;
                out.push_str("' '");
            }
            ch => {
                out.push(ch);
                i += 1;
            }
        }
    }
    out
}

fn skip_space(c: &[char], i: &mut usize) {
    while c.get(*i).is_some_and(|c| c.is_whitespace()) {
        *i += 1;
    }
}

fn word(c: &[char], i: &mut usize) -> String {
    let start = *i;
    while c.get(*i).is_some_and(|&c| is_ident(c)) {
        *i += 1;
    }
    c[start..*i].iter().collect()
}

/// A path one module names: `crate::`, `super::` and `self::` paths anywhere, and every
/// path of a `use` (each leaf of a `{...}` list, over as many lines as it takes).
#[derive(Debug)]
pub(crate) struct Named {
    /// The module it is named from (inline modules such as `mod tests { .. }` included).
    pub(crate) from: Vec<String>,
    /// The absolute path; a glob ends in `*`.
    pub(crate) path: Vec<String>,
    /// The name it is known by where it is named (`as` followed).
    alias: String,
    /// A `use` at the top level of its file, which a child module can name through `super::`.
    top_use: bool,
}

/// Reads the use tree (or plain path) at `i`, relative to `base`, into `out`.
fn use_tree(
    c: &[char],
    i: &mut usize,
    mut base: Vec<String>,
    krate: &[String],
    first: bool,
    out: &mut Vec<(Vec<String>, String)>,
) {
    let mut first = first;
    loop {
        skip_space(c, i);
        match c.get(*i) {
            Some('{') => {
                *i += 1;
                loop {
                    skip_space(c, i);
                    match c.get(*i) {
                        None => return,
                        Some('}') => {
                            *i += 1;
                            return;
                        }
                        Some(',') => *i += 1,
                        _ => {
                            let before = *i;
                            use_tree(c, i, base.clone(), krate, false, out);
                            if *i == before {
                                *i += 1;
                            }
                        }
                    }
                }
            }
            Some('*') => {
                *i += 1;
                base.push("*".into());
                out.push((base, "*".into()));
                return;
            }
            _ => {}
        }
        let w = word(c, i);
        if w.is_empty() {
            return;
        }
        match w.as_str() {
            "crate" if first => base = krate.to_vec(),
            "super" => {
                base.pop();
            }
            "self" => {}
            _ => base.push(w.clone()),
        }
        first = false;
        let mut j = *i;
        skip_space(c, &mut j);
        if c.get(j) == Some(&':') && c.get(j + 1) == Some(&':') {
            *i = j + 2;
            continue;
        }
        let mut alias = match w.as_str() {
            "self" | "super" | "crate" => base.last().cloned().unwrap_or_default(),
            _ => w,
        };
        if word(c, &mut j) == "as" {
            skip_space(c, &mut j);
            alias = word(c, &mut j);
            *i = j;
        }
        out.push((base, alias));
        return;
    }
}

/// What one file says: the paths it names, the items it defines at its top level, the
/// words it uses (alone, and before `::`).
#[derive(Debug, Default)]
pub(crate) struct Source {
    /// The file's module.
    module: Vec<String>,
    pub(crate) paths: Vec<Named>,
    items: BTreeSet<String>,
    words: BTreeSet<String>,
    words_before_paths: BTreeSet<String>,
    /// Inline modules (`mod tests { .. }`), by their path.
    inline: Vec<Vec<String>>,
}

/// Reads `text`, the file of module `module` in the crate whose root module is `krate`.
pub(crate) fn read_source(text: &str, module: &[String], krate: &[String]) -> Source {
    let code = code_of(text);
    let c: Vec<char> = code.chars().collect();
    let mut src = Source {
        module: module.to_vec(),
        ..Source::default()
    };
    let mut stack: Vec<Option<String>> = Vec::new();
    let mut i = 0;
    while i < c.len() {
        let ch = c[i];
        if ch == '{' {
            stack.push(None);
            i += 1;
            continue;
        }
        if ch == '}' {
            stack.pop();
            i += 1;
            continue;
        }
        let boundary = i == 0 || !(is_ident(c[i - 1]) || c[i - 1] == '$');
        if !(is_ident(ch) && boundary) {
            i += 1;
            continue;
        }
        let start = i;
        let w = word(&c, &mut i);
        let from: Vec<String> = module
            .iter()
            .cloned()
            .chain(stack.iter().flatten().cloned())
            .collect();
        let top = stack.is_empty();
        let mut j = i;
        skip_space(&c, &mut j);
        let before_path = c.get(j) == Some(&':') && c.get(j + 1) == Some(&':');
        if before_path {
            src.words_before_paths.insert(w.clone());
        } else {
            src.words.insert(w.clone());
        }
        let mut found = Vec::new();
        match w.as_str() {
            "use" => use_tree(&c, &mut i, from.clone(), krate, true, &mut found),
            "crate" | "super" | "self" if before_path => {
                i = start;
                use_tree(&c, &mut i, from.clone(), krate, true, &mut found);
            }
            "mod" => {
                let name = word(&c, &mut j);
                skip_space(&c, &mut j);
                if c.get(j) == Some(&'{') {
                    let mut inner = from.clone();
                    inner.push(name.clone());
                    src.inline.push(inner);
                    stack.push(Some(name));
                    i = j + 1;
                }
            }
            "fn" | "struct" | "enum" | "trait" | "type" | "const" | "static" | "union"
            | "macro_rules"
                if top =>
            {
                let mut k = j;
                if c.get(k) == Some(&'!') {
                    k += 1;
                    skip_space(&c, &mut k);
                }
                src.items.insert(word(&c, &mut k));
            }
            _ => {}
        }
        let top_use = top && w == "use";
        src.paths
            .extend(found.into_iter().map(|(path, alias)| Named {
                from: from.clone(),
                path,
                alias,
                top_use,
            }));
    }
    src
}

/// The modules declared with `#[path = "..."] mod name;` in `text` (of `file`, module
/// `module`): each file with its module.
fn path_attributes(file: &Path, text: &str, module: &[String]) -> Vec<(PathBuf, Vec<String>)> {
    let mut out = Vec::new();
    for (at, _) in text.match_indices("#[path = \"") {
        let rest = &text[at + 10..];
        let Some(end) = rest.find('"') else { continue };
        let after = &rest[end..];
        let Some(m) = after.find("mod ") else {
            continue;
        };
        let name: String = after[m + 4..]
            .chars()
            .take_while(|&c| is_ident(c))
            .collect();
        let dir = file.parent().unwrap();
        out.push((
            dir.join(&rest[..end]),
            [module.to_vec(), vec![name]].concat(),
        ));
    }
    out
}

/// The modules of one tree of sources: each module's own file, each folder's children.
struct Modules<'a> {
    own: BTreeMap<&'a [String], &'a Source>,
    children: BTreeMap<Vec<String>, BTreeSet<String>>,
}

impl<'a> Modules<'a> {
    /// The `use`s at the top level of module `m`'s own file.
    fn top_uses(&self, m: &[String]) -> Vec<&'a Named> {
        self.own
            .get(m)
            .into_iter()
            .flat_map(|s| &s.paths)
            .filter(|n| n.top_use && n.from == m)
            .collect()
    }

    /// Whether module `m` defines or imports `name` at its top level.
    fn defines(&self, m: &[String], name: &str, depth: usize) -> bool {
        depth < 8
            && (self.own.get(m).is_some_and(|s| s.items.contains(name))
                || self.top_uses(m).iter().any(|n| {
                    n.alias == name
                        || (n.alias == "*"
                            && self.defines(&n.path[..n.path.len() - 1], name, depth + 1))
                }))
    }

    /// The child of `folder` that `folder::name` is: the child module itself, or the one
    /// that defines what the folder re-exports as `name`.
    fn resolve(&self, folder: &[String], name: &str) -> Option<String> {
        let kids = self.children.get(folder)?;
        if kids.contains(name) {
            return Some(name.to_string());
        }
        let child = |p: &[String]| {
            (p.len() > folder.len() && p.starts_with(folder) && kids.contains(&p[folder.len()]))
                .then(|| p[folder.len()].clone())
        };
        let uses = self.top_uses(folder);
        if let Some(n) = uses.iter().find(|n| n.alias == name) {
            return child(&n.path);
        }
        uses.iter()
            .filter(|n| n.alias == "*")
            .map(|n| &n.path[..n.path.len() - 1])
            .find(|g| g.len() == folder.len() + 1 && self.defines(g, name, 0))
            .and_then(child)
    }
}

/// Cycles among the files (and sub-folders) of each folder of the sources under `src`:
/// an edge from `a` to `b` where a file of `a` names a path into `b`, `a` and `b`
/// children of one folder. A name the folder's `mod.rs` re-exports (`pub use b::X`,
/// `use self::b::{X, Y}`, `pub use b::*`) is an edge to the child that defines it.
/// `crates_under`: a folder each child of which is a crate of its own (`bin`; `""` for
/// a `tests` folder, where each file is one).
pub(crate) fn folder_cycles(src: &Path, crates_under: Option<&str>) -> Vec<String> {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    let texts: Vec<String> = files
        .iter()
        .map(|f| std::fs::read_to_string(f).unwrap())
        .collect();
    let mut moved = BTreeMap::new();
    for (file, text) in files.iter().zip(&texts) {
        moved.extend(path_attributes(file, text, &module_of(src, file)));
    }
    let under: Vec<String> = crates_under
        .into_iter()
        .flat_map(|u| u.split('/').filter(|s| !s.is_empty()))
        .map(str::to_string)
        .collect();
    let sources: Vec<Source> = files
        .iter()
        .zip(&texts)
        .map(|(file, text)| {
            let module = moved
                .get(file)
                .cloned()
                .unwrap_or_else(|| module_of(src, file));
            let krate = match crates_under {
                Some(_) if module.len() > under.len() && module.starts_with(&under) => {
                    module[..=under.len()].to_vec()
                }
                _ => Vec::new(),
            };
            read_source(text, &module, &krate)
        })
        .collect();
    let mut children: BTreeMap<Vec<String>, BTreeSet<String>> = BTreeMap::new();
    for m in sources
        .iter()
        .flat_map(|s| std::iter::once(&s.module).chain(&s.inline))
    {
        for k in 0..m.len() {
            children
                .entry(m[..k].to_vec())
                .or_default()
                .insert(m[k].clone());
        }
    }
    let modules = Modules {
        own: sources.iter().map(|s| (s.module.as_slice(), s)).collect(),
        children,
    };
    let mut edges: BTreeMap<Vec<String>, BTreeMap<String, BTreeSet<String>>> = BTreeMap::new();
    for s in &sources {
        for n in &s.paths {
            let (from, path) = (&n.from, &n.path);
            let common = from.iter().zip(path).take_while(|(a, b)| a == b).count();
            if common >= from.len() || common >= path.len() {
                continue;
            }
            let folder = &path[..common];
            let targets: Vec<String> = if path[common] == "*" {
                // A glob of the folder: every name of it the file uses.
                s.words
                    .iter()
                    .filter(|w| modules.children.get(folder).is_none_or(|k| !k.contains(*w)))
                    .chain(&s.words_before_paths)
                    .filter_map(|w| modules.resolve(folder, w))
                    .collect()
            } else {
                modules.resolve(folder, &path[common]).into_iter().collect()
            };
            for t in targets {
                if t != from[common] {
                    edges
                        .entry(folder.to_vec())
                        .or_default()
                        .entry(from[common].clone())
                        .or_default()
                        .insert(t);
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
