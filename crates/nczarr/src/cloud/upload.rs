//! A whole file uploaded as one object ([`CloudStore::upload_file`]): how a netCDF
//! file written locally reaches S3, GCS or Azure.

use object_store::{ObjectStoreExt, PutPayload};

use super::object::CloudStore;
use crate::store::{StoreError, StoreKey};

/// Bytes of one part of an upload.
const UPLOAD_PART: usize = 16 << 20;

impl CloudStore {
    /// Upload the file at `from` as the one object `key`, replacing any object there: in
    /// parts of 16 MiB read one at a time (a multipart upload; S3's parts
    /// are at least 5 MiB but the last), so memory holds a part or two, not the file. A
    /// file of one part or less goes in one PUT. A failed upload is aborted: the object
    /// is then as it was.
    ///
    /// # Errors
    /// [`StoreError::Io`] reading the file, [`StoreError::Remote`] for the requests.
    pub fn upload_file(&self, key: &StoreKey, from: &std::path::Path) -> Result<(), StoreError> {
        use std::io::Read;
        let path = self.path_of(key)?;
        let io = |source| StoreError::Io {
            location: from.display().to_string(),
            source,
        };
        let mut file = std::fs::File::open(from).map_err(io)?;
        let len = file.metadata().map_err(io)?.len();
        let next_part = |file: &mut std::fs::File| -> Result<Vec<u8>, StoreError> {
            let mut buf = Vec::with_capacity(UPLOAD_PART);
            file.by_ref()
                .take(UPLOAD_PART as u64)
                .read_to_end(&mut buf)
                .map_err(io)?;
            Ok(buf)
        };
        if len <= UPLOAD_PART as u64 {
            let bytes = next_part(&mut file)?;
            return self.runtime.block_on(async {
                self.store
                    .put(&path, PutPayload::from(bytes))
                    .await
                    .map(|_| ())
                    .map_err(|e| self.error(path.as_ref(), &e))
            });
        }
        self.runtime.block_on(async {
            let mut upload = self
                .store
                .put_multipart(&path)
                .await
                .map_err(|e| self.error(path.as_ref(), &e))?;
            let sent: Result<(), StoreError> = async {
                // One part in flight while the next is read.
                let mut pending: Option<object_store::UploadPart> = None;
                loop {
                    crate::store::check_cancelled()?;
                    let bytes = next_part(&mut file)?;
                    if let Some(p) = pending.take() {
                        p.await.map_err(|e| self.error(path.as_ref(), &e))?;
                    }
                    if bytes.is_empty() {
                        break;
                    }
                    pending = Some(upload.put_part(PutPayload::from(bytes)));
                }
                upload
                    .complete()
                    .await
                    .map(|_| ())
                    .map_err(|e| self.error(path.as_ref(), &e))
            }
            .await;
            if sent.is_err() {
                let _ = upload.abort().await;
            }
            sent
        })
    }
}
