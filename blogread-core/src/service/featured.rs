//! The featured images of public answers (`docs/public-api.md#featured-image`): a published
//! post whose `featured_image_url` names one of its project's stored images under the
//! service's public URL shows it as `featured_image` (the master's URL and size, the item's
//! alt text, the variants), looked up at read time with one store call per answer.
//!
//! Read at read time, so an alt edit must change the answers that show the item: the store
//! stamps those posts with a new change number and moves the project's content version in the
//! same step as the edit (see `MediaStore::set_media_alt`), which is what the fragment and
//! response caches are keyed by. The public URL itself is part of every public ETag.

use std::collections::{BTreeSet, HashMap};

use crate::domain::{FeaturedImage, MediaRef, ProjectId, PublishedBlog, Sha256Hex};
use crate::error::Result;

use super::Service;

/// The featured images a response's posts name, by the item's digest.
#[derive(Debug, Default)]
pub(super) struct FeaturedImages {
    /// The project and public URL the images were looked up under (`None`: the service keeps
    /// no images, and no post has one).
    under: Option<(ProjectId, String)>,
    /// The images found, by digest.
    images: HashMap<Sha256Hex, FeaturedImage>,
}

/// The digest of the image `url` names when it is `project`'s media under `public_url`.
fn own_image(url: &str, project: ProjectId, public_url: &str) -> Option<Sha256Hex> {
    MediaRef::parse(url, project)
        .filter(|image| image.base == public_url)
        .map(|image| image.sha256)
}

impl FeaturedImages {
    /// The featured image of `blog`, when it names a stored image of its project.
    pub(super) fn of(&self, blog: &PublishedBlog) -> Option<FeaturedImage> {
        let (project, public_url) = self.under.as_ref()?;
        let url = blog.fields.featured_image_url()?;
        self.images
            .get(&own_image(url, *project, public_url)?)
            .cloned()
    }
}

impl Service {
    /// The public URL the service's images are served under, when it keeps any.
    pub(super) fn media_public_url(&self) -> Option<&str> {
        #[cfg(feature = "media")]
        {
            self.media_setup().map(super::MediaSetup::public_url)
        }
        #[cfg(not(feature = "media"))]
        {
            None
        }
    }

    /// The featured images `blogs` (of `project`) name among the project's stored images:
    /// one store call, none when no post names one.
    pub(super) async fn featured_images(
        &self,
        project: ProjectId,
        blogs: &[PublishedBlog],
    ) -> Result<FeaturedImages> {
        let Some(public_url) = self.media_public_url() else {
            return Ok(FeaturedImages::default());
        };
        let digests: BTreeSet<Sha256Hex> = blogs
            .iter()
            .filter_map(|b| own_image(b.fields.featured_image_url()?, project, public_url))
            .collect();
        if digests.is_empty() {
            return Ok(FeaturedImages::default());
        }
        let digests: Vec<Sha256Hex> = digests.into_iter().collect();
        let items = self.store().media_by_digests(project, &digests).await?;
        Ok(FeaturedImages {
            under: Some((project, public_url.to_owned())),
            images: items
                .iter()
                .map(|item| (item.sha256.clone(), FeaturedImage::of(item, public_url)))
                .collect(),
        })
    }
}
