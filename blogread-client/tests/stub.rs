//! The client against a stub HTTP server on 127.0.0.1:0 that answers what each test scripts
//! and records every request it saw.

mod support;

use std::sync::{Arc, Mutex};

use blogread_client::{Client, Error, EtagCache, ListParams};
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

    let stub =
        start_stub(|_, _| reply(404, json!({"detail": "no published blog has this slug"}))).await;
    let err = client(&stub).get("gone").await.unwrap_err();
    assert!(
        matches!(&err, Error::NotFound { detail } if detail == "no published blog has this slug")
    );
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
    assert!(
        matches!(err, Error::Transport { attempts: 4, .. }),
        "{err:?}"
    );
}

#[tokio::test]
async fn a_transport_error_says_url_attempts_and_cause_once() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    drop(listener);
    let client = Client::builder(format!("http://{addr}"), "pk_live_test")
        .retry_policy(fast_retries())
        .build()
        .unwrap();
    let err = client.sitemap().await.unwrap_err();
    let message = err.to_string();
    let url = format!("http://{addr}/blog/api/v1/public/blogs/sitemap");
    assert!(
        message.starts_with(&format!(
            "could not reach the blogread server at {url} after 4 attempts: connection refused"
        )),
        "{message}"
    );
    assert!(err.is_connect() && !err.is_timeout(), "{err:?}");
    assert_eq!(err.url(), Some(url.as_str()));
    // Printers that follow the chain print the cause once.
    assert!(std::error::Error::source(&err).is_none());
    assert_eq!(message.matches("refused").count(), 1, "{message}");
}

#[tokio::test]
async fn an_attempt_on_a_frozen_server_times_out_and_says_so() {
    let stub = start_raw(|_| Raw::Freeze).await;
    let client = Client::builder(&stub.base, "pk_live_test")
        .timeout(std::time::Duration::from_millis(200))
        .retry_policy(fast_retries().max_attempts(2))
        .build()
        .unwrap();
    let err = client.sitemap().await.unwrap_err();
    assert!(err.is_timeout() && !err.is_connect(), "{err:?}");
    let message = err.to_string();
    assert!(message.contains("after 2 attempts: timed out"), "{message}");
    assert!(message.contains(&stub.base), "{message}");
    assert_eq!(stub.count(), 2);
}

#[tokio::test]
async fn a_body_cut_short_is_retried_then_reported_with_its_cause() {
    let half = || {
        Raw::Send(
            "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{\"blogs\":"
                .to_owned(),
        )
    };
    // Cut once, then whole: retried to success.
    let stub = start_raw(move |i| {
        if i == 0 {
            half()
        } else {
            Raw::Send(http_answer(200, "", &sitemap_of(&[1]).to_string()))
        }
    })
    .await;
    assert_eq!(client(&stub).sitemap().await.unwrap().total, 1);
    assert_eq!(stub.count(), 2);

    // Cut every time: a transport error that names the URL, the attempts and the cause.
    let stub = start_raw(move |_| half()).await;
    let err = client(&stub).sitemap().await.unwrap_err();
    assert!(
        matches!(err, Error::Transport { attempts: 4, .. }),
        "{err:?}"
    );
    let message = err.to_string();
    assert!(
        message.contains("/sitemap after 4 attempts: the answer was cut short"),
        "{message}"
    );
    assert!(!message.contains("error sending request"), "{message}");
    assert_eq!(stub.count(), 4);
}

#[tokio::test]
async fn on_retry_sees_each_retry_with_its_reason() {
    let stub = start_stub(|i, _| {
        if i < 2 {
            reply(503, json!({"detail": "warming up"}))
        } else {
            reply(200, sitemap_of(&[1]))
        }
    })
    .await;
    /// (attempt, max_attempts, status, url) of each retry.
    type Events = Vec<(u32, u32, Option<u16>, String)>;
    let events: Arc<Mutex<Events>> = Arc::default();
    let log = events.clone();
    let client = Client::builder(&stub.base, "pk_live_test")
        .retry_policy(fast_retries())
        .on_retry(move |e| {
            log.lock().unwrap().push((
                e.attempt,
                e.max_attempts,
                e.error.status(),
                e.url.to_owned(),
            ))
        })
        .build()
        .unwrap();
    client.sitemap().await.unwrap();
    let url = format!("{}/blog/api/v1/public/blogs/sitemap", stub.base);
    assert_eq!(
        *events.lock().unwrap(),
        vec![
            (1, 4, Some(503), url.clone()),
            (2, 4, Some(503), url.clone())
        ]
    );
}

