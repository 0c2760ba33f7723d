//! Internal-link resolution on an ~8 KB realistic post with 0, 5 and 50 placeholders, and the
//! `memchr` fast path on the post without any (lol_html was chosen at about 15 µs for the post
//! with 5 placeholders, and the fast path takes about 0.2 µs: see the `links` module of
//! blogread-core).
//! Also a post whose one `<img>` has 1,000, 10,000 and 100,000 attributes, with a placeholder in
//! its `alt` or in every attribute: the time per attribute must stay flat (it grew linearly with
//! the count, so the time with its square, before the rewrite was made linear).
//!
//! The same posts compiled into link templates (`template_fill`: what a read does since bodies
//! are compiled at publish; `compile`: what the publish does, once).
//!
//! Run: `cargo bench -p blogread-benches --bench links -- --warm-up-time 1 --measurement-time 3`

use std::collections::{BTreeSet, HashMap};
use std::hint::black_box;

use blogread_core::links::{
    Compiled, LinkContext, compile, contains_placeholder, referenced_slugs, resolve,
};
use blogread_core::word_count::word_count;
use criterion::{BenchmarkId, Criterion, Throughput};

/// Target size of the generated post, in bytes.
const POST_BYTES: usize = 8 * 1024;

/// One section of a typical post: headings, inline markup, a list, an image, entities and a code
/// block. `links` supplies the placeholders still to place (plain text once it runs out).
fn section(n: usize, links: &mut impl Iterator<Item = String>) -> String {
    let mut link = || {
        links
            .next()
            .unwrap_or_else(|| "our earlier write-up".to_owned())
    };
    format!(
        r#"<h2 id="section-{n}">Section {n}: shipping faster</h2>
<p>Teams that deploy often <strong>recover faster</strong> and <em>learn sooner</em>. In this
section we look at what changed after we moved to trunk-based development&nbsp;&mdash; see {l1}
for the background &amp; the numbers.</p>
<ul>
  <li>Smaller pull requests, reviewed within the hour ({l2})</li>
  <li>Feature flags instead of long-lived branches</li>
  <li><a href="{h1}" rel="noopener">Automated rollbacks</a> on error-budget burn</li>
</ul>
<figure><img src="/uploads/2026/chart-{n}.png" alt="Lead time per week, section {n}" width="800" height="420" loading="lazy"><figcaption>Lead time dropped by 40&nbsp;%.</figcaption></figure>
<pre><code class="language-yaml">deploy:
  strategy: canary
  steps: [10, 50, 100]
</code></pre>
<blockquote><p>&ldquo;Ship small, ship often.&rdquo; &ndash; our CTO</p></blockquote>
"#,
        l1 = link(),
        l2 = link(),
        h1 = link_href(link()),
    )
}

/// An `<a href>` value: a placeholder when `text` is one, an external URL otherwise.
fn link_href(text: String) -> String {
    if text.starts_with("[INTERNAL:") {
        text
    } else {
        "https://status.example.com/".to_owned()
    }
}

/// An ~8 KB post with `placeholders` placeholders spread over it.
fn post(placeholders: usize) -> String {
    // Every fifth one names an unpublished post.
    let mut links = (1..=placeholders).map(|i| {
        if i % 5 == 0 {
            format!("[INTERNAL:draft-{i}]")
        } else {
            format!("[INTERNAL:post-{i}]")
        }
    });
    let mut body = String::new();
    let mut n = 1;
    while body.len() < POST_BYTES {
        body.push_str(&section(n, &mut links));
        n += 1;
    }
    // Placeholders that did not fit in the sections go into a closing paragraph.
    let rest: Vec<String> = links.collect();
    if !rest.is_empty() {
        body.push_str(&format!("<p>Further reading: {}.</p>\n", rest.join(", ")));
    }
    body
}

/// The context a request would build: one look-up of the referenced slugs.
fn context(body: &str) -> LinkContext {
    let mut slugs = BTreeSet::new();
    referenced_slugs(body, &mut slugs);
    let published: HashMap<String, String> = slugs
        .into_iter()
        .filter(|slug| slug.starts_with("post-"))
        .map(|slug| {
            let title = format!("Post {}", &slug[5..]);
            (slug, title)
        })
        .collect();
    LinkContext::new(Some("https://www.example.com/"), published)
}

