//! The static-site example against the stub server: every page, and every internal link
//! points at a generated page.

mod support;

#[path = "../examples/static_site.rs"]
#[allow(dead_code)]
mod static_site;

use std::path::Path;

use support::*;

/// Every `href="/..."` and `src="/..."` in the generated HTML, and every `<loc>` of the
/// sitemap, must name a generated file (`/x/` meaning `/x/index.html`).
fn broken_links(out: &Path, files: &[String], site_url: &str) -> Vec<String> {
    let mut broken = Vec::new();
    for rel in files {
        let text = std::fs::read_to_string(out.join(rel)).unwrap();
        for marker in ["href=\"", "src=\"", "<loc>"] {
            for (i, _) in text.match_indices(marker) {
                let rest = &text[i + marker.len()..];
                let end = rest.find(['"', '<']).unwrap();
                let link = &rest[..end];
                let Some(path) = link.strip_prefix(site_url) else {
                    continue; // external
                };
                if !path.starts_with('/') {
                    continue;
                }
                let path = path
                    .split(['#', '?'])
                    .next()
                    .unwrap()
                    .trim_start_matches('/');
                let target = if path.is_empty() || path.ends_with('/') {
                    format!("{path}index.html")
                } else {
                    path.to_owned()
                };
                if !files.contains(&target) {
                    broken.push(format!("{rel}: {link}"));
                }
            }
        }
    }
    broken
}

#[tokio::test]
async fn builds_index_pages_posts_categories_and_sitemap_with_no_broken_link() {
    let blogs: Vec<u64> = (1..=25).rev().collect();
    let stub = start_stub(move |_, req| serve(&blogs, req)).await;
    let out = std::env::temp_dir().join(format!("blogread-site-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    let files = static_site::build_site(&client(&stub), "", &out, 10)
        .await
        .unwrap();

    for expected in [
        "index.html",
        "page/2/index.html",
        "page/3/index.html",
        "blog/blog-25/index.html",
        "blog/blog-1/index.html",
        "category/news/index.html",
        "category/deep-dives/index.html",
        "sitemap.xml",
    ] {
        assert!(
            files.contains(&expected.to_owned()),
            "{expected} in {files:?}"
        );
    }
    assert!(!files.contains(&"page/4/index.html".to_owned()));
    assert_eq!(files.iter().filter(|f| f.starts_with("blog/")).count(), 25);
    assert!(
        broken_links(&out, &files, "").is_empty(),
        "{:?}",
        broken_links(&out, &files, "")
    );
    let post = std::fs::read_to_string(out.join("blog/blog-2/index.html")).unwrap();
    assert!(
        post.contains("<a href=\"/blog/blog-1/\">the first</a>"),
        "body kept as HTML"
    );
    assert!(post.contains("<title>Blog 2</title>"));
    std::fs::remove_dir_all(&out).unwrap();
}

#[test]
fn category_slugs_are_lowercase_and_hyphenated() {
    assert_eq!(static_site::category_slug("Deep Dives"), "deep-dives");
    assert_eq!(static_site::category_slug("  C++ & Rust!  "), "c-rust");
    assert_eq!(static_site::category_slug("???"), "uncategorised");
    assert_eq!(static_site::category_slug("Über"), "über");
}
