//! Word count of a realistic ~8 KB post body (headings, paragraphs, lists, a blockquote, links,
//! images with alt text, inline styles and entities), as the single-blog endpoint computes it on
//! every read; and of a post whose one `<img>` has 1,000, 10,000 and 100,000 attributes, where
//! the time per attribute must stay flat (html5ever's tokenizer, used before, compared each
//! attribute name with every earlier one).
#![forbid(unsafe_code)]

use std::hint::black_box;

use blogread_core::word_count::word_count;
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};

/// One section of a post; the body repeats it with different headings.
const SECTION: &str = r#"<h2 id="s{n}">Part {n}: shipping a static blog without a rebuild queue</h2>
<p>When we moved the documentation site to a static host, the first thing we noticed was how
long a single typo fix took to reach readers. A full rebuild ran for <strong>four minutes</strong>,
and the deploy hook fired once per save, so an editor fixing three typos in a row queued three
builds. This post walks through what we changed, what we measured, and what we&rsquo;d do
differently next time.</p>
<p>The short version: we keep the posts in a read-only JSON API, let the site fetch them at build
time, and trigger <em>one</em> rebuild per publish instead of one per keystroke. The long version
follows, with numbers from the last <a href="https://example.com/blog/metrics/">three months of
metrics</a> and a few caveats about caching &amp; invalidation.</p>
<img src="/img/pipeline-{n}.png" alt="Diagram of the build pipeline, from editor to CDN" width="640">
<h3>What we measured</h3>
<ul>
  <li>Time from &ldquo;publish&rdquo; to the post being visible: median 38&nbsp;s, p95 71&nbsp;s.</li>
  <li>Builds per day: down from 140 to 23, a drop of roughly 84%.</li>
  <li>Failed builds caused by half-saved drafts: zero since the switch &mdash; drafts never leave the API.</li>
</ul>
<blockquote><p>&ldquo;The best build is the one you don&rsquo;t run.&rdquo; &mdash; someone on the
ops channel, 2026</p></blockquote>
<p style="margin-top: 1.5em; color: #444">Internal links such as <a href="/blog/caching-at-the-edge/">caching
at the edge</a> are resolved when the post is read, so renaming a post never leaves a broken
link behind. State-of-the-art? Hardly. But it's boring, and boring is what we wanted.</p>
"#;

fn post() -> String {
    let body: String = (1..=5)
        .map(|n| SECTION.replace("{n}", &n.to_string()))
        .collect();
    format!("<article>\n{body}</article>\n")
}

fn bench(c: &mut Criterion) {
    let html = post();
    let mut group = c.benchmark_group("word_count");
    group.throughput(Throughput::Bytes(html.len() as u64));
    group.bench_function(format!("post_{}_bytes", html.len()), |b| {
        b.iter(|| word_count(black_box(&html)))
    });
    group.finish();
}

/// A post with one `<img>` of `attributes` bare attributes and a placeholder in its `alt`, as in
/// the attacker's post of the hardening issue (150,000 attributes).
fn wide_image(attributes: usize) -> String {
    let written: String = (0..attributes).map(|i| format!(" a{i}")).collect();
    format!("<p>A wide image.</p><img{written} alt=\"[INTERNAL:x]\"><p>After it.</p>")
}

fn bench_wide_tag(c: &mut Criterion) {
    let mut group = c.benchmark_group("word_count_wide_tag");
    group.sample_size(10);
    for attributes in [1_000, 10_000, 100_000] {
        let html = wide_image(attributes);
        assert_eq!(word_count(&html), 5);
        group.throughput(Throughput::Elements(attributes as u64));
        group.bench_function(BenchmarkId::from_parameter(attributes), |b| {
            b.iter(|| word_count(black_box(&html)))
        });
    }
    group.finish();
}

criterion_group!(benches, bench, bench_wide_tag);
criterion_main!(benches);
