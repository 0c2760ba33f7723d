//! The export built into a site for real: the Hugo output with the real Hugo (the README's
//! steps on a site made by `hugo new site`), the plain HTML output checked file by file. Posts
//! link to each other, to a draft, to an unpublished and to a missing post; after an
//! unpublish, a second export and build must drop the page.
//!
//! Posts whose bodies look like Hugo's and Zola's own syntax build too, and every page shows
//! exactly the API's content (compared as a browser builds both).
//!
//! Hugo comes from `BLOGREAD_TEST_HUGO` (the binary's path, as `scripts/with-hugo` exports
//! it). Without it the Hugo tests print that they were skipped and pass, unless
//! `BLOGREAD_REQUIRE_HUGO=1` (CI sets it), which makes a missing Hugo a failure.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use blogread_client::export::{
    self, ExportError, ExportOptions, Format, HugoConfigError, HugoSite,
};
use blogread_client::{Client, ListParams};
use blogread_tests::{Scratch, TestApp, TestProject, dom, spawn_app};
use reqwest::Method;
use serde_json::json;

/// The `baseURL` that `hugo new site` writes, and so the project's site URL.
const SITE_URL: &str = "https://example.org";

/// The README, whose Hugo steps the test follows.
const README: &str = include_str!("../../../README.md");

/// The Hugo binary, or `None` (with a note) when the test is to be skipped.
fn hugo() -> Option<PathBuf> {
    match std::env::var_os("BLOGREAD_TEST_HUGO") {
        Some(path) if !path.is_empty() => Some(PathBuf::from(path)),
        _ if std::env::var("BLOGREAD_REQUIRE_HUGO").as_deref() == Ok("1") => panic!(
            "BLOGREAD_REQUIRE_HUGO=1 but BLOGREAD_TEST_HUGO is not set: run under scripts/with-hugo"
        ),
        _ => {
            eprintln!(
                "skipped: BLOGREAD_TEST_HUGO is not set (run under scripts/with-hugo to build with the real Hugo)"
            );
            None
        }
    }
}

/// Runs `hugo args...` in `dir`; panics with its output when it fails.
async fn run_hugo(hugo: &Path, dir: &Path, args: &[&str]) -> String {
    let mut cmd = Command::new(hugo);
    cmd.current_dir(dir)
        .args(args)
        // Hugo's cache and module folders inside the test's own folder.
        .env("HUGO_CACHEDIR", dir.join(".hugo-cache"))
        .env_remove("HUGO_ENVIRONMENT")
        .env_remove("HUGO_ENV");
    let out = tokio::task::spawn_blocking(move || cmd.output())
        .await
        .expect("hugo runs")
        .expect("hugo starts");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "hugo {args:?} failed:\n{text}");
    text
}

/// A new, empty folder for one test.
/// Every file below `dir`, relative, with `/`.
fn walk(dir: &Path) -> BTreeSet<String> {
    fn go(root: &Path, dir: &Path, out: &mut BTreeSet<String>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                go(root, &path, out);
            } else {
                let rel = path.strip_prefix(root).unwrap();
                out.insert(rel.to_string_lossy().replace('\\', "/"));
            }
        }
    }
    let mut out = BTreeSet::new();
    if dir.exists() {
        go(dir, dir, &mut out);
    }
    out
}

/// The body of the README's `cat > layouts/<name> <<'EOF'` step.
fn readme_layout(name: &str) -> String {
    let start = format!("cat > layouts/{name} <<'EOF'\n");
    let at = README
        .find(&start)
        .unwrap_or_else(|| panic!("the README writes layouts/{name}"));
    let rest = &README[at + start.len()..];
    rest[..rest.find("\nEOF\n").expect("the heredoc ends")].to_owned() + "\n"
}

