//! `--version` and the hidden `--generate` (shell completions, man pages) of every tool.

use crate::util::run;

const TOOLS: &[&str] = &[
    "nczdump",
    "nczgen",
    "nczcopy",
    "zmapdump",
    "nczcmp",
    "nczatted",
    "nczrename",
    "nczview",
];

#[test]
fn version_names_what_the_build_holds() {
    for tool in TOOLS {
        let r = run(tool, &["--version"]);
        r.success();
        let out = r.stdout();
        assert!(
            out.starts_with(&format!("{tool} {}\n", env!("CARGO_PKG_VERSION"))),
            "{out}"
        );
        for want in [
            "formats: NCZarr",
            "Zarr v3",
            "codecs: zlib, gzip, blosc, zstd, lz4, bz2",
            "stores: directory, zip, S3, Google Cloud Storage, Azure Blob, HTTP",
        ] {
            assert!(out.contains(want), "{tool}: {want} not in {out}");
        }
    }
}

#[test]
fn completions_and_man_pages_for_every_tool() {
    for tool in TOOLS {
        for (shell, marker) in [
            ("bash", format!("complete -F _{tool}")),
            ("zsh", format!("#compdef {tool}")),
            ("fish", format!("complete -c {tool}")),
            ("elvish", format!("edit:completion:arg-completer[{tool}]")),
            (
                "powershell",
                format!("Register-ArgumentCompleter -Native -CommandName '{tool}'"),
            ),
        ] {
            let r = run(tool, &["--generate", &format!("completion={shell}")]);
            r.success();
            assert!(
                r.stdout().contains(&marker),
                "{tool} {shell}: {}",
                r.stdout()
            );
        }
        // Without the dataset argument the tool otherwise requires.
        let man = run(tool, &["--generate=man"]);
        man.success();
        assert!(
            man.stdout().starts_with(".ie \\n(.g .ds Aq")
                || man.stdout().contains(&format!(".TH {tool}")),
            "{}",
            man.stdout()
        );
        assert!(man.stdout().contains(".SH NAME"), "{tool}");
        let e = run(tool, &["--generate", "completion=tcsh"]).fails_with_one_line(2);
        assert!(
            e.contains("expected completion=bash|zsh|fish|elvish|powershell, or man"),
            "{e}"
        );
    }
}
