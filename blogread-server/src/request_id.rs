//! The id of the request being served: set by the request log around each request, read
//! by whatever logs inside it (a 500's cause, a failed health check), answered as
//! `X-Request-Id`.

/// The header answering the request's id.
pub(crate) const X_REQUEST_ID: poem::http::HeaderName =
    poem::http::HeaderName::from_static("x-request-id");

tokio::task_local! {
    /// The id of the request this task serves.
    pub(crate) static REQUEST_ID: String;
}

/// The id of the request being served, or a fresh one outside of a request.
pub fn current_request_id() -> String {
    REQUEST_ID
        .try_with(Clone::clone)
        .unwrap_or_else(|_| new_request_id())
}

/// A new request id: a UUID v7 without hyphens.
pub(crate) fn new_request_id() -> String {
    uuid::Uuid::now_v7().simple().to_string()
}
