//! The floor: a poem server that answers each captured request with the very bytes blogread
//! sent for it (body, `Content-Type`, `ETag`), straight from memory. Nothing can answer these
//! requests with less work on the same HTTP stack, so blogread's throughput is reported as a
//! ratio to it.

use std::collections::HashMap;

use bytes::Bytes;
use poem::http::{HeaderValue, StatusCode, header};
use poem::{Endpoint, Request, Response};

/// One captured answer, by the path and query it answers.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct FloorRoute {
    /// Path and query, e.g. `/blog/api/v1/public/blogs?limit=50`.
    pub path_and_query: String,
    /// `Content-Type` as blogread sent it.
    pub content_type: String,
    /// `ETag` as blogread sent it.
    pub etag: Option<String>,
    /// The body (JSON text).
    pub body: String,
}

struct Route {
    content_type: HeaderValue,
    etag: Option<HeaderValue>,
    body: Bytes,
}

/// The floor endpoint: a map lookup, then the stored bytes (or a 304 when `If-None-Match`
/// names the stored ETag exactly).
pub struct Floor {
    routes: HashMap<String, Route>,
}

impl Floor {
    /// A floor answering `routes`.
    pub fn new(routes: Vec<FloorRoute>) -> Result<Self, String> {
        let mut map = HashMap::new();
        for r in routes {
            let route = Route {
                content_type: HeaderValue::from_str(&r.content_type).map_err(|e| e.to_string())?,
                etag: r
                    .etag
                    .as_deref()
                    .map(HeaderValue::from_str)
                    .transpose()
                    .map_err(|e| e.to_string())?,
                body: Bytes::from(r.body),
            };
            map.insert(r.path_and_query, route);
        }
        Ok(Self { routes: map })
    }
}

impl Endpoint for Floor {
    type Output = Response;

    async fn call(&self, req: Request) -> poem::Result<Response> {
        let key = req.uri().path_and_query().map_or("", |p| p.as_str());
        let Some(route) = self.routes.get(key) else {
            return Ok(Response::builder().status(StatusCode::NOT_FOUND).finish());
        };
        let mut resp = Response::builder();
        if let Some(etag) = &route.etag {
            resp = resp.header(header::ETAG, etag.clone());
            if req.headers().get(header::IF_NONE_MATCH) == Some(etag) {
                return Ok(resp.status(StatusCode::NOT_MODIFIED).finish());
            }
        }
        Ok(resp
            .header(header::CONTENT_TYPE, route.content_type.clone())
            .body(route.body.clone()))
    }
}
