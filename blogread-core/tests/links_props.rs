//! Property tests for internal-link resolution over generated HTML-ish documents that mix tags,
//! attributes, text, comments and placeholders (valid, invalid, split, nested, percent-encoded).

use std::collections::{BTreeSet, HashMap};

use blogread_core::links::{
    Compiled, LinkContext, compile, contains_placeholder, referenced_slugs, resolve,
};
use proptest::prelude::*;

/// Slugs the generated documents use; the first three are published.
const SLUGS: &[&str] = &[
    "hello-world",
    "a",
    "post-2",
    "draft-one",
    "missing",
    "sitemap",
];

fn published() -> HashMap<String, String> {
    [
        ("hello-world", "Hello & <World>"),
        ("a", "A \"quoted\" title"),
        ("post-2", "Zwei"),
    ]
    .into_iter()
    .map(|(slug, title)| (slug.to_owned(), title.to_owned()))
    .collect()
}

fn context(published: HashMap<String, String>) -> LinkContext {
    LinkContext::new(Some("https://example.com/x?a=1&b=\"2\"/"), published)
}

/// A slug as an author may write it: any case, whitespace around.
fn written_slug() -> impl Strategy<Value = (String, String)> {
    (
        prop::sample::select(SLUGS),
        any::<bool>(),
        prop::sample::select(&["", " ", "\n", "\t "][..]),
    )
        .prop_map(|(slug, upper, space)| {
            let written = if upper {
                slug.to_uppercase()
            } else {
                slug.to_owned()
            };
            (slug.to_owned(), format!("{space}{written}{space}"))
        })
}

/// A placeholder or something close to one.
fn placeholder() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => written_slug().prop_map(|(_, w)| format!("[INTERNAL:{w}]")),
        1 => Just("[INTERNAL:]".to_owned()),
        1 => Just("[INTERNAL:Not A_Slug]".to_owned()),
        1 => written_slug().prop_map(|(_, w)| format!("[INTERNAL:{w}")),
        1 => written_slug().prop_map(|(_, w)| format!("%5BINTERNAL:{w}%5D")),
        1 => written_slug().prop_map(|(_, w)| format!("%5bINTERNAL:{w}]#frag")),
        1 => written_slug().prop_map(|(_, w)| format!("[[INTERNAL:x]INTERNAL:{w}]")),
        1 => Just("[INTE".to_owned()),
        1 => Just("RNAL:".to_owned()),
        1 => Just("[INTERNAL:[INTERNAL:a]]".to_owned()),
    ]
}

/// Plain text from an alphabet that has the markup-significant characters.
fn text() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop::sample::select(
            &[
                "a", "Z", " ", "\n", "[", "]", "<", ">", "&", "&amp;", "-", "%", "é", "😀", "\"",
                "'", "=", "/", "!", "INTERNAL", ":",
            ][..],
        ),
        0..6,
    )
    .prop_map(|parts| parts.concat())
}

/// A placeholder-like piece, or (for placeholder-free documents) more text.
fn maybe_placeholder(placeholders: bool) -> BoxedStrategy<String> {
    if placeholders {
        placeholder().boxed()
    } else {
        text().boxed()
    }
}

fn attribute_value(placeholders: bool) -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop_oneof![2 => text(), 1 => maybe_placeholder(placeholders)],
        0..3,
    )
    .prop_map(|p| p.concat())
}

fn attribute(placeholders: bool) -> impl Strategy<Value = String> {
    let names: &[&str] = if placeholders {
        &[
            "href",
            "HREF",
            "title",
            "data-x",
            "alt",
            "src",
            "[INTERNAL:a]",
            "x",
        ]
    } else {
        &["href", "HREF", "title", "data-x", "alt", "src", "x"]
    };
    let name = prop::sample::select(names);
    let quote = prop::sample::select(&["\"", "'", ""][..]);
    (name, quote, attribute_value(placeholders), any::<bool>()).prop_map(
        |(name, quote, value, bare)| {
            if bare {
                name.to_owned()
            } else {
                format!("{name}={quote}{value}{quote}")
            }
        },
    )
}

