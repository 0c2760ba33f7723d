//! blogread-client against the real server on loopback: every method async and blocking, the
//! wire types against the raw JSON, ETags, `all_blogs` over 250 blogs, `export`, and the
//! static-site example over the demo content.

use std::path::{Path, PathBuf};

use blogread_client::export::{self, ExportOptions, Format, Manifest};
use blogread_client::{Client, Error, ListParams};
use blogread_tests::{Scratch, TestApp, TestProject, spawn_app};
use reqwest::Method;
use serde_json::{Value, json};

const PUBLIC: &str = "/blog/api/v1/public/blogs";

async fn seeded(app: &TestApp) -> TestProject {
    let p = app.new_project(Some("https://site.example.com")).await;
    app.published_blog(
        &p,
        "post-a",
        "2026-01-01T10:00:00Z",
        json!({
            "content": "<p>See <a href=\"[INTERNAL:post-b]\">B</a> and <a href=\"[INTERNAL:draft-post]\">the draft</a>.</p>",
            "categories": ["Engineering", "News"],
            "tags": ["rust"],
            "featured_image_url": "https://img.example.com/a.jpg",
            "excerpt": "About A",
        }),
    )
    .await;
    app.published_blog(
        &p,
        "post-b",
        "2026-02-01T10:00:00Z",
        json!({"content": "<p>Two words</p>", "categories": ["News"]}),
    )
    .await;
    app.published_blog(
        &p,
        "post-c",
        "2026-03-01T10:00:00Z",
        json!({"content": "<p>C</p>"}),
    )
    .await;
    app.create_blog(&p, json!({"title": "Draft", "slug": "draft-post"}))
        .await;
    p
}

async fn unpublish(app: &TestApp, p: &TestProject, id: &str) {
    let r = app
        .send(
            Method::POST,
            &p.path(&format!("/blogs/{id}/unpublish")),
            Some(&p.admin),
            None,
        )
        .await;
    assert_eq!(r.status, 200, "{r:?}");
}

/// The raw JSON the server sends for `path`.
async fn raw(app: &TestApp, p: &TestProject, path: &str) -> Value {
    let r = app.get(path, Some(&p.bearer_key())).await;
    assert_eq!(r.status, 200, "{r:?}");
    r.json
}

#[tokio::test]
async fn every_method_matches_the_wire_format_async() {
    let app = spawn_app().await;
    let p = seeded(&app).await;
    let client = Client::new(&app.base, &p.key).unwrap();

    let params = ListParams::new().limit(2).include_content(true);
    let page = client.list(&params).await.unwrap();
    assert_eq!(
        serde_json::to_value(&page).unwrap(),
        raw(&app, &p, &format!("{PUBLIC}?limit=2&include_content=true")).await
    );
    assert_eq!(page.total, 3);
    assert_eq!(page.blogs[0].slug, "post-c");

    let news = client
        .list(&ListParams::new().category("news"))
        .await
        .unwrap();
    assert_eq!(news.total, 2);
    assert!(news.blogs.iter().all(|b| b.content.is_none()));

    let a = client.get("post-a").await.unwrap();
    assert_eq!(
        serde_json::to_value(&a).unwrap(),
        raw(&app, &p, &format!("{PUBLIC}/post-a")).await
    );
    assert!(a.content.contains("https://site.example.com/blog/post-b/"));
    assert!(!a.content.contains("[INTERNAL:"));
    assert_eq!(
        a.featured_image_url.as_deref(),
        Some("https://img.example.com/a.jpg")
    );

    let sitemap = client.sitemap().await.unwrap();
    assert_eq!(
        serde_json::to_value(&sitemap).unwrap(),
        raw(&app, &p, &format!("{PUBLIC}/sitemap")).await
    );

    let all = client.all_blogs_with_content().await.unwrap();
    let slugs: Vec<&str> = all.iter().map(|b| b.slug.as_str()).collect();
    assert_eq!(slugs, ["post-c", "post-b", "post-a"]);
    assert!(all.iter().all(|b| b.content.is_some()));
    assert!(
        client
            .all_blogs()
            .await
            .unwrap()
            .iter()
            .all(|b| b.content.is_none())
    );

    let err = client.get("draft-post").await.unwrap_err();
    assert!(matches!(err, Error::NotFound { .. }), "{err:?}");
    let err = client.get("no-such-post").await.unwrap_err();
    assert!(matches!(err, Error::NotFound { .. }), "{err:?}");

    let bad = Client::new(&app.base, "pk_live_wrong").unwrap();
    let err = bad.sitemap().await.unwrap_err();
    assert!(
        matches!(&err, Error::Unauthorized { detail } if !detail.is_empty()),
        "{err:?}"
    );
}

