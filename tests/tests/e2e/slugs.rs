//! Slug history through the server, the client and the export: a renamed post keeps its old
//! slug as an alias, so old placeholders resolve, the redirects endpoint lists it, the single
//! read of the old slug is a 404 naming the new one, and the export writes the aliases (and
//! removes them with their post).

use std::path::Path;

use blogread_client::export::{self, ExportOptions, Format};
use blogread_client::{Client, Redirect};
use blogread_tests::{Scratch, TestApp, TestProject, spawn_app};
use reqwest::Method;
use serde_json::json;

const PUBLIC: &str = "/blog/api/v1/public/blogs";

async fn rename(app: &TestApp, p: &TestProject, id: &str, to: &str) {
    let r = app
        .send(
            Method::PATCH,
            &p.path(&format!("/blogs/{id}")),
            Some(&p.admin),
            Some(json!({ "slug": to })),
        )
        .await;
    assert_eq!(r.status, 200, "{r:?}");
    let r = app.publish(p, id, None).await;
    assert_eq!(r.status, 200, "{r:?}");
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[tokio::test]
async fn a_renamed_post_keeps_old_links_working_and_redirects_listed() {
    let app = spawn_app().await;
    let p = app.new_project(Some("https://site.example.com")).await;
    let post = app
        .published_blog(
            &p,
            "first-name",
            "2026-05-01T10:00:00Z",
            json!({"title": "The post"}),
        )
        .await;
    app.published_blog(
        &p,
        "linker",
        "2026-05-02T10:00:00Z",
        json!({"content": "<p>See [INTERNAL:first-name].</p>"}),
    )
    .await;
    rename(&app, &p, &post, "second-name").await;

    let r = app
        .get(&format!("{PUBLIC}/linker"), Some(&p.bearer_key()))
        .await;
    assert_eq!(
        r.json["content"],
        "<p>See <a href=\"https://site.example.com/blog/second-name/\">The post</a>.</p>"
    );
    let r = app
        .get(&format!("{PUBLIC}/first-name"), Some(&p.bearer_key()))
        .await;
    assert_eq!(r.status, 404);
    assert!(r.detail().contains("`second-name`"), "{r:?}");
    let r = app
        .get(&format!("{PUBLIC}/redirects"), Some(&p.bearer_key()))
        .await;
    assert_eq!(r.status, 200, "{r:?}");
    assert_eq!(
        r.json,
        json!({"redirects": [{"from": "first-name", "to": "second-name"}], "total": 1})
    );
    let etag = r.header("etag").expect("an ETag").to_owned();
    let again = app
        .request(
            app.http
                .get(app.url(&format!("{PUBLIC}/redirects")))
                .header("authorization", p.bearer_key())
                .header("if-none-match", &etag),
        )
        .await;
    assert_eq!(again.status, 304);

    let client = Client::new(&app.base, &p.key).unwrap();
    let redirects = client.redirects().await.unwrap();
    assert_eq!(redirects.total, 1);
    assert_eq!(
        (
            redirects.redirects[0].from.as_str(),
            redirects.redirects[0].to.as_str()
        ),
        ("first-name", "second-name")
    );
    let first: Option<&Redirect> = redirects.redirects.first();
    assert!(first.is_some());

    let r = app
        .send(
            Method::POST,
            &p.path("/blogs"),
            Some(&p.admin),
            Some(json!({"title": "R", "slug": "redirects"})),
        )
        .await;
    assert_eq!(r.status, 422, "redirects is a reserved slug: {r:?}");
    assert_eq!(
        r.json["detail"].as_str().map(|d| d.contains("reserved")),
        Some(true),
        "{r:?}"
    );
}

#[tokio::test]
async fn the_export_writes_aliases_and_removes_them_with_their_post() {
    let app = spawn_app().await;
    let p = app.new_project(Some("https://site.example.com")).await;
    let post = app
        .published_blog(&p, "old-name", "2026-05-01T10:00:00Z", json!({}))
        .await;
    rename(&app, &p, &post, "new-name").await;
    let client = Client::new(&app.base, &p.key).unwrap();
    let site = Scratch::folder("export");

    for format in [Format::Zola, Format::Hugo] {
        let out = site.join(format!("{format:?}"));
        let options = ExportOptions::new(&out, format)
            .state_dir(site.join(format!(".state-{format:?}")))
            .configure_hugo(true);
        if format == Format::Hugo {
            std::fs::write(site.join("hugo.toml"), "title = 'Site'\n").unwrap();
        }
        export::export(&client, &options, &mut |_, _| {})
            .await
            .unwrap();
        let ext = if format == Format::Zola { "md" } else { "html" };
        let text = read(&out.join(format!("new-name.{ext}")));
        let front = text
            .strip_prefix("+++\n")
            .and_then(|t| t.split_once("\n+++\n"))
            .map(|(f, _)| f.parse::<toml::Table>().unwrap())
            .unwrap();
        assert_eq!(
            front["aliases"],
            toml::Value::Array(vec!["/blog/old-name/".into()]),
            "{format:?}"
        );
    }

    let out = site.join("html");
    let options = ExportOptions::new(&out, Format::Html).state_dir(site.join(".state-html"));
    let report = export::export(&client, &options, &mut |_, _| {})
        .await
        .unwrap();
    assert_eq!(report.blogs, 1);
    let page = read(&out.join("old-name/index.html"));
    assert!(
        page.contains("http-equiv=\"refresh\" content=\"0; url=../new-name/\""),
        "{page}"
    );
    assert!(out.join("new-name/index.html").is_file());

    let r = app
        .send(
            Method::DELETE,
            &p.path(&format!("/blogs/{post}")),
            Some(&p.admin),
            None,
        )
        .await;
    assert_eq!(r.status, 204, "{r:?}");
    let report = export::export(&client, &options, &mut |_, _| {})
        .await
        .unwrap();
    let mut removed = report.removed.clone();
    removed.sort();
    assert_eq!(removed, vec!["new-name/index.html", "old-name/index.html"]);
    assert!(!out.join("old-name/index.html").exists());
}
