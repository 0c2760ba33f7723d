//! The client against a stub HTTP server on 127.0.0.1:0 that answers what each test scripts
//! and records every request it saw.

mod support;

use std::sync::{Arc, Mutex};

use blogread_client::{Client, Error, ListParams};
use serde_json::json;
use support::*;

#[tokio::test]
async fn five_hundred_twice_then_200_is_retried_to_success() {
    let stub = start_stub(|i, _| {
        if i < 2 {
            reply(500, json!({"detail": "boom"}))
        } else {
            reply(200, detail("hello"))
        }
    })
    .await;
    let blog = client(&stub).get("hello").await.unwrap();
    assert_eq!(blog.slug, "hello");
    assert_eq!(stub.count(), 3);
}

#[tokio::test]
async fn every_retried_status_is_retried_until_attempts_run_out() {
    for status in [500u16, 502, 503, 504] {
        let stub = start_stub(move |_, _| reply(status, json!({"detail": "down"}))).await;
        let err = client(&stub).sitemap().await.unwrap_err();
        assert!(
            matches!(&err, Error::Api { status: s, detail } if *s == status && detail == "down"),
            "{err:?}"
        );
        assert_eq!(stub.count(), 4, "status {status}");
    }
}

#[tokio::test]
async fn unauthorized_not_found_and_other_4xx_are_not_retried() {
    let stub = start_stub(|_, _| reply(401, json!({"detail": "unknown key"}))).await;
    let err = client(&stub).list(&ListParams::new()).await.unwrap_err();
    assert!(matches!(&err, Error::Unauthorized { detail } if detail == "unknown key"));
    assert_eq!(stub.count(), 1);

    let stub = start_stub(|_, _| reply(404, json!({"detail": "no blog"}))).await;
    let err = client(&stub).get("gone").await.unwrap_err();
    assert!(matches!(&err, Error::NotFound { detail } if detail == "no blog"));
    assert_eq!(stub.count(), 1);

    for status in [400u16, 403, 409, 422, 429] {
        let stub = start_stub(move |_, _| reply(status, json!({"detail": "no"}))).await;
        let err = client(&stub).get("x").await.unwrap_err();
        assert_eq!(err.status(), Some(status));
        assert_eq!(stub.count(), 1, "status {status}");
    }
}

#[tokio::test]
async fn network_errors_are_retried_then_reported_as_transport() {
    // A port that was just free: connecting is refused.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    drop(listener);
    let client = Client::builder(format!("http://{addr}"), "pk_live_test")
        .retry_policy(fast_retries())
        .build()
        .unwrap();
    let err = client.sitemap().await.unwrap_err();
    assert!(matches!(err, Error::Transport(_)), "{err:?}");
}

#[tokio::test]
async fn key_user_agent_and_encoded_slug_are_sent() {
    let stub = start_stub(|_, _| reply(200, detail("x"))).await;
    let client = Client::builder(&stub.base, "pk_live_abc")
        .user_agent("site-build/2")
        .build()
        .unwrap();
    client.get("a b/../c?d").await.unwrap();
    let seen = &stub.seen()[0];
    assert_eq!(seen.path(), "/blog/api/v1/public/blogs/a%20b%2F..%2Fc%3Fd");
    assert_eq!(seen.headers["authorization"], "Bearer pk_live_abc");
    assert_eq!(seen.headers["user-agent"], "site-build/2");
    assert!(!seen.target.contains("api_key"));
}

#[tokio::test]
async fn list_parameters_reach_the_query() {
    let stub = start_stub(|_, _| reply(200, page(&[1], 1, 0))).await;
    let params = ListParams::new()
        .limit(10)
        .offset(20)
        .category("Rust & Go")
        .include_content(true);
    client(&stub).list(&params).await.unwrap();
    let seen = &stub.seen()[0];
    assert_eq!(seen.query("limit").as_deref(), Some("10"));
    assert_eq!(seen.query("offset").as_deref(), Some("20"));
    assert_eq!(seen.query("category").as_deref(), Some("Rust+%26+Go"));
    assert_eq!(seen.query("include_content").as_deref(), Some("true"));
}

#[tokio::test]
async fn a_200_that_is_not_the_documented_json_is_a_decode_error() {
    let stub = start_stub(|_, _| reply(200, json!({"blogs": "nope"}))).await;
    let err = client(&stub).sitemap().await.unwrap_err();
    assert!(matches!(err, Error::Decode(_)), "{err:?}");
    assert_eq!(stub.count(), 1);
}

#[tokio::test]
async fn with_an_etag_cache_unchanged_answers_are_304_and_decode_the_kept_body() {
    let version = Arc::new(Mutex::new(1u32));
    let v = version.clone();
    let stub = start_stub(move |_, req| {
        let current = format!("\"v{}\"", v.lock().unwrap());
        if req.headers.get("if-none-match") == Some(&current) {
            return Reply {
                status: 304,
                headers: vec![("etag", current)],
                body: String::new(),
            };
        }
        let mut r = reply(200, sitemap_of(&[*v.lock().unwrap() as u64]));
        r.headers.push(("etag", current));
        r
    })
    .await;
    let client = Client::builder(&stub.base, "pk_live_test")
        .etag_cache(true)
        .build()
        .unwrap();

    let first = client.sitemap().await.unwrap();
    let second = client.sitemap().await.unwrap();
    assert_eq!(first, second);
    let seen = stub.seen();
    assert_eq!(seen[0].headers.get("if-none-match"), None);
    assert_eq!(seen[1].headers["if-none-match"], "\"v1\"");
    assert_eq!(client.cache_stats().not_modified, 1);
    assert_eq!(client.cache_stats().fetched, 1);

    *version.lock().unwrap() = 2;
    let third = client.sitemap().await.unwrap();
    assert_eq!(third.blogs[0].slug, "blog-2");
    assert_eq!(client.cache_stats().fetched, 2);
}

