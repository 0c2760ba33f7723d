//! The media store's files in an S3-compatible bucket (feature `media-s3`), for several
//! servers sharing one database: `s3://bucket/prefix`.
//!
//! A file is one object at `{prefix}/{project_id}/{sha256}.{ext}` (or `…/{sha256}/w{width}.{ext}`
//! for a variant), written with one PUT: S3 makes a PUT visible whole or not at all, so there
//! are no temporary files to clean up. The bucket may be shared with other programs: the
//! listing names only keys that read back as a [`MediaPath`] and touches nothing else.

use std::fmt;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use async_trait::async_trait;
use bytes::Bytes;
use futures_util::TryStreamExt;
use object_store::aws::{AmazonS3, AmazonS3Builder, AmazonS3ConfigKey};
use object_store::path::Path;
use object_store::{ClientConfigKey, ObjectStore, ObjectStoreExt, PutPayload, RetryConfig};

use super::{FileRead, MediaFiles, MediaPath, StoredFile};
use crate::error::{Error, Result};

/// How long connecting to the endpoint may take before the attempt fails.
const CONNECT_TIMEOUT: &str = "5s";
/// How long one request may take, connection to last byte (a 5 MiB master on a slow link).
const REQUEST_TIMEOUT: &str = "60s";
/// Attempts after the first for a request that failed in a way worth retrying.
const RETRIES: usize = 3;
/// No retry starts later than this after the first attempt, so a request gives up in
/// about a minute and a half at worst instead of object_store's default three minutes.
const RETRY_WINDOW: Duration = Duration::from_secs(30);

/// What to write instead of a URL that is not one of a bucket.
const HOW_TO_WRITE: &str = "write s3://bucket or s3://bucket/prefix (the endpoint, region and \
     credentials come from AWS_ENDPOINT_URL, AWS_REGION, AWS_ACCESS_KEY_ID and \
     AWS_SECRET_ACCESS_KEY; AWS_ALLOW_HTTP=true for a plain-http endpoint)";

/// Where and how to reach an S3-compatible server without reading the process environment:
/// for tests, which run side by side in one process and so cannot each set `AWS_*`.
#[derive(Clone)]
pub struct S3Access {
    /// The endpoint, `http://host:port` or `https://host` (plain http is allowed only when
    /// written here as such).
    pub endpoint: String,
    /// The region to sign requests for.
    pub region: String,
    /// The access key id.
    pub access_key_id: String,
    /// The secret access key.
    pub secret_access_key: String,
}

impl fmt::Debug for S3Access {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("S3Access")
            .field("endpoint", &self.endpoint)
            .field("region", &self.region)
            .field("access_key_id", &self.access_key_id)
            .field("secret_access_key", &"(hidden)")
            .finish()
    }
}

/// The media store's files in an S3-compatible bucket (`--media-url s3://bucket/prefix`).
#[derive(Clone)]
pub struct ObjectStorage {
    store: Arc<AmazonS3>,
    bucket: String,
    /// The folder of the bucket the files are under, `None` for its root.
    prefix: Option<Path>,
}

impl fmt::Debug for ObjectStorage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ObjectStorage")
            .field("bucket", &self.bucket)
            .field("prefix", &self.prefix.as_ref().map(Path::as_ref))
            .finish()
    }
}

/// A URL the media store cannot use: what is wrong with it and what to write instead.
fn refused(what: &str) -> Error {
    Error::Config(format!("media store URL: {what}; {HOW_TO_WRITE}"))
}

/// A failure of the bucket (500; the message is for logs). object_store's errors name the
/// request, the key and the HTTP status, never the credentials (they travel in a signature).
fn failure(bucket: &str, what: impl fmt::Display, e: &object_store::Error) -> Error {
    Error::Storage(format!("media bucket {bucket}: {what}: {}", causes(e)).into())
}

