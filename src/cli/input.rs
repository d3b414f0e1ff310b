//! What every reading tool (nczdump, nczcopy, nczcmp, zmapdump) shares about the
//! datasets it reads: what a kerchunk reference file read over the network may make it
//! read (`docs/reliability.md`, "What a reference file may make us read"). The rules
//! themselves are the library's (`nczarr::reach`); this is the flag that relaxes one.

use clap::Args;
use nczarr::reach::ReferenceOptions;

/// The options of the datasets a tool reads.
#[derive(Args, Debug, Clone, Default)]
pub struct ReadArgs {
    /// Let a kerchunk reference file read over the network (http(s), S3, GCS, Azure)
    /// name local files (file:///..., /path). Refused by default, so that a reference
    /// file from elsewhere cannot make the tool print or copy a file of yours; for one
    /// dataset, #refs.local=allow on its URL says the same. A reference file on this
    /// machine may always name local files. Whatever this says, loopback, link-local and
    /// cloud metadata addresses are named only from an address of their kind, and HTTP
    /// redirects lead there only from one.
    #[arg(long, global = true)]
    pub allow_local_refs: bool,
}

impl ReadArgs {
    /// The library's options for reference files, as the flags say.
    pub fn refs(&self) -> ReferenceOptions {
        ReferenceOptions {
            allow_local_files: self.allow_local_refs,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser, Debug)]
    struct Tool {
        #[command(flatten)]
        read: ReadArgs,
        name: Option<String>,
    }

    #[test]
    fn allow_local_refs() {
        let t = Tool::try_parse_from(["tool", "x"]).unwrap();
        assert!(!t.read.refs().allow_local_files);
        let t = Tool::try_parse_from(["tool", "--allow-local-refs", "x"]).unwrap();
        assert!(t.read.refs().allow_local_files);
        assert!(Tool::try_parse_from(["tool", "--allow-local-refs=no", "x"]).is_err());
    }
}
