//! The Zola and Hugo exports through models of the generators' own steps (no generator binary
//! needed): no post breaks the build, and the page shows exactly the API's HTML, as a browser
//! builds it, or the export warns about that post.
//!
//! - `generators/zola.rs`: Zola's front matter split, its shortcode pass with its own grammar
//!   (`generators/zola_content.pest`), pulldown-cmark with Zola's options and Zola's summary
//!   divider.
//! - `generators/hugo.rs`: Hugo's content lexer (shortcodes, their comments, the summary
//!   divider), its context markers and its placeholders, for `.html` content.
//!
//! Pages are compared with the API's `content` by what a browser builds of them
//! (`blogread_tests::dom`). The models are checked against the generators themselves: bodies
//! drawn from the property tests' strategies are built with the real Hugo (under
//! `scripts/with-hugo`, as CI runs it) and, where `BLOGREAD_TEST_ZOLA` names a zola binary,
//! the real Zola, and each page must be what the model says. `e2e::site_build` builds posts
//! from a real server.

mod generators {
    pub mod hugo;
    pub mod zola;
}

use blogread_client::BlogDetail;
use blogread_client::export::{Format, Rendered, render_file};
use blogread_tests::dom::{self, Node};
use generators::{hugo, zola};
use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::TestRunner;

fn blog(content: &str) -> BlogDetail {
    blog_with_slug("a-post", content)
}

fn blog_with_slug(slug: &str, content: &str) -> BlogDetail {
    serde_json::from_value(serde_json::json!({
        "id": "0190a1b2-0000-7000-8000-000000000001",
        "title": "A post",
        "slug": slug,
        "excerpt": "",
        "meta_title": "",
        "meta_description": "",
        "featured_image_url": null,
        "categories": [],
        "tags": [],
        "featured_image": null,
        "published_at": "2026-11-21T09:30:00Z",
        "content": content,
        "updated_at": "2026-11-21T09:30:00Z",
        "word_count": 1
    }))
    .unwrap()
}

/// What the page shows of the post exported for `format`, as a browser builds it, or why the
/// generator fails the build; and the file as written.
fn built(format: Format, content: &str) -> (Result<Vec<Node>, String>, Rendered) {
    let rendered = render_file(format, &blog(content), &[]);
    let shown = match format {
        Format::Zola => zola::render(&rendered.text).map(|page| {
            dom::children_of_class(&dom::fragment(&page), "blogread-content")
                .expect("the page holds the wrapper")
                .to_vec()
        }),
        Format::Hugo => hugo::render(&rendered.text).map(|content| {
            // The export ends the file with a newline after the body.
            dom::fragment(
                content
                    .strip_suffix('\n')
                    .expect("the file ends with a newline"),
            )
        }),
        Format::Html => unreachable!("not a generator"),
    };
    (shown, rendered)
}

/// Asserts that the page built from `content` shows it exactly, without a warning.
#[track_caller]
fn assert_exact(content: &str) {
    for format in [Format::Zola, Format::Hugo] {
        let (shown, rendered) = built(format, content);
        let shown = shown.unwrap_or_else(|e| {
            panic!("{format:?} fails the build: {e}\nfile:\n{}", rendered.text)
        });
        assert_eq!(
            shown,
            dom::fragment(content),
            "{format:?} shows something else; file:\n{}",
            rendered.text
        );
        assert!(rendered.inexact.is_empty(), "{:?}", rendered.inexact);
    }
}

#[test]
fn hugo_markup_shortcodes_in_a_post_no_longer_fail_the_build() {
    let content = "<p>{{% notice %}}x{{% /notice %}}</p>";
    let file = format!("+++\ntitle = \"a\"\n+++\n{content}\n");
    assert!(hugo::render(&file).is_err(), "as written, Hugo fails");
    assert_exact(content);
}

#[test]
fn hugo_shortcodes_in_a_post_embed_nothing() {
    let content = "<p>Embed with {{< youtube abc >}}.</p>";
    assert!(hugo::render(&format!("+++\ntitle = \"a\"\n+++\n{content}\n")).is_err());
    assert_exact(content);
}

