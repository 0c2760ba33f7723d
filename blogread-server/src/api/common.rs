//! What every group of operations shares: the tags of the document, the success responses,
//! and the parsing of ids in paths.

use poem_openapi::Tags;

use super::schema;
use crate::error::ApiError;

/// Groups of operations in the document.
#[derive(Tags)]
pub enum ApiTags {
    /// The public read API: published blogs of the key's project, for site builds.
    Public,
    /// Projects and their admin tokens (operator and project admins).
    Projects,
    /// Public key (Generate, Reveal, Rotate, Revoke) and agent keys.
    Keys,
    /// Blog content: drafts, publishing, unpublishing (admins and agents).
    Blogs,
    /// The deploy hook: an outgoing build trigger, fired when the public content changes.
    DeployHook,
    /// Images stored in the service: upload, list, alt text, delete (admins and agents).
    Media,
    /// Operations: health.
    Operations,
}

/// Parses a path id; a malformed one answers 404 like an unknown one (`docs/management-api.md#statuses`).
pub(crate) fn path_id<T: std::str::FromStr>(
    raw: &schema::PathId,
    not_found: blogread_core::error::NotFound,
) -> Result<T, ApiError> {
    raw.as_str()
        .parse()
        .map_err(|_| ApiError::from(blogread_core::Error::NotFound(not_found)))
}

/// 200 with a JSON body.
#[derive(poem_openapi::ApiResponse)]
pub enum Ok200<T: poem_openapi::types::ToJSON + Send + Sync> {
    /// Success.
    #[oai(status = 200)]
    Ok(poem_openapi::payload::Json<T>),
}

/// 201 with a JSON body.
#[derive(poem_openapi::ApiResponse)]
pub enum Created201<T: poem_openapi::types::ToJSON + Send + Sync> {
    /// Created.
    #[oai(status = 201)]
    Created(poem_openapi::payload::Json<T>),
}

/// 204 with no body.
#[derive(poem_openapi::ApiResponse)]
pub enum NoContent204 {
    /// Done; no body.
    #[oai(status = 204)]
    NoContent,
}

/// `Ok(Ok200)` from a core result converted with `Into`.
pub(crate) fn ok<C, T>(v: C) -> Ok200<T>
where
    T: From<C> + poem_openapi::types::ToJSON + Send + Sync,
{
    Ok200::Ok(poem_openapi::payload::Json(v.into()))
}

/// `Created201` from a core result converted with `Into`.
pub(crate) fn created<C, T>(v: C) -> Created201<T>
where
    T: From<C> + poem_openapi::types::ToJSON + Send + Sync,
{
    Created201::Created(poem_openapi::payload::Json(v.into()))
}