fn bench_links(c: &mut Criterion) {
    let mut group = c.benchmark_group("links");
    for placeholders in [0, 5, 50] {
        let body = post(placeholders);
        let ctx = context(&body);
        assert_eq!(
            resolve(&body, &ctx)
                .matches("https://www.example.com/blog/post-")
                .count(),
            placeholders - placeholders / 5,
            "every published placeholder resolves"
        );
        group.throughput(Throughput::Bytes(body.len() as u64));
        group.bench_with_input(
            BenchmarkId::new("resolve", placeholders),
            &body,
            |b, body| {
                b.iter(|| resolve(black_box(body), black_box(&ctx)));
            },
        );
        if placeholders == 0 {
            group.bench_with_input(
                BenchmarkId::new("contains_placeholder", placeholders),
                &body,
                |b, body| b.iter(|| contains_placeholder(black_box(body))),
            );
            // A body without placeholders has no template: the read serves it as it is.
            assert_eq!(compile(&body), Compiled::Plain);
            continue;
        }
        // Compile at publish, link at read: the template of the same post, filled.
        let template = compile(&body)
            .into_template()
            .expect("the benchmark post compiles");
        assert_eq!(template.fill(&ctx), resolve(&body, &ctx), "same bytes");
        group.bench_with_input(
            BenchmarkId::new("template_fill", placeholders),
            &template,
            |b, template| b.iter(|| black_box(template).fill(black_box(&ctx))),
        );
        // What the single-blog read does: the fill and its word count, added up from the
        // template's own words and the titles' (the post's placeholders stand apart from
        // words), against counting the filled body.
        assert!(
            template.has_split_word_count(),
            "the benchmark post splits its count"
        );
        let filled = template.fill(&ctx);
        assert_eq!(template.fill_counted(&ctx).1, word_count(&filled));
        group.bench_with_input(
            BenchmarkId::new("template_fill_counted", placeholders),
            &template,
            |b, template| b.iter(|| black_box(template).fill_counted(black_box(&ctx))),
        );
        group.bench_with_input(
            BenchmarkId::new("template_fill_then_word_count", placeholders),
            &template,
            |b, template| {
                b.iter(|| {
                    let body = black_box(template).fill(black_box(&ctx));
                    word_count(&body)
                })
            },
        );
        group.bench_with_input(
            BenchmarkId::new("compile", placeholders),
            &body,
            |b, body| b.iter(|| compile(black_box(body))),
        );
    }
    group.finish();
}

/// A post with one `<img>` of `attributes` attributes, as in the attacker's post of the
/// hardening issue (150,000 bare attributes and `alt="[INTERNAL:x]"`); with `every` set, each
/// attribute holds a placeholder instead.
fn wide_image(attributes: usize, every: bool) -> String {
    let written: String = (0..attributes)
        .map(|i| {
            if every {
                format!(" a{i}=\"[INTERNAL:post-1]\"")
            } else {
                format!(" a{i}")
            }
        })
        .collect();
    format!("<p>A wide image.</p><img{written} alt=\"[INTERNAL:post-1]\"><p>After it.</p>")
}

fn bench_wide_tag(c: &mut Criterion) {
    let mut group = c.benchmark_group("links_wide_tag");
    // A 100,000-attribute case takes tens of milliseconds.
    group.sample_size(10);
    for (name, every) in [
        ("one_placeholder", false),
        ("placeholder_in_every_attribute", true),
    ] {
        for attributes in [1_000, 10_000, 100_000] {
            let body = wide_image(attributes, every);
            let ctx = context(&body);
            let resolved = resolve(&body, &ctx);
            assert_eq!(
                resolved
                    .matches("\"https://www.example.com/blog/post-1/\"")
                    .count(),
                if every { attributes + 1 } else { 1 },
                "every placeholder resolves"
            );
            group.throughput(Throughput::Elements(attributes as u64));
            group.bench_with_input(BenchmarkId::new(name, attributes), &body, |b, body| {
                b.iter(|| resolve(black_box(body), black_box(&ctx)));
            });
        }
    }
    group.finish();
}

fn main() {
    let mut criterion = Criterion::default().configure_from_args();
    bench_links(&mut criterion);
    bench_wide_tag(&mut criterion);
    criterion.final_summary();
}