#[test]
fn zola_shortcode_calls_in_a_post_no_longer_fail_the_build() {
    let content = "<p>{{ youtube(id=\"abc\") }}</p><p>{% note(kind=\"warn\") %}Body{% end %}</p>";
    let file = format!("+++\ntitle = \"a\"\n+++\n{content}");
    assert!(zola::render(&file).is_err(), "as written, Zola fails");
    assert_exact(content);
}

#[test]
fn escaped_shortcodes_in_a_post_show_with_their_escape() {
    let content = "<p><code>{{/* c() */}}</code> <code>{{/* c */}}</code> \
                   <code>{%/* note() */%}x{%/* end */%}</code> <code>{{</* lit */>}}</code> \
                   <code>{{%/* lit */%}}</code></p>";
    let file = format!("+++\ntitle = \"a\"\n+++\n{content}");
    assert!(
        zola::render(&file).unwrap().contains("{{ c() }}"),
        "Zola drops /* */"
    );
    assert_exact(content);
}

#[test]
fn look_alikes_inside_raw_text_elements_are_escaped_too() {
    assert_exact(
        "<script>\nconst a = \"{{< x >}}\", b = `{{% y %}}`;\nconst c = \"{{ f(k=1) }}\";\n\
         const d = `{% tpl() %}\n{{ inner }}\n{% end %}`;\n</script>\
         <style>/* {{ g() }} {{</* lit */>}} */ p { color: red }</style>\
         <!-- {{< youtube abc >}} {{ h() }} -->\
         <textarea>{{% notice %}}</textarea>",
    );
}

#[test]
fn blank_lines_inside_raw_text_and_pre_are_kept() {
    assert_exact(
        "<p>Before</p>\n\n<script>\nconst page = `a\n\nb`;\n\n\nrun(page);\n</script>\n\n\
         <style>\np { margin: 0 }\n\n  \nq { margin: 1px }\n</style><p>x <script>`\n\n`</script> y</p>\
         <pre>a\n\n  \nb</pre><textarea>\n\nq\n\n</textarea>\n    <p>*not emphasis*</p>\n\n",
    );
}

#[test]
fn summary_dividers_in_a_post_are_neither_generators_divider() {
    assert_exact(
        "<p>a</p><!--more--> <p>b</p><!-- more --><p title=\"<!--more-->\">c</p>\
         <textarea><!-- MORE --></textarea>",
    );
}

#[test]
fn hugos_own_placeholders_and_markers_in_a_post_are_text() {
    assert_exact(
        "<p>HAHAHUGOSHORTCODE-s0-HBHB and HAHAHUGOSHORTCODE alone</p>\n   \
         {{__hugo_ctx pid=1}}\n<p title=\"HAHAHUGOSHORTCODE\">x</p>",
    );
}

#[test]
fn what_a_generator_cannot_show_is_warned_about_naming_the_post_and_still_builds() {
    let content = "<p>ok</p>\n<script>\nlet t = `{% end %} {{</* x`;\n// <!--more-->\n</script>";
    for format in [Format::Zola, Format::Hugo] {
        let (shown, rendered) = built(format, content);
        assert!(shown.is_ok(), "{format:?}: {shown:?}");
        assert!(!rendered.inexact.is_empty(), "{format:?}");
        for inexact in &rendered.inexact {
            assert_eq!(inexact.slug, "a-post");
            assert!(inexact.line == 3 || inexact.line == 4, "{inexact}");
            assert!(inexact.to_string().contains("inside <script>"), "{inexact}");
        }
    }
}

/// Text and look-alikes of both generators' syntax that show exactly wherever they are.
const LOOK_ALIKES: &[&str] = &[
    "{{ youtube(id=\"abc\") }}",
    "{{youtube()}}",
    "{{ x }}",
    "{{ a(x=1, y='two', z=[1, [2]], w=true) }}",
    "{{ a(x=1,\n\n  y=-2.5) }}",
    "{% note() %}body{% end %}",
    "{% a() %}x{% b() %}y{% end %}z{% end %}",
    "{% if x %}{% endif %}",
    "{{< youtube abc >}}",
    "{{% notice info %}}",
    "{{% /notice %}}",
    "{{</* lit */>}}",
    "{{%/* lit */%}}",
    "{{<>}}",
    "{{{ f() }}}",
    "}} %} >}} */",
];