#[tokio::test]
async fn every_method_works_blocking() {
    let app = spawn_app().await;
    let p = seeded(&app).await;
    let (base, key) = (app.base.clone(), p.key.clone());
    tokio::task::spawn_blocking(move || {
        let client = blogread_client::blocking::Client::new(base.as_str(), key.as_str()).unwrap();
        let page = client.list(&ListParams::new().limit(1)).unwrap();
        assert_eq!((page.total, page.blogs.len()), (3, 1));
        assert_eq!(client.get("post-b").unwrap().word_count, 2);
        assert_eq!(client.sitemap().unwrap().total, 3);
        assert_eq!(client.all_blogs().unwrap().len(), 3);
        assert_eq!(client.all_blogs_with_content().unwrap().len(), 3);
        assert!(matches!(
            client.get("draft-post"),
            Err(Error::NotFound { .. })
        ));
        let bad = blogread_client::blocking::Client::new(base.as_str(), "pk_live_wrong").unwrap();
        assert!(matches!(bad.sitemap(), Err(Error::Unauthorized { .. })));
    })
    .await
    .unwrap();
}

#[tokio::test]
async fn an_etag_cache_turns_unchanged_answers_into_304s() {
    let app = spawn_app().await;
    let p = seeded(&app).await;
    let client = Client::builder(&app.base, &p.key)
        .etag_cache(true)
        .build()
        .unwrap();
    let first = client.all_blogs_with_content().await.unwrap();
    let fetched = client.cache_stats().fetched;
    assert!(fetched >= 2);
    let again = client.all_blogs_with_content().await.unwrap();
    assert_eq!(first, again);
    assert_eq!(
        client.cache_stats().fetched,
        fetched,
        "no body the second time"
    );
    assert_eq!(client.cache_stats().not_modified, fetched);

    // A publish changes the answers: bodies again.
    app.published_blog(&p, "post-d", "2026-04-01T10:00:00Z", json!({}))
        .await;
    let after = client.all_blogs().await.unwrap();
    assert_eq!(after[0].slug, "post-d");
    assert!(client.cache_stats().fetched > fetched);
}

#[tokio::test]
async fn all_blogs_over_250_returns_each_once_newest_first() {
    let app = spawn_app().await;
    let p = app.new_project(None).await;
    let mut expected = Vec::new();
    for i in 0..250u32 {
        let slug = format!("post-{i:03}");
        // Distinct times, one hour apart, in an order unlike the creation order.
        let hour = (i * 97) % 250;
        let at = chrono_like(hour);
        app.published_blog(&p, &slug, &at, json!({})).await;
        expected.push((at, slug));
    }
    expected.sort_by(|a, b| b.0.cmp(&a.0));
    let client = Client::new(&app.base, &p.key).unwrap();
    let all = client.all_blogs().await.unwrap();
    let got: Vec<&str> = all.iter().map(|b| b.slug.as_str()).collect();
    let want: Vec<&str> = expected.iter().map(|(_, s)| s.as_str()).collect();
    assert_eq!(got, want);
    let unique: std::collections::HashSet<&str> = got.iter().copied().collect();
    assert_eq!(unique.len(), 250);
}

/// `2026-01-01T00:00:00Z` plus `hours`, as RFC 3339.
fn chrono_like(hours: u32) -> String {
    let day = 1 + hours / 24;
    format!("2026-01-{day:02}T{:02}:00:00Z", hours % 24)
}

fn walk(dir: &Path) -> Vec<String> {
    fn go(root: &Path, dir: &Path, out: &mut Vec<String>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                go(root, &path, out);
            } else {
                let rel = path.strip_prefix(root).unwrap();
                out.push(rel.to_string_lossy().replace('\\', "/"));
            }
        }
    }
    let mut out = Vec::new();
    go(dir, dir, &mut out);
    out.sort();
    out
}