/// A project whose posts link to each other, to a draft, to an unpublished and to a missing
/// post. Returns the project and the id of `post-b` (to unpublish later).
async fn seed(app: &TestApp) -> (TestProject, String) {
    let p = app.new_project(Some(SITE_URL)).await;
    app.published_blog(
        &p,
        "post-a",
        "2026-01-01T10:00:00Z",
        json!({
            "content": "<p>See <a href=\"[INTERNAL:post-b]\">B</a>, <a href=\"[INTERNAL:post-c]\">C</a>, \
                        <a href=\"[INTERNAL:draft-post]\">the draft</a>, \
                        <a href=\"[INTERNAL:gone-post]\">the gone one</a> and \
                        <a href=\"[INTERNAL:missing-post]\">the missing one</a>.</p>\n\n\
                        <p>Bare: [INTERNAL:post-c].</p>",
            "categories": ["Engineering", "News"],
            "tags": ["rust", "hugo"],
            "featured_image_url": "https://img.example.com/a.jpg",
            "excerpt": "About A",
            "meta_description": "A, described",
        }),
    )
    .await;
    let b = app
        .published_blog(
            &p,
            "post-b",
            "2026-02-01T10:00:00Z",
            json!({"content": "<p>Back to <a href=\"[INTERNAL:post-a]\">A</a>.</p>", "categories": ["News"]}),
        )
        .await;
    app.published_blog(
        &p,
        "post-c",
        "2026-03-01T10:00:00Z",
        json!({"content": "<p>To <a href=\"[INTERNAL:post-b]\">B</a> and <a href=\"[INTERNAL:post-a]\">A</a>.</p>", "tags": ["rust"]}),
    )
    .await;
    let gone = app
        .published_blog(&p, "gone-post", "2026-01-15T10:00:00Z", json!({}))
        .await;
    unpublish(app, &p, &gone).await;
    app.create_blog(&p, json!({"title": "Draft", "slug": "draft-post"}))
        .await;
    (p, b)
}

async fn unpublish(app: &TestApp, p: &TestProject, id: &str) {
    let r = app
        .send(
            Method::POST,
            &p.path(&format!("/blogs/{id}/unpublish")),
            Some(&p.admin),
            None,
        )
        .await;
    assert_eq!(r.status, 200, "{r:?}");
}

/// The API's `total` of published posts.
async fn total(client: &Client) -> usize {
    client.list(&ListParams::new()).await.unwrap().total as usize
}

/// The links in `text` (`href` and `src` values, sitemap `<loc>`s).
fn links(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    for marker in ["href=\"", "src=\"", "<loc>"] {
        for (i, _) in text.match_indices(marker) {
            let rest = &text[i + marker.len()..];
            if let Some(end) = rest.find(['"', '<']) {
                out.push(&rest[..end]);
            }
        }
    }
    out
}

/// Checks every file of the built site `public`: no raw placeholder, and every link to the
/// site (absolute under `SITE_URL`, or root-relative) points at a file that was built.
/// Returns how many internal links were checked.
fn check_links(public: &Path) -> usize {
    let files = walk(public);
    let mut internal = 0;
    for rel in &files {
        let Ok(text) = std::fs::read_to_string(public.join(rel)) else {
            continue;
        };
        assert!(!text.contains("[INTERNAL:"), "{rel}: raw placeholder");
        for link in links(&text) {
            let path = match link.strip_prefix(SITE_URL) {
                Some(path) => path,
                None if link.starts_with('/') && !link.starts_with("//") => link,
                None => continue,
            };
            internal += 1;
            let path = path
                .split(['#', '?'])
                .next()
                .unwrap_or_default()
                .trim_start_matches('/');
            let target = if path.is_empty() || path.ends_with('/') {
                format!("{path}index.html")
            } else {
                path.to_owned()
            };
            assert!(
                files.contains(&target),
                "{rel}: {link} points at no built page"
            );
        }
    }
    internal
}

/// The posts built into `public/blog/`: the folders holding an `index.html`.
fn built_posts(public: &Path) -> BTreeSet<String> {
    walk(&public.join("blog"))
        .into_iter()
        .filter_map(|rel| rel.strip_suffix("/index.html").map(str::to_owned))
        .filter(|slug| !slug.contains('/'))
        .collect()
}

/// Makes a site the way the README says: `hugo new site`, then the two layouts.
async fn new_hugo_site(hugo: &Path, root: &Path) -> PathBuf {
    run_hugo(hugo, root, &["new", "site", "mysite"]).await;
    let site = root.join("mysite");
    for name in ["single.html", "list.html"] {
        std::fs::write(site.join("layouts").join(name), readme_layout(name)).unwrap();
    }
    site
}