#[tokio::test]
async fn retry_after_sets_the_wait_up_to_max_delay() {
    let stub = start_stub(|i, _| {
        if i == 0 {
            Reply {
                status: 503,
                headers: vec![("retry-after", "1".to_owned())],
                body: json!({"detail": "busy"}).to_string(),
            }
        } else {
            reply(200, sitemap_of(&[1]))
        }
    })
    .await;
    let delays: Arc<Mutex<Vec<std::time::Duration>>> = Arc::default();
    let log = delays.clone();
    let max_delay = std::time::Duration::from_millis(20);
    let client = Client::builder(&stub.base, "pk_live_test")
        .retry_policy(fast_retries().max_delay(max_delay))
        .on_retry(move |e| log.lock().unwrap().push(e.delay))
        .build()
        .unwrap();
    client.sitemap().await.unwrap();
    // Without Retry-After the first wait is at most base_delay (1 ms); the server's 1 s is
    // honoured, bounded by max_delay.
    assert_eq!(*delays.lock().unwrap(), vec![max_delay]);
}

#[tokio::test]
async fn the_deadline_ends_a_call_on_a_frozen_server() {
    let stub = start_raw(|_| Raw::Freeze).await;
    let client = Client::builder(&stub.base, "pk_live_test")
        .timeout(None)
        .deadline(std::time::Duration::from_millis(300))
        .build()
        .unwrap();
    let err = client.sitemap().await.unwrap_err();
    assert!(
        matches!(
            &err,
            Error::Deadline {
                attempts: 1,
                last: None,
                ..
            }
        ),
        "{err:?}"
    );
    assert!(err.is_timeout());
    let message = err.to_string();
    assert!(message.contains("deadline of 300ms"), "{message}");
    assert!(message.contains("/sitemap"), "{message}");
}

#[tokio::test]
async fn no_retry_is_started_whose_wait_would_pass_the_deadline() {
    let stub = start_stub(|_, _| Reply {
        status: 503,
        headers: vec![("retry-after", "30".to_owned())],
        body: json!({"detail": "maintenance"}).to_string(),
    })
    .await;
    let client = Client::builder(&stub.base, "pk_live_test")
        .retry_policy(fast_retries().max_delay(std::time::Duration::from_secs(60)))
        .deadline(std::time::Duration::from_secs(10))
        .build()
        .unwrap();
    let err = client.sitemap().await.unwrap_err();
    assert!(
        matches!(&err, Error::Deadline { attempts: 1, last: Some(last), .. } if last.status() == Some(503)),
        "{err:?}"
    );
    assert!(err.to_string().contains("maintenance"), "{err}");
    assert_eq!(stub.count(), 1);
}

#[tokio::test]
async fn key_user_agent_and_slug_are_sent() {
    let stub = start_stub(|_, _| reply(200, detail("x-1"))).await;
    let client = Client::builder(&stub.base, "pk_live_abc")
        .user_agent("site-build/2")
        .build()
        .unwrap();
    client.get("x-1").await.unwrap();
    let seen = &stub.seen()[0];
    assert_eq!(seen.path(), "/blog/api/v1/public/blogs/x-1");
    assert_eq!(seen.headers["authorization"], "Bearer pk_live_abc");
    assert_eq!(seen.headers["user-agent"], "site-build/2");
    assert!(!seen.target.contains("api_key"));
}

