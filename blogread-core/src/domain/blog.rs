//! A blog as stored: its working copy, its published snapshot and its status.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use super::ids::{BlogId, ProjectId};
use super::slug::Slug;
use super::time::Timestamp;
use crate::error::FieldError;

/// The placeholder keyword, accepted only in `content`.
const PLACEHOLDER: &str = "[INTERNAL:";

/// Length limits of blog fields (`docs/content.md#fields-and-their-limits`).
pub mod limits {
    /// Title: 1 to 300 characters.
    pub const TITLE_MAX: usize = 300;
    /// Excerpt: at most 1000 characters.
    pub const EXCERPT_MAX: usize = 1000;
    /// Meta title: at most 300 characters.
    pub const META_TITLE_MAX: usize = 300;
    /// Meta description: at most 1000 characters.
    pub const META_DESCRIPTION_MAX: usize = 1000;
    /// Content: at most 2 MiB, in bytes.
    pub const CONTENT_MAX_BYTES: usize = 2 * 1024 * 1024;
    /// Categories and tags: at most 50 entries each.
    pub const LIST_MAX_ENTRIES: usize = 50;
    /// Each category or tag: 1 to 100 characters.
    pub const LIST_ENTRY_MAX: usize = 100;
    /// Featured image URL: at most 2048 characters.
    pub const IMAGE_URL_MAX: usize = 2048;
}

/// Status of a blog (`docs/management-api.md#lifecycle`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum BlogStatus {
    /// Created, never published.
    Draft,
    /// Visible through the public API.
    Published,
    /// Was published, then taken down.
    Unpublished,
    /// Published with a future `published_at`: its snapshot goes live at that time.
    Scheduled,
}

impl BlogStatus {
    /// The wire and storage name.
    pub fn as_str(&self) -> &'static str {
        match self {
            BlogStatus::Draft => "draft",
            BlogStatus::Published => "published",
            BlogStatus::Unpublished => "unpublished",
            BlogStatus::Scheduled => "scheduled",
        }
    }
}

impl fmt::Display for BlogStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for BlogStatus {
    type Err = FieldError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "draft" => Ok(BlogStatus::Draft),
            "published" => Ok(BlogStatus::Published),
            "unpublished" => Ok(BlogStatus::Unpublished),
            "scheduled" => Ok(BlogStatus::Scheduled),
            _ => Err(FieldError::new(
                "status",
                "must be one of draft, published, unpublished, scheduled",
            )),
        }
    }
}

/// The fields of a blog as an author sends them, unvalidated. On create, `title` and `slug`
/// are required and an absent field is empty (no image, no category...); on an edit, each
/// field present replaces that field of the working copy, and `featured_image_url:
/// Some(None)` removes the image.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct BlogInput {
    /// Title.
    #[serde(default)]
    pub title: Option<String>,
    /// Slug.
    #[serde(default)]
    pub slug: Option<String>,
    /// HTML body.
    #[serde(default)]
    pub content: Option<String>,
    /// Excerpt.
    #[serde(default)]
    pub excerpt: Option<String>,
    /// Meta title.
    #[serde(default)]
    pub meta_title: Option<String>,
    /// Meta description.
    #[serde(default)]
    pub meta_description: Option<String>,
    /// Featured image URL (`Some(None)`: none).
    #[serde(default)]
    pub featured_image_url: Option<Option<String>>,
    /// Category names, in order.
    #[serde(default)]
    pub categories: Option<Vec<String>>,
    /// Tags, in order.
    #[serde(default)]
    pub tags: Option<Vec<String>>,
}

impl BlogInput {
    /// The input of a new blog with `title` and `slug` (the rest absent: empty).
    pub fn new(title: impl Into<String>, slug: impl Into<String>) -> Self {
        Self {
            title: Some(title.into()),
            slug: Some(slug.into()),
            ..Self::default()
        }
    }
}

/// The validated fields of a blog: a working copy or a published snapshot. It cannot hold a
/// value that breaks a rule of `docs/content.md#fields-and-their-limits`.
///
/// Serialised as the public API shows a post's fields, in its order, without the body: the
/// public answers carry the body (links resolved) beside these. Read back through the same
/// rules, as stored fields are.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "BlogInput")]
pub struct BlogFields {
    title: String,
    slug: Slug,
    #[serde(skip_serializing)]
    content: String,
    excerpt: String,
    meta_title: String,
    meta_description: String,
    featured_image_url: Option<String>,
    categories: Vec<String>,
    tags: Vec<String>,
}