/// Look-alikes that a character reference breaks exactly (in text and attribute values), but
/// that no escape can show inside raw text.
const TEXT_ONLY: &[&str] = &[
    "{{/* c() */}}",
    "{%/* a() */%}",
    "{%/* end */%}",
    "{% end %}",
    "{% lone() %}",
    "{{ f(s=\"*/}}\") }}",
    "{{< never closed",
    "{{% never closed",
    "HAHAHUGOSHORTCODE-1-HBHB",
    "\n  {{__hugo_ctx pid=1}}\n",
];

fn words() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-z0-9 .,;:!?*_#+=()\"'`{}%/&\\[\\]-]{0,10}",
        Just(" a < b ".to_owned()),
        Just("&amp; &lt; &#123; &notin &#x7b;".to_owned()),
    ]
}

fn blank() -> impl Strategy<Value = String> {
    prop::sample::select(vec!["\n", "\n\n", "\n  \n", "\n\t\n\n", " "]).prop_map(str::to_owned)
}

/// A run of text for a place: look-alikes, words and blank lines; `text_only` adds what only
/// text and attribute values can show.
fn run(text_only: bool) -> impl Strategy<Value = String> {
    let mut atoms = LOOK_ALIKES.to_vec();
    if text_only {
        atoms.extend_from_slice(TEXT_ONLY);
    }
    prop::collection::vec(
        prop_oneof![
            3 => words(),
            3 => prop::sample::select(atoms).prop_map(str::to_owned),
            2 => blank(),
        ],
        0..5,
    )
    .prop_map(|parts| parts.concat())
}

/// Raw text: look-alikes, and with `unrepresentable` what no escape can show there.
fn raw_run(unrepresentable: bool) -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop_oneof![
            3 => words(),
            3 => prop::sample::select(LOOK_ALIKES.to_vec()).prop_map(str::to_owned),
            2 => blank(),
            1 => prop::sample::select(if unrepresentable {
                [TEXT_ONLY, &["<!--more-->", "<!-- more -->", "</style>"]].concat()
            } else {
                vec!["<!-- x -->"]
            })
            .prop_map(str::to_owned),
        ],
        0..5,
    )
    // No end tag of any raw-text element inside (the runs are put in all of them).
    .prop_map(|parts| parts.concat().replace("</", "< /"))
}

fn attribute_value() -> impl Strategy<Value = String> {
    run(true).prop_map(|v| v.replace('"', "'"))
}

fn comment(unrepresentable: bool) -> impl Strategy<Value = String> {
    prop_oneof![
        // No `--` inside (so no `-->` or `--!>`), no `>` or `->` first: the comment ends at
        // its own `-->`.
        raw_run(unrepresentable).prop_map(|c| format!("<!-- {}-->", c.replace("--", "- -"))),
        prop::sample::select(vec![
            "<!--more-->",
            "<!-- more -->",
            "<!--MORE-->",
            "<!---->"
        ])
        .prop_map(str::to_owned),
    ]
}