#[tokio::test]
async fn the_readme_hugo_steps_build_every_published_post_with_working_links() {
    let Some(hugo) = hugo() else { return };
    for step in [
        "hugo new site mysite && cd mysite",
        "blogread export --format hugo --out content/blog --configure-hugo",
        "hugo --cleanDestinationDir",
    ] {
        assert!(
            README.contains(step),
            "the README's Hugo steps include `{step}`"
        );
    }
    let app = spawn_app().await;
    let (p, b) = seed(&app).await;
    let client = Client::new(&app.base, &p.key).unwrap();
    let root = Scratch::folder("hugo");
    let site = new_hugo_site(&hugo, &root).await;
    let config = site.join("hugo.toml");
    let fresh_config = std::fs::read_to_string(&config).unwrap();

    // `blogread export --format hugo --out content/blog --configure-hugo`, from the site's root.
    let options = ExportOptions::new(site.join("content/blog"), Format::Hugo)
        .state_dir(site.join(".blogread"))
        .configure_hugo(true);
    let report = export::export(&client, &options, &mut |_, _| {})
        .await
        .unwrap();
    assert_eq!(
        report.hugo,
        Some(HugoSite::Configured {
            file: config.clone()
        })
    );
    assert_eq!(
        std::fs::read_to_string(&config).unwrap(),
        format!("{fresh_config}\n[security]\nallowContent = ['! ^text/org$']\n"),
        "the site's own lines are kept; the policy is added"
    );
    run_hugo(&hugo, &site, &["--cleanDestinationDir"]).await;

    let public = site.join("public");
    let api_total = total(&client).await;
    assert_eq!(api_total, 3);
    assert_eq!(
        built_posts(&public),
        BTreeSet::from(["post-a".into(), "post-b".into(), "post-c".into()])
    );
    assert_eq!(built_posts(&public).len(), api_total);
    let internal = check_links(&public);
    assert!(internal >= 6, "links were checked: {internal}");

    // The body reached the page unchanged: resolved links, and the anchor text of the links
    // to the draft, the unpublished and the missing post.
    let a = std::fs::read_to_string(public.join("blog/post-a/index.html")).unwrap();
    assert!(
        a.contains(&format!("<a href=\"{SITE_URL}/blog/post-b/\">B</a>")),
        "{a}"
    );
    assert!(
        a.contains(&format!(
            "Bare: <a href=\"{SITE_URL}/blog/post-c/\">Title of post-c</a>."
        )),
        "{a}"
    );
    for text in ["the draft", "the gone one", "the missing one"] {
        assert!(a.contains(text), "{text}: {a}");
    }
    for slug in ["draft-post", "gone-post", "missing-post"] {
        assert!(!a.contains(slug), "{slug}: {a}");
    }
    // Hugo read the front matter: the taxonomies have pages.
    let files = walk(&public);
    for page in [
        "categories/engineering/index.html",
        "categories/news/index.html",
        "tags/rust/index.html",
        "tags/hugo/index.html",
    ] {
        assert!(files.contains(page), "{page}: {files:?}");
    }

    // Unpublish B: the second export removes its file, the build its page, and no link to it
    // is left.
    unpublish(&app, &p, &b).await;
    let report = export::export(&client, &options, &mut |_, _| {})
        .await
        .unwrap();
    assert_eq!(report.removed, vec!["post-b.html"]);
    assert_eq!(report.hugo, Some(HugoSite::Allowed { file: config }));
    run_hugo(&hugo, &site, &["--cleanDestinationDir"]).await;
    assert_eq!(
        built_posts(&public),
        BTreeSet::from(["post-a".into(), "post-c".into()])
    );
    assert_eq!(built_posts(&public).len(), total(&client).await);
    assert!(check_links(&public) >= 3);
    let a = std::fs::read_to_string(public.join("blog/post-a/index.html")).unwrap();
    assert!(!a.contains("/blog/post-b/"), "{a}");
}