impl TryFrom<BlogInput> for BlogFields {
    type Error = FieldError;

    fn try_from(input: BlogInput) -> Result<Self, FieldError> {
        Self::from_stored(input)
    }
}

impl BlogFields {
    /// Validates the fields of a new blog: `title` and `slug` are required; a missing
    /// optional field is empty (`""`, no image, no entries).
    pub fn new(input: BlogInput) -> Result<Self, FieldError> {
        let slug = input
            .slug
            .as_deref()
            .ok_or_else(|| FieldError::new("slug", "is required"))?;
        let slug = Slug::parse(slug).map_err(FieldError::from)?;
        Self::with_slug(input, slug)
    }

    /// Rebuilds fields read back from storage (or from an answer this crate wrote), checking
    /// them again; the slug is read as stored (a name reserved since is kept).
    pub fn from_stored(input: BlogInput) -> Result<Self, FieldError> {
        let slug = input.slug.as_deref().unwrap_or_default();
        let slug = Slug::from_stored(slug).map_err(FieldError::from)?;
        Self::with_slug(input, slug)
    }

    /// Rebuilds the fields of a published snapshot for a public read: only the slug's
    /// pattern and the title's presence are checked. The write checked every rule, and a
    /// public read does not pay for checking them again ([`BlogFields::from_stored`] does,
    /// for every other read).
    #[cfg(any(feature = "sqlite", feature = "postgres", test))]
    pub(crate) fn from_published(input: BlogInput) -> Result<Self, FieldError> {
        let slug = input.slug.as_deref().unwrap_or_default();
        let slug = Slug::from_stored(slug).map_err(FieldError::from)?;
        Self::unchecked(input, slug)
    }

    /// These fields without their body: a public answer carries the body (links resolved)
    /// apart.
    pub fn without_body(&self) -> Self {
        Self {
            title: self.title.clone(),
            slug: self.slug.clone(),
            content: String::new(),
            excerpt: self.excerpt.clone(),
            meta_title: self.meta_title.clone(),
            meta_description: self.meta_description.clone(),
            featured_image_url: self.featured_image_url.clone(),
            categories: self.categories.clone(),
            tags: self.tags.clone(),
        }
    }

    /// The fields of `input` with `slug` (already checked), every rule checked.
    fn with_slug(input: BlogInput, slug: Slug) -> Result<Self, FieldError> {
        let fields = Self::unchecked(input, slug)?;
        fields.validate()?;
        Ok(fields)
    }

    /// The fields of `input` with `slug`, the title required, no other rule checked.
    fn unchecked(input: BlogInput, slug: Slug) -> Result<Self, FieldError> {
        Ok(BlogFields {
            title: input
                .title
                .ok_or_else(|| FieldError::new("title", "is required"))?,
            slug,
            content: input.content.unwrap_or_default(),
            excerpt: input.excerpt.unwrap_or_default(),
            meta_title: input.meta_title.unwrap_or_default(),
            meta_description: input.meta_description.unwrap_or_default(),
            featured_image_url: input.featured_image_url.flatten(),
            categories: input.categories.unwrap_or_default(),
            tags: input.tags.unwrap_or_default(),
        })
    }

    /// Applies an edit: each field `patch` holds replaces this one's; validated, and `self`
    /// is unchanged on error.
    pub fn patched(&self, patch: BlogInput) -> Result<Self, FieldError> {
        let mut next = self.clone();
        if let Some(slug) = patch.slug {
            next.slug = Slug::parse(&slug).map_err(FieldError::from)?;
        }
        let BlogInput {
            title,
            content,
            excerpt,
            meta_title,
            meta_description,
            featured_image_url,
            categories,
            tags,
            ..
        } = patch;
        next.title = title.unwrap_or(next.title);
        next.content = content.unwrap_or(next.content);
        next.excerpt = excerpt.unwrap_or(next.excerpt);
        next.meta_title = meta_title.unwrap_or(next.meta_title);
        next.meta_description = meta_description.unwrap_or(next.meta_description);
        next.featured_image_url = featured_image_url.unwrap_or(next.featured_image_url);
        next.categories = categories.unwrap_or(next.categories);
        next.tags = tags.unwrap_or(next.tags);
        next.validate()?;
        Ok(next)
    }