/// An error and those of its causes its message does not already hold: object_store's
/// messages repeat their sources' text, and the chain in full said each thing three times.
fn causes(err: &(dyn std::error::Error + 'static)) -> String {
    let mut message = err.to_string();
    let mut source = err.source();
    while let Some(cause) = source {
        let text = cause.to_string();
        if !message.contains(&text) {
            message.push_str(": ");
            message.push_str(&text);
        }
        source = cause.source();
    }
    message
}

/// The bucket and prefix of `s3://bucket[/prefix]`.
fn parse_url(url: &str) -> Result<(String, Option<Path>)> {
    let Some(rest) = url.strip_prefix("s3://") else {
        return Err(refused("only s3:// URLs name a bucket"));
    };
    let (bucket, prefix) = rest.split_once('/').unwrap_or((rest, ""));
    if bucket.is_empty() {
        return Err(refused("the URL names no bucket"));
    }
    if bucket.contains(['@', ':']) {
        // Credentials or a port in the URL: never echoed, not used.
        return Err(refused(
            "the bucket name holds `@` or `:` (credentials and ports do not go in the URL)",
        ));
    }
    // S3's bucket naming rules: 3 to 63 lower-case letters, digits, dots and hyphens.
    let bucket_ok = (3..=63).contains(&bucket.len())
        && bucket
            .bytes()
            .all(|b| matches!(b, b'a'..=b'z' | b'0'..=b'9' | b'.' | b'-'));
    if !bucket_ok {
        return Err(refused(&format!(
            "`{bucket}` is not a bucket name (3 to 63 lower-case letters, digits, dots and hyphens)"
        )));
    }
    if prefix.contains(['?', '#']) {
        return Err(refused("the URL has a query or a fragment"));
    }
    let prefix = prefix.trim_end_matches('/');
    let prefix = if prefix.is_empty() {
        None
    } else {
        Some(Path::parse(prefix).map_err(|_| {
            refused(&format!(
                "`{prefix}` is not a prefix (folder names separated by single `/`, no `.` or `..`)"
            ))
        })?)
    };
    Ok((bucket.to_owned(), prefix))
}

impl ObjectStorage {
    /// The bucket of `url`, `s3://bucket` or `s3://bucket/prefix`, reached with the endpoint,
    /// region and credentials of the `AWS_*` environment variables (`AWS_ENDPOINT_URL` or
    /// `AWS_ENDPOINT`, `AWS_REGION`, `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`,
    /// `AWS_ALLOW_HTTP`). Connecting may take 5 s and a request 60 s unless `AWS_CONNECT_TIMEOUT`
    /// or `AWS_TIMEOUT` say otherwise. Any other URL is an [`Error::Config`] saying what to
    /// write. Nothing is sent yet: a wrong endpoint or key shows at the first request.
    pub fn from_url(url: &str) -> Result<Self> {
        let (bucket, prefix) = parse_url(url)?;
        let mut builder = AmazonS3Builder::from_env();
        for (variable, key, value) in [
            (
                "AWS_CONNECT_TIMEOUT",
                ClientConfigKey::ConnectTimeout,
                CONNECT_TIMEOUT,
            ),
            ("AWS_TIMEOUT", ClientConfigKey::Timeout, REQUEST_TIMEOUT),
        ] {
            if std::env::var_os(variable).is_none() {
                builder = builder.with_config(AmazonS3ConfigKey::Client(key), value);
            }
        }
        Self::build(builder, bucket, prefix)
    }

    /// The bucket of `url` (as for [`from_url`](Self::from_url)) on the server `access`
    /// names, the process environment left unread.
    pub fn from_url_and_access(url: &str, access: &S3Access) -> Result<Self> {
        let (bucket, prefix) = parse_url(url)?;
        let builder = AmazonS3Builder::new()
            .with_endpoint(&access.endpoint)
            .with_allow_http(access.endpoint.starts_with("http://"))
            .with_region(&access.region)
            .with_access_key_id(&access.access_key_id)
            .with_secret_access_key(&access.secret_access_key)
            .with_config(
                AmazonS3ConfigKey::Client(ClientConfigKey::ConnectTimeout),
                CONNECT_TIMEOUT,
            )
            .with_config(
                AmazonS3ConfigKey::Client(ClientConfigKey::Timeout),
                REQUEST_TIMEOUT,
            );
        Self::build(builder, bucket, prefix)
    }

    fn build(builder: AmazonS3Builder, bucket: String, prefix: Option<Path>) -> Result<Self> {
        let retry = RetryConfig {
            max_retries: RETRIES,
            retry_timeout: RETRY_WINDOW,
            ..RetryConfig::default()
        };
        let store = builder
            .with_bucket_name(&bucket)
            .with_retry(retry)
            .build()
            .map_err(|e| {
                Error::Config(format!(
                    "media bucket {bucket}: the S3 client cannot be set up: {}",
                    causes(&e)
                ))
            })?;
        Ok(Self {
            store: Arc::new(store),
            bucket,
            prefix,
        })
    }

    /// The key of `path`: `{prefix}/{path}`.
    fn key(&self, path: &MediaPath) -> Path {
        let relative = path.to_string();
        match &self.prefix {
            None => Path::from(relative),
            Some(prefix) => Path::from(format!("{prefix}/{relative}")),
        }
    }

    /// The media path a listed key names, `None` for a key of anything else.
    fn media_path(&self, key: &Path) -> Option<MediaPath> {
        let key = key.as_ref();
        let relative = match &self.prefix {
            None => key,
            Some(prefix) => key.strip_prefix(prefix.as_ref())?.strip_prefix('/')?,
        };
        let (project, rest) = relative.split_once('/')?;
        MediaPath::parse(project, rest)
    }
}

#[async_trait]
impl MediaFiles for ObjectStorage {
    async fn put(&self, path: &MediaPath, bytes: Bytes) -> Result<()> {
        self.store
            .put(&self.key(path), PutPayload::from(bytes))
            .await
            .map_err(|e| failure(&self.bucket, format_args!("writing {path}"), &e))?;
        Ok(())
    }

    async fn get(&self, path: &MediaPath) -> Result<Option<Bytes>> {
        let read = async { self.store.get(&self.key(path)).await?.bytes().await };
        match read.await {
            Ok(bytes) => Ok(Some(bytes)),
            Err(object_store::Error::NotFound { .. }) => Ok(None),
            Err(e) => Err(failure(&self.bucket, format_args!("reading {path}"), &e)),
        }
    }

    /// The object as it arrives from the bucket, a part at a time (never held whole).
    async fn read(&self, path: &MediaPath) -> Result<Option<FileRead>> {
        match self.store.get(&self.key(path)).await {
            Ok(found) => Ok(Some(FileRead {
                length: found.meta.size,
                chunks: Box::pin(found.into_stream().map_err(std::io::Error::other)),
                same_file: None,
            })),
            Err(object_store::Error::NotFound { .. }) => Ok(None),
            Err(e) => Err(failure(&self.bucket, format_args!("reading {path}"), &e)),
        }
    }

    async fn delete(&self, path: &MediaPath) -> Result<()> {
        match self.store.delete(&self.key(path)).await {
            Ok(()) | Err(object_store::Error::NotFound { .. }) => Ok(()),
            Err(e) => Err(failure(&self.bucket, format_args!("removing {path}"), &e)),
        }
    }

    /// Every stored file under the prefix. `stale_before` has nothing to act on: a PUT is
    /// never seen half-done, so no leftovers of unfinished writes exist.
    async fn list(&self, _stale_before: SystemTime) -> Result<Vec<StoredFile>> {
        let mut stored = Vec::new();
        let mut listing = self.store.list(self.prefix.as_ref());
        while let Some(object) = listing
            .try_next()
            .await
            .map_err(|e| failure(&self.bucket, "listing", &e))?
        {
            if let Some(path) = self.media_path(&object.location) {
                stored.push(StoredFile {
                    path,
                    modified: SystemTime::from(object.last_modified),
                });
            }
        }
        Ok(stored)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bucket_url_gives_the_bucket_and_its_prefix() {
        assert_eq!(
            parse_url("s3://media-bucket").unwrap(),
            ("media-bucket".into(), None)
        );
        assert_eq!(
            parse_url("s3://media-bucket/").unwrap(),
            ("media-bucket".into(), None)
        );
        let (bucket, prefix) = parse_url("s3://media.bucket/blogread/media/").unwrap();
        assert_eq!(bucket, "media.bucket");
        assert_eq!(prefix.unwrap().as_ref(), "blogread/media");
    }

    #[test]
    fn a_url_that_names_no_usable_bucket_is_refused_saying_what_to_write() {
        for url in [
            "s3://",
            "s3:///prefix",
            "http://x",
            "file:///x",
            "S3://bucket",
            "s3://Bucket",
            "s3://ab",
            "s3://key:secret@bucket",
            "s3://bucket:9000",
            "s3://bucket/a//b",
            "s3://bucket/../b",
            "s3://bucket/a?b",
            "/var/lib/blogread/media",
        ] {
            let Err(Error::Config(message)) = parse_url(url) else {
                panic!("{url} was not refused as configuration");
            };
            assert!(message.contains("write s3://bucket"), "{url}: {message}");
            assert!(!message.contains("secret"), "{url}: {message}");
        }
    }
}
