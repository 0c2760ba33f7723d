//! The service's images as the exported site shows them: which images a post uses, and the
//! post's body and featured image with their site paths and sizes.
//!
//! An image is the service's when its URL is a media URL ([`MediaUrl`]) under the client's
//! base URL (`{base url}/media/`) or under the same address as the post's own featured image
//! (a server whose `--public-url` is not the address the export reads it at). The rule depends
//! on the post and the base URL only, so a post is rewritten the same way whichever export
//! reads it.

use std::collections::BTreeMap;

use super::super::body::html::image_tags;
use super::size::variant_height;
use crate::{BlogDetail, MediaUrl};

/// The masters a post uses, by file name, with their size when an answer gave it.
pub(crate) type Uses = BTreeMap<String, (MediaUrl, Option<(u32, u32)>)>;

/// What decides which of a post's images are the service's: the client's `{base url}/media/`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct MediaRule {
    base_prefix: String,
}

impl MediaRule {
    /// The rule for a client whose media are at `base_prefix` (`{base url}/media/`).
    pub(crate) fn new(base_prefix: String) -> Self {
        Self { base_prefix }
    }

    /// The post's featured image as a master media URL, if it is one.
    fn featured(blog: &BlogDetail) -> Option<MediaUrl> {
        let image = blog.fields.featured_image.as_ref()?;
        MediaUrl::parse(&image.url)
            .ok()
            .filter(|url| url.variant_width().is_none())
    }

    /// Whether `url`, found in `blog`, is one of the service's images.
    fn is_service(&self, blog: &BlogDetail, url: &MediaUrl) -> bool {
        url.prefix() == self.base_prefix
            || Self::featured(blog).is_some_and(|featured| featured.prefix() == url.prefix())
    }

    /// The masters `blog` uses (its featured image, and the images of its body, a variant
    /// standing for its master), by file name, each once; with the size of those whose size
    /// the answer gives (the featured image's).
    pub(crate) fn uses(&self, blog: &BlogDetail) -> Uses {
        let mut found = BTreeMap::new();
        if let (Some(url), Some(image)) = (Self::featured(blog), &blog.fields.featured_image) {
            found.insert(url.file_name(), (url, Some((image.width, image.height))));
        }
        for (_, url) in self.body_images(blog, &blog.content) {
            let master = url.master();
            found.entry(master.file_name()).or_insert((master, None));
        }
        found
    }

    /// The service's images of `body` (the body of `blog`): each image tag and its URL.
    fn body_images(
        &self,
        blog: &BlogDetail,
        body: &str,
    ) -> Vec<(super::super::body::html::ImageTag, MediaUrl)> {
        image_tags(body)
            .into_iter()
            .filter_map(|tag| {
                let src = body[tag.src.clone()].trim_matches(|c: char| c.is_ascii_whitespace());
                // A character reference before the query would have to be decoded to read
                // the URL; the server never writes one there, so such a `src` is left alone.
                let path = src.split(['?', '#']).next().unwrap_or("");
                if path.contains('&') {
                    return None;
                }
                let url = MediaUrl::in_body(src)?;
                self.is_service(blog, &url).then_some((tag, url))
            })
            .collect()
    }
}

/// A master as the site holds it: its path on the site and its size.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SiteImage {
    /// The path pages name it by (`/media/<sha256>.jpg`, or `../media/<sha256>.jpg` beside
    /// plain HTML pages).
    pub(crate) path: String,
    /// Its width in pixels.
    pub(crate) width: u32,
    /// Its height in pixels.
    pub(crate) height: u32,
}

/// Every master the exported posts use, by file name, as the site holds it.
#[derive(Debug, Clone, Default)]
pub(crate) struct SiteImages {
    pub(crate) by_file: BTreeMap<String, SiteImage>,
}

/// What the featured image of a post is on the site.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct FeaturedOnSite {
    /// Where pages find it: the site path, or the service's URL.
    pub(crate) src: String,
    /// The master's width.
    pub(crate) width: u32,
    /// The master's height.
    pub(crate) height: u32,
    /// Its alt text.
    pub(crate) alt: String,
}

/// The images of a post as the export writes them: at their site paths (`local`), or at the
/// service's URLs.
#[derive(Debug, Clone, Copy)]
pub(crate) struct PostImages<'a> {
    pub(crate) rule: &'a MediaRule,
    pub(crate) site: &'a SiteImages,
}

impl PostImages<'_> {
    /// The featured image as the site shows it, when the post's is the service's and the site
    /// holds it.
    pub(crate) fn featured(&self, blog: &BlogDetail) -> Option<FeaturedOnSite> {
        let image = blog.fields.featured_image.as_ref()?;
        let url = MediaRule::featured(blog)?;
        let held = self.site.by_file.get(&url.file_name())?;
        Some(FeaturedOnSite {
            src: held.path.clone(),
            width: held.width,
            height: held.height,
            alt: image.alt.clone(),
        })
    }

    /// `blog`'s body with each `<img src>` naming a service image the site holds rewritten to
    /// its site path, with `width` and `height` (of the variant named, when a variant is) unless
    /// the tag already gives a size. Every other byte stays as it is.
    pub(crate) fn body(&self, blog: &BlogDetail) -> String {
        let body = blog.content.as_str();
        let mut out = String::with_capacity(body.len());
        let mut copied = 0;
        for (tag, url) in self.rule.body_images(blog, body) {
            let Some(held) = self.site.by_file.get(&url.file_name()) else {
                continue;
            };
            let (width, height) = match url.variant_width() {
                Some(w) if w < held.width => (w, variant_height(held.width, held.height, w)),
                _ => (held.width, held.height),
            };
            let (start, end) = match tag.quoted {
                true => (tag.src.start - 1, tag.src.end + 1),
                false => (tag.src.start, tag.src.end),
            };
            out.push_str(&body[copied..start]);
            out.push('"');
            out.push_str(&held.path);
            out.push('"');
            if !tag.sized {
                out.push_str(&format!(" width=\"{width}\" height=\"{height}\""));
            }
            copied = end;
        }
        out.push_str(&body[copied..]);
        out
    }
}