    fn validate(&self) -> Result<(), FieldError> {
        use limits::*;
        text_len("title", &self.title, 1, TITLE_MAX)?;
        text_len("excerpt", &self.excerpt, 0, EXCERPT_MAX)?;
        text_len("meta_title", &self.meta_title, 0, META_TITLE_MAX)?;
        text_len(
            "meta_description",
            &self.meta_description,
            0,
            META_DESCRIPTION_MAX,
        )?;
        if self.content.len() > CONTENT_MAX_BYTES {
            return Err(FieldError::new(
                "content",
                format!(
                    "must be at most {CONTENT_MAX_BYTES} bytes (2 MiB); got {}",
                    self.content.len()
                ),
            ));
        }
        list("categories", &self.categories)?;
        list("tags", &self.tags)?;
        if let Some(url) = &self.featured_image_url {
            image_url(url)?;
        }
        for (field, value) in [
            ("title", self.title.as_str()),
            ("excerpt", &self.excerpt),
            ("meta_title", &self.meta_title),
            ("meta_description", &self.meta_description),
        ] {
            no_placeholder(field, value)?;
        }
        for c in &self.categories {
            no_placeholder("categories", c)?;
        }
        for t in &self.tags {
            no_placeholder("tags", t)?;
        }
        Ok(())
    }

    /// Title.
    pub fn title(&self) -> &str {
        &self.title
    }
    /// Slug.
    pub fn slug(&self) -> &Slug {
        &self.slug
    }
    /// HTML body, as written (placeholders unresolved).
    pub fn content(&self) -> &str {
        &self.content
    }

    /// The body, taken out of the fields.
    pub fn into_content(self) -> String {
        self.content
    }
    /// Excerpt (`""` when none).
    pub fn excerpt(&self) -> &str {
        &self.excerpt
    }
    /// Meta title (`""` when none).
    pub fn meta_title(&self) -> &str {
        &self.meta_title
    }
    /// Meta description (`""` when none).
    pub fn meta_description(&self) -> &str {
        &self.meta_description
    }
    /// Featured image URL, if any.
    pub fn featured_image_url(&self) -> Option<&str> {
        self.featured_image_url.as_deref()
    }
    /// Category names, in order.
    pub fn categories(&self) -> &[String] {
        &self.categories
    }
    /// Tags, in order.
    pub fn tags(&self) -> &[String] {
        &self.tags
    }
}

fn text_len(field: &'static str, value: &str, min: usize, max: usize) -> Result<(), FieldError> {
    let len = value.chars().count();
    if len < min || len > max {
        let rule = if min > 0 {
            format!("must be {min} to {max} characters (got {len})")
        } else {
            format!("must be at most {max} characters (got {len})")
        };
        return Err(FieldError::new(field, rule));
    }
    Ok(())
}

fn list(field: &'static str, values: &[String]) -> Result<(), FieldError> {
    use limits::*;
    if values.len() > LIST_MAX_ENTRIES {
        return Err(FieldError::new(
            field,
            format!(
                "must have at most {LIST_MAX_ENTRIES} entries (got {})",
                values.len()
            ),
        ));
    }
    for v in values {
        let len = v.chars().count();
        if len == 0 || len > LIST_ENTRY_MAX {
            return Err(FieldError::new(
                field,
                format!("each entry must be 1 to {LIST_ENTRY_MAX} characters (got {len})"),
            ));
        }
    }
    Ok(())
}

fn image_url(value: &str) -> Result<(), FieldError> {
    if value.chars().count() > limits::IMAGE_URL_MAX {
        return Err(FieldError::new(
            "featured_image_url",
            format!("must be at most {} characters", limits::IMAGE_URL_MAX),
        ));
    }
    absolute_http_url(
        "featured_image_url",
        value,
        "https://images.example.com/cover.png",
    )
}

/// Checks that `value` is an absolute http(s) URL; the error shows `example`, a value of the
/// kind the field holds (an image's URL, a site's address).
pub(crate) fn absolute_http_url(
    field: &'static str,
    value: &str,
    example: &str,
) -> Result<(), FieldError> {
    match url::Url::parse(value) {
        Ok(u) if matches!(u.scheme(), "http" | "https") && u.has_host() => Ok(()),
        _ => Err(FieldError::new(
            field,
            format!("must be an absolute http or https URL such as {example}"),
        )),
    }
}

fn no_placeholder(field: &'static str, value: &str) -> Result<(), FieldError> {
    if value.contains(PLACEHOLDER) {
        return Err(FieldError::new(
            field,
            "must not contain `[INTERNAL:` placeholders (they are accepted only in content)",
        ));
    }
    Ok(())
}

/// The published snapshot: what the public API shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PublishedSnapshot {
    /// The fields as they were at the last publish.
    pub fields: BlogFields,
    /// When the blog was first published (or the imported time).
    pub published_at: Timestamp,
    /// When the snapshot was last replaced.
    pub updated_at: Timestamp,
}

