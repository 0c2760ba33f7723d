//! The upload's request body: `multipart/form-data` with a part `file` (the image) and an
//! optional text part `alt`, read within the upload's body cap (enforced before this, by
//! [`crate::middleware::BodyLimit`]), with details that say what to send.

use bytes::Bytes;
use poem::http::StatusCode;
use poem::web::Multipart;
use poem::{FromRequest, Request, RequestBody};
use poem_openapi::registry::{MetaMediaType, MetaRequest, MetaSchema, MetaSchemaRef, Registry};
use poem_openapi::{ApiExtractor, ApiExtractorType, ExtractParamOptions};

use crate::error::ApiError;

/// An upload as sent.
#[derive(Debug, Clone)]
pub struct MediaForm {
    /// The part `file`'s bytes.
    pub file: Bytes,
    /// The part `file`'s declared type, if any.
    pub file_type: Option<String>,
    /// The part `alt`, if sent.
    pub alt: Option<String>,
}

/// What the body must be, said in every refusal of its shape.
const SHAPE: &str = "send the image as multipart/form-data with a part named `file` (and optionally a text part `alt`)";

fn bad(detail: impl Into<String>) -> poem::Error {
    ApiError::new(StatusCode::BAD_REQUEST, detail).into()
}

fn schema() -> MetaSchemaRef {
    let file = MetaSchema {
        format: Some("binary"),
        description: Some(
            "The image: JPEG, PNG, GIF or WebP, told by its bytes; at most 20 MiB, 16,383 px on a side and 40 megapixels.",
        ),
        ..MetaSchema::new("string")
    };
    let alt = MetaSchema {
        max_length: Some(1000),
        description: Some("The image's alt text (at most 1000 characters)."),
        ..MetaSchema::new("string")
    };
    MetaSchemaRef::Inline(Box::new(MetaSchema {
        required: vec!["file"],
        properties: vec![
            ("file", MetaSchemaRef::Inline(Box::new(file))),
            ("alt", MetaSchemaRef::Inline(Box::new(alt))),
        ],
        ..MetaSchema::new("object")
    }))
}

impl<'a> ApiExtractor<'a> for MediaForm {
    const TYPES: &'static [ApiExtractorType] = &[ApiExtractorType::RequestObject];
    type ParamType = ();
    type ParamRawType = ();

    fn register(_registry: &mut Registry) {}

    fn request_meta() -> Option<MetaRequest> {
        Some(MetaRequest {
            description: None,
            content: vec![MetaMediaType {
                content_type: "multipart/form-data",
                schema: schema(),
            }],
            required: true,
        })
    }

    async fn from_request(
        request: &'a Request,
        body: &mut RequestBody,
        _param_opts: ExtractParamOptions<Self::ParamType>,
    ) -> poem::Result<Self> {
        let is_multipart = request.content_type().is_some_and(|ct| {
            ct.split(';')
                .next()
                .is_some_and(|e| e.trim().eq_ignore_ascii_case("multipart/form-data"))
        });
        if !is_multipart {
            return Err(ApiError::new(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                format!(
                    "{SHAPE}; got Content-Type `{}`",
                    request.content_type().unwrap_or("none")
                ),
            )
            .into());
        }
        let mut form = <Multipart as FromRequest>::from_request(request, body)
            .await
            .map_err(|e| bad(format!("{SHAPE}: {e}")))?;
        let (mut file, mut file_type, mut alt) = (None, None, None);
        loop {
            let field = match form.next_field().await {
                Ok(Some(field)) => field,
                Ok(None) => break,
                Err(e) => return Err(bad(format!("the multipart body does not parse: {e}"))),
            };
            match field.name() {
                Some("file") if file.is_none() => {
                    file_type = field.content_type().map(str::to_owned);
                    let bytes = field
                        .bytes()
                        .await
                        .map_err(|e| bad(format!("the part `file` could not be read: {e}")))?;
                    file = Some(Bytes::from(bytes));
                }
                Some("alt") if alt.is_none() => {
                    let text = field
                        .text()
                        .await
                        .map_err(|e| bad(format!("the part `alt` is not UTF-8 text: {e}")))?;
                    alt = Some(text);
                }
                Some(name @ ("file" | "alt")) => {
                    return Err(bad(format!("the part `{name}` is sent twice; send one")));
                }
                // Other parts are read past and ignored, like unknown JSON fields.
                _ => {}
            }
        }
        let file = file.ok_or_else(|| bad(format!("no part named `file`: {SHAPE}")))?;
        Ok(Self {
            file,
            file_type,
            alt,
        })
    }
}