/// One fragment of a document; with `placeholders` false, none that makes a placeholder.
fn fragment(placeholders: bool) -> impl Strategy<Value = String> {
    let tag = prop::sample::select(
        &[
            "a", "p", "b", "em", "div", "img", "br", "script", "style", "textarea", "title", "pre",
            "svg", "A",
        ][..],
    );
    prop_oneof![
        4 => text(),
        3 => maybe_placeholder(placeholders),
        3 => (tag.clone(), prop::collection::vec(attribute(placeholders), 0..3), any::<bool>())
            .prop_map(|(tag, attrs, self_closing)| {
                let attrs: String = attrs.iter().map(|a| format!(" {a}")).collect();
                format!("<{tag}{attrs}{}>", if self_closing { "/" } else { "" })
            }),
        2 => tag.prop_map(|tag| format!("</{tag}>")),
        1 => attribute_value(placeholders).prop_map(|c| format!("<!--{c}-->")),
        1 => attribute_value(placeholders).prop_map(|c| format!("<!{c}>")),
        1 => Just("<!--".to_owned()),
        1 => Just("<![CDATA[".to_owned()),
    ]
}

fn document() -> impl Strategy<Value = String> {
    prop::collection::vec(fragment(true), 0..24).prop_map(|f| f.concat())
}

fn document_without_placeholders() -> impl Strategy<Value = String> {
    prop::collection::vec(fragment(false), 0..24).prop_map(|f| f.concat())
}

/// Documents whose text content holds valid placeholders, with the slugs they reference.
fn document_with_text_placeholders() -> impl Strategy<Value = (String, Vec<String>)> {
    let piece = prop_oneof![
        text().prop_map(|t| (t.replace(['<', '&', '['], ""), None)),
        written_slug().prop_map(|(slug, w)| (format!("[INTERNAL:{w}]"), Some(slug))),
        prop::sample::select(
            &[
                "<p>",
                "</p>",
                "<a href=\"/x\">",
                "</a>",
                "<em>",
                "</em>",
                "<!-- c -->"
            ][..]
        )
        .prop_map(|t| (t.to_owned(), None)),
    ];
    prop::collection::vec(piece, 0..16).prop_map(|pieces| {
        let html = pieces.iter().map(|(s, _)| s.as_str()).collect();
        let slugs = pieces
            .into_iter()
            .filter_map(|(_, slug)| slug)
            .filter(|slug| slug != "sitemap")
            .collect();
        (html, slugs)
    })
}

/// `doc` resolved in `ctx` by the full resolver, after checking that its link template (when
/// it compiles to one) fills to the same bytes: every property below holds for both paths.
fn resolve_both(doc: &str, ctx: &LinkContext) -> Result<String, TestCaseError> {
    let resolved = resolve(doc, ctx).into_owned();
    if let Compiled::Template(template) = compile(doc) {
        prop_assert_eq!(&template.fill(ctx), &resolved, "template of {:?}", doc);
    }
    Ok(resolved)
}

/// Titles of published targets: plain, and full of what needs escaping (or looks like a
/// placeholder itself).
const TITLES: &[&str] = &[
    "Plain",
    "Hello & <World>",
    "A \"quoted\" 'title'",
    "[INTERNAL:a] inside",
    "é 😀",
    "",
    // Titles whose words meet the text around them: white space only, the end of a
    // character reference, punctuation, several words.
    "  ",
    "lt; two words",
    "-",
];

/// Site URLs, including ones whose characters need escaping in each place.
const SITE_URLS: &[Option<&str>] = &[
    None,
    Some("https://example.com"),
    Some("https://example.com/sub/"),
    Some("https://example.com/x?a=1&b=\"2\"<3>/"),
];