/// A body: elements of every kind nested, with look-alikes everywhere.
fn body(unrepresentable: bool) -> impl Strategy<Value = String> {
    let leaf = prop_oneof![
        4 => run(true),
        2 => comment(unrepresentable),
        2 => (prop::sample::select(vec!["script", "style", "xmp", "noscript", "iframe"]), raw_run(unrepresentable))
            .prop_map(|(tag, text)| format!("<{tag}>{text}</{tag}>")),
        1 => (prop::sample::select(vec!["textarea", "title"]), run(true))
            .prop_map(|(tag, text)| format!("<{tag}>{}</{tag}>", text.replace("</", "< /"))),
        1 => (attribute_value(), attribute_value())
            .prop_map(|(a, b)| format!("<img src=\"{a}\" alt=\"{b}\"><br>")),
        1 => prop::sample::select(vec!["<p data-{{f()}}=1>", "<hr {{<x y>}}>", "<br {{% z %}}>"])
            .prop_map(str::to_owned),
    ];
    let node = leaf.prop_recursive(3, 40, 5, |inner| {
        prop_oneof![
            4 => (
                prop::sample::select(vec!["p", "span", "b", "div", "pre", "em", "a", "blockquote"]),
                attribute_value(),
                prop::collection::vec(inner.clone(), 0..5),
            )
                .prop_map(|(tag, title, children)| {
                    format!("<{tag} title=\"{title}\">{}</{tag}>", children.concat())
                }),
            1 => (prop::collection::vec(inner.clone(), 0..4), run(true))
                .prop_map(|(children, title)| format!(
                    "<svg><title>{}</title><style>{title}</style><g>{}</g></svg>",
                    title.replace("</", "< /"),
                    children.concat()
                )),
            1 => (run(true), prop::collection::vec(inner.clone(), 0..3)).prop_map(|(t, children)| {
                format!(
                    "<math><mi>{}</mi></math><template>{}</template>",
                    t.replace("</", "< /"),
                    children.concat()
                )
            }),
        ]
    });
    prop::collection::vec(node, 0..6).prop_map(|nodes| nodes.concat())
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 256,
        ..ProptestConfig::default()
    })]

    /// Bodies whose every look-alike can be shown: each generator builds them, shows exactly
    /// the API's HTML and the export warns about nothing.
    #[test]
    fn the_exports_show_exactly_the_apis_html(content in body(false)) {
        for format in [Format::Zola, Format::Hugo] {
            let (shown, rendered) = built(format, &content);
            let shown = shown.map_err(|e| TestCaseError::fail(format!(
                "{format:?} fails the build: {e}\nfile:\n{}", rendered.text)))?;
            prop_assert_eq!(&shown, &dom::fragment(&content), "{:?}; file:\n{}", format, rendered.text);
            prop_assert!(rendered.inexact.is_empty(), "{:?}: {:?}", format, rendered.inexact);
        }
    }

    /// Any body: no post breaks the build, and a page that shows anything but the API's HTML
    /// comes with a warning naming the post.
    #[test]
    fn no_post_breaks_the_build_and_any_difference_is_warned_about(content in body(true)) {
        for format in [Format::Zola, Format::Hugo] {
            let (shown, rendered) = built(format, &content);
            let shown = shown.map_err(|e| TestCaseError::fail(format!(
                "{format:?} fails the build: {e}\nfile:\n{}", rendered.text)))?;
            if shown != dom::fragment(&content) {
                prop_assert!(
                    !rendered.inexact.is_empty(),
                    "{:?} shows something else and the export did not warn; file:\n{}",
                    format,
                    rendered.text
                );
            }
            for inexact in &rendered.inexact {
                prop_assert_eq!(&inexact.slug, "a-post");
            }
        }
    }
}

/// Text for the front matter's fields: what could end the front matter (`+++` on a line of its
/// own), close a TOML string or open a generator's syntax, line breaks, controls and non-ASCII.
fn front_text() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop_oneof![
            Just("+++".to_owned()),
            Just("\n".to_owned()),
            Just("\r\n".to_owned()),
            Just("'''".to_owned()),
            Just("\"\"\"".to_owned()),
            Just("\"".to_owned()),
            Just("'".to_owned()),
            Just("\\".to_owned()),
            Just("{{ x }}".to_owned()),
            Just("<!--more-->".to_owned()),
            Just("\t".to_owned()),
            Just("\u{7f}".to_owned()),
            Just("\u{1b}".to_owned()),
            "[a-zé ]{1,4}",
        ],
        0..8,
    )
    .prop_map(|parts| parts.concat())
}

