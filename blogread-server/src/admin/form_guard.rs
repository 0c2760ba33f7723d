//! The form token check of every state change: a POST to the admin pages (but `Sign in`,
//! which has no session yet) must carry the `form_token` of the session its cookie names,
//! checked by the core before any handler reads the form. Authors are not trusted on the
//! admin origin, so the Origin check alone is not enough: a form planted in a page of this
//! origin passes it, but cannot know the token.
//!
//! The token is read from the body the form sent, urlencoded or (the Media page's Upload)
//! `multipart/form-data`; the body is read no further than the cap the server gave the
//! request ([`BodyCap`]: an upload's is larger than a form's).

use std::sync::Arc;

use blogread_core::Error as CoreError;
use bytes::Bytes;
use poem::http::Method;
use poem::web::Multipart;
use poem::{Body, Endpoint, FromRequest, IntoResponse, Middleware, Request, RequestBody, Response};

use super::http::{see_other, session_cookie};
use super::pages::Admin;
use crate::serve::{BODY_LIMIT, BodyCap};

/// The form field that carries the token.
pub const FIELD: &str = "form_token";

/// The admin paths a POST may reach without a session (and so without a form token).
const WITHOUT_SESSION: [&str; 1] = ["/sign-in"];

/// Checks the form token of every admin POST (see the module docs); the session it finds
/// goes to the handler in the request's extensions, so the handler does not look it up again.
pub(super) struct FormGuard {
    admin: Arc<Admin>,
}

impl FormGuard {
    pub(super) fn new(admin: Arc<Admin>) -> Self {
        Self { admin }
    }
}

impl<E: Endpoint> Middleware<E> for FormGuard {
    type Output = FormGuardEndpoint<E>;

    fn transform(&self, ep: E) -> Self::Output {
        FormGuardEndpoint {
            inner: ep,
            admin: Arc::clone(&self.admin),
        }
    }
}

/// The endpoint of [`FormGuard`].
pub(super) struct FormGuardEndpoint<E> {
    inner: E,
    admin: Arc<Admin>,
}

impl<E: Endpoint> Endpoint for FormGuardEndpoint<E> {
    type Output = Response;

    async fn call(&self, mut req: Request) -> poem::Result<Response> {
        let exempt = WITHOUT_SESSION.contains(&req.uri().path());
        if *req.method() != Method::POST || exempt {
            return self.inner.call(req).await.map(IntoResponse::into_response);
        }
        let Some(session) = session_cookie(req.headers()) else {
            return Ok(see_other("/admin/"));
        };
        let cap = req
            .extensions()
            .get::<BodyCap>()
            .map_or(BODY_LIMIT, |cap| cap.0);
        let body = match req.take_body().into_bytes_limit(cap).await {
            Ok(body) => body,
            Err(err) => return Err(err.into()),
        };
        let token = form_token(&req, &body).await;
        req.set_body(body);
        match self
            .admin
            .service()
            .admin_session_for_change(&session, &token)
            .await
        {
            Ok(signed_in) => {
                req.extensions_mut().insert(signed_in);
                self.inner.call(req).await.map(IntoResponse::into_response)
            }
            Err(CoreError::Unauthorized(_)) => Ok(self.admin.session_ended(&req)),
            Err(err) => Ok(self.admin.error_page(&err)),
        }
    }
}

/// Whether the request's body is `multipart/form-data`.
fn is_multipart(req: &Request) -> bool {
    req.content_type().is_some_and(|ct| {
        ct.split(';')
            .next()
            .is_some_and(|essence| essence.trim().eq_ignore_ascii_case("multipart/form-data"))
    })
}

/// The form token `body` carries (empty when none: refused as a wrong one).
async fn form_token(req: &Request, body: &Bytes) -> String {
    if !is_multipart(req) {
        return url::form_urlencoded::parse(body)
            .find(|(name, _)| name == FIELD)
            .map(|(_, value)| value.into_owned())
            .unwrap_or_default();
    }
    // The parts are read from a copy of the body (the bytes are shared, not copied) up to
    // the token's: the Upload form sends it first, before the file.
    let mut copy = RequestBody::new(Body::from_bytes(body.clone()));
    let Ok(mut form) = Multipart::from_request(req, &mut copy).await else {
        return String::new();
    };
    while let Ok(Some(field)) = form.next_field().await {
        if field.name() == Some(FIELD) {
            return field.text().await.unwrap_or_default();
        }
    }
    String::new()
}

#[cfg(test)]
mod tests {
    use super::FIELD;
    use crate::admin::pages::TEMPLATES;

    #[test]
    fn every_form_but_sign_in_carries_the_form_token() {
        let hidden =
            format!("<input type=\"hidden\" name=\"{FIELD}\" value=\"{{{{ me.form_token }}}}\">");
        let mut forms = 0;
        for (name, source) in TEMPLATES {
            for form in source.split("<form").skip(1) {
                let form = &form[..form.find("</form>").expect("every form is closed")];
                forms += 1;
                if form.contains("action=\"/admin/sign-in\"") {
                    assert!(!form.contains(FIELD), "sign-in has no session to bind to");
                    continue;
                }
                assert!(form.contains("method=\"post\""), "{name}: {form}");
                assert!(
                    form.contains(&hidden),
                    "{name}: a form without its token: {form}"
                );
            }
        }
        assert!(forms > 20, "{forms} forms found");
    }
}
