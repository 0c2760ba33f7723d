//! Which stored images each post uses (`docs/media.md#usage`), as every store keeps it in the
//! write that changes the post: per body copy (the working copy, and the snapshot held for the
//! public), the images it names as its featured image or in an `<img src>` of its body.
//!
//! A use is kept by the image's project, digest and the public URL it was named under, never
//! by an item's id: a write needs no look-up of the items, and a use outlives its item being
//! deleted and uploaded again (the same bytes are the same digest). Only the uses under the
//! service's own public URL count when they are read.

use std::collections::BTreeMap;

use super::link_sources::BodyCopy;
use crate::domain::{Blog, MediaRef, ProjectId};
use crate::image_sources::image_sources;

/// The images one body copy uses: each with whether it is the copy's featured image (it may
/// be in the body too).
pub(crate) type CopyUses = BTreeMap<MediaRef, bool>;

/// What a body copy names images in: its featured image URL and its body.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ImageFields<'a> {
    /// The copy's `featured_image_url`.
    pub(crate) featured: Option<&'a str>,
    /// The copy's body.
    pub(crate) content: &'a str,
}

impl ImageFields<'_> {
    /// The images of `project` these fields use. Reads the body once: linear in its size.
    pub(crate) fn uses(&self, project: ProjectId) -> CopyUses {
        let mut uses = CopyUses::new();
        for src in image_sources(self.content) {
            if let Some(image) = MediaRef::parse(&src, project) {
                uses.insert(image, false);
            }
        }
        if let Some(image) = self.featured.and_then(|url| MediaRef::parse(url, project)) {
            uses.insert(image, true);
        }
        uses
    }
}

/// The fields each body copy of `blog` names images in: the working copy, then the
/// snapshot it holds for the public (published or scheduled), if any.
pub(crate) fn image_fields_of(blog: &Blog) -> [(BodyCopy, Option<ImageFields<'_>>); 2] {
    let working = &blog.working;
    [
        (
            BodyCopy::Working,
            Some(ImageFields {
                featured: working.featured_image_url(),
                content: working.content(),
            }),
        ),
        (
            BodyCopy::Published,
            blog.state.held_snapshot().map(|s| ImageFields {
                featured: s.fields.featured_image_url(),
                content: s.fields.content(),
            }),
        ),
    ]
}

/// The image fields of a post before a write, owned, to tell which copies the write changed
/// (the SQL stores' concern: the memory store replaces every copy's uses).
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(not(any(feature = "sqlite", feature = "postgres")), allow(dead_code))]
pub(crate) struct HeldImageFields {
    copies: [Option<(Option<String>, String)>; 2],
}

#[cfg_attr(not(any(feature = "sqlite", feature = "postgres")), allow(dead_code))]
impl HeldImageFields {
    /// The fields of `blog` as it is.
    pub(crate) fn of(blog: &Blog) -> Self {
        Self {
            copies: image_fields_of(blog).map(|(_, fields)| {
                fields.map(|f| (f.featured.map(str::to_owned), f.content.to_owned()))
            }),
        }
    }

    /// Whether copy `copy` of `blog` names images in other fields than it did.
    pub(crate) fn changed(&self, blog: &Blog, copy: BodyCopy) -> bool {
        let index = match copy {
            BodyCopy::Working => 0,
            BodyCopy::Published => 1,
        };
        let now = image_fields_of(blog)[index].1;
        let before = self.copies[index]
            .as_ref()
            .map(|(featured, content)| ImageFields {
                featured: featured.as_deref(),
                content,
            });
        now != before
    }
}