#[tokio::test]
async fn a_fresh_hugo_site_without_configure_hugo_stops_with_the_lines_to_add_and_writes_nothing() {
    let Some(hugo) = hugo() else { return };
    let app = spawn_app().await;
    let (p, _) = seed(&app).await;
    let client = Client::new(&app.base, &p.key).unwrap();
    let root = Scratch::folder("hugo-fresh");
    let site = new_hugo_site(&hugo, &root).await;
    let config = site.join("hugo.toml");
    let fresh_config = std::fs::read_to_string(&config).unwrap();
    let before = walk(&site);

    let options = ExportOptions::new(site.join("content/blog"), Format::Hugo)
        .state_dir(site.join(".blogread"));
    let err = export::export(&client, &options, &mut |_, _| {})
        .await
        .unwrap_err();
    let ExportError::HugoConfig(HugoConfigError::Missing { file, lines, .. }) = &err else {
        panic!("{err:?}")
    };
    assert_eq!(file, &config);
    assert_eq!(lines, "[security]\nallowContent = ['! ^text/org$']");
    let message = err.to_string();
    assert!(
        message.contains(&config.display().to_string())
            && message.contains(lines.as_str())
            && message.contains("--configure-hugo"),
        "{message}"
    );
    assert_eq!(walk(&site), before, "nothing written");
    assert!(!site.join("content/blog").exists() && !site.join(".blogread").exists());
    assert_eq!(std::fs::read_to_string(&config).unwrap(), fresh_config);

    // The lines, added as printed, are what Hugo needs.
    std::fs::write(&config, format!("{fresh_config}{lines}\n")).unwrap();
    let report = export::export(&client, &options, &mut |_, _| {})
        .await
        .unwrap();
    assert_eq!(report.blogs, 3);
    run_hugo(&hugo, &site, &["--cleanDestinationDir"]).await;
    assert_eq!(
        built_posts(&site.join("public")).len(),
        total(&client).await
    );
}

#[tokio::test]
async fn the_html_export_has_every_published_post_and_no_broken_internal_link() {
    let app = spawn_app().await;
    let (p, b) = seed(&app).await;
    let client = Client::new(&app.base, &p.key).unwrap();
    let site = Scratch::folder("html-build");
    let public = site.join("public");
    let options =
        ExportOptions::new(public.join("blog"), Format::Html).state_dir(site.join(".blogread"));

    let report = export::export(&client, &options, &mut |_, _| {})
        .await
        .unwrap();
    assert_eq!(report.hugo, None);
    assert_eq!(built_posts(&public).len(), total(&client).await);
    assert_eq!(
        built_posts(&public),
        BTreeSet::from(["post-a".into(), "post-b".into(), "post-c".into()])
    );
    let internal = check_links(&public);
    assert!(internal >= 6, "links were checked: {internal}");
    let a = std::fs::read_to_string(public.join("blog/post-a/index.html")).unwrap();
    for text in ["the draft", "the gone one", "the missing one"] {
        assert!(a.contains(text), "{text}: {a}");
    }

    unpublish(&app, &p, &b).await;
    let report = export::export(&client, &options, &mut |_, _| {})
        .await
        .unwrap();
    assert_eq!(report.removed, vec!["post-b/index.html"]);
    assert_eq!(
        built_posts(&public),
        BTreeSet::from(["post-a".into(), "post-c".into()])
    );
    assert_eq!(built_posts(&public).len(), total(&client).await);
    check_links(&public);
}

#[tokio::test]
async fn a_renamed_post_builds_with_hugo_and_its_old_address_redirects() {
    let Some(hugo) = hugo() else { return };
    let app = spawn_app().await;
    let p = app.new_project(Some(SITE_URL)).await;
    let id = app
        .published_blog(
            &p,
            "old-name",
            "2026-01-01T10:00:00Z",
            json!({"content": "<p>Hi</p>"}),
        )
        .await;
    let r = app
        .send(
            Method::PATCH,
            &p.path(&format!("/blogs/{id}")),
            Some(&p.admin),
            Some(json!({"slug": "new-name"})),
        )
        .await;
    assert_eq!(r.status, 200, "{r:?}");
    assert_eq!(app.publish(&p, &id, None).await.status, 200);
    let client = Client::new(&app.base, &p.key).unwrap();
    let root = Scratch::folder("hugo-alias");
    let site = new_hugo_site(&hugo, &root).await;
    let options = ExportOptions::new(site.join("content/blog"), Format::Hugo)
        .state_dir(site.join(".blogread"))
        .configure_hugo(true);
    export::export(&client, &options, &mut |_, _| {})
        .await
        .unwrap();
    run_hugo(&hugo, &site, &["--cleanDestinationDir"]).await;
    let public = site.join("public");
    assert!(public.join("blog/new-name/index.html").is_file());
    let alias = std::fs::read_to_string(public.join("blog/old-name/index.html")).unwrap();
    assert!(
        alias.contains("/blog/new-name/"),
        "Hugo's alias page sends to the new address: {alias}"
    );
}