#[tokio::test]
async fn a_slug_no_blog_can_have_is_refused_before_any_request() {
    let stub = start_stub(|_, req| serve(&[1], req)).await;
    let client = client(&stub);
    for slug in [
        "sitemap",
        "redirects",
        "",
        "A",
        "a--b",
        "-a",
        "a b/../c?d",
        "../x",
        &"a".repeat(201),
    ] {
        let err = client.get(slug).await.unwrap_err();
        assert!(
            matches!(&err, Error::InvalidSlug { slug: s, .. } if s == slug),
            "{slug}: {err:?}"
        );
        assert!(err.to_string().contains("no request was sent"), "{err}");
    }
    assert_eq!(stub.count(), 0);
}

#[tokio::test]
async fn a_404_that_is_not_the_apis_answer_names_the_url() {
    let stub = start_stub(|_, req| {
        if req.path().ends_with("/sitemap") {
            // The API's answer, but on the sitemap: nothing is "unpublished" there.
            reply(
                404,
                json!({"detail": "no published blog with this slug in this project"}),
            )
        } else {
            Reply {
                status: 404,
                headers: vec![],
                body: "<html>Not Found</html>".to_owned(),
            }
        }
    })
    .await;
    let client = client(&stub);
    let err = client.get("post-a").await.unwrap_err();
    let url = format!("{}/blog/api/v1/public/blogs/post-a", stub.base);
    assert!(
        matches!(&err, Error::EndpointNotFound { url: u, .. } if *u == url),
        "{err:?}"
    );
    assert!(err.to_string().contains(&url), "{err}");
    let err = client.sitemap().await.unwrap_err();
    assert!(matches!(err, Error::EndpointNotFound { .. }), "{err:?}");
    let err = client.all_blogs().await.unwrap_err();
    assert!(matches!(err, Error::EndpointNotFound { .. }), "{err:?}");
    assert_eq!(stub.count(), 3, "never retried");
}

