//! The export brings the service's images home (`docs/client.md#images`): every master the
//! exported posts use is downloaded once, checked against its name, and written into the
//! site's static folder named by its content (`media/<sha256>.<jpg|png>`); the posts name the
//! files by their site paths, with their sizes.
//!
//! - [`site`]: which images a post uses, and its body and featured image rewritten;
//! - [`files`]: which files are already there, and the downloads;
//! - [`size`]: a picture's size from its header, and a variant's as the service makes it.

pub(crate) mod files;
pub(crate) mod site;
pub(crate) mod size;

use super::types::{Format, SiteRoot};
use site::{SiteImage, SiteImages};

/// The path of the site file `media/<file>` as pages name it: from the site's root (`root`,
/// the path the site is served under) for Zola and Hugo (which copy `static/` there),
/// relative to the page for plain HTML (`<slug>/index.html` beside `media/`).
pub(crate) fn site_path(format: Format, root: &SiteRoot, file: &str) -> String {
    match format {
        Format::Zola | Format::Hugo => format!("{root}media/{file}"),
        Format::Html => format!("../media/{file}"),
    }
}

/// The site's images from the manifest's entries after this run.
pub(crate) fn site_images(
    format: Format,
    root: &SiteRoot,
    entries: &std::collections::BTreeMap<String, super::manifest::MediaEntry>,
) -> SiteImages {
    let by_file = entries
        .iter()
        .filter_map(|(rel, entry)| {
            let file = rel.strip_prefix("media/")?;
            Some((
                file.to_owned(),
                SiteImage {
                    path: site_path(format, root, file),
                    width: entry.width,
                    height: entry.height,
                },
            ))
        })
        .collect();
    SiteImages { by_file }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zola_and_hugo_name_images_from_the_site_root_and_html_relative_to_the_page() {
        let root = SiteRoot::default();
        let sub = SiteRoot::parse("/my-blog").unwrap();
        for format in [Format::Zola, Format::Hugo] {
            assert_eq!(site_path(format, &root, "a.jpg"), "/media/a.jpg");
            assert_eq!(site_path(format, &sub, "a.jpg"), "/my-blog/media/a.jpg");
        }
        assert_eq!(site_path(Format::Html, &sub, "a.jpg"), "../media/a.jpg");
    }
}