/// What each of [`SLUGS`] is for the read: published (with a title), not published (a
/// draft, unpublished, or missing: the resolver cannot tell them apart), or renamed (an old
/// slug of another published post).
#[derive(Debug, Clone)]
enum TargetState {
    Published(&'static str),
    NotPublished,
    RenamedTo(&'static str),
}

fn target_states() -> impl Strategy<Value = Vec<TargetState>> {
    let state = prop_oneof![
        3 => prop::sample::select(TITLES).prop_map(TargetState::Published),
        2 => Just(TargetState::NotPublished),
        1 => prop::sample::select(&["renamed-one", "hello-world"][..]).prop_map(TargetState::RenamedTo),
    ];
    prop::collection::vec(state, SLUGS.len())
}

/// The link context of a read in which [`SLUGS`] are in `states`.
fn context_of(site_url: Option<&str>, states: &[TargetState]) -> LinkContext {
    let mut published = HashMap::new();
    let mut aliases = HashMap::new();
    for (slug, state) in SLUGS.iter().zip(states) {
        match state {
            TargetState::Published(title) => {
                published.insert((*slug).to_owned(), (*title).to_owned());
            }
            TargetState::NotPublished => {}
            TargetState::RenamedTo(current) if current != slug => {
                published
                    .entry((*current).to_owned())
                    .or_insert_with(|| format!("Now {current}"));
                aliases.insert((*slug).to_owned(), (*current).to_owned());
            }
            TargetState::RenamedTo(_) => {}
        }
    }
    LinkContext::new(site_url, published).with_aliases(aliases)
}

/// A post as authors write them: paragraphs and anchors around placeholders in the places a
/// template holds (text, whole and partial `href`s, attributes with text around them, raw
/// text), and now and then one it refuses (a comment, an anchor of another slug around one).
fn article() -> impl Strategy<Value = String> {
    let slug = || written_slug().prop_map(|(_, w)| w);
    let piece = prop_oneof![
        12 => text(),
        12 => slug().prop_map(|w| format!("[INTERNAL:{w}]")),
        8 => (slug(), text()).prop_map(|(w, t)| format!("<a href=\"[INTERNAL:{w}]\">{t}</a>")),
        1 => (slug(), slug()).prop_map(|(w, v)| format!("<a href='[INTERNAL:{w}]#part'>[INTERNAL:{v}]</a>")),
        4 => slug().prop_map(|w| format!("<a href=\"%5BINTERNAL:{w}%5D?x=1\" class=c>more</a>")),
        4 => slug().prop_map(|w| format!("<img alt=\"see [INTERNAL:{w}]\" src=x.png>")),
        1 => slug().prop_map(|w| format!("<img alt=\"[INTERNAL:{w}]\">")),
        4 => slug().prop_map(|w| format!("<a href=\"/share?u=[INTERNAL:{w}]\">s</a>")),
        4 => slug().prop_map(|w| format!("<script>go('[INTERNAL:{w}]')</script>")),
        4 => slug().prop_map(|w| format!("<title>[INTERNAL:{w}]</title>")),
        1 => slug().prop_map(|w| format!("<!-- [INTERNAL:{w}] -->")),
        4 => placeholder(),
        8 => prop::sample::select(&["<p>", "</p>", "<a href=\"/x\">", "</a>", "<em>", "</em>", "<br/>"][..])
            .prop_map(str::to_owned),
    ];
    prop::collection::vec(piece, 0..20).prop_map(|pieces| pieces.concat())
}

fn has_opener(s: &str) -> bool {
    s.contains("[INTERNAL") || s.to_ascii_lowercase().contains("%5binternal")
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    /// (a) and (c): no output contains `[INTERNAL:`, and resolving never panics.
    #[test]
    fn output_never_contains_a_placeholder(doc in document()) {
        let out = resolve_both(&doc, &context(published()))?;
        prop_assert!(!out.contains("[INTERNAL:"), "input {doc:?}\noutput {out:?}");
    }

    /// (b): a document without a placeholder comes back unchanged.
    #[test]
    fn document_without_placeholder_is_unchanged(doc in document_without_placeholders()) {
        prop_assume!(!has_opener(&doc));
        prop_assert_eq!(resolve(&doc, &context(published())), doc.as_str());
    }

    /// (b), through the rewriter: with one placeholder up front, every other byte is kept.
    #[test]
    fn rewriter_keeps_bytes_it_does_not_rewrite(doc in document_without_placeholders()) {
        prop_assume!(!has_opener(&doc) && !doc.contains("INTERNAL:"));
        let with_placeholder = format!("<!--[INTERNAL:missing]-->{doc}");
        prop_assert!(contains_placeholder(&with_placeholder));
        let out = resolve_both(&with_placeholder, &context(published()))?;
        prop_assert_eq!(out, format!("<!---->{doc}"));
    }

    /// (d): `referenced_slugs` finds every valid slug used in a text placeholder.
    #[test]
    fn referenced_slugs_finds_text_placeholders((doc, slugs) in document_with_text_placeholders()) {
        let mut found = BTreeSet::new();
        referenced_slugs(&doc, &mut found);
        for slug in slugs {
            prop_assert!(found.contains(&slug), "{slug} missing from {found:?} for {doc:?}");
        }
    }

    /// One look-up is enough: a context holding only the referenced published slugs resolves
    /// exactly like one holding every published slug.
    #[test]
    fn referenced_slugs_are_enough_to_resolve(doc in document()) {
        let mut referenced = BTreeSet::new();
        referenced_slugs(&doc, &mut referenced);
        let narrowed = published().into_iter().filter(|(slug, _)| referenced.contains(slug)).collect();
        prop_assert_eq!(
            resolve_both(&doc, &context(narrowed))?,
            resolve_both(&doc, &context(published()))?
        );
    }

    /// Arbitrary strings (not only the grammar's) never leak or panic.
    #[test]
    fn arbitrary_strings_never_leak(s in "(\\PC|\\[INTERNAL:|%5BINTERNAL:|<a href=\"|\\]|<!--|-->|<script>)*") {
        let out = resolve_both(&s, &context(published()))?;
        prop_assert!(!out.contains("[INTERNAL:"));
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2048, ..ProptestConfig::default() })]