#[tokio::test]
async fn zola_export_parses_removes_unpublished_and_keeps_user_files() {
    let app = spawn_app().await;
    let p = seeded(&app).await;
    let b_id = app
        .published_blog(&p, "post-e", "2026-05-01T10:00:00Z", json!({"tags": ["x"]}))
        .await;
    let client = Client::new(&app.base, &p.key).unwrap();
    let site = Scratch::absent("zola");
    let out = site.join("content/blog");
    std::fs::create_dir_all(&out).unwrap();
    std::fs::write(out.join("_index.md"), "+++\ntitle = \"Blog\"\n+++\n").unwrap();
    std::fs::write(out.join("my-notes.md"), "+++\ntitle = \"mine\"\n+++\nhello").unwrap();

    let options = ExportOptions::new(&out, Format::Zola).state_dir(site.join(".blogread"));
    let report = export::export(&client, &options, &mut |_, _| {})
        .await
        .unwrap();
    assert_eq!(report.blogs, 4);
    for rel in walk(&out) {
        if !rel.ends_with(".md") {
            continue;
        }
        let text = std::fs::read_to_string(out.join(&rel)).unwrap();
        let rest = text
            .strip_prefix("+++\n")
            .unwrap_or_else(|| panic!("{rel}: no front matter"));
        let (front, body) = rest.split_once("\n+++\n").unwrap();
        let front: toml::Table = front.parse().unwrap_or_else(|e| panic!("{rel}: {e}"));
        assert!(front["title"].is_str(), "{rel}");
        if rel == "_index.md" || rel == "my-notes.md" {
            continue;
        }
        assert!(
            front["date"].is_datetime() && front["updated"].is_datetime(),
            "{rel}"
        );
        assert_eq!(front["slug"].as_str(), Some(rel.trim_end_matches(".md")));
        assert!(front["extra"]["word_count"].is_integer(), "{rel}");
        assert!(!body.contains("[INTERNAL:"), "{rel}");
        assert!(
            !body.contains("\n\n"),
            "{rel}: a blank line would end the HTML block"
        );
    }
    let a = std::fs::read_to_string(out.join("post-a.md")).unwrap();
    assert!(a.contains("https://site.example.com/blog/post-b/"));
    assert!(
        a.contains("categories = [\n    \"Engineering\",")
            || a.contains("categories = [\"Engineering\"")
    );

    unpublish(&app, &p, &b_id).await;
    let report = export::export(&client, &options, &mut |_, _| {})
        .await
        .unwrap();
    assert_eq!(report.removed, vec!["post-e.md"]);
    // Incremental: only the change is read (the other posts' files are left as they are).
    assert_eq!(report.full_read, None);
    assert!(report.unchanged.is_empty() && report.written.is_empty());
    // Only content in the output folder; the manifest, in the state folder, owns the posts.
    assert_eq!(
        walk(&out),
        vec![
            "_index.md",
            "my-notes.md",
            "post-a.md",
            "post-b.md",
            "post-c.md"
        ]
    );
    assert_eq!(
        std::fs::read_to_string(out.join("my-notes.md")).unwrap(),
        "+++\ntitle = \"mine\"\n+++\nhello"
    );
    let manifest_path = options.manifest_path().unwrap();
    assert_eq!(
        manifest_path.parent(),
        Some(site.join(".blogread").as_path())
    );
    let manifest = Manifest::load(&manifest_path).unwrap();
    assert_eq!(
        manifest.files.keys().collect::<Vec<_>>(),
        vec!["post-a.md", "post-b.md", "post-c.md"]
    );
}

