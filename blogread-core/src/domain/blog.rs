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

/// The fields of a blog as an author sends them on create (raw, unvalidated).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct NewBlog {
    /// Title (required).
    pub title: String,
    /// Slug (required).
    pub slug: String,
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
    /// Featured image URL.
    #[serde(default)]
    pub featured_image_url: Option<String>,
    /// Category names, in order.
    #[serde(default)]
    pub categories: Option<Vec<String>>,
    /// Tags, in order.
    #[serde(default)]
    pub tags: Option<Vec<String>>,
}

/// A partial edit of a blog's working copy: each `Some` replaces that field.
/// `featured_image_url: Some(None)` clears the image.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BlogPatch {
    /// New title.
    pub title: Option<String>,
    /// New slug.
    pub slug: Option<String>,
    /// New body.
    pub content: Option<String>,
    /// New excerpt.
    pub excerpt: Option<String>,
    /// New meta title.
    pub meta_title: Option<String>,
    /// New meta description.
    pub meta_description: Option<String>,
    /// New featured image (`Some(None)` clears it).
    pub featured_image_url: Option<Option<String>>,
    /// New categories.
    pub categories: Option<Vec<String>>,
    /// New tags.
    pub tags: Option<Vec<String>>,
}

/// The validated fields of a blog: a working copy or a published snapshot. It cannot hold a
/// value that breaks a rule of `docs/content.md#fields-and-their-limits`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BlogFields {
    title: String,
    slug: Slug,
    content: String,
    excerpt: String,
    meta_title: String,
    meta_description: String,
    featured_image_url: Option<String>,
    categories: Vec<String>,
    tags: Vec<String>,
}

impl BlogFields {
    /// Validates the fields of a new blog. Missing optional text fields become `""`.
    pub fn new(input: NewBlog) -> Result<Self, FieldError> {
        let fields = BlogFields {
            title: input.title,
            slug: Slug::parse(&input.slug).map_err(FieldError::from)?,
            content: input.content.unwrap_or_default(),
            excerpt: input.excerpt.unwrap_or_default(),
            meta_title: input.meta_title.unwrap_or_default(),
            meta_description: input.meta_description.unwrap_or_default(),
            featured_image_url: input.featured_image_url,
            categories: input.categories.unwrap_or_default(),
            tags: input.tags.unwrap_or_default(),
        };
        fields.validate()?;
        Ok(fields)
    }

    /// Applies a patch, validating the result; `self` is unchanged on error.
    pub fn patched(&self, patch: BlogPatch) -> Result<Self, FieldError> {
        let mut next = self.clone();
        if let Some(title) = patch.title {
            next.title = title;
        }
        if let Some(slug) = patch.slug {
            next.slug = Slug::parse(&slug).map_err(FieldError::from)?;
        }
        if let Some(content) = patch.content {
            next.content = content;
        }
        if let Some(excerpt) = patch.excerpt {
            next.excerpt = excerpt;
        }
        if let Some(meta_title) = patch.meta_title {
            next.meta_title = meta_title;
        }
        if let Some(meta_description) = patch.meta_description {
            next.meta_description = meta_description;
        }
        if let Some(image) = patch.featured_image_url {
            next.featured_image_url = image;
        }
        if let Some(categories) = patch.categories {
            next.categories = categories;
        }
        if let Some(tags) = patch.tags {
            next.tags = tags;
        }
        next.validate()?;
        Ok(next)
    }

    /// Rebuilds fields read back from storage, checking them again.
    #[allow(clippy::too_many_arguments)]
    pub fn from_stored(
        title: String,
        slug: String,
        content: String,
        excerpt: String,
        meta_title: String,
        meta_description: String,
        featured_image_url: Option<String>,
        categories: Vec<String>,
        tags: Vec<String>,
    ) -> Result<Self, FieldError> {
        let stored = Slug::from_stored(&slug).map_err(FieldError::from)?;
        let mut fields = Self::new(NewBlog {
            title,
            // Validated above; a placeholder passes the write-side check, then the stored
            // slug goes in.
            slug: "x".into(),
            content: Some(content),
            excerpt: Some(excerpt),
            meta_title: Some(meta_title),
            meta_description: Some(meta_description),
            featured_image_url,
            categories: Some(categories),
            tags: Some(tags),
        })?;
        fields.slug = stored;
        Ok(fields)
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
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ManagedBlog {
    /// Id.
    pub id: BlogId,
    /// Title (working copy).
    pub title: String,
    /// Slug (working copy).
    pub slug: String,
    /// Body as written, placeholders unresolved.
    pub content: String,
    /// Excerpt.
    pub excerpt: String,
    /// Meta title.
    pub meta_title: String,
    /// Meta description.
    pub meta_description: String,
    /// Featured image URL or null.
    pub featured_image_url: Option<String>,
    /// Categories.
    pub categories: Vec<String>,
    /// Tags.
    pub tags: Vec<String>,
    /// `draft`, `published` or `unpublished`.
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
        let w = &b.working;
        ManagedBlog {
            id: b.id,
            title: w.title.clone(),
            slug: w.slug.to_string(),
            content: w.content.clone(),
            excerpt: w.excerpt.clone(),
            meta_title: w.meta_title.clone(),
            meta_description: w.meta_description.clone(),
            featured_image_url: w.featured_image_url.clone(),
            categories: w.categories.clone(),
            tags: w.tags.clone(),
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

    fn new(title: &str, slug: &str) -> NewBlog {
        NewBlog {
            title: title.into(),
            slug: slug.into(),
            ..Default::default()
        }
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
        b.featured_image_url = Some("/relative.png".into());
        assert_eq!(
            BlogFields::new(b.clone()).unwrap_err().to_string(),
            "featured_image_url: must be an absolute http or https URL such as https://images.example.com/cover.png"
        );
        b.featured_image_url = Some("ftp://x.example/a.png".into());
        assert!(BlogFields::new(b.clone()).is_err());
        b.featured_image_url = Some("https://cdn.example.com/a.png".into());
        assert!(BlogFields::new(b).is_ok());
    }

    #[test]
    fn placeholder_outside_content_is_rejected() {
        let mut b = new("See [INTERNAL:x]", "t");
        assert_eq!(BlogFields::new(b.clone()).unwrap_err().field, "title");
        b.title = "T".into();
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
            .patched(BlogPatch {
                excerpt: Some("E".into()),
                ..Default::default()
            })
            .unwrap();
        assert_eq!(p.title(), "T");
        assert_eq!(p.excerpt(), "E");
        assert!(
            f.patched(BlogPatch {
                title: Some(String::new()),
                ..Default::default()
            })
            .is_err()
        );
    }
}
