//! The public read rules: parameter parsing and clamping, the list, the single blog, the
//! sitemap, ETags and conditional requests, all through one conditional read.

use bytes::Bytes;
use sha2::{Digest, Sha256};

use crate::domain::PublicProject;
use crate::error::{Error, Result};

/// Default page size.
pub const DEFAULT_LIMIT: u32 = 50;
/// Largest page size.
pub const MAX_LIMIT: u32 = 100;
/// Most sitemap entries returned.
pub const SITEMAP_CAP: u32 = 5000;
/// The `Cache-Control` of every public answer, 200 and 304 alike: a browser may keep it but
/// must ask again (with the ETag) before using it, and a shared cache must not keep an answer
/// that a key opened.
pub const CACHE_CONTROL: &str = "private, no-cache";
/// Largest offset applied (what SQL backends can express); larger values are clamped to it.
pub const MAX_OFFSET: u64 = i64::MAX as u64;

/// The list endpoint's query parameters as received (absent or raw text), for HTTP adapters:
/// deserialise it from the query string with the framework's extractor and pass it on; the
/// core parses and clamps it ([`ListParams::parse`]) after checking the key. A program that
/// knows its values uses [`ListParams`] instead.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(default)]
pub struct RawListParams {
    /// `limit`.
    pub limit: Option<String>,
    /// `offset`.
    pub offset: Option<String>,
    /// `category`.
    pub category: Option<String>,
    /// `include_content`.
    pub include_content: Option<String>,
}

/// What a list call asks for: typed [`ListParams`], or [`RawListParams`] to parse (a bad
/// value is 400, decided after the key is checked).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ListRequest {
    /// Parameters already typed and clamped.
    Params(ListParams),
    /// Query values as received.
    Raw(RawListParams),
}

impl From<ListParams> for ListRequest {
    fn from(params: ListParams) -> Self {
        ListRequest::Params(params)
    }
}

impl From<RawListParams> for ListRequest {
    fn from(raw: RawListParams) -> Self {
        ListRequest::Raw(raw)
    }
}

impl ListRequest {
    /// The parameters applied.
    pub fn into_params(self) -> Result<ListParams> {
        match self {
            ListRequest::Params(params) => Ok(params),
            ListRequest::Raw(raw) => ListParams::parse(&raw),
        }
    }
}

/// The list endpoint's parameters after parsing and clamping: the values applied and echoed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListParams {
    /// 1..=100, default 50.
    pub limit: u32,
    /// >= 0, default 0.
    pub offset: u64,
    /// The category asked for, if any (compared case-insensitively).
    pub category: Option<String>,
    /// Whether to include bodies.
    pub include_content: bool,
}

impl Default for ListParams {
    fn default() -> Self {
        Self {
            limit: DEFAULT_LIMIT,
            offset: 0,
            category: None,
            include_content: false,
        }
    }
}

fn present(v: &Option<String>) -> Option<&str> {
    v.as_deref().filter(|s| !s.is_empty())
}

impl ListParams {
    /// The defaults: the first 50 blogs of every category, without bodies.
    ///
    /// ```
    /// use blogread_core::read::ListParams;
    /// let page = ListParams::new().limit(20).offset(40).category("news").with_content();
    /// assert_eq!((page.limit, page.offset, page.include_content), (20, 40, true));
    /// assert_eq!(ListParams::new().limit(1000).limit, 100, "clamped as the query's would be");
    /// ```
    pub fn new() -> Self {
        Self::default()
    }

    /// The page size, clamped to 1..=100 as a query's `limit` is.
    #[must_use]
    pub fn limit(mut self, limit: u32) -> Self {
        self.limit = limit.clamp(1, MAX_LIMIT);
        self
    }

    /// Blogs to skip, clamped to [`MAX_OFFSET`].
    #[must_use]
    pub fn offset(mut self, offset: u64) -> Self {
        self.offset = offset.min(MAX_OFFSET);
        self
    }

    /// Only blogs of this category (compared case-insensitively); an empty name is no filter.
    #[must_use]
    pub fn category(mut self, category: impl Into<String>) -> Self {
        let category = category.into();
        self.category = (!category.is_empty()).then_some(category);
        self
    }

