//! The links report agrees with the resolver: over random bodies (placeholders in every place,
//! malformed ones, markup around them that shifts what a placeholder stands in) and random
//! target states, a placeholder is reported broken exactly when the public answer drops it.
//!
//! Each placeholder names a slug of its own, and each target has a URL and a title found
//! nowhere else, so whether the public answer kept a placeholder is read off the answer: its
//! target's URL or title is in it.

use std::collections::HashMap;

use blogread_core::domain::{BlogId, BlogStatus, Timestamp};
use blogread_core::links::report::{LinkTarget, LinkTargets, placeholders};
use blogread_core::links::{LinkContext, resolve};
use proptest::prelude::*;

/// What the post a placeholder names is, at the time of the read.
#[derive(Debug, Clone, Copy)]
enum Target {
    Published,
    /// An old slug of a published post (named `r<n>`).
    Alias,
    /// An old slug of a post that is unpublished now.
    AliasOfUnpublished,
    Draft,
    /// Scheduled, going live later.
    Scheduled,
    /// Scheduled, its go-live passed (public, though not recorded as published yet).
    ScheduledDue,
    /// Published, the placeholder naming its edited working slug.
    WorkingSlugOfPublished,
    Unpublished,
    Missing,
}

fn target() -> impl Strategy<Value = Target> {
    prop::sample::select(vec![
        Target::Published,
        Target::Alias,
        Target::AliasOfUnpublished,
        Target::Draft,
        Target::Scheduled,
        Target::ScheduledDue,
        Target::WorkingSlugOfPublished,
        Target::Unpublished,
        Target::Missing,
    ])
}

/// How slot `n`'s placeholder is written: the slug in any case, whitespace around, or a
/// malformed form.
fn written(n: usize, form: u8) -> String {
    let slug = format!("s{n}");
    match form % 8 {
        0 | 1 => format!("[INTERNAL:{slug}]"),
        2 => format!("[INTERNAL: {} ]", slug.to_uppercase()),
        3 => format!("%5BINTERNAL:{slug}%5D"),
        4 => format!("[INTERNAL:{slug}"),
        5 => format!("[INTERNAL:{slug}_x]"),
        6 => format!("[INTERNAL:\n{slug}]"),
        _ => format!("[INTERNAL:{slug}]"),
    }
}