    /// Compile at publish, link at read: for any post and any state of its targets (published
    /// with any title, draft, unpublished, missing, renamed) and any site URL, filling the
    /// post's link template gives byte for byte what the full resolver gives, and so the same
    /// word count; and the template's slugs are all a read needs to look up.
    #[test]
    fn template_fill_equals_the_full_resolver(
        doc in prop_oneof![3 => article(), 1 => document()],
        states in target_states(),
        site_url in prop::sample::select(SITE_URLS),
    ) {
        let ctx = context_of(site_url, &states);
        let resolved = resolve(&doc, &ctx);
        match compile(&doc) {
            Compiled::Template(template) => {
                let filled = template.fill(&ctx);
                prop_assert_eq!(&filled, &resolved, "template of {:?}", doc);
                // The word count a read gives (added up from the template's own words and
                // the titles' when the template splits it) is the resolved body's.
                let (counted_body, words) = template.fill_counted(&ctx);
                prop_assert_eq!(&counted_body, &resolved);
                prop_assert_eq!(
                    words,
                    blogread_core::word_count::word_count(&resolved),
                    "words of {:?} (split: {})", doc, template.has_split_word_count()
                );
                let mut referenced = BTreeSet::new();
                referenced_slugs(&doc, &mut referenced);
                let looked_up: BTreeSet<String> = template.slugs().iter().cloned().collect();
                prop_assert!(referenced.is_subset(&looked_up), "{referenced:?} vs {looked_up:?}");
            }
            Compiled::Plain => prop_assert_eq!(&resolved, &doc),
            Compiled::Refused => {}
        }
    }
}

/// The differential test above has teeth only if most posts compile: of a fixed sample of
/// generated posts with placeholders, at least half do, and a fifth of those templates
/// split their word count.
#[test]
fn most_generated_posts_compile_to_a_template() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
    let mut runner = TestRunner::new_with_rng(
        Config::default(),
        TestRng::from_seed(RngAlgorithm::ChaCha, &[7; 32]),
    );
    let (mut with_placeholders, mut compiled, mut split) = (0, 0, 0);
    for _ in 0..500 {
        let doc = article().new_tree(&mut runner).expect("a post").current();
        if !contains_placeholder(&doc) {
            continue;
        }
        with_placeholders += 1;
        if let Compiled::Template(template) = compile(&doc) {
            compiled += 1;
            split += usize::from(template.has_split_word_count());
        }
    }
    assert!(with_placeholders > 300, "{with_placeholders}");
    assert!(
        compiled * 2 >= with_placeholders,
        "only {compiled} of {with_placeholders} posts compiled"
    );
    // And the word-count half of the test has teeth only if many templates split their count.
    assert!(
        split * 5 >= compiled,
        "only {split} of {compiled} templates split their word count"
    );
}
