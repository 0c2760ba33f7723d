//! No answer panics the client or the export: property tests over arbitrary JSON (shaped
//! like the API's answers often enough to reach deep into decoding) and over answers of the
//! right shape holding extreme values (dates across chrono's whole range, counts up to
//! `u64::MAX`, strings of any character), through the wire types' decoding, the rendering of
//! every format, and whole exports against a stub serving them. Every case ends in a value or
//! a clean error; an export that fails leaves nothing behind.
#![cfg(feature = "export")]

mod support;

use blogread_client::chrono::{DateTime, Datelike, SecondsFormat, Utc};
use blogread_client::export::{self, ExportOptions, Format, RenderError, try_render_file};
use blogread_client::{
    BlogDetail, BlogList, BlogListItem, ChangePage, Redirects, Sitemap, is_valid_slug,
};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use serde_json::{Value, json};
use support::*;

/// Names the answers use, so that arbitrary objects often have the API's keys and values.
const WORDS: &[&str] = &[
    "changes",
    "cursor",
    "has_more",
    "change",
    "upsert",
    "delete",
    "blog",
    "aliases",
    "slug",
    "id",
    "title",
    "excerpt",
    "meta_title",
    "meta_description",
    "featured_image_url",
    "categories",
    "tags",
    "published_at",
    "updated_at",
    "content",
    "word_count",
    "blogs",
    "total",
    "limit",
    "offset",
    "redirects",
    "from",
    "to",
    "detail",
];

/// Any JSON value, its objects keyed mostly by the API's names.
fn any_json() -> impl Strategy<Value = Value> {
    let word = prop::sample::select(WORDS).prop_map(str::to_owned);
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        any::<u64>().prop_map(|n| json!(n)),
        any::<f64>().prop_map(|f| json!(f)),
        any::<String>().prop_map(Value::String),
        word.clone().prop_map(Value::String),
        date().prop_map(Value::String),
        slug().prop_map(Value::String),
    ];
    leaf.prop_recursive(5, 96, 10, move |inner| {
        let key = prop_oneof![3 => word.clone(), 1 => any::<String>()];
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::btree_map(key, inner, 0..10)
                .prop_map(|map| Value::Object(map.into_iter().collect())),
        ]
    })
}

/// A slug of the grammar.
fn slug() -> impl Strategy<Value = String> {
    "[a-z0-9]{1,6}(-[a-z0-9]{1,6}){0,2}"
}

/// A date anywhere in chrono's range, near the edges of the years 0000 to 9999, or (most
/// often, so that whole pages get written too) of these decades, as chrono writes it
/// (`+10000-...`, `-0001-...` outside the four-digit years).
fn date() -> impl Strategy<Value = String> {
    let min = DateTime::<Utc>::MIN_UTC.timestamp();
    let max = DateTime::<Utc>::MAX_UTC.timestamp();
    // 0000-01-01 and 10000-01-01.
    let (year0, year10000) = (-62_167_219_200i64, 253_402_300_800i64);
    let day = 86_400;
    prop_oneof![
        1 => min..=max,
        1 => (year0 - 3 * day)..(year0 + 3 * day),
        1 => (year10000 - 3 * day)..(year10000 + 3 * day),
        6 => 0i64..2_000_000_000,
    ]
    .prop_map(|seconds| {
        DateTime::from_timestamp(seconds, 0)
            .expect("in chrono's range")
            .to_rfc3339_opts(SecondsFormat::Secs, true)
    })
}

/// Text of any characters, markup and the generators' own syntax included.
fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<String>(),
        prop::collection::vec(
            prop_oneof![
                any::<String>(),
                prop::sample::select(
                    &[
                        "+++",
                        "\n",
                        "\"",
                        "'''",
                        "\"\"\"",
                        "\\",
                        "{{< x >}}",
                        "{% end %}",
                        "<!--more-->",
                        "<script>",
                        "</script>",
                        "\u{0}",
                        "\u{7f}",
                        "\r\n",
                    ][..]
                )
                .prop_map(str::to_owned),
            ],
            0..8
        )
        .prop_map(|parts| parts.concat()),
    ]
}

/// A post of the right shape with any values.
fn blog() -> impl Strategy<Value = Value> {
    (
        (any::<String>(), text(), slug(), text(), text(), text()),
        (
            prop::option::of(text()),
            prop::collection::vec(text(), 0..3),
            prop::collection::vec(text(), 0..3),
        ),
        (
            date(),
            text(),
            date(),
            prop_oneof![1 => any::<u64>(), 4 => 0u64..100_000],
        ),
    )
        .prop_map(
            |(
                (id, title, slug, excerpt, meta_title, meta_description),
                (image, categories, tags),
                (published_at, content, updated_at, word_count),
            )| {
                json!({
                    "id": id, "title": title, "slug": slug, "excerpt": excerpt,
                    "meta_title": meta_title, "meta_description": meta_description,
                    "featured_image_url": image, "categories": categories, "tags": tags,
                    "published_at": published_at, "content": content,
                    "updated_at": updated_at, "word_count": word_count
                })
            },
        )
}

/// A page of the changes feed of the right shape with any values.
fn feed_page() -> impl Strategy<Value = Value> {
    let entry = prop_oneof![
        3 => (blog(), prop::collection::vec(slug(), 0..3))
            .prop_map(|(blog, aliases)| json!({"change": "upsert", "blog": blog, "aliases": aliases})),
        1 => slug().prop_map(|slug| json!({"change": "delete", "slug": slug})),
    ];
    (prop::collection::vec(entry, 0..5), "[!-~]{1,40}").prop_map(
        |(changes, cursor)| json!({"changes": changes, "cursor": cursor, "has_more": false}),
    )
}

