//! The HTTP side of the admin pages that is not a page: the session cookie, the same-origin
//! check of every state change, the security headers, and the rendered answers.

use blogread_markup::escape::{Escapes, escape};
use poem::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use poem::{Endpoint, IntoResponse, Middleware, Request, Response};

/// The session cookie's name.
pub const COOKIE: &str = "blogread_admin";

/// The `Content-Security-Policy` of every admin answer: nothing but this server's own files,
/// no inline script, never framed.
pub const CSP: &str = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; \
     form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

/// Whether the request came over https: directly, or through a proxy that says so.
pub fn is_https(req: &Request) -> bool {
    if req.uri().scheme_str() == Some("https") {
        return true;
    }
    let forwarded = |name: &str| {
        req.headers()
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::to_ascii_lowercase)
    };
    forwarded("x-forwarded-proto")
        .is_some_and(|p| p.split(',').next().map(str::trim) == Some("https"))
        || forwarded("forwarded").is_some_and(|f| f.contains("proto=https"))
}

/// The session id the request's cookie carries, if any.
pub fn session_cookie(headers: &HeaderMap) -> Option<String> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(name, _)| *name == COOKIE)
        .map(|(_, value)| value.trim().to_owned())
        .filter(|value| !value.is_empty())
}

/// The `Set-Cookie` value that hands the browser a session for `max_age` seconds (0 ends it):
/// `HttpOnly`, `SameSite=Strict`, and `Secure` when the request came over https.
pub fn set_cookie(value: &str, max_age: u64, secure: bool) -> String {
    let secure = if secure { "; Secure" } else { "" };
    format!("{COOKIE}={value}; Path=/admin; Max-Age={max_age}; HttpOnly; SameSite=Strict{secure}")
}

/// A `303 See Other` to `to` (the answer to a form that changed something).
pub fn see_other(to: &str) -> Response {
    Response::builder()
        .status(StatusCode::SEE_OTHER)
        .header(header::LOCATION, to)
        .finish()
}

/// An HTML answer.
pub fn html(status: StatusCode, body: String) -> Response {
    Response::builder()
        .status(status)
        .content_type("text/html; charset=utf-8")
        .body(body)
}

/// The origin (`scheme://host[:port]`) of this server as the request addressed it.
fn own_origin(req: &Request) -> Option<String> {
    let host = req
        .headers()
        .get(header::HOST)
        .and_then(|v| v.to_str().ok())
        .or_else(|| req.uri().authority().map(|a| a.as_str()))?;
    let scheme = if is_https(req) { "https" } else { "http" };
    Some(format!("{scheme}://{}", host.to_ascii_lowercase()))
}

/// The origin a request says it was sent from: its `Origin`, else its `Referer`'s origin.
fn sender_origin(req: &Request) -> Option<String> {
    let value = |name| {
        req.headers()
            .get(name)
            .and_then(|v: &HeaderValue| v.to_str().ok())
    };
    if let Some(origin) = value(header::ORIGIN).filter(|o| *o != "null") {
        return Some(origin.trim_end_matches('/').to_ascii_lowercase());
    }
    let referer = url::Url::parse(value(header::REFERER)?).ok()?;
    Some(referer.origin().ascii_serialization().to_ascii_lowercase())
}

/// Wraps the admin pages: refuses a state change (any method but GET and HEAD) whose `Origin`
/// (or `Referer`) is not this server's own with 403, and gives every answer the security
/// headers (`Content-Security-Policy`, `Referrer-Policy`, `Cache-Control: no-store`...).
pub struct AdminGuard {
    /// The origin of the configured public URL, also the server's own.
    public_origin: Option<String>,
}

impl AdminGuard {
    /// The guard; `public_origin` (`scheme://host[:port]`, lower case) is accepted as the
    /// server's own origin besides the one the request addressed.
    pub fn new(public_origin: Option<String>) -> Self {
        Self { public_origin }
    }
}

impl<E: Endpoint> Middleware<E> for AdminGuard {
    type Output = AdminGuardEndpoint<E>;

    fn transform(&self, ep: E) -> Self::Output {
        AdminGuardEndpoint {
            inner: ep,
            public_origin: self.public_origin.clone(),
        }
    }
}

/// The endpoint of [`AdminGuard`].
pub struct AdminGuardEndpoint<E> {
    inner: E,
    public_origin: Option<String>,
}

impl<E> AdminGuardEndpoint<E> {
    /// Whether the request says it was sent from this server's own origin.
    fn same_origin(&self, req: &Request) -> bool {
        match sender_origin(req) {
            Some(sender) => {
                Some(&sender) == own_origin(req).as_ref()
                    || Some(&sender) == self.public_origin.as_ref()
            }
            None => false,
        }
    }
}

impl<E: Endpoint> Endpoint for AdminGuardEndpoint<E> {
    type Output = Response;

    async fn call(&self, req: Request) -> poem::Result<Response> {
        let changes_state = !matches!(*req.method(), Method::GET | Method::HEAD);
        let mut resp = if changes_state && !self.same_origin(&req) {
            let from = sender_origin(&req).unwrap_or_else(|| "an unknown origin".to_owned());
            html(
                StatusCode::FORBIDDEN,
                format!(
                    "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Refused</title></head>\
                     <body><h1>Refused: cross-origin request</h1><p>This change was sent from {}, not from these \
                     admin pages. Open the admin pages of this server and use their buttons.</p></body></html>",
                    escape(&from, Escapes::TEXT_OR_ATTRIBUTE_VALUE)
                ),
            )
        } else {
            match self.inner.call(req).await {
                Ok(resp) => resp.into_response(),
                Err(err) => {
                    let status = err.status();
                    html(
                        status,
                        format!(
                            "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>{status}</title></head>\
                             <body><h1>{status}</h1><p>{}</p><p><a href=\"/admin/\">Back to the admin pages</a></p></body></html>",
                            escape(&err.to_string(), Escapes::TEXT_OR_ATTRIBUTE_VALUE)
                        ),
                    )
                }
            }
        };
        let headers = resp.headers_mut();
        // A page that sets its own policy keeps it (the post preview: a sandbox framed by
        // these pages); every other answer gets these.
        let mut set = |name: &'static str, value: &'static str| {
            headers
                .entry(name)
                .or_insert_with(|| HeaderValue::from_static(value));
        };
        set("content-security-policy", CSP);
        set("referrer-policy", "same-origin");
        set("cache-control", "no-store");
        set("x-content-type-options", "nosniff");
        set("x-frame-options", "DENY");
        Ok(resp)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_session_cookie_is_found_among_others() {
        let mut headers = HeaderMap::new();
        headers.insert(
            header::COOKIE,
            HeaderValue::from_static("a=1; blogread_admin=ss_x ; b=2"),
        );
        assert_eq!(session_cookie(&headers).as_deref(), Some("ss_x"));
        headers.insert(header::COOKIE, HeaderValue::from_static("blogread_admin="));
        assert_eq!(session_cookie(&headers), None);
    }

    #[test]
    fn the_cookie_is_http_only_strict_and_secure_only_over_https() {
        let plain = set_cookie("v", 60, false);
        assert!(plain.contains("HttpOnly") && plain.contains("SameSite=Strict"));
        assert!(!plain.contains("Secure"));
        assert!(set_cookie("v", 60, true).ends_with("; Secure"));
    }
}
