//! The credential of a request: the security schemes the document describes, and the
//! [`Caller`] the handlers hand to the core, which decides every 401.
//!
//! The schemes are declared with poem-openapi's `#[derive(SecurityScheme)]`: their names and
//! types, and their doc comments as their descriptions (one line each, as the document has
//! them). Reading the credential is not left to the derive, nor to a `checker` on it: the
//! derived extractor parses the `Authorization` header itself and answers a missing or
//! malformed one (no header, `Basic ...`, `Bearer ` with nothing after it) with poem's own
//! 401 before any checker runs. The core must decide those too, with details that say what
//! to send, and the public API must count an `api_key` query value only when no header was
//! sent (a scheme enum would try the next scheme instead, and a fallback variant would add an
//! anonymous alternative to every operation's `security` in the document). So [`Auth`] is the
//! one hand-written extractor: it documents its derived schemes and carries the request's
//! credential to the core, unjudged.

use std::marker::PhantomData;

use blogread_core::auth::Caller;
use poem::Request;
use poem::http::header::AUTHORIZATION;
use poem_openapi::auth::{ApiKey, Bearer};
use poem_openapi::registry::Registry;
use poem_openapi::{ApiExtractor, ApiExtractorType, ExtractParamOptions, SecurityScheme};

/// The credential of a request, documented as the security schemes of `S`, read as the core
/// takes it.
pub struct Auth<S>(Caller, PhantomData<S>);

impl<S> Auth<S> {
    /// The caller, as the core takes it.
    pub fn caller(&self) -> &Caller {
        &self.0
    }
}

/// The credential of a public request: its `Authorization` header, and its `api_key` query
/// value (the core considers it only when no header was sent).
pub type PublicAuth = Auth<PublicKey>;

/// The credential of a management request: its `Authorization` header.
pub type ManagementAuth = Auth<ManagementToken>;

/// Security schemes that say how the caller of a request is read.
pub trait Credential: for<'a> ApiExtractor<'a> + Send + Sync + 'static {
    /// The caller of `req`.
    fn caller(req: &Request) -> Caller;
}

/// The public key, in the header or in the query.
#[derive(SecurityScheme)]
pub enum PublicKey {
    /// In `Authorization: Bearer`.
    Bearer(PublicKeyBearer),
    /// In the `api_key` query parameter.
    Query(PublicKeyQuery),
}

impl Credential for PublicKey {
    fn caller(req: &Request) -> Caller {
        let api_key = req.uri().query().and_then(|query| {
            url::form_urlencoded::parse(query.as_bytes())
                .find(|(name, _)| name == "api_key")
                .map(|(_, value)| value.into_owned())
        });
        header_caller(req).with_api_key(api_key.as_deref())
    }
}

/// The project's public key (pk_live_...) as `Authorization: Bearer <key>`. When this header is present it is the only key considered, even if api_key is also given.
#[derive(SecurityScheme)]
#[oai(
    rename = "public_key_bearer",
    ty = "bearer",
    bearer_format = "pk_live_..."
)]
pub struct PublicKeyBearer(
    #[expect(dead_code, reason = "filled by the derive; `Auth` reads the caller")] Bearer,
);

/// The project's public key (pk_live_...) as the api_key query parameter.
#[derive(SecurityScheme)]
#[oai(
    rename = "public_key_query",
    ty = "api_key",
    key_in = "query",
    key_name = "api_key"
)]
pub struct PublicKeyQuery(
    #[expect(dead_code, reason = "filled by the derive; `Auth` reads the caller")] ApiKey,
);

/// `Authorization: Bearer <token>`: the operator token (BLOGREAD_ADMIN_TOKEN), a project admin token (sk_admin_...), or, for blog writes, an agent key (sk_agent_...).
#[derive(SecurityScheme)]
#[oai(rename = "management_token", ty = "bearer")]
pub struct ManagementToken(
    #[expect(dead_code, reason = "filled by the derive; `Auth` reads the caller")] Bearer,
);

impl Credential for ManagementToken {
    fn caller(req: &Request) -> Caller {
        header_caller(req)
    }
}

/// The caller of a request's `Authorization` header, its bytes as sent.
fn header_caller(req: &Request) -> Caller {
    Caller::from_authorization(req.headers().get(AUTHORIZATION).map(|v| v.as_bytes()))
}

impl<'a, S: Credential> ApiExtractor<'a> for Auth<S> {
    const TYPES: &'static [ApiExtractorType] = &[ApiExtractorType::SecurityScheme];
    type ParamType = ();
    type ParamRawType = ();

    fn register(registry: &mut Registry) {
        <S as ApiExtractor<'a>>::register(registry);
    }

    fn security_schemes() -> Vec<&'static str> {
        <S as ApiExtractor<'a>>::security_schemes()
    }

    async fn from_request(
        request: &'a Request,
        _body: &mut poem::RequestBody,
        _param_opts: ExtractParamOptions<Self::ParamType>,
    ) -> poem::Result<Self> {
        Ok(Self(S::caller(request), PhantomData))
    }
}