    /// Include each blog's body, links resolved.
    #[must_use]
    pub fn with_content(mut self) -> Self {
        self.include_content = true;
        self
    }

    /// Parses raw values: an empty value counts as absent; an integer is any run of ASCII
    /// digits with an optional leading `-`, however large, and is clamped into range;
    /// `include_content` is `true`/`false`/`1`/`0`, case-insensitive. Anything else is 400.
    pub fn parse(raw: &RawListParams) -> Result<Self> {
        let limit = match present(&raw.limit) {
            None => DEFAULT_LIMIT,
            Some(v) => {
                let n = parse_integer("limit", v)?;
                n.clamp(1, i128::from(MAX_LIMIT)) as u32
            }
        };
        let offset = match present(&raw.offset) {
            None => 0,
            Some(v) => parse_integer("offset", v)?.clamp(0, i128::from(MAX_OFFSET)) as u64,
        };
        let include_content = match present(&raw.include_content) {
            None => false,
            Some(v) if v.eq_ignore_ascii_case("true") || v == "1" => true,
            Some(v) if v.eq_ignore_ascii_case("false") || v == "0" => false,
            Some(v) => {
                return Err(Error::BadRequest(format!(
                    "include_content must be true, false, 1 or 0 (got `{}`)",
                    shorten(v)
                )));
            }
        };
        Ok(Self {
            limit,
            offset,
            category: present(&raw.category).map(str::to_owned),
            include_content,
        })
    }
}

/// The changes feed's query parameters as received (see [`RawListParams`]).
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(default)]
pub struct RawChangeParams {
    /// `since`: a cursor of an earlier answer.
    pub since: Option<String>,
    /// `limit`.
    pub limit: Option<String>,
}

/// What a changes-feed call asks for: typed [`ChangeParams`], or [`RawChangeParams`] to
/// parse (a bad value is 400, decided after the key is checked).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ChangeRequest {
    /// Parameters already typed.
    Params(ChangeParams),
    /// Query values as received.
    Raw(RawChangeParams),
}

impl From<ChangeParams> for ChangeRequest {
    fn from(params: ChangeParams) -> Self {
        ChangeRequest::Params(params)
    }
}

impl From<RawChangeParams> for ChangeRequest {
    fn from(raw: RawChangeParams) -> Self {
        ChangeRequest::Raw(raw)
    }
}

impl ChangeRequest {
    /// The parameters applied.
    pub fn into_params(self) -> Result<ChangeParams> {
        match self {
            ChangeRequest::Params(params) => Ok(params),
            ChangeRequest::Raw(raw) => ChangeParams::parse(&raw),
        }
    }
}

/// The changes feed's parameters after parsing and clamping.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChangeParams {
    /// The cursor to go on from; `None` is the initial sync.
    pub since: Option<String>,
    /// 1..=100, default 100.
    pub limit: u32,
}

impl Default for ChangeParams {
    fn default() -> Self {
        Self {
            since: None,
            limit: MAX_LIMIT,
        }
    }
}

impl ChangeParams {
    /// Parses raw values as [`ListParams::parse`] does: an empty value counts as absent, a
    /// `limit` is any integer and is clamped into 1..=100. The cursor is read later, against
    /// the key's project.
    pub fn parse(raw: &RawChangeParams) -> Result<Self> {
        let limit = match present(&raw.limit) {
            None => MAX_LIMIT,
            Some(v) => parse_integer("limit", v)?.clamp(1, i128::from(MAX_LIMIT)) as u32,
        };
        Ok(Self {
            since: present(&raw.since).map(str::to_owned),
            limit,
        })
    }
}

/// Parses `-?[0-9]+` of any length, saturating far outside every range we clamp to.
fn parse_integer(name: &str, value: &str) -> Result<i128> {
    let (negative, digits) = match value.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, value),
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(Error::BadRequest(format!(
            "{name} must be an integer (got `{}`)",
            shorten(value)
        )));
    }
    let magnitude = digits.trim_start_matches('0').parse::<i128>().unwrap_or(
        if digits.trim_start_matches('0').is_empty() {
            0
        } else {
            i128::MAX
        },
    );
    Ok(if negative { -magnitude } else { magnitude })
}