/// Decodes `value` as every answer type: an error is fine, a panic is not.
fn decode_every_way(value: &Value) {
    let text = value.to_string();
    let _ = serde_json::from_str::<ChangePage>(&text);
    let _ = serde_json::from_str::<BlogDetail>(&text);
    let _ = serde_json::from_str::<BlogListItem>(&text);
    let _ = serde_json::from_str::<BlogList>(&text);
    let _ = serde_json::from_str::<Sitemap>(&text);
    let _ = serde_json::from_str::<Redirects>(&text);
}

/// Renders `blog` in every format: a file, or the [`RenderError`] its values call for.
fn render_every_way(blog: &BlogDetail) -> Result<(), TestCaseError> {
    let dates_ok = [blog.published_at, blog.updated_at]
        .iter()
        .all(|d| (0..=9999).contains(&d.year()));
    for format in [Format::Zola, Format::Hugo, Format::Html] {
        let toml = format != Format::Html;
        let count_ok = !toml || i64::try_from(blog.word_count).is_ok();
        match try_render_file(format, blog, &[]) {
            Ok(rendered) => {
                prop_assert!(dates_ok && count_ok, "{format:?}: rendered {blog:?}");
                prop_assert!(is_valid_slug(&blog.fields.slug));
                if toml {
                    // The front matter is TOML that ends where it should.
                    let rest = rendered.text.strip_prefix("+++\n").unwrap_or_default();
                    let end = rest.find("\n+++\n");
                    prop_assert!(end.is_some(), "{format:?}: {}", rendered.text);
                    let front = &rest[..end.unwrap_or_default()];
                    prop_assert!(front.parse::<toml::Table>().is_ok(), "{front}");
                }
            }
            Err(RenderError::DateOutOfRange { .. }) => prop_assert!(!dates_ok, "{format:?}"),
            Err(RenderError::NumberOutOfRange { .. }) => {
                prop_assert!(dates_ok && !count_ok, "{format:?}")
            }
            Err(other) => prop_assert!(false, "{format:?}: {other}"),
        }
    }
    Ok(())
}

/// `default` cases, or `PROPTEST_CASES` for a longer hunt: what `proptest!` does with its
/// configuration, which a [`TestRunner`] made by hand does not.
fn cases(default: u32) -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(default)
}

proptest! {
    // A few seconds; PROPTEST_CASES raises it.
    #![proptest_config(Config { cases: 256, ..Config::default() })]

    #[test]
    fn no_json_and_no_bytes_panic_the_decoding(value in any_json(), bytes in any::<Vec<u8>>()) {
        decode_every_way(&value);
        let _ = serde_json::from_slice::<ChangePage>(&bytes);
        let _ = serde_json::from_slice::<BlogDetail>(&bytes);
    }

    #[test]
    fn a_feed_page_of_any_values_decodes_and_renders_or_fails_cleanly(page in feed_page()) {
        decode_every_way(&page);
        // Every value generated is one chrono reads, so the page decodes.
        let decoded: ChangePage = serde_json::from_value(page.clone())
            .map_err(|e| TestCaseError::fail(format!("{e}: {page}")))?;
        for change in &decoded.changes {
            if let blogread_client::Change::Upsert { blog, .. } = change {
                render_every_way(blog)?;
            }
        }
    }

    #[test]
    fn a_post_of_any_values_in_range_renders_in_every_format(mut value in blog(), seconds in 0i64..253_402_300_799) {
        let date = DateTime::from_timestamp(seconds, 0).unwrap().to_rfc3339_opts(SecondsFormat::Secs, true);
        value["published_at"] = json!(date);
        value["updated_at"] = json!(date);
        value["word_count"] = json!(value["word_count"].as_u64().unwrap_or(0) >> 1);
        let blog: BlogDetail = serde_json::from_value(value).unwrap();
        for format in [Format::Zola, Format::Hugo, Format::Html] {
            prop_assert!(try_render_file(format, &blog, &[]).is_ok(), "{format:?}");
        }
    }
}

/// A whole export, in each format, against a stub whose changes feed answers `answer`: it
/// succeeds, or fails with an error and nothing made.
#[test]
fn an_export_of_any_answer_succeeds_or_fails_leaving_nothing_behind() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let answers = prop_oneof![1 => any_json(), 3 => feed_page()];
    let formats = prop::sample::select(&[Format::Zola, Format::Hugo, Format::Html][..]);
    let mut runner = TestRunner::new(Config {
        cases: cases(48),
        ..Config::default()
    });
    runner
        .run(&(answers, formats), |(answer, format)| {
            runtime.block_on(async {
                let body = answer.to_string();
                let stub = start_stub(move |_, req| {
                    if req.path() == "/blog/api/v1/public/changes" {
                        Reply {
                            status: 200,
                            headers: vec![],
                            body: body.clone(),
                        }
                    } else {
                        no_such_route(req)
                    }
                })
                .await;
                let root = tempfile::tempdir().unwrap();
                let options = ExportOptions::new(root.path().join("out"), format)
                    .state_dir(root.path().join(".blogread"));
                match export::export(&client(&stub), &options, |_, _| {}).await {
                    Ok(report) => {
                        prop_assert!(report.conflicts.is_empty());
                        prop_assert!(root.path().join(".blogread").is_dir());
                    }
                    Err(e) => {
                        prop_assert!(!e.to_string().is_empty());
                        let left: Vec<_> = std::fs::read_dir(root.path()).unwrap().collect();
                        prop_assert!(left.is_empty(), "{e}: left {left:?}");
                    }
                }
                Ok(())
            })
        })
        .unwrap();
}