/// Where a blog stands in its lifecycle. Each variant holds exactly the data that status has.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BlogState {
    /// Never published.
    Draft,
    /// Visible, with its snapshot.
    Published(Box<PublishedSnapshot>),
    /// Taken down; the first publication time is kept for the next publish.
    Unpublished {
        /// When it was first published.
        published_at: Timestamp,
    },
    /// Waiting to go live: the snapshot taken when it was scheduled, whose `published_at` is
    /// the go-live time. Public reads see it from that time on (see
    /// [`BlogState::is_due`]); until then nothing public shows it.
    Scheduled(Box<PublishedSnapshot>),
}

impl BlogState {
    /// The status value of this state.
    pub fn status(&self) -> BlogStatus {
        match self {
            BlogState::Draft => BlogStatus::Draft,
            BlogState::Published(_) => BlogStatus::Published,
            BlogState::Unpublished { .. } => BlogStatus::Unpublished,
            BlogState::Scheduled(_) => BlogStatus::Scheduled,
        }
    }

    /// The first publication time, if the blog was ever published (the go-live time, when
    /// scheduled).
    pub fn published_at(&self) -> Option<Timestamp> {
        match self {
            BlogState::Draft => None,
            BlogState::Published(s) | BlogState::Scheduled(s) => Some(s.published_at),
            BlogState::Unpublished { published_at } => Some(*published_at),
        }
    }

    /// The snapshot, when published.
    pub fn snapshot(&self) -> Option<&PublishedSnapshot> {
        match self {
            BlogState::Published(s) => Some(s.as_ref()),
            _ => None,
        }
    }

    /// The snapshot the blog holds: published, or scheduled to go live.
    pub fn held_snapshot(&self) -> Option<&PublishedSnapshot> {
        match self {
            BlogState::Published(s) | BlogState::Scheduled(s) => Some(s.as_ref()),
            _ => None,
        }
    }

    /// Whether the blog is scheduled and its go-live time has come at `now`: from then on it
    /// is public, whether or not anything has recorded it as published yet.
    pub fn is_due(&self, now: Timestamp) -> bool {
        matches!(self, BlogState::Scheduled(s) if s.published_at <= now)
    }
}

/// A blog as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Blog {
    /// Its id.
    pub id: BlogId,
    /// The project it belongs to.
    pub project_id: ProjectId,
    /// The working copy (draft fields), edited by PATCH.
    pub working: BlogFields,
    /// Status, with the published snapshot when published.
    pub state: BlogState,
    /// Creation time.
    pub created_at: Timestamp,
    /// Last change of anything (working copy or state).
    pub updated_at: Timestamp,
}

impl Blog {
    /// The slugs this blog holds in its project: the working slug and, when published and
    /// different, the published one. Uniqueness counts both.
    pub fn slugs(&self) -> impl Iterator<Item = &Slug> {
        let published = self
            .state
            .held_snapshot()
            .map(|s| s.fields.slug())
            .filter(|s| *s != self.working.slug());
        std::iter::once(self.working.slug()).chain(published)
    }
}

/// A blog as the management API shows it: the working copy and its lifecycle data.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ManagedBlog {
    /// Id.
    pub id: BlogId,
    /// The working copy (body as written, placeholders unresolved).
    pub working: BlogFields,
    /// `draft`, `published`, `unpublished` or `scheduled`.
    pub status: BlogStatus,
    /// First publication time, null if never published.
    pub published_at: Option<Timestamp>,
    /// Last change.
    pub updated_at: Timestamp,
    /// Creation time.
    pub created_at: Timestamp,
}

