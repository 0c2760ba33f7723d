//! One HTTP exchange as the client makes it: the request sent, the answer's body read in
//! chunks within a cap, and the task aborted when the call awaiting it is dropped.

use std::time::Duration;

use reqwest::header::{CONTENT_TYPE, ETAG};

use crate::retry;

/// The most bytes of an error answer's body read: its `detail` is all the client uses (and
/// shows at most 200 characters of).
pub(crate) const ERROR_BODY_BYTES: u64 = 64 * 1024;

/// Why an exchange gave no answer.
pub(crate) enum Failed {
    /// The request or the answer failed on the way (retried when
    /// [`retry::is_retryable_transport`] says so).
    Http(reqwest::Error),
    /// The answer's body is longer than the client's cap: declared so, or found so while
    /// reading.
    TooLarge {
        /// The `Content-Length` the answer declared, if any.
        declared: Option<u64>,
    },
}

/// Sends `request` and reads the answer: a success's whole body, at most `max` bytes of it
/// (read chunk by chunk, so a longer body is never held whole, with or without a
/// `Content-Length`), or the first [`ERROR_BODY_BYTES`] of an error's.
pub(crate) async fn exchange(request: reqwest::RequestBuilder, max: u64) -> Result<Answer, Failed> {
    let mut response = request.send().await.map_err(Failed::Http)?;
    let status = response.status().as_u16();
    let retry_after = retry::retry_after(response.headers());
    let etag = response
        .headers()
        .get(ETAG)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    let content_type = response
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    let success = matches!(status, 200 | 304);
    let declared = response.content_length();
    if success && declared.is_some_and(|n| n > max) {
        return Err(Failed::TooLarge { declared });
    }
    let keep = if success {
        max
    } else {
        max.min(ERROR_BODY_BYTES)
    };
    let capacity = declared.unwrap_or(0).min(keep).min(1024 * 1024);
    let mut body = Vec::with_capacity(usize::try_from(capacity).unwrap_or(0));
    while let Some(chunk) = response.chunk().await.map_err(Failed::Http)? {
        let room = keep.saturating_sub(body.len() as u64);
        if chunk.len() as u64 > room {
            if success {
                return Err(Failed::TooLarge { declared });
            }
            // An error's detail needs only the start: the rest is dropped unread.
            body.extend_from_slice(&chunk[..usize::try_from(room).unwrap_or(0)]);
            break;
        }
        body.extend_from_slice(&chunk);
    }
    Ok(Answer {
        status,
        etag,
        content_type,
        retry_after,
        body,
    })
}

/// Aborts a spawned exchange when the call awaiting it is dropped.
pub(crate) struct AbortOnDrop<T>(pub(crate) tokio::task::JoinHandle<T>);

impl<T> Drop for AbortOnDrop<T> {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// An answer as [`exchange`] read it.
pub(crate) struct Answer {
    /// The status code.
    pub(crate) status: u16,
    /// The `ETag`, if any.
    pub(crate) etag: Option<String>,
    /// The `Content-Type`, if any.
    pub(crate) content_type: Option<String>,
    /// The `Retry-After` wait, if any.
    pub(crate) retry_after: Option<Duration>,
    /// The body read.
    pub(crate) body: Vec<u8>,
}
