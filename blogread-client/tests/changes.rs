//! The changes feed calls against a stub server: paging to the end, what is sent, and the
//! feed's own errors, async and blocking.

mod support;

use std::sync::{Arc, Mutex};

use blogread_client::{Change, ChangeCursor, Client, Error, EtagCache};
use serde_json::json;
use support::feed::Site;
use support::*;

const FEED: &str = "/blog/api/v1/public/changes";

fn site_stub(site: &Arc<Mutex<Site>>) -> impl Fn(usize, &Seen) -> Reply + Send + Sync + 'static {
    let site = site.clone();
    move |_, req| site.lock().unwrap().serve(req)
}

fn slugs(changes: &[Change]) -> Vec<String> {
    changes
        .iter()
        .map(|c| match c {
            Change::Upsert { blog, .. } => format!("+{}", blog.slug),
            Change::Delete { slug } => format!("-{slug}"),
            _ => unreachable!(),
        })
        .collect()
}

#[tokio::test]
async fn changes_since_follows_every_page_in_order_and_returns_the_last_cursor() {
    let site = Arc::new(Mutex::new(Site {
        page_size: 2,
        ..Site::default()
    }));
    for slug in ["a", "b", "c", "d", "e"] {
        site.lock().unwrap().publish(slug, slug);
    }
    let stub = start_stub(site_stub(&site)).await;
    let client = client(&stub);

    let read = client.changes_since(None).await.unwrap();
    assert_eq!(slugs(&read.changes), ["+a", "+b", "+c", "+d", "+e"]);
    assert_eq!(read.pages, 3);
    assert_eq!(read.cursor.as_str(), "e1.5");
    // The first page without a cursor, each later one with the cursor of the one before; no
    // limit (the server's default is its largest page).
    let seen = stub.seen();
    let since: Vec<Option<String>> = seen.iter().map(|s| s.query("since")).collect();
    assert_eq!(since, [None, Some("e1.2".into()), Some("e1.4".into())]);
    assert!(
        seen.iter()
            .all(|s| s.path() == FEED && s.query("limit").is_none())
    );
    assert!(
        seen.iter()
            .all(|s| s.headers.get("authorization").map(String::as_str)
                == Some("Bearer pk_live_test"))
    );

    // From that cursor: a retitle, a rename (the old slug deleted, kept as an alias) and an
    // unpublish, in the order they happened.
    {
        let mut site = site.lock().unwrap();
        site.retitle("b", "B");
        site.rename("c", "c2");
        site.unpublish("a");
    }
    let read = client.changes_since(Some(&read.cursor)).await.unwrap();
    assert_eq!(slugs(&read.changes), ["+b", "-c", "+c2", "-a"]);
    let Change::Upsert { aliases, .. } = &read.changes[2] else {
        unreachable!()
    };
    assert_eq!(aliases, &["c"]);
    assert_eq!(read.cursor.as_str(), "e1.9");

    // Nothing since: one request, no entry, the same cursor.
    let before = stub.count();
    let again = client.changes_since(Some(&read.cursor)).await.unwrap();
    assert!(again.changes.is_empty());
    assert_eq!((again.cursor, again.pages), (read.cursor, 1));
    assert_eq!(stub.count(), before + 1);
}

#[tokio::test]
async fn one_page_sends_the_cursor_and_a_limit_clamped_to_the_largest_page() {
    let stub = start_stub(|_, _| {
        reply(
            200,
            json!({"changes": [], "cursor": "next", "has_more": false}),
        )
    })
    .await;
    let client = client(&stub);
    let cursor: ChangeCursor = "a+b/c=".parse().unwrap();
    for (limit, sent) in [
        (Some(0), Some("1")),
        (Some(7), Some("7")),
        (Some(500), Some("100")),
        (None, None),
    ] {
        let page = client.changes(Some(&cursor), limit).await.unwrap();
        assert_eq!(page.cursor.as_str(), "next");
        let seen = stub.seen().pop().unwrap();
        assert_eq!(seen.query("limit").as_deref(), sent, "{limit:?}");
        // Percent-encoded: the cursor arrives as it was given.
        assert_eq!(seen.query("since").as_deref(), Some("a%2Bb%2Fc%3D"));
    }
    client.changes(None, None).await.unwrap();
    assert_eq!(stub.seen().pop().unwrap().target, FEED);
}

#[tokio::test]
async fn an_expired_cursor_is_its_own_error_that_says_to_sync_from_the_start() {
    let stub = start_stub(|_, _| {
        reply(
            410,
            json!({"detail": "the cursor is older than the kept deletions"}),
        )
    })
    .await;
    let cursor: ChangeCursor = "old".parse().unwrap();
    let err = client(&stub)
        .changes_since(Some(&cursor))
        .await
        .unwrap_err();
    assert!(
        matches!(&err, Error::CursorExpired { detail } if detail == "the cursor is older than the kept deletions"),
        "{err:?}"
    );
    assert!(err.is_cursor_unusable());
    assert_eq!(err.status(), Some(410));
    assert!(err.to_string().contains("sync from the start"), "{err}");
    assert_eq!(stub.count(), 1, "not retried");
}

#[tokio::test]
async fn a_refused_cursor_is_its_own_error_but_a_400_without_one_is_not() {
    let stub =
        start_stub(|_, _| reply(400, json!({"detail": "not a cursor of this project"}))).await;
    let cursor: ChangeCursor = "other".parse().unwrap();
    let err = client(&stub)
        .changes_since(Some(&cursor))
        .await
        .unwrap_err();
    assert!(matches!(&err, Error::InvalidCursor { .. }), "{err:?}");
    assert!(err.is_cursor_unusable());
    assert_eq!(err.status(), Some(400));
    assert!(err.to_string().contains("sync from the start"), "{err}");
    let err = client(&stub).changes_since(None).await.unwrap_err();
    assert!(matches!(&err, Error::Api { status: 400, .. }), "{err:?}");
    assert!(!err.is_cursor_unusable());
    assert_eq!(stub.count(), 2, "not retried");
}

