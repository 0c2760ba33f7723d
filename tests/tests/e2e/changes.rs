//! The changes feed over HTTP: two servers on one database, writes through both racing a
//! reader that pages through both, and the reader still ends equal to a full read; the
//! cursor's 400 and 410 as JSON errors.

use std::collections::BTreeMap;

use blogread_core::testing::Dice;
use blogread_tests::{SharedDatabase, StoreGuard, TestApp, TestProject, spawn_app_over};
use reqwest::Method;
use serde_json::{Value, json};

const FEED: &str = "/blog/api/v1/public/changes";
const BLOGS: &str = "/blog/api/v1/public/blogs";

/// A site as a reader holds it: each slug's single-blog answer and aliases.
type Site = BTreeMap<String, (Value, Value)>;

/// Reads one page of the feed from `app` after `cursor`, applies it to `site`; returns the
/// new cursor and whether more follow.
async fn read_page(
    app: &TestApp,
    p: &TestProject,
    site: &mut Site,
    cursor: Option<&str>,
    limit: u32,
) -> (String, bool) {
    let mut url = format!("{FEED}?limit={limit}");
    if let Some(cursor) = cursor {
        url.push_str(&format!("&since={cursor}"));
    }
    let r = app.get(&url, Some(&p.bearer_key())).await;
    assert_eq!(r.status, 200, "{r:?}");
    assert!(r.header("etag").is_some());
    for change in r.json["changes"].as_array().expect("changes") {
        match change["change"].as_str() {
            Some("upsert") => {
                let slug = change["blog"]["slug"].as_str().expect("slug").to_owned();
                site.insert(slug, (change["blog"].clone(), change["aliases"].clone()));
            }
            Some("delete") => {
                site.remove(change["slug"].as_str().expect("slug"));
            }
            other => panic!("unknown change {other:?}"),
        }
    }
    let cursor = r.json["cursor"].as_str().expect("cursor").to_owned();
    (cursor, r.json["has_more"].as_bool().expect("has_more"))
}

/// What a full read gives: every published post's answer and its aliases from the redirects.
async fn full_read(app: &TestApp, p: &TestProject) -> Site {
    let key = p.bearer_key();
    let sitemap = app.get(&format!("{BLOGS}/sitemap"), Some(&key)).await;
    let redirects = app.get(&format!("{BLOGS}/redirects"), Some(&key)).await;
    let mut site = Site::new();
    for entry in sitemap.json["blogs"].as_array().expect("blogs") {
        let slug = entry["slug"].as_str().expect("slug");
        let blog = app.get(&format!("{BLOGS}/{slug}"), Some(&key)).await;
        assert_eq!(blog.status, 200, "{blog:?}");
        let aliases: Vec<Value> = redirects.json["redirects"]
            .as_array()
            .expect("redirects")
            .iter()
            .filter(|r| r["to"] == slug)
            .map(|r| r["from"].clone())
            .collect();
        site.insert(slug.to_owned(), (blog.json, Value::Array(aliases)));
    }
    site
}

const SLUGS: [&str; 6] = ["north", "south", "east", "west", "up", "down"];

/// One of the [`SLUGS`], rolled.
fn slug(dice: &mut Dice) -> &'static str {
    SLUGS[dice.roll(SLUGS.len())]
}

fn body(dice: &mut Dice, n: usize) -> String {
    let (a, b) = (slug(dice), slug(dice));
    format!("<p>Post {n}: see [INTERNAL:{a}] and <a href=\"[INTERNAL:{b}]\">that one</a>.</p>")
}

/// Writes through `apps` in turn: posts linking to each other published, retitled, renamed
/// onto each other's slugs (old ones included), unpublished and deleted. Conflicts (a slug
/// taken, a move the status does not allow) are part of the game.
async fn write_storm(
    apps: [&TestApp; 2],
    p: &TestProject,
    dice: &mut Dice,
    ids: &mut Vec<String>,
    rounds: usize,
) {
    for n in 0..rounds {
        let app = apps[n % 2];
        let send = |method: Method, path: String, body: Option<Value>| async move {
            app.send(method, &p.path(&path), Some(&p.admin), body).await
        };
        match dice.roll(8) {
            0 | 1 if ids.len() < 12 => {
                let r = send(
                    Method::POST,
                    "/blogs".into(),
                    Some(json!({
                        "title": format!("Post {n}"),
                        "slug": format!("{}-{}", slug(dice), dice.roll(1_000_000)),
                        "content": body(dice, n),
                    })),
                )
                .await;
                assert_eq!(r.status, 201, "{r:?}");
                let id = r.json["id"].as_str().expect("id").to_owned();
                let r = send(Method::POST, format!("/blogs/{id}/publish"), None).await;
                assert_eq!(r.status, 200, "{r:?}");
                ids.push(id);
            }
            0..=4 if !ids.is_empty() => {
                let id = ids[dice.roll(ids.len())].clone();
                let patch = match dice.roll(3) {
                    0 => json!({"title": format!("Retitled {n}")}),
                    1 => json!({"slug": slug(dice)}),
                    _ => json!({"content": body(dice, n)}),
                };
                let r = send(Method::PATCH, format!("/blogs/{id}"), Some(patch)).await;
                assert!(matches!(r.status, 200 | 409), "{r:?}");
                let r = send(Method::POST, format!("/blogs/{id}/publish"), None).await;
                assert!(matches!(r.status, 200 | 409), "{r:?}");
            }
            5 if !ids.is_empty() => {
                let id = ids[dice.roll(ids.len())].clone();
                let r = send(Method::POST, format!("/blogs/{id}/unpublish"), None).await;
                assert!(matches!(r.status, 200 | 409), "{r:?}");
            }
            6 if ids.len() > 6 => {
                let id = ids.remove(dice.roll(ids.len()));
                let r = send(Method::DELETE, format!("/blogs/{id}"), None).await;
                assert_eq!(r.status, 204, "{r:?}");
            }
            _ => {}
        }
        tokio::task::yield_now().await;
    }
}

