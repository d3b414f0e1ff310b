//! What can go wrong reading from an OPeNDAP server ([`crate::formats::dap`]): each
//! names the URL asked for, and the server's own words where it gave some. Here
//! rather than in `formats/dap/`, which `error.rs` may not import (it is a lower
//! layer); `formats::dap` re-exports it.

/// An OPeNDAP server's answer that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum DapError {
    /// The request failed before an answer came (connection, timeout, redirect refused).
    #[error("{url}: {message}")]
    Request {
        /// What was asked for.
        url: String,
        /// Why it failed.
        message: String,
    },
    /// The server answered with an error: its status and its message.
    #[error("{url}: the server answered {status}: {message}")]
    Server {
        /// What was asked for.
        url: String,
        /// The HTTP status.
        status: u16,
        /// The server's message (from a DAP `Error {}` body, or an HTML page's title).
        message: String,
        /// The answer was a DAP `Error {}` body: the server speaks OPeNDAP.
        dap: bool,
    },
    /// A DDS, DAS or DMR that does not parse.
    #[error("{url}: {what} line {line}: {message}")]
    Parse {
        /// What was asked for.
        url: String,
        /// `DDS`, `DAS`, `DMR`.
        what: &'static str,
        /// The line (from 1).
        line: usize,
        /// What is wrong there.
        message: String,
    },
    /// A data answer whose body does not match its description.
    #[error("{url}: {message}")]
    Body {
        /// What was asked for.
        url: String,
        /// What is wrong.
        message: String,
    },
    /// A variable netCDF's model cannot show.
    #[error("{url}: variable '{var}': {message}")]
    Unmappable {
        /// The dataset's URL.
        url: String,
        /// The variable's DAP name.
        var: String,
        /// Why.
        message: String,
    },
}
