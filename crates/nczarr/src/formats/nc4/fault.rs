//! [`Fault`]: why a read of a netCDF-4 file failed, kept typed from the store up.
//!
//! A remote file is read by byte ranges; a failed request must reach the caller as the
//! store's error (a retry policy or a message tells it from damage), not as text inside
//! an HDF5 message. The store's error travels through `hdf5-reader` inside its `Io`
//! variant ([`to_hdf5`]) and is taken out again here ([`Fault::from`]).

use std::fmt;

use crate::error::Error;
use crate::store::StoreError;

/// What went wrong reading the file.
#[derive(Debug)]
pub(crate) enum Fault {
    /// The store under the file failed (a range request, a local read).
    Store(StoreError),
    /// The file's bytes are not what HDF5 or netCDF-4 says they are.
    Damaged {
        /// The byte of the file where it was found, when known.
        offset: Option<u64>,
        /// What is wrong, with the object it belongs to.
        message: String,
    },
}

impl Fault {
    /// Damage found at byte `offset`.
    pub(crate) fn at(offset: u64, message: impl Into<String>) -> Fault {
        Fault::Damaged {
            offset: Some(offset),
            message: message.into(),
        }
    }

    /// The same fault said of `what` (`"variable 'v'"`, `"chunk [0, 1]"`): damage gets
    /// the prefix, a store's error stays as it is (it names its own key or file).
    pub(crate) fn context(self, what: impl fmt::Display) -> Fault {
        match self {
            Fault::Damaged { offset, message } => Fault::Damaged {
                offset,
                message: format!("{what}: {message}"),
            },
            store => store,
        }
    }

    /// As the crate's error, for the file at `file`; `var` is the variable being read
    /// (a store failure then names it).
    pub(crate) fn into_error(self, file: &str, var: Option<&str>) -> Error {
        match (self, var) {
            (Fault::Store(source), Some(var)) => Error::VarStore {
                var: var.to_string(),
                source,
            },
            (Fault::Store(e), None) => Error::Store(e),
            (Fault::Damaged { offset, message }, var) => Error::Damaged {
                file: file.to_string(),
                offset,
                message: match var {
                    Some(var) => format!("variable '{var}': {message}"),
                    None => message,
                },
            },
        }
    }
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Fault::Store(e) => e.fmt(f),
            Fault::Damaged { message, .. } => f.write_str(message),
        }
    }
}

impl From<String> for Fault {
    fn from(message: String) -> Fault {
        Fault::Damaged {
            offset: None,
            message,
        }
    }
}

impl From<&str> for Fault {
    fn from(message: &str) -> Fault {
        Fault::from(message.to_string())
    }
}

impl From<StoreError> for Fault {
    fn from(e: StoreError) -> Fault {
        Fault::Store(e)
    }
}

impl From<hdf5_reader::error::Error> for Fault {
    fn from(e: hdf5_reader::error::Error) -> Fault {
        use hdf5_reader::error::Error as H5;
        match e {
            H5::Io(io) if io.get_ref().is_some_and(|inner| inner.is::<StoreError>()) => {
                match io.into_inner().map(|inner| inner.downcast::<StoreError>()) {
                    Some(Ok(store)) => Fault::Store(*store),
                    // Checked just above; kept as text should that ever change.
                    Some(Err(other)) => Fault::from(other.to_string()),
                    None => Fault::from("a read failed".to_string()),
                }
            }
            H5::UnexpectedEof { offset, .. } | H5::OffsetOutOfBounds(offset) => {
                Fault::at(offset, e.to_string())
            }
            other => Fault::from(other.to_string()),
        }
    }
}

impl Fault {
    /// As `hdf5-reader`'s error, for a callback of it; a store's error is taken out
    /// again by [`Fault::from`].
    pub(super) fn into_hdf5(self) -> hdf5_reader::error::Error {
        match self {
            Fault::Store(e) => to_hdf5(e),
            Fault::Damaged { message, .. } => hdf5_reader::error::Error::InvalidData(message),
        }
    }
}

/// A store's error as `hdf5-reader`'s, to be taken out again by [`Fault::from`].
pub(super) fn to_hdf5(e: StoreError) -> hdf5_reader::error::Error {
    hdf5_reader::error::Error::Io(std::io::Error::other(e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_store_error_survives_the_trip_through_hdf5_reader() {
        let store = StoreError::Remote {
            location: "s3://b/f.nc".into(),
            message: "503 Slow Down".into(),
        };
        let fault = Fault::from(to_hdf5(store)).context("variable 'v'");
        assert!(
            matches!(fault, Fault::Store(StoreError::Remote { .. })),
            "{fault:?}"
        );
        let error = fault.into_error("s3://b/f.nc", Some("v"));
        assert!(
            matches!(error, Error::VarStore { ref var, .. } if var == "v"),
            "{error:?}"
        );
    }

    #[test]
    fn damage_keeps_its_offset_and_gains_context() {
        let h5 = hdf5_reader::error::Error::UnexpectedEof {
            offset: 4096,
            needed: 8,
            available: 2,
        };
        let fault = Fault::from(h5).context("group '/g'");
        match fault.into_error("f.nc", None) {
            Error::Damaged {
                file,
                offset,
                message,
            } => {
                assert_eq!((file.as_str(), offset), ("f.nc", Some(4096)));
                assert!(
                    message.starts_with("group '/g': unexpected end"),
                    "{message}"
                );
            }
            other => panic!("{other:?}"),
        }
    }
}