/// Follows the feed to its end on `app`.
async fn follow(app: &TestApp, p: &TestProject, site: &mut Site, cursor: &mut Option<String>) {
    loop {
        let (next, more) = read_page(app, p, site, cursor.as_deref(), 2).await;
        *cursor = Some(next);
        if !more {
            break;
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_reader_paging_while_two_servers_write_ends_equal_to_a_full_read() {
    // Two servers on one database, each with its own connections, as two processes.
    let database = SharedDatabase::fresh().await;
    let a = spawn_app_over(database.store(), StoreGuard::new(()), |s| s).await;
    let b = spawn_app_over(database.open_again().await, StoreGuard::new(()), |s| s).await;
    let p = a.new_project(Some("https://www.example.com")).await;

    let mut dice = Dice(0x2545_f491_4f6c_dd1d);
    let mut ids = Vec::new();
    let mut site = Site::new();
    let mut cursor: Option<String> = None;
    for _batch in 0..4 {
        // A page of two entries from each server in turn while the writes go on (a fixed
        // number of pages, so that the test does not depend on who is faster)...
        let writes = write_storm([&a, &b], &p, &mut dice, &mut ids, 40);
        let reads = async {
            for n in 0..40 {
                let app = if n % 2 == 0 { &a } else { &b };
                let (next, _) = read_page(app, &p, &mut site, cursor.as_deref(), 2).await;
                cursor = Some(next);
                tokio::task::yield_now().await;
            }
        };
        tokio::join!(writes, reads);
        // ...then to the end, so that the next writes change posts the reader holds.
        follow(&b, &p, &mut site, &mut cursor).await;
        assert_eq!(site, full_read(&a, &p).await);
    }
    let full = full_read(&a, &p).await;
    assert!(full.len() > 5, "the storm leaves posts published: {full:?}");
    assert_eq!(site, full);
    assert_eq!(
        full_read(&b, &p).await,
        full,
        "both servers give the same full read"
    );
    // A reader starting now from nothing ends at the same place too.
    let mut fresh = Site::new();
    let mut cursor = None;
    loop {
        let (next, more) = read_page(&a, &p, &mut fresh, cursor.as_deref(), 100).await;
        cursor = Some(next);
        if !more {
            break;
        }
    }
    assert_eq!(fresh, full);
}

#[tokio::test]
async fn a_cursor_of_another_project_is_400_and_junk_is_400_with_a_detail() {
    let database = SharedDatabase::fresh().await;
    let app = spawn_app_over(database.store(), StoreGuard::new(()), |s| s).await;
    let p = app.new_project(None).await;
    let q = app.new_project(None).await;
    let mut site = Site::new();
    let (cursor, _) = read_page(&app, &p, &mut site, None, 100).await;
    let r = app
        .get(&format!("{FEED}?since={cursor}"), Some(&q.bearer_key()))
        .await;
    assert_eq!(r.status, 400, "{r:?}");
    assert!(r.detail().contains("another project"), "{}", r.detail());
    let r = app
        .get(&format!("{FEED}?since=not-a-cursor"), Some(&p.bearer_key()))
        .await;
    assert_eq!(r.status, 400, "{r:?}");
    assert!(r.detail().contains("omit `since`"), "{}", r.detail());
    let r = app
        .get(&format!("{FEED}?limit=ten"), Some(&p.bearer_key()))
        .await;
    assert_eq!(r.status, 400, "{r:?}");
    let r = app.get(FEED, None).await;
    assert_eq!(r.status, 401, "the key first: {r:?}");
    let r = app
        .get(
            &format!("{FEED}?since=not-a-cursor"),
            Some("Bearer pk_live_nope"),
        )
        .await;
    assert_eq!(r.status, 401, "the key before the cursor: {r:?}");
}