/// Where slot `n` puts its placeholder(s); `ph(k)` is the placeholder of slug `k`.
fn slot(kind: u8, n: &mut usize, forms: &[u8]) -> String {
    let mut next = || {
        let k = *n;
        *n += 1;
        written(k, forms[k % forms.len()])
    };
    match kind % 12 {
        0 => format!("<p>See {}.</p>", next()),
        1 => format!(r#"<a href="{}">anchor text</a>"#, next()),
        2 => format!(
            r##"<a href="{}#part" title="{}">x {}</a>"##,
            next(),
            next(),
            next()
        ),
        3 => format!(r#"<img src="/i.png" alt="{}">"#, next()),
        4 => format!("<!-- {} -->", next()),
        5 => format!(r#"<script>var u = "{}";</script>"#, next()),
        6 => format!("<p {}>", next()),
        7 => format!(r#"<a href="https://x.example/?u={}">s</a>"#, next()),
        8 => format!(r#"<a href="/x">in {}</a>"#, next()),
        9 => format!("<title>{}</title>", next()),
        10 => format!(
            r#"<a href="{}?q=1" alt="{}" alt="{}">d</a>"#,
            next(),
            next(),
            next()
        ),
        _ => format!("<textarea>{}</textarea>", next()),
    }
}

/// Markup between slots: sometimes harmless, sometimes an open quote or tag that moves what
/// follows into an attribute or a comment.
fn filler() -> impl Strategy<Value = String> {
    prop::sample::select(vec![
        "",
        " ",
        "<br>",
        "<div class=\"c\">",
        "</div>",
        "<em>",
        "\"",
        "<span title=\"",
        "<!--",
        "-->",
        "<",
        "&amp;",
        "<a href=\"/y\">",
        "</a>",
        "<style>",
        "</style>",
        "<!DOCTYPE x ",
    ])
    .prop_map(str::to_owned)
}

#[derive(Debug, Clone)]
struct Case {
    body: String,
    targets: Vec<Target>,
}

fn case() -> impl Strategy<Value = Case> {
    (
        prop::collection::vec((any::<u8>(), filler()), 1..8),
        prop::collection::vec(any::<u8>(), 1..6),
        prop::collection::vec(target(), 32),
    )
        .prop_map(|(slots, forms, targets)| {
            let mut n = 0;
            let mut body = String::new();
            for (kind, fill) in slots {
                body.push_str(&slot(kind, &mut n, &forms));
                body.push_str(&fill);
            }
            Case {
                body,
                targets: targets[..n.clamp(1, 32)].to_vec(),
            }
        })
}

fn at(seconds: i64) -> Timestamp {
    Timestamp::from_unix_seconds(seconds).expect("time")
}

const NOW: i64 = 1_000_000;

/// The project's posts for the case, the resolver's context, and the URL and title each slot's
/// link would show.
fn world(case: &Case) -> (LinkTargets, LinkContext, Vec<(String, String)>) {
    let mut posts = Vec::new();
    let mut aliases = Vec::new();
    let mut published = HashMap::new();
    let mut alias_map = HashMap::new();
    let mut shows = Vec::new();
    for (n, target) in case.targets.iter().enumerate() {
        let slug = format!("s{n}");
        let title = format!("T{n}Q");
        let mut post = LinkTarget {
            id: BlogId::generate(),
            status: BlogStatus::Draft,
            slug: slug.clone(),
            title: title.clone(),
            public: None,
            go_live: None,
        };
        let mut current = (slug.clone(), title.clone());
        match target {
            Target::Published => {
                post.status = BlogStatus::Published;
                post.public = Some(current.clone());
                published.insert(slug.clone(), title.clone());
            }
            Target::Alias | Target::AliasOfUnpublished => {
                current = (format!("r{n}"), format!("R{n}Q"));
                post.slug = current.0.clone();
                post.title = current.1.clone();
                if matches!(target, Target::Alias) {
                    post.status = BlogStatus::Published;
                    post.public = Some(current.clone());
                    published.insert(current.0.clone(), current.1.clone());
                    alias_map.insert(slug.clone(), current.0.clone());
                } else {
                    post.status = BlogStatus::Unpublished;
                }
                aliases.push((slug.clone(), post.id));
            }
            Target::Draft => {}
            Target::Scheduled | Target::ScheduledDue => {
                post.status = BlogStatus::Scheduled;
                post.public = Some(current.clone());
                let due = matches!(target, Target::ScheduledDue);
                post.go_live = Some(at(if due { NOW - 5 } else { NOW + 60 }));
                if due {
                    // The public read records the go-live first; it then resolves.
                    published.insert(slug.clone(), title.clone());
                }
            }
            Target::WorkingSlugOfPublished => {
                current = (format!("p{n}"), format!("P{n}Q"));
                post.status = BlogStatus::Published;
                post.public = Some(current.clone());
                published.insert(current.0.clone(), current.1.clone());
            }
            Target::Unpublished => post.status = BlogStatus::Unpublished,
            Target::Missing => {
                shows.push(current);
                continue;
            }
        }
        posts.push(post);
        shows.push(current);
    }
    let ctx =
        LinkContext::new(Some("https://example.com/site/"), published).with_aliases(alias_map);
    (LinkTargets::new(posts, aliases, at(NOW)), ctx, shows)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn a_placeholder_is_reported_broken_exactly_when_the_public_answer_drops_it(case in case()) {
        let (targets, ctx, shows) = world(&case);
        let answer = resolve(&case.body, &ctx).into_owned();
        let found = placeholders(&case.body);
        let state = |index: usize| targets.verdict(found[index].slug.as_deref()).state;
        for (n, (slug, title)) in shows.iter().enumerate() {
            let kept_in_answer =
                answer.contains(&format!("/blog/{slug}/")) || answer.contains(title.as_str());
            let reported_kept = found.iter().enumerate().any(|(i, f)| {
                f.slug.as_deref() == Some(&format!("s{n}"))
                    && !state(i).is_broken()
                    && f.held_by.is_none_or(|h| !state(h).is_broken())
            });
            prop_assert_eq!(
                kept_in_answer,
                reported_kept,
                "slot s{} ({:?}) in {:?}\nanswer: {:?}\nreport: {:?}",
                n,
                case.targets[n],
                case.body,
                answer,
                found
            );
        }
    }
}