/// Posts whose bodies hold what Hugo and Zola would take for their own syntax: shortcodes of
/// both, their escapes written literally, the summary divider, Hugo's placeholders and context
/// markers, inside text, attributes, comments and raw-text elements, and blank lines inside
/// `<script>`, `<style>`, `<pre>` and `<textarea>`.
const LOOK_ALIKE_POSTS: &[(&str, &str)] = &[
    (
        "hugo-shortcodes",
        "<p>{{% notice %}}x{{% /notice %}}</p>\n<p>Embed: {{< youtube abc >}}</p>\n\
         <p>Escaped: <code>{{</* youtube abc */>}}</code> and <code>{{%/* notice */%}}</code>\
         </p>\n<p>Openers alone: {{< and {{% and closers alone: >}} %}}</p>",
    ),
    (
        "zola-shortcodes",
        "<p>{{ youtube(id=\"abc\") }}</p>\n<p>{% note(kind=\"warn\") %}A body{% end %}</p>\n\
         <p>Escaped: <code>{{/* youtube(id=\"abc\") */}}</code>, <code>{%/* note() */%}\
         </code> ... <code>{%/* end */%}</code>, <code>{% end %}</code>, <code>{{ x }}</code></p>",
    ),
    (
        "raw-text-blank-lines",
        "<p>A script, a style, a pre and a textarea with blank lines:</p>\n\n<script>\n\
         const page = `first\n\nsecond`;\n\n\nconsole.log(page, \"{{< x >}}\", \"{{ f() }}\");\n\
         </script>\n<style>\np { margin: 0 }\n\n  \n/* {{% y %}} {% tpl() %}x{% end %} */\n</style>\n\
         <pre>a\n\n\nb {{</* lit */>}}</pre>\n<textarea>\n\nq {{% notice %}}\n\n</textarea>\n\
         \n<p>*not emphasis* and _not_ either</p>",
    ),
    (
        "summary-dividers",
        "<p>Intro</p><!--more--> <p title=\"<!--more-->\">After the divider</p>\n\
         <!-- more --><p>HAHAHUGOSHORTCODE-s0-HBHB and HAHAHUGOSHORTCODE</p>\n<pre>\n   \
         {{__hugo_ctx pid=1}}\n</pre>",
    ),
];

/// A title and an excerpt with a line of `+++`, which ends front matter for both generators.
const PLUS_SIGNS_TITLE: &str = "Plus signs\n+++\nin a title";

/// A project with the [`LOOK_ALIKE_POSTS`], and a post whose title and excerpt hold a line of
/// `+++` (its slug `plus-signs`).
async fn seed_look_alikes(app: &TestApp) -> TestProject {
    let p = app.new_project(Some(SITE_URL)).await;
    for (i, (slug, content)) in LOOK_ALIKE_POSTS.iter().enumerate() {
        app.published_blog(
            &p,
            slug,
            &format!("2026-0{}-01T10:00:00Z", i + 1),
            json!({ "content": content }),
        )
        .await;
    }
    app.published_blog(
        &p,
        "plus-signs",
        "2026-09-01T10:00:00Z",
        json!({ "title": PLUS_SIGNS_TITLE, "excerpt": "a\n+++\nb", "content": "<p>x</p>" }),
    )
    .await;
    p
}

#[tokio::test]
async fn posts_with_look_alikes_of_generator_syntax_build_with_hugo_and_show_the_apis_html() {
    let Some(hugo) = hugo() else { return };
    let app = spawn_app().await;
    let p = seed_look_alikes(&app).await;
    let client = Client::new(&app.base, &p.key).unwrap();
    let root = Scratch::folder("hugo-look-alikes");
    let site = new_hugo_site(&hugo, &root).await;
    let options = ExportOptions::new(site.join("content/blog"), Format::Hugo)
        .state_dir(site.join(".blogread"))
        .configure_hugo(true);
    let report = export::export(&client, &options, &mut |_, _| {})
        .await
        .unwrap();
    assert_eq!(report.blogs, LOOK_ALIKE_POSTS.len() + 1);
    assert!(report.inexact.is_empty(), "{:?}", report.inexact);
    run_hugo(&hugo, &site, &["--cleanDestinationDir"]).await;

    let public = site.join("public");
    assert_eq!(built_posts(&public).len(), LOOK_ALIKE_POSTS.len() + 1);
    let plus_signs = std::fs::read_to_string(public.join("blog/plus-signs/index.html")).unwrap();
    assert_eq!(
        dom::body(&plus_signs)[0],
        dom::fragment(&format!(
            "<h1>{}</h1>",
            PLUS_SIGNS_TITLE.replace('\n', "&#10;")
        ))[0]
    );
    let slugs = LOOK_ALIKE_POSTS.iter().map(|(slug, _)| *slug);
    for slug in slugs.chain(["plus-signs"]) {
        let api = client.get(slug).await.unwrap().content;
        let page = std::fs::read_to_string(public.join(format!("blog/{slug}/index.html"))).unwrap();
        // The README's layout: <body><h1>{{ .Title }}</h1>{{ .Content }}</body>.
        let body = dom::body(&page);
        assert!(body[0].is_element("h1"), "{slug}: {page}");
        assert_eq!(
            dom::trim_end(body[1..].to_vec()),
            dom::trim_end(dom::fragment(&api)),
            "{slug}: the page shows something else than the API's content\npage:\n{page}\nAPI:\n{api}"
        );
    }
}