/// The value at `path` (dotted) in `table`, as a string.
fn string_at<'a>(table: &'a toml::Table, path: &str) -> Option<&'a str> {
    let mut parts = path.split('.');
    let mut value = table.get(parts.next()?)?;
    for part in parts {
        value = value.get(part)?;
    }
    value.as_str()
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 256,
        ..ProptestConfig::default()
    })]

    /// Whatever the post's title, excerpt, meta title and featured image's alt text hold, both
    /// generators read the front matter (the post builds) and find each as sent.
    #[test]
    fn front_matter_fields_and_the_featured_image_come_back_as_sent(
        title in front_text(),
        excerpt in front_text(),
        meta_title in front_text(),
        alt in front_text(),
    ) {
        let mut post = serde_json::to_value(blog("<p>x</p>")).unwrap();
        post["title"] = title.clone().into();
        post["excerpt"] = excerpt.clone().into();
        post["meta_title"] = meta_title.clone().into();
        post["featured_image"] = serde_json::json!({
            "url": "https://blog.example.com/media/0190a1b2-0000-7000-8000-000000000001/9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08.jpg",
            "width": 1200,
            "height": 800,
            "alt": alt,
            "variants": [],
        });
        let post: BlogDetail = serde_json::from_value(post).unwrap();
        for (format, table) in [(Format::Zola, "extra"), (Format::Hugo, "params")] {
            let rendered = render_file(format, &post, &[]);
            let split = match format {
                Format::Zola => zola::split(&rendered.text),
                _ => hugo::split(&rendered.text),
            };
            let (front, _) = split.map_err(|e| TestCaseError::fail(format!(
                "{format:?} fails the build: {e}\nfile:\n{}", rendered.text)))?;
            prop_assert_eq!(string_at(&front, "title"), Some(title.as_str()), "{:?}", format);
            prop_assert_eq!(
                string_at(&front, &format!("{table}.excerpt")),
                Some(excerpt.as_str()),
                "{:?}", format
            );
            prop_assert_eq!(
                string_at(&front, &format!("{table}.meta_title")),
                Some(meta_title.as_str()),
                "{:?}", format
            );
            prop_assert_eq!(
                string_at(&front, &format!("{table}.featured_image_alt")),
                Some(alt.as_str()),
                "{:?}; file:\n{}", format, rendered.text
            );
            prop_assert_eq!(
                front[table].get("featured_image_width").and_then(toml::Value::as_integer),
                Some(1200)
            );
        }
    }
}

/// Bodies drawn from [`body`] with a fixed seed.
fn sample(count: usize, unrepresentable: bool) -> Vec<String> {
    let mut runner = TestRunner::deterministic();
    let strategy = body(unrepresentable);
    (0..count)
        .map(|_| strategy.new_tree(&mut runner).unwrap().current())
        .collect()
}