#[tokio::test]
async fn a_slug_outside_the_grammar_in_an_answer_is_a_decode_error() {
    let stub = start_stub(|_, _| reply(200, detail("../../etc"))).await;
    let err = client(&stub).get("etc").await.unwrap_err();
    assert!(matches!(err, Error::Decode { .. }), "{err:?}");
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
    let url = format!("{}/blog/api/v1/public/blogs/sitemap", stub.base);
    assert!(
        matches!(&err, Error::Decode { url: u, .. } if *u == url),
        "{err:?}"
    );
    assert!(err.to_string().contains(&url), "{err}");
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
            reply(404, json!({"detail": "no published blog has this slug"}))
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

#[tokio::test]
async fn a_kept_body_that_no_longer_decodes_is_refetched_without_if_none_match() {
    let stub = start_stub(|_, req| serve_with_etags(&[2, 1], req)).await;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("cache.json");
    let build = || {
        Client::builder(&stub.base, "pk_live_test")
            .retry_policy(fast_retries())
            .etag_cache_file(&path)
            .build()
            .unwrap()
    };
    let first = build();
    let sitemap = first.sitemap().await.unwrap();
    first.save_etag_cache().unwrap();

    // Hand-edit the kept body so that it no longer decodes as a sitemap.
    let mut file: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    for entry in file["entries"].as_object_mut().unwrap().values_mut() {
        entry["body"] = json!(r#"{"blogs":[]}"#);
    }
    std::fs::write(&path, file.to_string()).unwrap();

    let again = build();
    assert_eq!(again.sitemap().await.unwrap(), sitemap);
    let seen = stub.seen();
    assert_eq!(seen.len(), 3, "{seen:?}");
    assert!(
        seen[1].headers.contains_key("if-none-match"),
        "the kept ETag is tried"
    );
    assert!(
        !seen[2].headers.contains_key("if-none-match"),
        "then asked for again unconditionally"
    );
    // The entry is whole again: the next request is a 304.
    assert_eq!(again.sitemap().await.unwrap(), sitemap);
    assert_eq!(again.cache_stats().not_modified, 2);
}

#[tokio::test]
async fn published_gives_updated_at_and_whether_anything_changed() {
    let blogs = Arc::new(Mutex::new(vec![3u64, 2, 1]));
    let current = blogs.clone();
    let stub = start_stub(move |_, req| serve_with_etags(&current.lock().unwrap(), req)).await;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("cache.json");
    let run = || async {
        let client = Client::builder(&stub.base, "pk_live_test")
            .retry_policy(fast_retries())
            .etag_cache_file(&path)
            .build()
            .unwrap();
        let published = client.published(true).await.unwrap();
        client.save_etag_cache().unwrap();
        (published, client.cache_stats())
    };

    let (first, _) = run().await;
    assert!(first.changed, "nothing was cached");
    let slugs: Vec<&str> = first.blogs.iter().map(|p| p.blog.slug.as_str()).collect();
    assert_eq!(slugs, ["blog-3", "blog-2", "blog-1"]);
    assert!(first.blogs.iter().all(|p| p.blog.content.is_some()));
    let updated = "2026-11-21T09:30:00Z".parse().unwrap();
    assert!(first.blogs.iter().all(|p| p.updated_at == Some(updated)));
    let requests = stub.count();
    assert_eq!(
        requests, 2,
        "one page and the sitemap, the sitemap read once"
    );

    let (second, stats) = run().await;
    assert!(!second.changed, "every answer was a 304");
    assert_eq!(second.blogs, first.blogs);
    assert_eq!((stats.not_modified, stats.fetched), (2, 0));

    blogs.lock().unwrap().insert(0, 4);
    let (third, _) = run().await;
    assert!(third.changed);
    assert_eq!(third.blogs[0].blog.slug, "blog-4");
}

#[tokio::test]
async fn save_etag_cache_keeps_only_the_entries_the_build_used() {
    let stub = start_stub(|_, req| serve_with_etags(&[2, 1], req)).await;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("cache.json");
    let build = || {
        Client::builder(&stub.base, "pk_live_test")
            .etag_cache_file(&path)
            .build()
            .unwrap()
    };
    let client = build();
    client.get("blog-1").await.unwrap();
    client.get("blog-2").await.unwrap();
    client.save_etag_cache().unwrap();
    assert_eq!(EtagCache::load(&path).unwrap().len(), 2);

    let client = build();
    client.get("blog-2").await.unwrap();
    client.save_etag_cache().unwrap();
    let kept = EtagCache::load(&path).unwrap();
    assert_eq!(kept.len(), 1, "the entry of blog-1 was not used");
}

#[tokio::test]
async fn progress_callbacks_need_not_be_send() {
    let stub = start_stub(|_, req| serve(&(1..=150).rev().collect::<Vec<_>>(), req)).await;
    let client = client(&stub);
    // An Rc is not Send: a `+ Send` bound on the callback would not compile here.
    let calls = std::rc::Rc::new(std::cell::Cell::new(0u64));
    let seen = calls.clone();
    client
        .all_blogs_with_progress(false, move |read, _| seen.set(read))
        .await
        .unwrap();
    assert_eq!(calls.get(), 150);
    let counted = calls.clone();
    let published = client
        .published_with_progress(false, move |read, _| counted.set(read + 1))
        .await
        .unwrap();
    assert_eq!(published.blogs.len(), 150);
    assert_eq!(calls.get(), 151);
}

#[tokio::test]
async fn the_api_types_are_named_through_the_reexported_crates() {
    let stub = start_stub(|_, req| serve(&[1], req)).await;
    let http: blogread_client::reqwest::Client = blogread_client::reqwest::Client::new();
    let client = Client::builder(&stub.base, "pk_live_test")
        .http_client(http)
        .build()
        .unwrap();
    let blog = client.get("blog-1").await.unwrap();
    let at: blogread_client::chrono::DateTime<blogread_client::chrono::Utc> = blog.updated_at;
    assert_eq!(at.to_rfc3339(), "2026-11-21T09:30:00+00:00");
}

#[cfg(feature = "blocking")]
#[test]
fn a_blocking_client_dropped_inside_an_async_context_does_not_panic() {
    let server = tokio::runtime::Runtime::new().unwrap();
    let stub = server.block_on(start_stub(|_, req| serve(&[1], req)));
    let caller = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    caller.block_on(async {
        let client = blogread_client::blocking::Client::new(&stub.base, "pk_live_test").unwrap();
        assert_eq!(client.list(&ListParams::new()).unwrap().total, 1);
        drop(client);
    });
}

#[cfg(feature = "blocking")]
#[test]
fn the_async_view_works_on_another_runtime_after_a_blocking_call() {
    let server = tokio::runtime::Runtime::new().unwrap();
    let stub = server.block_on(start_stub(|_, req| serve(&[1], req)));
    let client = blogread_client::blocking::Client::builder(&stub.base, "pk_live_test")
        .timeout(std::time::Duration::from_secs(5))
        .retry_policy(blogread_client::RetryPolicy::none())
        .build()
        .unwrap();
    assert_eq!(client.sitemap().unwrap().total, 1);
    let other = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    // The keep-alive connection of the blocking call is reused here.
    let page = other.block_on(client.as_async().list(&ListParams::new()));
    assert_eq!(page.unwrap().total, 1);
    // And a blocking call after the async view, from inside that runtime.
    let again = other.block_on(async { client.sitemap() });
    assert_eq!(again.unwrap().total, 1);
    assert_eq!(stub.count(), 3);
}

#[cfg(feature = "blocking")]
#[test]
fn blocking_progress_callbacks_run_on_the_calling_thread_and_need_not_be_send() {
    let server = tokio::runtime::Runtime::new().unwrap();
    let stub = server.block_on(start_stub(|_, req| serve(&[2, 1], req)));
    let client = blogread_client::blocking::Client::new(&stub.base, "pk_live_test").unwrap();
    let calls = std::rc::Rc::new(std::cell::Cell::new(0u64));
    let seen = calls.clone();
    let caller = std::thread::current().id();
    let published = client
        .published_with_progress(true, move |read, _| {
            assert_eq!(std::thread::current().id(), caller);
            seen.set(read)
        })
        .unwrap();
    assert_eq!(published.blogs.len(), 2);
    assert_eq!(calls.get(), 2);
}

/// A client whose answers may hold at most 1 MiB.
fn capped_client(stub: &Stub) -> Client {
    Client::builder(&stub.base, "pk_live_test")
        .retry_policy(fast_retries())
        .max_answer_bytes(1024 * 1024)
        .build()
        .unwrap()
}

#[tokio::test]
async fn an_answer_that_never_ends_is_cut_at_the_cap_while_it_streams() {
    // No Content-Length, and a body that goes on for as long as the client reads: a client
    // that read the whole body first would never return.
    let stub = start_raw(|_| Raw::Endless {
        head: chunked_head(200),
        chunk: " ".repeat(64 * 1024),
    })
    .await;
    let err = capped_client(&stub).sitemap().await.unwrap_err();
    assert!(
        matches!(
            &err,
            Error::AnswerTooLarge {
                limit: 1_048_576,
                declared: None,
                ..
            }
        ),
        "{err:?}"
    );
    let message = err.to_string();
    let url = format!("{}/blog/api/v1/public/blogs/sitemap", stub.base);
    assert!(message.contains(&url), "{message}");
    assert!(message.contains("larger than 1 MiB"), "{message}");
    assert!(
        message.contains("ClientBuilder::max_answer_bytes") && message.contains("--max-answer-mib"),
        "names the cap: {message}"
    );
    assert_eq!(
        stub.count(),
        1,
        "not retried: the server would send the same"
    );
}

#[tokio::test]
async fn a_declared_length_over_the_cap_is_refused_before_the_body_is_read() {
    // The head says 200 MB; no byte of the body ever comes. Reading it would wait for ever.
    let stub = start_raw(|_| {
        Raw::SendThenFreeze(
            "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 200000000\r\n\r\n"
                .to_owned(),
        )
    })
    .await;
    let client = Client::builder(&stub.base, "pk_live_test")
        .retry_policy(fast_retries())
        .timeout(std::time::Duration::from_secs(60))
        .build()
        .unwrap();
    let err = client.get("post").await.unwrap_err();
    assert!(
        matches!(
            &err,
            Error::AnswerTooLarge {
                limit: blogread_client::DEFAULT_MAX_ANSWER_BYTES,
                declared: Some(200_000_000),
                ..
            }
        ),
        "{err:?}"
    );
    assert!(
        err.to_string().contains("it declared 200000000 bytes"),
        "{err}"
    );
    assert_eq!(stub.count(), 1);
}

#[tokio::test]
async fn the_default_cap_on_one_answer_is_64_mib() {
    assert_eq!(blogread_client::DEFAULT_MAX_ANSWER_BYTES, 64 * 1024 * 1024);
    let debug = format!("{:?}", Client::builder("http://x", "k"));
    assert!(debug.contains("max_answer_bytes: 67108864"), "{debug}");
}

#[tokio::test]
async fn an_error_answer_is_read_only_as_far_as_its_detail_needs() {
    // A 404 whose body never ends: the status is what matters, the detail is its start.
    let stub = start_raw(|_| Raw::Endless {
        head: chunked_head(404),
        chunk: "<html>".repeat(1000),
    })
    .await;
    let err = capped_client(&stub).sitemap().await.unwrap_err();
    assert!(matches!(&err, Error::EndpointNotFound { .. }), "{err:?}");
    assert!(err.detail().unwrap().starts_with("<html><html>"), "{err}");
    assert_eq!(stub.count(), 1);
}

/// A feed that always says more follow, with one new entry and a new cursor each time.
fn endless_feed(i: usize, _: &Seen) -> Reply {
    reply(
        200,
        json!({
            "changes": [{"change": "delete", "slug": format!("gone-{i}")}],
            "cursor": format!("c{i}"),
            "has_more": true
        }),
    )
}

#[tokio::test]
async fn a_feed_whose_has_more_never_ends_stops_at_the_page_cap() {
    let stub = start_stub(endless_feed).await;
    let client = Client::builder(&stub.base, "pk_live_test")
        .max_pages(50)
        .build()
        .unwrap();
    let err = client.changes_since(None).await.unwrap_err();
    assert!(
        matches!(&err, Error::TooManyPages { limit: 50, .. }),
        "{err:?}"
    );
    let message = err.to_string();
    assert!(message.contains("after 50 pages"), "{message}");
    assert!(
        message.contains("/changes?since=c48"),
        "the last URL: {message}"
    );
    assert!(message.contains("--max-pages"), "{message}");
    assert_eq!(stub.count(), 50);
}

#[tokio::test]
async fn a_feed_with_more_entries_than_the_cap_stops_before_keeping_them() {
    let stub = start_stub(|i, _| {
        let entries: Vec<_> = (0..100)
            .map(|n| json!({"change": "delete", "slug": format!("gone-{i}-{n}")}))
            .collect();
        reply(
            200,
            json!({"changes": entries, "cursor": format!("c{i}"), "has_more": true}),
        )
    })
    .await;
    let client = Client::builder(&stub.base, "pk_live_test")
        .max_entries(150)
        .build()
        .unwrap();
    let err = client.changes_since(None).await.unwrap_err();
    assert!(
        matches!(&err, Error::TooManyEntries { limit: 150, .. }),
        "{err:?}"
    );
    assert!(err.to_string().contains("--max-entries"), "{err}");
    assert_eq!(stub.count(), 2);
}

#[tokio::test]
async fn a_list_that_never_ends_stops_at_the_page_cap() {
    // Every page is full of blogs not seen before and the total is never reached.
    let stub = start_stub(|i, _| {
        let ids: Vec<u64> = (0..100).map(|n| 1000 * i as u64 + n + 1).collect();
        reply(200, page(&ids, u64::MAX, 100 * i as u64))
    })
    .await;
    let client = Client::builder(&stub.base, "pk_live_test")
        .max_pages(20)
        .build()
        .unwrap();
    let err = client.all_blogs().await.unwrap_err();
    assert!(
        matches!(&err, Error::TooManyPages { limit: 20, .. }),
        "{err:?}"
    );
    assert_eq!(stub.count(), 20);

    let client = Client::builder(&stub.base, "pk_live_test")
        .max_entries(250)
        .build()
        .unwrap();
    let err = client.all_blogs().await.unwrap_err();
    assert!(
        matches!(&err, Error::TooManyEntries { limit: 250, .. }),
        "{err:?}"
    );
}