/// Keeps echoed user input in error messages short.
fn shorten(value: &str) -> String {
    let mut out: String = value.chars().take(40).collect();
    if value.chars().count() > 40 {
        out.push('…');
    }
    out
}

/// A response that may not need sending again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Conditional<T> {
    /// The client's copy is current: answer 304 with this ETag and no body.
    NotModified {
        /// The current ETag.
        etag: String,
    },
    /// The response, with its ETag.
    Fresh {
        /// The current ETag.
        etag: String,
        /// The body.
        value: T,
    },
}

impl<T> Conditional<T> {
    /// The ETag, either way.
    pub fn etag(&self) -> &str {
        match self {
            Conditional::NotModified { etag } | Conditional::Fresh { etag, .. } => etag,
        }
    }

    /// The body, when fresh.
    pub fn into_value(self) -> Option<T> {
        match self {
            Conditional::NotModified { .. } => None,
            Conditional::Fresh { value, .. } => Some(value),
        }
    }
}

/// True when an `If-None-Match` header value (one tag, a list, or `*`) matches `etag`, with
/// the weak comparison RFC 9110 prescribes for this header.
pub fn if_none_match_matches(header: &str, etag: &str) -> bool {
    fn bare(t: &str) -> &str {
        let t = t.trim();
        t.strip_prefix("W/").unwrap_or(t)
    }
    let etag = bare(etag);
    header.split(',').any(|tag| {
        let tag = tag.trim();
        tag == "*" || bare(tag) == etag
    })
}

/// A strong ETag for one response: derived from the database's ETag epoch (random, fixed when
/// the database was created), the project's content version (bumped by every write that
/// changes what the public API shows, including site URL changes and publishes that change
/// resolved links), the endpoint and its parameters, and the crate version (a new release may
/// render differently).
pub(crate) fn etag(epoch: &str, project: &PublicProject, parts: &[&str]) -> String {
    let mut h = Sha256::new();
    h.update(env!("CARGO_PKG_VERSION"));
    h.update((epoch.len() as u64).to_be_bytes());
    h.update(epoch.as_bytes());
    h.update(project.id.as_uuid().as_bytes());
    h.update(project.content_version.to_be_bytes());
    for part in parts {
        h.update((part.len() as u64).to_be_bytes());
        h.update(part.as_bytes());
    }
    let digest = h.finalize();
    format!("\"{}\"", hex::encode(&digest[..16]))
}

pub(crate) fn not_modified<T>(etag: &str, if_none_match: Option<&str>) -> Option<Conditional<T>> {
    if_none_match
        .filter(|h| if_none_match_matches(h, etag))
        .map(|_| Conditional::NotModified {
            etag: etag.to_owned(),
        })
}

/// A public answer: the typed value, and its JSON body as a server sends it, made once.
///
/// A read that computes the value serialises it once (the body is what the response cache
/// keeps); a read answered from the cache has the body only, and [`Answer::value`] reads the
/// value back from it. A server takes the body ([`Answer::body`], [`Answer::into_body`]); an
/// application that embeds the core takes the value.
#[derive(Debug, Clone)]
pub struct Answer<T> {
    body: Bytes,
    value: Option<T>,
}

impl<T> Answer<T> {
    /// An answer computed now: `value` and its body.
    pub(crate) fn computed(value: T, body: Bytes) -> Self {
        Self {
            body,
            value: Some(value),
        }
    }

    /// An answer held in the response cache: its body.
    pub(crate) fn held(body: Bytes) -> Self {
        Self { body, value: None }
    }

    /// The JSON body.
    pub fn body(&self) -> &Bytes {
        &self.body
    }

    /// The JSON body, taken.
    pub fn into_body(self) -> Bytes {
        self.body
    }
}

impl<T: serde::de::DeserializeOwned> Answer<T> {
    /// The typed value: as computed, or read back from the held body (which this crate wrote
    /// from a value of the same type).
    pub fn value(self) -> T {
        match self.value {
            Some(value) => value,
            None => serde_json::from_slice(&self.body)
                .expect("a held public answer reads back as the type it was written from"),
        }
    }
}