#[tokio::test]
async fn static_site_over_the_demo_content_has_no_broken_internal_link() {
    let app = spawn_app().await;
    let demo = blogread_server::demo::seed(&app.service).await.unwrap();
    let site_url = blogread_server::demo::DEMO_SITE_URL;
    let client = Client::new(&app.base, &demo.public_key).unwrap();
    let out = Scratch::absent("site");
    let files = crate::static_site::build_site(&client, site_url, &out, 10)
        .await
        .unwrap();

    for slug in &demo.published {
        assert!(files.contains(&format!("blog/{slug}/index.html")), "{slug}");
    }
    assert!(!files.contains(&format!("blog/{}/index.html", demo.draft.1)));
    assert!(files.contains(&"sitemap.xml".to_owned()));
    assert!(files.iter().any(|f| f.starts_with("page/2/")));
    assert!(files.iter().any(|f| f.starts_with("category/")));

    let mut internal = 0;
    for rel in &files {
        let text = std::fs::read_to_string(out.join(rel)).unwrap();
        assert!(!text.contains("[INTERNAL:"), "{rel}");
        for marker in ["href=\"", "<loc>"] {
            for (i, _) in text.match_indices(marker) {
                let rest = &text[i + marker.len()..];
                let link = &rest[..rest.find(['"', '<']).unwrap()];
                let Some(path) = link.strip_prefix(site_url) else {
                    assert!(!link.starts_with('/'), "{rel}: root-relative {link}");
                    continue;
                };
                internal += 1;
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
                assert!(
                    files.contains(&target),
                    "{rel}: {link} points at no generated page"
                );
            }
        }
    }
    assert!(
        internal > demo.published.len(),
        "links were checked: {internal}"
    );
}

#[tokio::test]
async fn the_blocking_cache_example_runs_the_whole_cycle() {
    let app = spawn_app().await;
    let p = seeded(&app).await;
    let dir = Scratch::absent("blocking-cache");
    let (out, cache) = (dir.join("site"), dir.join("state/cache.json"));
    std::fs::create_dir_all(dir.join("state")).unwrap();
    let build = |base: String, key: String, out: PathBuf, cache: PathBuf| {
        tokio::task::spawn_blocking(move || {
            crate::blocking_cache::run(&base, &key, &out, &cache).map_err(|e| e.to_string())
        })
    };
    let args = || (app.base.clone(), p.key.clone(), out.clone(), cache.clone());

    let (b, k, o, c) = args();
    let first = build(b, k, o, c).await.unwrap().unwrap();
    assert!(first.changed);
    assert_eq!(first.written, 4, "three posts and the index");
    assert_eq!(first.not_modified, 0);
    let page = std::fs::read_to_string(out.join("blog/post-a/index.html")).unwrap();
    assert!(
        page.contains("https://site.example.com/blog/post-b/"),
        "{page}"
    );
    assert!(cache.exists());

    // Unchanged: only 304s (one page and the sitemap), nothing written.
    let (b, k, o, c) = args();
    let second = build(b, k, o, c).await.unwrap().unwrap();
    assert_eq!(
        (
            second.changed,
            second.written,
            second.not_modified,
            second.downloaded
        ),
        (false, 0, 2, 0)
    );

    // A publish changes the answers: the site is written again, with the new post.
    app.published_blog(&p, "post-d", "2026-04-01T10:00:00Z", json!({}))
        .await;
    let (b, k, o, c) = args();
    let third = build(b, k, o, c).await.unwrap().unwrap();
    assert!(third.changed);
    assert_eq!(third.written, 5);
    assert!(out.join("blog/post-d/index.html").exists());
}

#[tokio::test]
async fn a_blocking_client_dropped_inside_an_async_context_does_not_panic() {
    let app = spawn_app().await;
    let p = seeded(&app).await;
    let (base, key) = (app.base.clone(), p.key.clone());
    // The server runs on the test's runtime; the client is used and dropped inside another.
    tokio::task::spawn_blocking(move || {
        let caller = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        caller.block_on(async {
            let client =
                blogread_client::blocking::Client::new(base.as_str(), key.as_str()).unwrap();
            assert_eq!(client.list(&ListParams::new()).unwrap().total, 3);
            drop(client);
        });
    })
    .await
    .unwrap();
}