#[tokio::test]
async fn a_server_without_the_feed_is_its_own_error_naming_the_url() {
    let site = Arc::new(Mutex::new(Site {
        feed: false,
        ..Site::default()
    }));
    let stub = start_stub(site_stub(&site)).await;
    let err = client(&stub).changes_since(None).await.unwrap_err();
    let url = format!("{}{FEED}", stub.base);
    assert!(
        matches!(&err, Error::NoChangesFeed { url: u, .. } if *u == url),
        "{err:?}"
    );
    assert_eq!(err.status(), Some(404));
    assert_eq!(err.url(), Some(url.as_str()));
    assert!(!err.is_cursor_unusable());
    assert!(err.to_string().contains("read every post instead"), "{err}");
    assert_eq!(stub.count(), 1, "not retried");
}

#[tokio::test]
async fn the_feed_is_retried_like_every_other_call() {
    let site = Arc::new(Mutex::new(Site::default()));
    site.lock().unwrap().publish("a", "A");
    let serve = site_stub(&site);
    let stub = start_stub(move |i, req| {
        if i < 2 {
            reply(503, json!({"detail": "warming up"}))
        } else {
            serve(i, req)
        }
    })
    .await;
    let read = client(&stub).changes_since(None).await.unwrap();
    assert_eq!(slugs(&read.changes), ["+a"]);
    assert_eq!(stub.count(), 3);
}

#[tokio::test]
async fn a_feed_that_says_more_follow_but_does_not_move_on_is_stopped() {
    // No entry on a page that says more follow.
    let stub =
        start_stub(|_, _| reply(200, json!({"changes": [], "cursor": "c", "has_more": true})))
            .await;
    let err = client(&stub).changes_since(None).await.unwrap_err();
    assert!(matches!(&err, Error::FeedStalled { .. }), "{err:?}");
    assert_eq!(stub.count(), 1);

    // The same cursor back, with entries.
    let stub = start_stub(|_, _| {
        reply(
            200,
            json!({"changes": [{"change": "delete", "slug": "a"}], "cursor": "same", "has_more": true}),
        )
    })
    .await;
    let err = client(&stub)
        .changes_since(Some(&"same".parse().unwrap()))
        .await
        .unwrap_err();
    assert!(
        matches!(&err, Error::FeedStalled { url } if url.contains("since=same")),
        "{err:?}"
    );
    assert!(err.to_string().contains("did not move on"), "{err}");
    assert_eq!(stub.count(), 1);
}

#[tokio::test]
async fn an_entry_with_a_slug_outside_the_grammar_is_a_decode_error() {
    let stub = start_stub(|_, _| {
        reply(
            200,
            json!({"changes": [{"change": "delete", "slug": "../../etc"}], "cursor": "c", "has_more": false}),
        )
    })
    .await;
    let err = client(&stub).changes_since(None).await.unwrap_err();
    assert!(matches!(&err, Error::Decode { .. }), "{err:?}");
}

#[tokio::test]
async fn an_unchanged_feed_page_comes_back_as_304_from_the_etag_cache() {
    let stub = start_stub(|_, req| {
        let etag = "\"feed-1\"".to_owned();
        let mut r = reply(
            200,
            json!({"changes": [], "cursor": "c9", "has_more": false}),
        );
        if req.headers.get("if-none-match") == Some(&etag) {
            r.status = 304;
        }
        r.headers.push(("etag", etag));
        r
    })
    .await;
    let cache = EtagCache::new();
    let client = Client::builder(&stub.base, "k")
        .with_etag_cache(cache.clone())
        .build()
        .unwrap();
    let cursor: ChangeCursor = "c9".parse().unwrap();
    let first = client.changes_since(Some(&cursor)).await.unwrap();
    let second = client.changes_since(Some(&cursor)).await.unwrap();
    assert_eq!(first, second);
    let stats = client.cache_stats();
    assert_eq!((stats.fetched, stats.not_modified), (1, 1));
}

#[tokio::test]
async fn the_blocking_client_reads_the_feed_the_same_way() {
    let site = Arc::new(Mutex::new(Site {
        page_size: 1,
        ..Site::default()
    }));
    site.lock().unwrap().publish("a", "A");
    site.lock().unwrap().publish("b", "B");
    let stub = start_stub(site_stub(&site)).await;
    let base = stub.base.clone();
    let shared = site.clone();
    let (read, page, expired) = tokio::task::spawn_blocking(move || {
        let client = blogread_client::blocking::Client::builder(&base, "k")
            .retry_policy(fast_retries())
            .build()
            .unwrap();
        let mut seen = Vec::new();
        let read = client
            .changes_since_with_progress(None, |n| seen.push(n))
            .unwrap();
        assert_eq!(seen, [1, 2]);
        let page = client.changes(Some(&read.cursor), Some(10)).unwrap();
        shared.lock().unwrap().oldest = 5;
        let expired = client.changes_since(Some(&read.cursor)).unwrap_err();
        (read, page, expired)
    })
    .await
    .unwrap();
    assert_eq!(slugs(&read.changes), ["+a", "+b"]);
    assert_eq!(read.pages, 2);
    assert!(page.changes.is_empty() && !page.has_more);
    assert!(
        matches!(expired, Error::CursorExpired { .. }),
        "{expired:?}"
    );
}