/// The JSON body of a public response: the same bytes poem-openapi writes for the server's
/// wire types (same field order, same escaping).
///
/// Written by sonic-rs, which gives serde_json's bytes (checked by a property test below)
/// with SIMD string escaping: escaping the bodies was ~12% of a cold page with content.
pub(crate) fn to_json<T: serde::Serialize>(value: &T) -> Result<Bytes> {
    // Serialisation fails only on maps with non-string keys or a failing `Serialize`; the
    // public types hold strings, integers, timestamps (always formattable) and arrays of
    // strings.
    let json = sonic_rs::to_vec(value).expect("public response types always serialise");
    // The writer reserves room for escaping every string six times over: a body kept in a
    // cache must not keep that room (a 9 KB post held ~64 KB), nor sit in the middle of it
    // (shrinking in place left the rest as holes between the kept bodies).
    Ok(Bytes::copy_from_slice(&json))
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// The answers' JSON is byte for byte serde_json's, whatever the strings hold
        /// (control characters, quotes, backslashes, any Unicode) and whatever the numbers.
        #[test]
        fn answers_serialise_exactly_as_serde_json_would(
            strings in proptest::collection::vec("(\\PC|[\u{0}-\u{1f}\"\\/\u{7f}\u{2028}\u{2029}])*", 6),
            numbers in proptest::array::uniform3(proptest::num::u64::ANY),
            seconds in 0i64..4_102_444_800,
            content in proptest::option::of(".*"),
        ) {
            use crate::domain::{
                BlogDetail, BlogFields, BlogId, BlogInput, BlogList, BlogListItem, Timestamp,
            };
            let at = Timestamp::from_unix_seconds(seconds).expect("in range");
            // Any text (the rules of the fields are not the serialiser's business).
            let fields = |image: Option<String>, categories: Vec<String>, tags: Vec<String>| {
                BlogFields::from_published(BlogInput {
                    title: Some(strings[0].clone()),
                    slug: Some("any-slug".into()),
                    excerpt: Some(strings[2].clone()),
                    meta_title: Some(strings[3].clone()),
                    meta_description: Some(strings[4].clone()),
                    featured_image_url: Some(image),
                    categories: Some(categories),
                    tags: Some(tags),
                    ..Default::default()
                })
                .expect("a valid slug")
            };
            let image = crate::domain::FeaturedImage {
                url: strings[5].clone(),
                width: numbers[1] as u32,
                height: numbers[2] as u32,
                alt: strings[1].clone(),
                variants: vec![crate::domain::FeaturedImageVariant {
                    width: 480,
                    url: strings[0].clone(),
                }],
            };
            let item = BlogListItem {
                id: BlogId::generate(),
                fields: fields(Some(strings[5].clone()), strings.clone(), vec![]),
                featured_image: Some(image.clone()),
                published_at: at,
                content: content.clone(),
            };
            let list = BlogList {
                blogs: vec![
                    item.clone(),
                    BlogListItem {
                        fields: fields(None, vec![], strings.clone()),
                        featured_image: None,
                        ..item
                    },
                ],
                total: numbers[0],
                limit: numbers[1] as u32,
                offset: numbers[2],
            };
            let detail = BlogDetail {
                id: BlogId::generate(),
                fields: fields(None, vec![], strings.clone()),
                featured_image: Some(image),
                published_at: at,
                content: content.unwrap_or_default(),
                updated_at: at,
                word_count: numbers[0],
            };
            proptest::prop_assert_eq!(
                to_json(&list).unwrap(),
                Bytes::from(serde_json::to_vec(&list).unwrap())
            );
            proptest::prop_assert_eq!(
                to_json(&detail).unwrap(),
                Bytes::from(serde_json::to_vec(&detail).unwrap())
            );
        }
    }

    /// A body the caches keep holds its bytes and no more: the serialiser's spare room (six
    /// times every string, for escaping) once made a 9 KB post hold ~64 KB, and the caches'
    /// byte bounds count only the bytes.
    #[test]
    fn kept_bodies_hold_no_spare_room() {
        use crate::domain::{BlogDetail, BlogFields, BlogId, BlogInput, Timestamp};
        let at = Timestamp::from_unix_seconds(1_700_000_000).unwrap();
        let detail = BlogDetail {
            id: BlogId::generate(),
            fields: BlogFields::from_published(BlogInput {
                title: Some("A post".into()),
                slug: Some("a-post".into()),
                ..Default::default()
            })
            .unwrap(),
            featured_image: None,
            published_at: at,
            content: "<p>words</p>".repeat(800),
            updated_at: at,
            word_count: 800,
        };
        let body = to_json(&detail)
            .unwrap()
            .try_into_mut()
            .expect("not shared");
        assert_eq!(body.capacity(), body.len());
    }

    #[test]
    fn the_etag_changes_with_the_database_epoch_alone() {
        let project = PublicProject {
            id: crate::domain::ProjectId::generate(),
            site_url: None,
            content_version: 7,
            next_go_live: None,
        };
        assert_eq!(
            etag("a", &project, &["sitemap"]),
            etag("a", &project, &["sitemap"])
        );
        assert_ne!(
            etag("a", &project, &["sitemap"]),
            etag("b", &project, &["sitemap"]),
            "another database's tag never matches, whatever its content version"
        );
    }

    fn parse(limit: Option<&str>, offset: Option<&str>) -> Result<ListParams> {
        ListParams::parse(&RawListParams {
            limit: limit.map(str::to_owned),
            offset: offset.map(str::to_owned),
            ..Default::default()
        })
    }

    #[test]
    fn limit_defaults_to_50_and_offset_to_0() {
        let p = parse(None, None).unwrap();
        assert_eq!((p.limit, p.offset), (50, 0));
    }

    #[test]
    fn empty_value_counts_as_absent() {
        let p = parse(Some(""), Some("")).unwrap();
        assert_eq!((p.limit, p.offset), (50, 0));
    }

    #[test]
    fn out_of_range_limit_and_offset_are_clamped() {
        assert_eq!(parse(Some("0"), None).unwrap().limit, 1);
        assert_eq!(parse(Some("-5"), None).unwrap().limit, 1);
        assert_eq!(parse(Some("101"), None).unwrap().limit, 100);
        assert_eq!(parse(None, Some("-1")).unwrap().offset, 0);
    }

    #[test]
    fn huge_integers_are_clamped_not_rejected() {
        let p = parse(Some(&"9".repeat(80)), Some(&"9".repeat(80))).unwrap();
        assert_eq!(p.limit, 100);
        assert_eq!(p.offset, MAX_OFFSET);
        assert_eq!(
            parse(Some(&format!("-{}", "9".repeat(80))), None)
                .unwrap()
                .limit,
            1
        );
        assert_eq!(
            parse(Some("0000000000000000000000000000000000000000005"), None)
                .unwrap()
                .limit,
            5
        );
    }

    #[test]
    fn non_integer_limit_is_bad_request_naming_the_parameter() {
        for bad in ["abc", "1.5", "+5", "-", "1e3", " 5"] {
            let err = parse(Some(bad), None).unwrap_err();
            assert!(
                matches!(&err, Error::BadRequest(m) if m.starts_with("limit")),
                "{bad}"
            );
        }
        assert!(
            matches!(parse(None, Some("x")), Err(Error::BadRequest(m)) if m.starts_with("offset"))
        );
    }

    #[test]
    fn include_content_accepts_true_false_1_0_case_insensitively() {
        for (v, want) in [
            ("true", true),
            ("TRUE", true),
            ("1", true),
            ("False", false),
            ("0", false),
        ] {
            let p = ListParams::parse(&RawListParams {
                include_content: Some(v.to_owned()),
                ..Default::default()
            })
            .unwrap();
            assert_eq!(p.include_content, want, "{v}");
        }
        assert!(
            ListParams::parse(&RawListParams {
                include_content: Some("yes".to_owned()),
                ..Default::default()
            })
            .is_err()
        );
    }

    #[test]
    fn empty_category_means_no_filter() {
        let p = ListParams::parse(&RawListParams {
            category: Some("".to_owned()),
            ..Default::default()
        })
        .unwrap();
        assert_eq!(p.category, None);
    }

    #[test]
    fn if_none_match_accepts_one_tag_a_list_or_star() {
        let tag = "\"abc\"";
        assert!(if_none_match_matches("\"abc\"", tag));
        assert!(if_none_match_matches("\"x\", \"abc\"", tag));
        assert!(if_none_match_matches("*", tag));
        assert!(if_none_match_matches("W/\"abc\"", tag));
        assert!(!if_none_match_matches("\"abd\"", tag));
    }
}