#[tokio::test]
async fn the_async_view_works_on_another_runtime_after_a_blocking_call() {
    let app = spawn_app().await;
    let p = seeded(&app).await;
    let (base, key) = (app.base.clone(), p.key.clone());
    tokio::task::spawn_blocking(move || {
        let client = blogread_client::blocking::Client::builder(base.as_str(), key.as_str())
            .timeout(std::time::Duration::from_secs(3))
            .retry_policy(blogread_client::RetryPolicy::none())
            .build()
            .unwrap();
        assert_eq!(client.sitemap().unwrap().total, 3);
        let other = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        // Reuses the keep-alive connection of the blocking call.
        let page = other.block_on(client.as_async().list(&ListParams::new()));
        assert_eq!(page.unwrap().total, 3);
        let blog = other.block_on(async { client.get("post-b") });
        assert_eq!(blog.unwrap().word_count, 2);
    })
    .await
    .unwrap();
}

/// Runs `published` with the cache in `path`, saving it after, on a fresh client.
async fn published_with_cache_file(
    app: &TestApp,
    p: &TestProject,
    path: &Path,
) -> Result<blogread_client::Published, Error> {
    let client = Client::builder(&app.base, &p.key)
        .etag_cache_file(path)
        .build()?;
    let published = client.published(true).await?;
    client.save_etag_cache()?;
    Ok(published)
}

#[tokio::test]
async fn a_hand_edited_cache_never_fails_a_build() {
    let app = spawn_app().await;
    let p = seeded(&app).await;
    let dir = Scratch::absent("edited-cache");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("cache.json");
    let first = published_with_cache_file(&app, &p, &path).await.unwrap();
    assert_eq!(first.blogs.len(), 3);

    // The sitemap's kept body edited to one that does not decode, then to one that decodes
    // but disagrees with the kept pages: each build still reads every post.
    for edited in [r#"{"blogs":[]}"#, r#"{"blogs":[],"total":0}"#] {
        let mut file: Value =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let entries = file["entries"].as_object_mut().unwrap();
        let sitemap = entries
            .iter_mut()
            .find(|(url, _)| url.ends_with("/sitemap"))
            .expect("the sitemap is cached")
            .1;
        sitemap["body"] = json!(edited);
        std::fs::write(&path, file.to_string()).unwrap();

        let again = published_with_cache_file(&app, &p, &path)
            .await
            .unwrap_or_else(|e| panic!("{edited}: {e}"));
        assert_eq!(again.blogs, first.blogs, "{edited}");
        assert!(again.blogs.iter().all(|b| b.updated_at.is_some()));
        // The cache is whole again: the next build gets only 304s.
        let next = published_with_cache_file(&app, &p, &path).await.unwrap();
        assert!(!next.changed, "{edited}");
    }
}

#[tokio::test]
async fn get_refuses_endpoint_names_and_slugs_outside_the_grammar() {
    let app = spawn_app().await;
    let p = seeded(&app).await;
    let client = Client::new(&app.base, &p.key).unwrap();
    // Without the check, `sitemap` reaches the sitemap endpoint and fails to decode.
    for slug in ["sitemap", "redirects", "Post-A", "post--a", "../post-a", ""] {
        let err = client.get(slug).await.unwrap_err();
        assert!(
            matches!(&err, Error::InvalidSlug { slug: s, .. } if s == slug),
            "{slug}: {err:?}"
        );
    }
    assert_eq!(client.get("post-a").await.unwrap().slug, "post-a");
}

#[tokio::test]
async fn a_wrong_base_url_is_not_an_unpublished_post() {
    let app = spawn_app().await;
    let p = seeded(&app).await;
    let wrong = Client::new(format!("{}/blog/api/v1/public", app.base), &p.key).unwrap();
    let err = wrong.get("post-a").await.unwrap_err();
    assert!(
        matches!(&err, Error::EndpointNotFound { url, .. } if url.ends_with("/blog/api/v1/public/blog/api/v1/public/blogs/post-a")),
        "{err:?}"
    );
    assert!(err.to_string().contains("check the base URL"), "{err}");
    for err in [
        wrong.sitemap().await.unwrap_err(),
        wrong.list(&ListParams::new()).await.unwrap_err(),
        wrong.all_blogs().await.unwrap_err(),
    ] {
        assert!(matches!(err, Error::EndpointNotFound { .. }), "{err:?}");
    }
    // The right base: an unpublished post is NotFound, a published one found.
    let right = Client::new(&app.base, &p.key).unwrap();
    let err = right.get("draft-post").await.unwrap_err();
    assert!(matches!(err, Error::NotFound { .. }), "{err:?}");
}