/// The featured image of `blog` as it stands on the service (for `--media remote`): its URL,
/// size and alt text, when the server typed it.
pub(crate) fn featured_remote(blog: &BlogDetail) -> Option<FeaturedOnSite> {
    let image = blog.fields.featured_image.as_ref()?;
    Some(FeaturedOnSite {
        src: blog
            .fields
            .featured_image_url
            .clone()
            .unwrap_or_else(|| image.url.clone()),
        width: image.width,
        height: image.height,
        alt: image.alt.clone(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const SHA: &str = "3a7bd3e2360a3d29eea436fcfb7e44c735d117c42d1c1835420b6b9942dd4f1b";
    const OTHER: &str = "0000000000000000000000000000000000000000000000000000000000000001";
    const PROJECT: &str = "0192d1a4-7b1c-7cc3-9f7e-2b6a0c1d2e3f";

    fn blog(content: &str, featured: Option<&str>) -> BlogDetail {
        let image = featured.map(|url| {
            serde_json::json!({"url": url, "width": 2400, "height": 1600, "alt": "A red kite",
                "variants": []})
        });
        serde_json::from_value(serde_json::json!({
            "id": "0190a1b2-0000-7000-8000-000000000001", "title": "T", "slug": "a-post",
            "excerpt": "", "meta_title": "", "meta_description": "",
            "featured_image_url": featured, "categories": [], "tags": [],
            "featured_image": image,
            "published_at": "2026-11-21T09:30:00Z", "content": content,
            "updated_at": "2026-11-21T09:30:00Z", "word_count": 1
        }))
        .unwrap()
    }

    fn site() -> SiteImages {
        let mut site = SiteImages::default();
        site.by_file.insert(
            format!("{SHA}.jpg"),
            SiteImage {
                path: format!("/media/{SHA}.jpg"),
                width: 2400,
                height: 1600,
            },
        );
        site
    }

    fn rule() -> MediaRule {
        MediaRule::new("https://blog.example.com/media/".into())
    }

    #[test]
    fn a_service_image_in_a_body_gets_its_site_path_and_size_and_keeps_its_other_attributes() {
        let body = format!(
            "<p>a<img class=\"wide\" src=\"https://blog.example.com/media/{PROJECT}/{SHA}.jpg\" alt='Kite'>\
             <IMG SRC=https://blog.example.com/media/{PROJECT}/{SHA}/w480.jpg?v=1>\
             <img src='https://blog.example.com/media/{PROJECT}/{SHA}/w960.jpg' width=\"300\"></p>"
        );
        let b = blog(&body, None);
        let images = PostImages {
            rule: &rule(),
            site: &site(),
        };
        assert_eq!(
            images.body(&b),
            format!(
                "<p>a<img class=\"wide\" src=\"/media/{SHA}.jpg\" width=\"2400\" height=\"1600\" alt='Kite'>\
                 <IMG SRC=\"/media/{SHA}.jpg\" width=\"480\" height=\"320\">\
                 <img src=\"/media/{SHA}.jpg\" width=\"300\"></p>"
            )
        );
        let uses = rule().uses(&b);
        assert_eq!(uses.keys().collect::<Vec<_>>(), [&format!("{SHA}.jpg")]);
    }

    #[test]
    fn images_elsewhere_and_look_alikes_outside_tags_are_left_alone() {
        let body = format!(
            "<!-- <img src=\"https://blog.example.com/media/{PROJECT}/{SHA}.jpg\"> -->\
             <script>'<img src=\"https://blog.example.com/media/{PROJECT}/{SHA}.jpg\">'</script>\
             <img src=\"https://cdn.example.com/media/{PROJECT}/{SHA}.jpg\">\
             <img src=\"https://blog.example.com/media/{PROJECT}/{OTHER}.jpg\">\
             <img src=\"https://blog.example.com/img/{SHA}.jpg\"><a href=\"https://blog.example.com/media/{PROJECT}/{SHA}.jpg\">x</a>"
        );
        let b = blog(&body, None);
        let images = PostImages {
            rule: &rule(),
            site: &site(),
        };
        // The one image of another name is the service's, but not held: left as it is.
        assert_eq!(images.body(&b), body);
        assert_eq!(
            rule().uses(&b).len(),
            1,
            "the service's other image is used"
        );
    }

    #[test]
    fn the_featured_images_address_is_the_services_too() {
        let featured = format!("https://cdn.example.com/media/{PROJECT}/{SHA}.jpg");
        let body = format!("<img src=\"https://cdn.example.com/media/{PROJECT}/{SHA}/w480.jpg\">");
        let b = blog(&body, Some(&featured));
        let images = PostImages {
            rule: &rule(),
            site: &site(),
        };
        assert_eq!(
            images.body(&b),
            format!("<img src=\"/media/{SHA}.jpg\" width=\"480\" height=\"320\">")
        );
        let on_site = images.featured(&b).unwrap();
        assert_eq!(
            (
                on_site.src.as_str(),
                on_site.width,
                on_site.height,
                on_site.alt.as_str()
            ),
            (
                format!("/media/{SHA}.jpg").as_str(),
                2400,
                1600,
                "A red kite"
            )
        );
        assert_eq!(featured_remote(&b).unwrap().src, featured);
    }
}