/// A Zola binary from `BLOGREAD_TEST_ZOLA`, or `None` with a note: Zola cannot be installed
/// from a package registry, so this test runs only where one is at hand (built from source,
/// say); the Zola export is checked through a model of Zola's steps in `tests/generators.rs`.
fn zola() -> Option<PathBuf> {
    match std::env::var_os("BLOGREAD_TEST_ZOLA") {
        Some(path) if !path.is_empty() => Some(PathBuf::from(path)),
        _ => {
            eprintln!("skipped: BLOGREAD_TEST_ZOLA is not set (the path of a zola binary)");
            None
        }
    }
}

/// A new Zola site in the scratch folder `name`: its configuration, empty index and section
/// templates, `page_template` for pages, and the `blog` section the export writes into.
fn new_zola_site(name: &str, page_template: &str) -> Scratch {
    let site = Scratch::folder(name);
    std::fs::write(
        site.join("config.toml"),
        format!("base_url = \"{SITE_URL}\"\n"),
    )
    .unwrap();
    let templates = site.join("templates");
    std::fs::create_dir_all(&templates).unwrap();
    let empty = "<!DOCTYPE html>\n<html><head><title>x</title></head><body></body></html>\n";
    std::fs::write(templates.join("index.html"), empty).unwrap();
    std::fs::write(templates.join("section.html"), empty).unwrap();
    std::fs::write(templates.join("page.html"), page_template).unwrap();
    std::fs::create_dir_all(site.join("content/blog")).unwrap();
    std::fs::write(
        site.join("content/blog/_index.md"),
        "+++\ntitle = \"Blog\"\n+++\n",
    )
    .unwrap();
    site
}

