//! Types that describe themselves in the OpenAPI document the way the API behaves, where
//! poem-openapi's defaults would not: timestamps as `date-time` strings, required-but-nullable
//! fields, raw query parameters documented as integers (core parses and clamps them), path
//! ids, and JSON bodies parsed with serde (required or optional). The credentials are in
//! `auth.rs`.

use std::borrow::Cow;
use std::marker::PhantomData;

use blogread_core::domain::Timestamp;
use blogread_core::read::{DEFAULT_LIMIT, MAX_LIMIT};
use poem::{Request, RequestBody};
use poem_openapi::registry::{MetaMediaType, MetaRequest, MetaSchema, MetaSchemaRef, Registry};
use poem_openapi::types::{
    ParseError, ParseFromJSON, ParseFromParameter, ParseResult, ToJSON, Type,
};
use poem_openapi::{ApiExtractor, ApiExtractorType, ExtractParamOptions};
use serde::de::DeserializeOwned;
use serde_json::Value;

// ---- timestamps ----

/// An RFC 3339 UTC timestamp with a `Z` suffix and whole seconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DateTime(pub Timestamp);

impl From<Timestamp> for DateTime {
    fn from(t: Timestamp) -> Self {
        Self(t)
    }
}

fn date_time_schema() -> MetaSchema {
    MetaSchema {
        format: Some("date-time"),
        example: Some(Value::String("2026-11-21T09:30:00Z".into())),
        ..MetaSchema::new("string")
    }
}

/// `Type` for a timestamp type: documented inline as a `date-time` string.
macro_rules! date_time_type {
    ($ty:ty) => {
        impl Type for $ty {
            const IS_REQUIRED: bool = true;
            type RawValueType = Self;
            type RawElementValueType = Self;

            fn name() -> Cow<'static, str> {
                "string_date-time".into()
            }

            fn schema_ref() -> MetaSchemaRef {
                MetaSchemaRef::Inline(Box::new(date_time_schema()))
            }

            fn as_raw_value(&self) -> Option<&Self::RawValueType> {
                Some(self)
            }

            fn raw_element_iter<'a>(
                &'a self,
            ) -> Box<dyn Iterator<Item = &'a Self::RawElementValueType> + 'a> {
                Box::new(self.as_raw_value().into_iter())
            }
        }
    };
}

date_time_type!(DateTime);

impl ToJSON for DateTime {
    fn to_json(&self) -> Option<Value> {
        Some(Value::String(self.0.to_string()))
    }
}

impl<'de> serde::Deserialize<'de> for DateTime {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        Timestamp::parse(&s)
            .map(Self)
            .map_err(serde::de::Error::custom)
    }
}

impl ParseFromJSON for DateTime {
    fn parse_from_json(value: Option<Value>) -> ParseResult<Self> {
        match value {
            Some(Value::String(s)) => Timestamp::parse(&s)
                .map(Self)
                .map_err(|e| ParseError::custom(e.to_string())),
            Some(other) => Err(ParseError::expected_type(other)),
            None => Err(ParseError::expected_input()),
        }
    }
}

/// A timestamp in a request body, kept as the text sent: documented as a `date-time` string,
/// any string is taken, and the core judges it (a value that is not RFC 3339 is 422 naming the
/// field, like every other rule; a value that is not a string is 400).
#[derive(Debug, Clone, PartialEq, Eq, serde::Deserialize)]
#[serde(transparent)]
pub struct DateTimeText(pub String);

impl DateTimeText {
    /// The text as sent.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

date_time_type!(DateTimeText);

impl ParseFromJSON for DateTimeText {
    fn parse_from_json(value: Option<Value>) -> ParseResult<Self> {
        match value {
            Some(Value::String(s)) => Ok(Self(s)),
            Some(other) => Err(ParseError::expected_type(other)),
            None => Err(ParseError::expected_input()),
        }
    }
}

impl ToJSON for DateTimeText {
    fn to_json(&self) -> Option<Value> {
        Some(Value::String(self.0.clone()))
    }
}

// ---- required, nullable ----

/// A field that is always present and may be `null` (OpenAPI `nullable: true`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Nullable<T>(pub Option<T>);

impl<T> From<Option<T>> for Nullable<T> {
    fn from(v: Option<T>) -> Self {
        Self(v)
    }
}

impl<T: Type> Type for Nullable<T> {
    const IS_REQUIRED: bool = true;
    type RawValueType = T::RawValueType;
    type RawElementValueType = T::RawElementValueType;

    fn name() -> Cow<'static, str> {
        format!("nullable_{}", T::name()).into()
    }