/// A folder for one test, empty.
fn tempdir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("blogread-gen-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs `program args` in `dir`; panics with its output when it fails.
fn run_generator(program: &std::path::Path, dir: &std::path::Path, args: &[&str]) {
    let out = std::process::Command::new(program)
        .current_dir(dir)
        .args(args)
        .env("HUGO_CACHEDIR", dir.join(".hugo-cache"))
        .env_remove("HUGO_ENVIRONMENT")
        .env_remove("HUGO_ENV")
        .output()
        .expect("the generator starts");
    assert!(
        out.status.success(),
        "{} {args:?} failed:\n{}{}",
        program.display(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The bodies of both samples, and the files the export writes for them (`post-<n>`).
fn sampled_posts(format: Format) -> Vec<(String, String, Rendered)> {
    let mut bodies = sample(48, false);
    bodies.extend(sample(48, true));
    bodies
        .into_iter()
        .enumerate()
        .map(|(i, content)| {
            let slug = format!("post-{i}");
            let rendered = render_file(format, &blog_with_slug(&slug, &content), &[]);
            (slug, content, rendered)
        })
        .collect()
}

#[test]
fn the_real_hugo_builds_sampled_bodies_as_the_model_says() {
    let hugo = match std::env::var_os("BLOGREAD_TEST_HUGO") {
        Some(path) if !path.is_empty() => std::path::PathBuf::from(path),
        _ if std::env::var("BLOGREAD_REQUIRE_HUGO").as_deref() == Ok("1") => {
            panic!(
                "BLOGREAD_REQUIRE_HUGO=1 but BLOGREAD_TEST_HUGO is not set: run under scripts/with-hugo"
            )
        }
        _ => {
            eprintln!("skipped: BLOGREAD_TEST_HUGO is not set (run under scripts/with-hugo)");
            return;
        }
    };
    let site = tempdir("hugo");
    std::fs::write(
        site.join("hugo.toml"),
        "baseURL = 'https://example.org/'\ntitle = 'Sampled'\n[security]\nallowContent = ['! ^text/org$']\n",
    )
    .unwrap();
    std::fs::create_dir_all(site.join("layouts")).unwrap();
    std::fs::write(
        site.join("layouts/single.html"),
        "<!DOCTYPE html>\n<html><head><title>{{ .Title }}</title></head>\n\
         <body><h1>{{ .Title }}</h1>{{ .Content }}</body></html>\n",
    )
    .unwrap();
    std::fs::write(
        site.join("layouts/list.html"),
        "<!DOCTYPE html>\n<html><head><title>{{ .Title }}</title></head><body></body></html>\n",
    )
    .unwrap();
    let content = site.join("content/blog");
    std::fs::create_dir_all(&content).unwrap();
    let posts = sampled_posts(Format::Hugo);
    for (_, _, rendered) in &posts {
        std::fs::write(content.join(&rendered.path), &rendered.text).unwrap();
    }
    run_generator(&hugo, &site, &[]);
    for (slug, api, rendered) in &posts {
        let page = std::fs::read_to_string(site.join(format!("public/blog/{slug}/index.html")))
            .unwrap_or_else(|e| panic!("{slug}: {e}"));
        let body = dom::body(&page);
        assert!(body[0].is_element("h1"), "{slug}: {page}");
        let real = dom::trim_end(body[1..].to_vec());
        let model = hugo::render(&rendered.text).unwrap_or_else(|e| panic!("{slug}: {e}"));
        assert_eq!(
            real,
            dom::trim_end(dom::fragment(&model)),
            "{slug}: the real Hugo and the model disagree\nfile:\n{}\npage:\n{page}",
            rendered.text
        );
        if rendered.inexact.is_empty() {
            assert_eq!(real, dom::trim_end(dom::fragment(api)), "{slug}: {page}");
        }
    }
    std::fs::remove_dir_all(&site).unwrap();
}

#[test]
fn the_real_zola_builds_sampled_bodies_as_the_model_says() {
    let zola = match std::env::var_os("BLOGREAD_TEST_ZOLA") {
        Some(path) if !path.is_empty() => std::path::PathBuf::from(path),
        _ => {
            eprintln!("skipped: BLOGREAD_TEST_ZOLA is not set (the path of a zola binary)");
            return;
        }
    };
    let site = tempdir("zola");
    std::fs::write(
        site.join("config.toml"),
        "base_url = \"https://example.org\"\n",
    )
    .unwrap();
    let templates = site.join("templates");
    std::fs::create_dir_all(&templates).unwrap();
    let empty = "<!DOCTYPE html>\n<html><head><title>x</title></head><body></body></html>\n";
    std::fs::write(templates.join("index.html"), empty).unwrap();
    std::fs::write(templates.join("section.html"), empty).unwrap();
    std::fs::write(
        templates.join("page.html"),
        "<!DOCTYPE html>\n<html><head><title>{{ page.title }}</title></head>\n\
         <body><h1>{{ page.title }}</h1>{{ page.content | safe }}</body></html>\n",
    )
    .unwrap();
    let content = site.join("content/blog");
    std::fs::create_dir_all(&content).unwrap();
    std::fs::write(content.join("_index.md"), "+++\ntitle = \"Blog\"\n+++\n").unwrap();
    let posts = sampled_posts(Format::Zola);
    for (_, _, rendered) in &posts {
        std::fs::write(content.join(&rendered.path), &rendered.text).unwrap();
    }
    run_generator(&zola, &site, &["build"]);
    for (slug, api, rendered) in &posts {
        let page = std::fs::read_to_string(site.join(format!("public/blog/{slug}/index.html")))
            .unwrap_or_else(|e| panic!("{slug}: {e}"));
        let body = dom::body(&page);
        let real = dom::children_of_class(&body, "blogread-content")
            .unwrap_or_else(|| panic!("{slug}: no wrapper in {page}"))
            .to_vec();
        let model = zola::render(&rendered.text).unwrap_or_else(|e| panic!("{slug}: {e}"));
        let model = dom::fragment(&model);
        assert_eq!(
            real,
            dom::children_of_class(&model, "blogread-content")
                .unwrap()
                .to_vec(),
            "{slug}: the real Zola and the model disagree\nfile:\n{}\npage:\n{page}",
            rendered.text
        );
        if rendered.inexact.is_empty() {
            assert_eq!(real, dom::fragment(api), "{slug}: {page}");
        }
    }
    std::fs::remove_dir_all(&site).unwrap();
}
