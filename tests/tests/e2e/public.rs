//! `docs/public-api.md`: list, single blog, sitemap, parameters, ETags.

use blogread_tests::{TestApp, TestProject, spawn_app};
use reqwest::Method;
use serde_json::{Value, json};

const LIST: &str = "/blog/api/v1/public/blogs";

/// A project with three published posts (newest first: c, b, a), a draft and an unpublished
/// post. `a` links to `b`, to the draft and to the unpublished post.
async fn seeded(app: &TestApp, site_url: Option<&str>) -> TestProject {
    let p = app.new_project(site_url).await;
    app.published_blog(
        &p,
        "post-a",
        "2026-01-01T10:00:00Z",
        json!({
            "content": "<p>See <a href=\"[INTERNAL:post-b]\">B</a>, <a href=\"[INTERNAL:draft-post]\">the draft</a> and <a href=\"[INTERNAL:gone-post]\">gone</a>.</p>",
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
        json!({"content": "<p>C</p>", "categories": ["engineering"]}),
    )
    .await;
    app.create_blog(&p, json!({"title": "Draft", "slug": "draft-post"}))
        .await;
    let gone = app
        .published_blog(&p, "gone-post", "2026-01-15T10:00:00Z", json!({}))
        .await;
    let r = app
        .send(
            Method::POST,
            &p.path(&format!("/blogs/{gone}/unpublish")),
            Some(&p.admin),
            None,
        )
        .await;
    assert_eq!(r.status, 200, "{r:?}");
    p
}

fn slugs(v: &Value) -> Vec<&str> {
    v["blogs"]
        .as_array()
        .expect("blogs")
        .iter()
        .map(|b| b["slug"].as_str().expect("slug"))
        .collect()
}

fn keys(v: &Value) -> Vec<&str> {
    let mut k: Vec<&str> = v
        .as_object()
        .expect("object")
        .keys()
        .map(String::as_str)
        .collect();
    k.sort_unstable();
    k
}

#[tokio::test]
async fn list_returns_only_published_blogs_newest_first_with_metadata_only() {
    let app = spawn_app().await;
    let p = seeded(&app, None).await;
    let r = app.get(LIST, Some(&p.bearer_key())).await;
    assert_eq!(r.status, 200, "{r:?}");
    assert_eq!(slugs(&r.json), ["post-c", "post-b", "post-a"]);
    assert_eq!(r.json["total"], 3);
    assert_eq!(r.json["limit"], 50);
    assert_eq!(r.json["offset"], 0);
    assert_eq!(keys(&r.json), ["blogs", "limit", "offset", "total"]);
    let a = &r.json["blogs"][2];
    assert_eq!(
        keys(a),
        [
            "categories",
            "excerpt",
            "featured_image",
            "featured_image_url",
            "id",
            "meta_description",
            "meta_title",
            "published_at",
            "slug",
            "tags",
            "title"
        ],
        "the list item's fields (docs/public-api.md#list-item), no content without include_content"
    );
    assert_eq!(a["published_at"], "2026-01-01T10:00:00Z");
    assert_eq!(a["categories"], json!(["Engineering", "News"]));
    assert_eq!(a["featured_image_url"], "https://img.example.com/a.jpg");
    assert_eq!(a["meta_title"], "", "empty text is \"\", never null");
    assert_eq!(r.json["blogs"][0]["featured_image_url"], Value::Null);
}

#[tokio::test]
async fn include_content_adds_bodies_with_internal_links_resolved() {
    let app = spawn_app().await;
    let p = seeded(&app, Some("https://www.example.com")).await;
    let r = app
        .get(
            &format!("{LIST}?include_content=TRUE"),
            Some(&p.bearer_key()),
        )
        .await;
    assert_eq!(r.status, 200, "{r:?}");
    for b in r.json["blogs"].as_array().unwrap() {
        assert!(b["content"].is_string(), "content on every item: {b}");
    }
    let a = r.json["blogs"][2]["content"].as_str().unwrap();
    assert!(
        a.contains("href=\"https://www.example.com/blog/post-b/\""),
        "{a}"
    );
    assert!(!a.contains("[INTERNAL:"), "no raw placeholder: {a}");
    assert!(!a.contains("draft-post") && !a.contains("gone-post"), "{a}");
    assert!(
        a.contains("the draft") && a.contains("gone"),
        "anchor text kept: {a}"
    );
    for v in ["1", "true"] {
        let r = app
            .get(
                &format!("{LIST}?include_content={v}"),
                Some(&p.bearer_key()),
            )
            .await;
        assert!(r.json["blogs"][0]["content"].is_string());
    }
    for v in ["0", "false", "FALSE", ""] {
        let r = app
            .get(
                &format!("{LIST}?include_content={v}"),
                Some(&p.bearer_key()),
            )
            .await;
        assert_eq!(r.status, 200);
        assert!(r.json["blogs"][0].get("content").is_none(), "{v}");
    }
}

#[tokio::test]
async fn limit_and_offset_are_clamped_and_echoed() {
    let app = spawn_app().await;
    let p = seeded(&app, None).await;
    let auth = p.bearer_key();
    for (query, limit, offset, count) in [
        ("limit=0", 1, 0, 1),
        ("limit=-7", 1, 0, 1),
        ("limit=101", 100, 0, 3),
        ("limit=99999999999999999999999999", 100, 0, 3),
        ("offset=-1", 50, 0, 3),
        ("limit=&offset=", 50, 0, 3),
        ("limit=2&offset=1", 2, 1, 2),
        ("offset=3", 50, 3, 0),
        ("offset=1000", 50, 1000, 0),
    ] {
        let r = app.get(&format!("{LIST}?{query}"), Some(&auth)).await;
        assert_eq!(r.status, 200, "{query}: {r:?}");
        assert_eq!(r.json["limit"], limit, "{query}");
        assert_eq!(r.json["offset"], offset, "{query}");
        assert_eq!(r.json["blogs"].as_array().unwrap().len(), count, "{query}");
        assert_eq!(
            r.json["total"], 3,
            "total ignores limit and offset: {query}"
        );
    }
    let r = app
        .get(&format!("{LIST}?limit=2&offset=1"), Some(&auth))
        .await;
    assert_eq!(slugs(&r.json), ["post-b", "post-a"]);
}

#[tokio::test]
async fn garbage_parameters_are_400_naming_the_parameter() {
    let app = spawn_app().await;
    let p = seeded(&app, None).await;
    for (query, name) in [
        ("limit=abc", "limit"),
        ("limit=1.5", "limit"),
        ("limit=%2B5", "limit"),
        ("offset=ten", "offset"),
        ("include_content=yes", "include_content"),
    ] {
        let r = app
            .get(&format!("{LIST}?{query}"), Some(&p.bearer_key()))
            .await;
        assert_eq!(r.status, 400, "{query}: {r:?}");
        assert!(r.detail().starts_with(name), "{query}: {}", r.detail());
    }
    let r = app
        .get(&format!("{LIST}?unknown=1&limit=1"), Some(&p.bearer_key()))
        .await;
    assert_eq!(r.status, 200, "unknown parameters are ignored");
}

#[tokio::test]
async fn category_filters_case_insensitively_and_total_counts_after_the_filter() {
    let app = spawn_app().await;
    let p = seeded(&app, None).await;
    let r = app
        .get(
            &format!("{LIST}?category=ENGINEERING"),
            Some(&p.bearer_key()),
        )
        .await;
    assert_eq!(slugs(&r.json), ["post-c", "post-a"]);
    assert_eq!(r.json["total"], 2);
    let r = app
        .get(
            &format!("{LIST}?category=News&limit=1"),
            Some(&p.bearer_key()),
        )
        .await;
    assert_eq!(slugs(&r.json), ["post-b"]);
    assert_eq!(r.json["total"], 2);
    let r = app
        .get(&format!("{LIST}?category="), Some(&p.bearer_key()))
        .await;
    assert_eq!(r.json["total"], 3, "empty category means no filter");
    let r = app
        .get(&format!("{LIST}?category=nothing"), Some(&p.bearer_key()))
        .await;
    assert_eq!((r.status, r.json["total"].clone()), (200, json!(0)));
}

#[tokio::test]
async fn single_blog_has_content_updated_at_and_word_count() {
    let app = spawn_app().await;
    let p = seeded(&app, None).await;
    let r = app
        .get(&format!("{LIST}/post-b"), Some(&p.bearer_key()))
        .await;
    assert_eq!(r.status, 200, "{r:?}");
    assert_eq!(
        keys(&r.json),
        [
            "categories",
            "content",
            "excerpt",
            "featured_image",
            "featured_image_url",
            "id",
            "meta_description",
            "meta_title",
            "published_at",
            "slug",
            "tags",
            "title",
            "updated_at",
            "word_count"
        ]
    );
    assert_eq!(r.json["content"], "<p>Two words</p>");
    assert_eq!(r.json["word_count"], 2);
    assert_eq!(r.json["published_at"], "2026-02-01T10:00:00Z");
    let a = app
        .get(&format!("{LIST}/post-a"), Some(&p.bearer_key()))
        .await;
    let content = a.json["content"].as_str().unwrap();
    assert!(
        content.contains("href=\"/blog/post-b/\""),
        "root-relative without site URL: {content}"
    );
}

#[tokio::test]
async fn drafts_unpublished_unknown_and_other_projects_blogs_are_404() {
    let app = spawn_app().await;
    let p = seeded(&app, None).await;
    let other = app.new_project(None).await;
    app.published_blog(&other, "elsewhere", "2026-01-01T00:00:00Z", json!({}))
        .await;
    for slug in [
        "draft-post",
        "gone-post",
        "no-such-post",
        "elsewhere",
        "POST-A",
    ] {
        let r = app
            .get(&format!("{LIST}/{slug}"), Some(&p.bearer_key()))
            .await;
        assert_eq!(r.status, 404, "{slug}: {r:?}");
        assert!(!r.detail().is_empty());
    }
    let r = app.get(LIST, Some(&other.bearer_key())).await;
    assert_eq!(slugs(&r.json), ["elsewhere"], "a key sees only its project");
}

#[tokio::test]
async fn sitemap_path_is_the_sitemap_not_a_slug() {
    let app = spawn_app().await;
    let p = seeded(&app, None).await;
    let r = app
        .get(&format!("{LIST}/sitemap"), Some(&p.bearer_key()))
        .await;
    assert_eq!(r.status, 200, "{r:?}");
    assert_eq!(keys(&r.json), ["blogs", "total"]);
    assert_eq!(r.json["total"], 3);
    assert_eq!(slugs(&r.json), ["post-c", "post-b", "post-a"]);
    assert_eq!(
        keys(&r.json["blogs"][0]),
        ["published_at", "slug", "updated_at"]
    );
    let r = app
        .send(
            Method::POST,
            &p.path("/blogs"),
            Some(&p.admin),
            Some(json!({"title": "Sitemap", "slug": "sitemap"})),
        )
        .await;
    assert_eq!(r.status, 422, "the slug `sitemap` is reserved: {r:?}");
}

#[tokio::test]
async fn public_200_and_304_answers_are_private_and_revalidated() {
    let app = spawn_app().await;
    let p = seeded(&app, None).await;
    let auth = p.bearer_key();
    for path in [
        LIST.to_owned(),
        format!("{LIST}/post-a"),
        format!("{LIST}/sitemap"),
    ] {
        let first = app.get(&path, Some(&auth)).await;
        assert_eq!(first.status, 200, "{path}");
        assert_eq!(
            first.header("cache-control"),
            Some("private, no-cache"),
            "{path}"
        );
        let etag = first.header("etag").expect("ETag").to_owned();
        let again = app
            .request(
                app.http
                    .get(app.url(&path))
                    .header("authorization", &auth)
                    .header("if-none-match", &etag),
            )
            .await;
        assert_eq!(again.status, 304, "{path}");
        assert_eq!(
            again.header("cache-control"),
            Some("private, no-cache"),
            "{path}"
        );
    }
}

#[tokio::test]
async fn etag_round_trip_gives_304_until_content_changes() {
    let app = spawn_app().await;
    let p = seeded(&app, None).await;
    let auth = p.bearer_key();
    for path in [
        LIST.to_owned(),
        format!("{LIST}/post-a"),
        format!("{LIST}/sitemap"),
    ] {
        let first = app.get(&path, Some(&auth)).await;
        let etag = first.header("etag").expect("ETag").to_owned();
        assert!(
            etag.starts_with('"') && etag.ends_with('"'),
            "strong tag: {etag}"
        );
        let again = app
            .request(
                app.http
                    .get(app.url(&path))
                    .header("authorization", &auth)
                    .header("if-none-match", &etag),
            )
            .await;
        assert_eq!(again.status, 304, "{path}");
        assert!(again.text.is_empty(), "304 has no body");
        assert_eq!(again.header("etag"), Some(etag.as_str()));
        for header in ["*", &format!("\"nope\", {etag}")] {
            let r = app
                .request(
                    app.http
                        .get(app.url(&path))
                        .header("authorization", &auth)
                        .header("if-none-match", header),
                )
                .await;
            assert_eq!(r.status, 304, "{path} {header}");
        }
        let bad_key = app
            .request(
                app.http
                    .get(app.url(&path))
                    .header("authorization", "Bearer pk_live_wrong")
                    .header("if-none-match", &etag),
            )
            .await;
        assert_eq!(bad_key.status, 401, "the key is checked before the ETag");
    }
    let before = app.get(&format!("{LIST}/post-a"), Some(&auth)).await;
    let etag = before.header("etag").unwrap().to_owned();
    app.create_blog(&p, json!({"title": "Now", "slug": "draft-post-2"}))
        .await;
    let unchanged = app
        .request(
            app.http
                .get(app.url(&format!("{LIST}/post-a")))
                .header("authorization", &auth)
                .header("if-none-match", &etag),
        )
        .await;
    assert_eq!(
        unchanged.status, 304,
        "a draft does not change what is shown"
    );
    let draft = app
        .send(
            Method::GET,
            &p.path("/blogs?status=draft"),
            Some(&p.admin),
            None,
        )
        .await;
    let draft_id = draft.json["blogs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["slug"] == "draft-post")
        .unwrap()["id"]
        .as_str()
        .unwrap()
        .to_owned();
    app.publish(&p, &draft_id, None).await;
    let changed = app
        .request(
            app.http
                .get(app.url(&format!("{LIST}/post-a")))
                .header("authorization", &auth)
                .header("if-none-match", &etag),
        )
        .await;
    assert_eq!(
        changed.status, 200,
        "publishing a linked blog changes the resolved links"
    );
    assert_ne!(changed.header("etag"), Some(etag.as_str()));
}

#[tokio::test]
async fn no_cors_headers() {
    let app = spawn_app().await;
    let p = seeded(&app, None).await;
    let r = app
        .request(
            app.http
                .get(app.url(LIST))
                .header("authorization", p.bearer_key())
                .header("origin", "https://evil.example.com"),
        )
        .await;
    assert_eq!(r.status, 200);
    assert!(
        r.headers
            .keys()
            .all(|k| !k.as_str().starts_with("access-control-"))
    );
}