    fn schema_ref() -> MetaSchemaRef {
        match T::schema_ref() {
            MetaSchemaRef::Inline(mut schema) => {
                schema.nullable = true;
                MetaSchemaRef::Inline(schema)
            }
            reference => MetaSchemaRef::Inline(Box::new(MetaSchema {
                nullable: true,
                all_of: vec![reference],
                ..MetaSchema::ANY
            })),
        }
    }

    fn register(registry: &mut Registry) {
        T::register(registry);
    }

    fn as_raw_value(&self) -> Option<&Self::RawValueType> {
        self.0.as_ref().and_then(Type::as_raw_value)
    }

    fn raw_element_iter<'a>(
        &'a self,
    ) -> Box<dyn Iterator<Item = &'a Self::RawElementValueType> + 'a> {
        match &self.0 {
            Some(v) => v.raw_element_iter(),
            None => Box::new(std::iter::empty()),
        }
    }
}

impl<T: ToJSON> ToJSON for Nullable<T> {
    fn to_json(&self) -> Option<Value> {
        Some(
            self.0
                .as_ref()
                .and_then(ToJSON::to_json)
                .unwrap_or(Value::Null),
        )
    }
}

impl<T: ParseFromJSON> ParseFromJSON for Nullable<T> {
    fn parse_from_json(value: Option<Value>) -> ParseResult<Self> {
        match value {
            None | Some(Value::Null) => Ok(Self(None)),
            value => T::parse_from_json(value)
                .map(|v| Self(Some(v)))
                .map_err(ParseError::propagate),
        }
    }
}

// ---- raw parameters ----

/// How a raw parameter is documented.
pub trait ParamDoc: Send + Sync + 'static {
    /// Name of the schema (for poem-openapi's bookkeeping).
    const NAME: &'static str;
    /// The schema shown in the document.
    fn schema() -> MetaSchema;
}

/// A query or path value received as sent (text), documented by `D`. It never fails to parse:
/// core (or the handler, for ids) decides what a bad value means.
#[derive(Debug, Clone)]
pub struct Raw<D>(pub String, PhantomData<D>);

impl<D> Raw<D> {
    /// The text as sent.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl<D: ParamDoc> Type for Raw<D> {
    const IS_REQUIRED: bool = true;
    type RawValueType = Self;
    type RawElementValueType = Self;

    fn name() -> Cow<'static, str> {
        D::NAME.into()
    }

    fn schema_ref() -> MetaSchemaRef {
        MetaSchemaRef::Inline(Box::new(D::schema()))
    }

    fn as_raw_value(&self) -> Option<&Self::RawValueType> {
        Some(self)
    }

    fn raw_element_iter<'a>(
        &'a self,
    ) -> Box<dyn Iterator<Item = &'a Self::RawElementValueType> + 'a> {
        Box::new(self.as_raw_value().into_iter())
    }
}

impl<D: ParamDoc> ParseFromParameter for Raw<D> {
    fn parse_from_parameter(value: &str) -> ParseResult<Self> {
        Ok(Self(value.to_owned(), PhantomData))
    }
}

/// The text of an optional raw parameter.
pub fn raw<D>(p: &Option<Raw<D>>) -> Option<&str> {
    p.as_ref().map(Raw::as_str)
}

/// `limit`: integer 1..=[`MAX_LIMIT`], default [`DEFAULT_LIMIT`] (the core's read rules);
/// out-of-range values are clamped.
#[derive(Debug, Clone)]
pub struct LimitDoc;
impl ParamDoc for LimitDoc {
    const NAME: &'static str = "limit";
    fn schema() -> MetaSchema {
        MetaSchema {
            format: Some("int64"),
            minimum: Some(1.0),
            maximum: Some(f64::from(MAX_LIMIT)),
            default: Some(DEFAULT_LIMIT.into()),
            ..MetaSchema::new("integer")
        }
    }
}

/// `offset`: integer >= 0, default 0; negative values are clamped to 0.
#[derive(Debug, Clone)]
pub struct OffsetDoc;
impl ParamDoc for OffsetDoc {
    const NAME: &'static str = "offset";
    fn schema() -> MetaSchema {
        MetaSchema {
            format: Some("int64"),
            minimum: Some(0.0),
            default: Some(0.into()),
            ..MetaSchema::new("integer")
        }
    }
}

/// The changes feed's `limit`: an integer, clamped to 1..=100, default 100.
pub struct ChangeLimitDoc;
impl ParamDoc for ChangeLimitDoc {
    const NAME: &'static str = "limit";
    fn schema() -> MetaSchema {
        MetaSchema {
            format: Some("int64"),
            minimum: Some(1.0),
            maximum: Some(f64::from(MAX_LIMIT)),
            default: Some(MAX_LIMIT.into()),
            ..MetaSchema::new("integer")
        }
    }
}