impl From<&Blog> for ManagedBlog {
    fn from(b: &Blog) -> Self {
        ManagedBlog {
            id: b.id,
            working: b.working.clone(),
            status: b.state.status(),
            published_at: b.state.published_at(),
            updated_at: b.updated_at,
            created_at: b.created_at,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn new(title: &str, slug: &str) -> BlogInput {
        BlogInput::new(title, slug)
    }

    #[test]
    fn missing_text_fields_are_empty_strings_not_null() {
        let f = BlogFields::new(new("T", "t")).unwrap();
        assert_eq!(f.excerpt(), "");
        assert_eq!(
            f.meta_title(),
            "",
            "meta_title is not defaulted to the title"
        );
        assert_eq!(f.featured_image_url(), None);
        assert!(f.categories().is_empty());
    }

    #[test]
    fn title_must_be_1_to_300_characters() {
        assert_eq!(BlogFields::new(new("", "t")).unwrap_err().field, "title");
        assert!(BlogFields::new(new(&"é".repeat(300), "t")).is_ok());
        assert!(BlogFields::new(new(&"é".repeat(301), "t")).is_err());
    }

    #[test]
    fn content_is_limited_to_two_mebibytes() {
        let mut b = new("T", "t");
        b.content = Some("a".repeat(limits::CONTENT_MAX_BYTES));
        assert!(BlogFields::new(b.clone()).is_ok());
        b.content = Some("a".repeat(limits::CONTENT_MAX_BYTES + 1));
        assert_eq!(BlogFields::new(b).unwrap_err().field, "content");
    }

    #[test]
    fn categories_and_tags_have_at_most_50_entries_of_1_to_100_characters() {
        let mut b = new("T", "t");
        b.tags = Some(vec!["x".into(); 51]);
        assert_eq!(BlogFields::new(b.clone()).unwrap_err().field, "tags");
        b.tags = None;
        b.categories = Some(vec![String::new()]);
        assert_eq!(BlogFields::new(b.clone()).unwrap_err().field, "categories");
        b.categories = Some(vec!["c".repeat(101)]);
        assert!(BlogFields::new(b).is_err());
    }

    #[test]
    fn featured_image_must_be_an_absolute_http_url() {
        let mut b = new("T", "t");
        b.featured_image_url = Some(Some("/relative.png".into()));
        assert_eq!(
            BlogFields::new(b.clone()).unwrap_err().to_string(),
            "featured_image_url: must be an absolute http or https URL such as https://images.example.com/cover.png"
        );
        b.featured_image_url = Some(Some("ftp://x.example/a.png".into()));
        assert!(BlogFields::new(b.clone()).is_err());
        b.featured_image_url = Some(Some("https://cdn.example.com/a.png".into()));
        assert!(BlogFields::new(b).is_ok());
    }

    #[test]
    fn placeholder_outside_content_is_rejected() {
        let mut b = new("See [INTERNAL:x]", "t");
        assert_eq!(BlogFields::new(b.clone()).unwrap_err().field, "title");
        b.title = Some("T".into());
        b.tags = Some(vec!["[INTERNAL:x]".into()]);
        assert_eq!(BlogFields::new(b.clone()).unwrap_err().field, "tags");
        b.tags = None;
        b.content = Some("<p>[INTERNAL:x]</p>".into());
        assert!(BlogFields::new(b).is_ok());
    }

    #[test]
    fn reserved_slug_is_rejected_on_write() {
        assert_eq!(
            BlogFields::new(new("T", "sitemap")).unwrap_err().field,
            "slug"
        );
    }

    #[test]
    fn patch_changes_only_given_fields_and_validates() {
        let f = BlogFields::new(new("T", "t")).unwrap();
        let p = f
            .patched(BlogInput {
                excerpt: Some("E".into()),
                ..Default::default()
            })
            .unwrap();
        assert_eq!(p.title(), "T");
        assert_eq!(p.excerpt(), "E");
        assert!(
            f.patched(BlogInput {
                title: Some(String::new()),
                ..Default::default()
            })
            .is_err()
        );
    }

    #[test]
    fn a_new_blog_needs_a_title_and_a_slug() {
        let no_title = BlogInput {
            slug: Some("t".into()),
            ..Default::default()
        };
        assert_eq!(
            BlogFields::new(no_title).unwrap_err().to_string(),
            "title: is required"
        );
        let no_slug = BlogInput {
            title: Some("T".into()),
            ..Default::default()
        };
        assert_eq!(BlogFields::new(no_slug).unwrap_err().field, "slug");
    }

    #[test]
    fn fields_serialise_as_the_public_api_shows_them_and_read_back() {
        let mut input = new("T", "t");
        input.content = Some("<p>body</p>".into());
        input.categories = Some(vec!["A".into()]);
        let fields = BlogFields::new(input).unwrap();
        let json = serde_json::to_string(&fields).unwrap();
        assert_eq!(
            json,
            r#"{"title":"T","slug":"t","excerpt":"","meta_title":"","meta_description":"","featured_image_url":null,"categories":["A"],"tags":[]}"#,
            "the public order, without the body"
        );
        let back: BlogFields = serde_json::from_str(&json).unwrap();
        assert_eq!(back.title(), "T");
        assert_eq!(back.content(), "");
        assert!(serde_json::from_str::<BlogFields>(r#"{"title":"","slug":"t"}"#).is_err());
    }
}
