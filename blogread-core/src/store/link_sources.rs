//! What a store reads for the links report (`docs/management-api.md#links`): the project's
//! posts as link targets, its aliases, and the placeholders of every body its posts hold.
//! The states are judged by the service (`links::report`), the same for every store. A store
//! also lists the distinct slugs its bodies name, and reads only the bodies naming given
//! slugs: the report judges each slug once and reads the bodies of the broken ones.

use crate::domain::BlogId;
use crate::links::report::{Found, LinkTarget};

/// Which body of a post.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum BodyCopy {
    /// The working copy, as the management API returns it.
    Working,
    /// The snapshot the post holds for the public (published, or scheduled to go live).
    Published,
}

impl BodyCopy {
    /// The wire and storage name.
    pub fn as_str(&self) -> &'static str {
        match self {
            BodyCopy::Working => "working",
            BodyCopy::Published => "published",
        }
    }

    /// Reads [`BodyCopy::as_str`]'s form back.
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "working" => Some(BodyCopy::Working),
            "published" => Some(BodyCopy::Published),
            _ => None,
        }
    }
}

/// A body that holds placeholders, named: its post, which copy, how large its stored list is
/// (what reading it costs) and how many placeholders it holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct BodyKey {
    /// The post.
    pub blog_id: BlogId,
    /// Which of its bodies.
    pub copy: BodyCopy,
    /// The bytes of its stored list ([`BodyPlaceholders::stored`]).
    pub bytes: u64,
    /// How many placeholders it holds.
    pub placeholders: u64,
}

/// The placeholders of one body that has any.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BodyPlaceholders {
    /// The post.
    pub blog_id: BlogId,
    /// Which of its bodies.
    pub copy: BodyCopy,
    /// Its placeholders, in body order (never empty), in their stored form
    /// (`links::report::to_stored`): the report judges each from its slug, read without
    /// copying, and reads the whole of those it shows.
    pub stored: String,
}

impl BodyPlaceholders {
    /// The entry of body `copy` of post `blog_id`, which holds `found` (not empty).
    pub fn new(blog_id: BlogId, copy: BodyCopy, found: &[Found]) -> Self {
        Self {
            blog_id,
            copy,
            stored: crate::links::report::to_stored(found),
        }
    }

    /// Its key; `None` when the stored form does not read back.
    pub fn key(&self) -> Option<BodyKey> {
        Some(BodyKey {
            blog_id: self.blog_id,
            copy: self.copy,
            bytes: self.stored.len() as u64,
            placeholders: crate::links::report::stored_links(&self.stored)?.len() as u64,
        })
    }

    /// Its placeholders, in body order; `None` when the stored form does not read back.
    pub fn placeholders(&self) -> Option<Vec<Found>> {
        crate::links::report::from_stored(&self.stored)
    }
}

/// What the links report judges placeholders against: a project's posts and aliases.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LinkTargetSources {
    /// Every post of the project.
    pub posts: Vec<LinkTarget>,
    /// Every alias (old public slug) of the project, with its post.
    pub aliases: Vec<(String, BlogId)>,
}

/// Whether `found` names a slug of `naming` (`None` there: a malformed placeholder, which
/// names none): what [`LinkStore::link_body_keys`](super::LinkStore::link_body_keys) filters by.
pub fn names_any(found: &[Found], naming: &[Option<String>]) -> bool {
    found.iter().any(|f| naming.contains(&f.slug))
}

/// `blog` as a link target.
pub(crate) fn target_of(blog: &crate::domain::Blog) -> LinkTarget {
    let held = blog.state.held_snapshot();
    LinkTarget {
        id: blog.id,
        status: blog.state.status(),
        slug: blog.working.slug().to_string(),
        title: blog.working.title().to_owned(),
        public: held.map(|s| (s.fields.slug().to_string(), s.fields.title().to_owned())),
        go_live: (blog.state.status() == crate::domain::BlogStatus::Scheduled)
            .then(|| blog.state.published_at())
            .flatten(),
    }
}

/// The bodies `blog` holds, each with the copy it is: the working copy, then the published or
/// scheduled snapshot's.
pub(crate) fn bodies_of(blog: &crate::domain::Blog) -> [(BodyCopy, Option<&str>); 2] {
    [
        (BodyCopy::Working, Some(blog.working.content())),
        (
            BodyCopy::Published,
            blog.state.held_snapshot().map(|s| s.fields.content()),
        ),
    ]
}