/// `include_content`: `true`/`false`/`1`/`0`, case-insensitive, default false.
#[derive(Debug, Clone)]
pub struct BoolDoc;
impl ParamDoc for BoolDoc {
    const NAME: &'static str = "include_content";
    fn schema() -> MetaSchema {
        MetaSchema {
            default: Some(false.into()),
            ..MetaSchema::new("boolean")
        }
    }
}

/// `status` of the management blog list.
#[derive(Debug, Clone)]
pub struct StatusDoc;
impl ParamDoc for StatusDoc {
    const NAME: &'static str = "blog_status_filter";
    fn schema() -> MetaSchema {
        MetaSchema {
            enum_items: vec![
                "draft".into(),
                "published".into(),
                "unpublished".into(),
                "scheduled".into(),
            ],
            ..MetaSchema::new("string")
        }
    }
}

/// An id in a path: a UUID; anything else is 404.
#[derive(Debug, Clone)]
pub struct IdDoc;
impl ParamDoc for IdDoc {
    const NAME: &'static str = "uuid_id";
    fn schema() -> MetaSchema {
        MetaSchema {
            format: Some("uuid"),
            example: Some("0192d1a4-7b1c-7cc3-9f7e-2b6a0c1d2e3f".into()),
            ..MetaSchema::new("string")
        }
    }
}

/// A path id, as sent.
pub type PathId = Raw<IdDoc>;

// ---- JSON bodies ----

/// A JSON request body parsed with serde, so that a malformed body gets a detail that names
/// the field (`missing field `slug``, `invalid type: integer `5`, expected a string`); the
/// document shows `T`'s schema.
#[derive(Debug, Clone)]
pub struct JsonBody<T>(pub T);

/// A JSON request body that may be left out entirely (no body at all).
#[derive(Debug, Clone)]
pub struct OptionalJsonBody<T>(pub Option<T>);

fn json_request_meta<T: Type>(required: bool) -> Option<MetaRequest> {
    Some(MetaRequest {
        description: None,
        content: vec![MetaMediaType {
            content_type: "application/json; charset=utf-8",
            schema: T::schema_ref(),
        }],
        required,
    })
}

/// Reads the body: `None` when it is empty and `optional`; an error naming what is wrong
/// otherwise.
async fn read_json<T: DeserializeOwned>(
    request: &Request,
    body: &mut RequestBody,
    optional: bool,
) -> poem::Result<Option<T>> {
    let bytes = body.take()?.into_bytes().await?;
    if optional && bytes.iter().all(u8::is_ascii_whitespace) {
        return Ok(None);
    }
    let is_json = request.content_type().is_some_and(|ct| {
        let essence = ct
            .split(';')
            .next()
            .unwrap_or("")
            .trim()
            .to_ascii_lowercase();
        essence == "application/json"
            || (essence.starts_with("application/") && essence.ends_with("+json"))
    });
    if !is_json {
        return Err(match request.content_type() {
            Some(ct) => poem_openapi::error::ContentTypeError::NotSupported {
                content_type: ct.to_owned(),
            }
            .into(),
            None => poem_openapi::error::ContentTypeError::ExpectContentType.into(),
        });
    }
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Err(poem_openapi::error::ParseRequestPayloadError {
            reason: "the body is empty; this endpoint needs a JSON object".into(),
        }
        .into());
    }
    serde_json::from_slice(&bytes).map(Some).map_err(|e| {
        poem_openapi::error::ParseRequestPayloadError {
            reason: e.to_string(),
        }
        .into()
    })
}

impl<'a, T: DeserializeOwned + Type + Send> ApiExtractor<'a> for JsonBody<T> {
    const TYPES: &'static [ApiExtractorType] = &[ApiExtractorType::RequestObject];
    type ParamType = ();
    type ParamRawType = ();

    fn register(registry: &mut Registry) {
        T::register(registry);
    }

    fn request_meta() -> Option<MetaRequest> {
        json_request_meta::<T>(true)
    }

    async fn from_request(
        request: &'a Request,
        body: &mut RequestBody,
        _param_opts: ExtractParamOptions<Self::ParamType>,
    ) -> poem::Result<Self> {
        let value = read_json(request, body, false).await?;
        Ok(Self(value.expect("a required body is never None")))
    }
}

impl<'a, T: DeserializeOwned + Type + Send> ApiExtractor<'a> for OptionalJsonBody<T> {
    const TYPES: &'static [ApiExtractorType] = &[ApiExtractorType::RequestObject];
    type ParamType = ();
    type ParamRawType = ();

    fn register(registry: &mut Registry) {
        T::register(registry);
    }

    fn request_meta() -> Option<MetaRequest> {
        json_request_meta::<T>(false)
    }

    async fn from_request(
        request: &'a Request,
        body: &mut RequestBody,
        _param_opts: ExtractParamOptions<Self::ParamType>,
    ) -> poem::Result<Self> {
        read_json(request, body, true).await.map(Self)
    }
}