/// Runs `zola build` in `site`; fails the test with Zola's output if the build fails.
async fn run_zola(zola: &Path, site: &Path) {
    let mut cmd = Command::new(zola);
    cmd.current_dir(site).arg("build");
    let out = tokio::task::spawn_blocking(move || cmd.output())
        .await
        .unwrap()
        .expect("zola starts");
    assert!(
        out.status.success(),
        "zola build failed:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The file name (`<sha256>.<ext>`) of a media item's master, as the export writes it.
fn media_file(item: &serde_json::Value) -> String {
    blogread_client::MediaUrl::parse(item["url"].as_str().unwrap())
        .unwrap()
        .file_name()
}

#[tokio::test]
async fn posts_with_look_alikes_of_generator_syntax_build_with_zola_and_show_the_apis_html() {
    let Some(zola) = zola() else { return };
    let app = spawn_app().await;
    let p = seed_look_alikes(&app).await;
    let client = Client::new(&app.base, &p.key).unwrap();
    let site = new_zola_site(
        "zola-look-alikes",
        "<!DOCTYPE html>\n<html><head><title>{{ page.title }}</title></head>\n\
         <body><h1>{{ page.title }}</h1>{{ page.content | safe }}</body></html>\n",
    );
    let options = ExportOptions::new(site.join("content/blog"), Format::Zola)
        .state_dir(site.join(".blogread"));
    let report = export::export(&client, &options, &mut |_, _| {})
        .await
        .unwrap();
    assert_eq!(report.blogs, LOOK_ALIKE_POSTS.len() + 1);
    assert!(report.inexact.is_empty(), "{:?}", report.inexact);
    run_zola(&zola, &site).await;
    let public = site.join("public");
    let plus_signs = std::fs::read_to_string(public.join("blog/plus-signs/index.html")).unwrap();
    assert_eq!(
        dom::body(&plus_signs)[0],
        dom::fragment(&format!(
            "<h1>{}</h1>",
            PLUS_SIGNS_TITLE.replace('\n', "&#10;")
        ))[0]
    );
    let slugs = LOOK_ALIKE_POSTS.iter().map(|(slug, _)| *slug);
    for slug in slugs.chain(["plus-signs"]) {
        let api = client.get(slug).await.unwrap().content;
        let page = std::fs::read_to_string(public.join(format!("blog/{slug}/index.html"))).unwrap();
        let body = dom::body(&page);
        let shown = dom::children_of_class(&body, "blogread-content")
            .unwrap_or_else(|| panic!("{slug}: no wrapper in {page}"));
        assert_eq!(
            shown,
            dom::fragment(&api),
            "{slug}: the page shows something else than the API's content\npage:\n{page}\nAPI:\n{api}"
        );
    }
}

/// The first build of the seeded images' site (`crate::media::seed_with_images`) holds image
/// two whole, `harbour` shows it at its size, and `kite`'s body its 480 px variant.
fn assert_image_two_is_built(public: &Path, two: &serde_json::Value) {
    let f2 = media_file(two);
    let built = std::fs::read(public.join("media").join(&f2)).unwrap();
    assert_eq!(built.len() as u64, two["bytes"].as_u64().unwrap());
    let harbour = std::fs::read_to_string(public.join("blog/harbour/index.html")).unwrap();
    assert!(
        harbour.contains(&format!(
            "<img src=\"/media/{f2}\" width=\"{}\" height=\"{}\" alt=\"\">",
            two["width"], two["height"]
        )),
        "{harbour}"
    );
    let kite = std::fs::read_to_string(public.join("blog/kite/index.html")).unwrap();
    assert!(
        kite.contains(&format!(
            "src=\"/media/{f2}\" width=\"480\" height=\"{}\"",
            two["variants"][0]["height"]
        )),
        "{kite}"
    );
}

/// Uploads a new 640 × 480 image, makes it `harbour`'s body image and `kite`'s featured image
/// (`ids`: `kite`'s, then `harbour`'s), and exports again: the new image's file name and the
/// run's report, checked to be incremental and to have downloaded that one image only.
async fn replace_images_and_export(
    app: &TestApp,
    p: &TestProject,
    (kite_id, harbour_id): &(String, String),
    client: &Client,
    options: &ExportOptions,
) -> (String, export::ExportReport) {
    let three = app
        .upload_image(p, &crate::media::jpeg(640, 480, 3), "New")
        .await;
    let url = three["url"].as_str().unwrap();
    let body = format!("<p><img src=\"{url}\" alt=\"new\"></p>");
    crate::media::edit_and_publish(app, p, harbour_id, json!({ "content": body })).await;
    crate::media::edit_and_publish(app, p, kite_id, json!({ "featured_image_url": url })).await;
    let report = export::export(client, options, &mut |_, _| {})
        .await
        .unwrap();
    assert_eq!(report.full_read, None, "incremental");
    let f3 = media_file(&three);
    assert_eq!(report.media.downloaded, vec![format!("media/{f3}")]);
    (f3, report)
}

#[tokio::test]
async fn hugo_builds_the_exported_images_at_their_site_paths_with_their_sizes() {
    let Some(hugo) = hugo() else { return };
    let app = spawn_app().await;
    let crate::media::Seeded {
        p,
        one,
        two,
        kite: kite_id,
        harbour: harbour_id,
    } = crate::media::seed_with_images(&app).await;
    let ids = (kite_id, harbour_id);
    let client = Client::new(&app.base, &p.key).unwrap();
    let root = Scratch::folder("hugo-media");
    let site = new_hugo_site(&hugo, &root).await;
    // The site's static folder, as `blogread export` run from the site's root finds it.
    let options = ExportOptions::new(site.join("content/blog"), Format::Hugo)
        .state_dir(site.join(".blogread"))
        .static_dir(site.join("static"))
        .configure_hugo(true);
    export::export(&client, &options, &mut |_, _| {})
        .await
        .unwrap();
    run_hugo(&hugo, &site, &["--cleanDestinationDir"]).await;

    let public = site.join("public");
    let f2 = media_file(&two);
    assert_image_two_is_built(&public, &two);
    assert!(public.join("media").join(media_file(&one)).is_file());
    // Every image the pages name is in the built site.
    assert!(check_links(&public) >= 2);

    // A new image replaces `harbour`'s and `kite`'s featured one: after an incremental export
    // and a build, the page shows the new file, and the old featured image, which no post
    // uses any more, is gone from the site.
    let (f3, report) = replace_images_and_export(&app, &p, &ids, &client, &options).await;
    run_hugo(&hugo, &site, &["--cleanDestinationDir"]).await;
    let harbour = std::fs::read_to_string(public.join("blog/harbour/index.html")).unwrap();
    assert!(
        harbour.contains(&format!(
            "<img src=\"/media/{f3}\" width=\"640\" height=\"480\" alt=\"new\">"
        )),
        "{harbour}"
    );
    assert!(public.join("media").join(&f3).is_file());
    let f1 = media_file(&one);
    assert_eq!(report.media.removed, vec![format!("media/{f1}")]);
    assert!(!site.join("static/media").join(&f1).exists());
    assert!(!public.join("media").join(&f1).exists());
    let front = std::fs::read_to_string(site.join("content/blog/kite.html")).unwrap();
    assert!(
        front.contains(&format!("images = [\"/media/{f3}\"]")),
        "{front}"
    );
    // `kite`'s body still shows the harbour's variant: kept.
    assert!(public.join("media").join(&f2).is_file());
    assert!(check_links(&public) >= 2);
}

#[tokio::test]
async fn zola_builds_the_exported_images_at_their_site_paths_with_their_sizes() {
    let Some(zola) = zola() else { return };
    let app = spawn_app().await;
    let crate::media::Seeded {
        p,
        one,
        two,
        kite: kite_id,
        harbour: harbour_id,
    } = crate::media::seed_with_images(&app).await;
    let ids = (kite_id, harbour_id);
    let client = Client::new(&app.base, &p.key).unwrap();
    // The featured image as a theme would show it: from the front matter's site path, size
    // and alt text (the path marked safe: Tera escapes `/` in text).
    let site = new_zola_site(
        "zola-media",
        "<!DOCTYPE html>\n<html><head><title>{{ page.title }}</title></head>\n<body>\
         {% if page.extra.featured_image %}<img class=\"featured\" src=\"{{ page.extra.featured_image | safe }}\" \
         width=\"{{ page.extra.featured_image_width }}\" height=\"{{ page.extra.featured_image_height }}\" \
         alt=\"{{ page.extra.featured_image_alt }}\">{% endif %}\
         {{ page.content | safe }}</body></html>\n",
    );
    let options = ExportOptions::new(site.join("content/blog"), Format::Zola)
        .state_dir(site.join(".blogread"))
        .static_dir(site.join("static"));
    export::export(&client, &options, &mut |_, _| {})
        .await
        .unwrap();
    run_zola(&zola, &site).await;

    let public = site.join("public");
    let (f1, f2) = (media_file(&one), media_file(&two));
    assert_image_two_is_built(&public, &two);
    let kite = std::fs::read_to_string(public.join("blog/kite/index.html")).unwrap();
    assert!(
        kite.contains(&format!(
            "<img class=\"featured\" src=\"/media/{f1}\" width=\"{}\" height=\"{}\"",
            one["width"], one["height"]
        )),
        "{kite}"
    );
    assert!(public.join("media").join(&f1).is_file());
    assert!(check_links(&public) >= 2);

    // A new image replaces `kite`'s featured one and `harbour`'s body image: after an
    // incremental export and a build, the pages show the new file, and the old featured
    // image, which no post uses any more, is gone from the site.
    let (f3, report) = replace_images_and_export(&app, &p, &ids, &client, &options).await;
    assert_eq!(report.media.removed, vec![format!("media/{f1}")]);
    let _ = std::fs::remove_dir_all(&public);
    run_zola(&zola, &site).await;
    let harbour = std::fs::read_to_string(public.join("blog/harbour/index.html")).unwrap();
    assert!(
        harbour.contains(&format!(
            "<img src=\"/media/{f3}\" width=\"640\" height=\"480\" alt=\"new\">"
        )),
        "{harbour}"
    );
    let kite = std::fs::read_to_string(public.join("blog/kite/index.html")).unwrap();
    assert!(
        kite.contains(&format!(
            "<img class=\"featured\" src=\"/media/{f3}\" width=\"640\" height=\"480\" alt=\"New\">"
        )),
        "{kite}"
    );
    assert!(public.join("media").join(&f3).is_file());
    assert!(!public.join("media").join(&f1).exists());
    assert!(
        public.join("media").join(&f2).is_file(),
        "kite's body still shows it"
    );
    assert!(check_links(&public) >= 2);
}