#[tokio::test]
async fn without_a_cache_no_conditional_header_is_sent() {
    let stub = start_stub(|_, _| {
        let mut r = reply(200, sitemap_of(&[1]));
        r.headers.push(("etag", "\"v1\"".to_owned()));
        r
    })
    .await;
    let client = client(&stub);
    client.sitemap().await.unwrap();
    client.sitemap().await.unwrap();
    assert!(
        stub.seen()
            .iter()
            .all(|s| !s.headers.contains_key("if-none-match"))
    );
}

#[tokio::test]
async fn all_blogs_reads_every_page_once() {
    let blogs: Vec<u64> = (1..=250).rev().collect();
    let b = blogs.clone();
    let stub = start_stub(move |_, req| serve(&b, req)).await;
    let got = client(&stub).all_blogs().await.unwrap();
    let ids: Vec<String> = got.iter().map(|b| b.slug.clone()).collect();
    let want: Vec<String> = blogs.iter().map(|i| format!("blog-{i}")).collect();
    assert_eq!(ids, want);
    // Three pages of at most 100, then the sitemap check.
    let seen = stub.seen();
    assert_eq!(seen.len(), 4);
    assert!(
        seen[..3]
            .iter()
            .all(|s| s.query("limit").as_deref() == Some("100"))
    );
}

#[tokio::test]
async fn all_blogs_restarts_when_total_changes_mid_read() {
    // 150 blogs; after the first page is read, blog 151 is published at the top.
    let before: Vec<u64> = (1..=150).rev().collect();
    let after: Vec<u64> = (1..=151).rev().collect();
    let stub = start_stub(move |i, req| {
        if i == 0 {
            serve(&before, req)
        } else {
            serve(&after, req)
        }
    })
    .await;
    let got = client(&stub).all_blogs().await.unwrap();
    assert_eq!(got.len(), 151);
    let unique: std::collections::HashSet<_> = got.iter().map(|b| &b.id).collect();
    assert_eq!(unique.len(), 151);
    assert_eq!(got[0].slug, "blog-151");
    // page 1, page 2 (total changed: restart), pages 1 and 2 again, the sitemap.
    assert_eq!(stub.count(), 5);
}

#[tokio::test]
async fn all_blogs_restarts_when_a_page_repeats_a_blog() {
    // Same total, but page 2 starts with the last blog of page 1 (a shift by one).
    let blogs: Vec<u64> = (1..=150).rev().collect();
    let stub = start_stub(move |i, req| {
        if i == 1 {
            let mut shifted = blogs.clone();
            shifted.insert(99, blogs[99]);
            serve(&shifted[..150], req)
        } else {
            serve(&blogs, req)
        }
    })
    .await;
    let got = client(&stub).all_blogs().await.unwrap();
    assert_eq!(got.len(), 150);
    assert_eq!(stub.count(), 5);
}

#[tokio::test]
async fn all_blogs_restarts_when_the_sitemap_disagrees() {
    // A publish and an unpublish cancelled out between pages: totals match, ids are unique,
    // but the set differs from the sitemap read after the last page.
    let blogs: Vec<u64> = (1..=150).rev().collect();
    let stub = start_stub(move |i, req| {
        if i == 2 {
            let mut other = blogs.clone();
            other[10] = 999;
            serve(&other, req)
        } else {
            serve(&blogs, req)
        }
    })
    .await;
    let got = client(&stub).all_blogs().await.unwrap();
    assert_eq!(got.len(), 150);
    assert_eq!(stub.count(), 6);
}

#[tokio::test]
async fn all_blogs_gives_up_after_bounded_restarts() {
    let stub = start_stub(|i, req| {
        // Every request sees one more blog than the one before.
        let blogs: Vec<u64> = (1..=(120 + i as u64)).rev().collect();
        serve(&blogs, req)
    })
    .await;
    let client = Client::builder(&stub.base, "pk_live_test")
        .max_restarts(2)
        .build()
        .unwrap();
    let err = client.all_blogs().await.unwrap_err();
    assert!(matches!(err, Error::Changed { attempts: 3 }), "{err:?}");
    assert_eq!(stub.count(), 6);
}

#[tokio::test]
async fn all_blogs_of_an_empty_project_is_empty() {
    let stub = start_stub(|_, req| serve(&[], req)).await;
    assert!(client(&stub).all_blogs().await.unwrap().is_empty());
}

#[cfg(feature = "blocking")]
#[test]
fn the_blocking_client_has_the_same_behaviour() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let stub = runtime.block_on(start_stub(|i, req| {
        if i == 0 {
            reply(503, json!({"detail": "warming up"}))
        } else if req.path().ends_with("/missing") {
            reply(404, json!({"detail": "no blog"}))
        } else {
            serve(&(1..=120).rev().collect::<Vec<_>>(), req)
        }
    }));
    let client = blogread_client::blocking::Client::builder(&stub.base, "pk_live_test")
        .retry_policy(fast_retries())
        .build()
        .unwrap();
    assert_eq!(client.all_blogs().unwrap().len(), 120);
    assert!(matches!(client.get("missing"), Err(Error::NotFound { .. })));
    assert_eq!(client.sitemap().unwrap().total, 120);
    // Also usable from inside an async context without panicking.
    let got = runtime.block_on(async { client.list(&ListParams::new().limit(5)) });
    assert_eq!(got.unwrap().blogs.len(), 5);
}
