//! One content file per blog, in the form each generator reads.

use blogread_markup::escape::{Escapes, escape};
use chrono::{DateTime, Datelike, SecondsFormat, Utc};
use serde::Serialize;

use crate::types::BlogDetail;

use super::body::{self, Finding};
use super::media::site::{FeaturedOnSite, PostImages, featured_remote};
use super::types::Format;
pub use super::types::{Inexact, RenderError};

/// The file for `blog`: its path relative to the output folder and its text.
///
/// - Zola: `<slug>.md`, TOML front matter between `+++` lines (`title`, `description`,
///   `date`, `updated`, `slug`, `[taxonomies]` with `categories` and `tags`, `[extra]` with
///   `featured_image`, `word_count`, `excerpt`, `meta_title`, `id`), then the HTML body after
///   an empty `<script></script >`, inside a `<div class="blogread-content">`: Markdown reads
///   the whole body as one HTML block that ends nowhere, so every line reaches the page as it
///   is, blank lines included.
/// - Hugo: `<slug>.html` (Hugo's HTML content format: the body is not run through Markdown),
///   TOML front matter (`title`, `description`, `summary`, `date`, `lastmod`, `slug`,
///   `categories`, `tags`, `images`, `[params]`).
/// - HTML: `<slug>/index.html`, a standalone page, so `--out public/blog` serves it at
///   `/blog/<slug>/` where resolved internal links point.
///
/// For Zola and Hugo, text in the body that the generator would take for its own syntax
/// (shortcodes, its summary divider, its placeholders) is written so that the built page shows
/// the body exactly as the API returns it; [`render_file`] also says what, if anything, could
/// not be (`docs/client.md#what-the-export-escapes`).
///
/// # Panics
///
/// When the post holds a value no file can (see [`RenderError`]): a date outside the years
/// 0000 to 9999, or, for Zola and Hugo, a word count above TOML's largest integer. For posts
/// from a server, which may send anything, use [`try_render_file`], as the export does.
pub fn render(format: Format, blog: &BlogDetail) -> (String, String) {
    render_with_aliases(format, blog, &[])
}

/// [`render()`] for a blog that was renamed: `aliases` are its former slugs (from
/// [`Client::redirects`](crate::Client::redirects)). Zola and Hugo get them as front matter
/// `aliases = ["/blog/<former-slug>/"]`, so the generator writes a redirect page at each
/// former address; for plain HTML see [`redirect_page`].
///
/// # Panics
///
/// As [`render()`]; [`try_render_file`] returns the error instead.
pub fn render_with_aliases(
    format: Format,
    blog: &BlogDetail,
    aliases: &[String],
) -> (String, String) {
    let file = render_file(format, blog, aliases);
    (file.path, file.text)
}

/// A content file as [`render_file`] writes it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Rendered {
    /// The file's path relative to the output folder, with `/`.
    pub path: String,
    /// The file's text.
    pub text: String,
    /// What in the body the generator cannot show exactly (empty for plain HTML, and for
    /// almost every post).
    pub inexact: Vec<Inexact>,
}

/// [`render_with_aliases`], and what in the body the generator cannot show exactly.
///
/// # Panics
///
/// As [`render()`]; [`try_render_file`] returns the error instead.
pub fn render_file(format: Format, blog: &BlogDetail, aliases: &[String]) -> Rendered {
    try_render_file(format, blog, aliases).unwrap_or_else(|e| panic!("{e}"))
}

/// [`render_file`], or why the post cannot be written: a date outside the years 0000 to 9999,
/// or (Zola, Hugo) a word count above TOML's largest integer. Never panics, whatever the post
/// holds: the export renders every post from the server with it.
pub fn try_render_file(
    format: Format,
    blog: &BlogDetail,
    aliases: &[String],
) -> Result<Rendered, RenderError> {
    try_render_post(format, blog, aliases, None)
}

/// The values of `blog` no file can hold, if any: a date outside the years 0000 to 9999, or
/// (Zola, Hugo) a word count above TOML's largest integer.
pub(crate) fn check_post(format: Format, blog: &BlogDetail) -> Result<(), RenderError> {
    for (field, date) in [
        ("published_at", &blog.published_at),
        ("updated_at", &blog.updated_at),
    ] {
        if !(0..=9999).contains(&date.year()) {
            return Err(RenderError::DateOutOfRange {
                slug: blog.fields.slug.clone(),
                field,
                value: date.to_rfc3339_opts(SecondsFormat::Secs, true),
            });
        }
    }
    if format != Format::Html {
        extra(blog, None)?;
    }
    Ok(())
}

/// [`try_render_file`], the service's images named by their site paths when `images` says
/// where the site holds them (the export's `--media local`), or left at the service's URLs.
pub(crate) fn try_render_post(
    format: Format,
    blog: &BlogDetail,
    aliases: &[String],
    images: Option<PostImages<'_>>,
) -> Result<Rendered, RenderError> {
    check_post(format, blog)?;
    let paths: Vec<String> = aliases.iter().map(|a| format!("/blog/{a}/")).collect();
    let featured = images
        .and_then(|images| images.featured(blog))
        .or_else(|| featured_remote(blog));
    // The body as the site shows it; the generator's escapes are made on it, so the page shows
    // exactly this body.
    let content = match images {
        Some(images) => images.body(blog),
        None => blog.content.clone(),
    };
    let post = Post {
        blog,
        featured: featured.as_ref(),
        content: &content,
    };
    let (text, findings) = match format {
        Format::Zola => zola(&post, &paths)?,
        Format::Hugo => hugo(&post, &paths)?,
        Format::Html => (html(&post), Vec::new()),
    };
    let inexact = findings
        .iter()
        .map(|finding| {
            let (line, message) = finding.message(&content);
            Inexact {
                slug: blog.fields.slug.clone(),
                line,
                message,
            }
        })
        .collect();
    Ok(Rendered {
        path: file_path(format, &blog.fields.slug),
        text,
        inexact,
    })
}

/// The plain-HTML redirect page written at `<from>/index.html` for a former slug: it sends
/// browsers (and tells search engines, with a canonical link) to the post's current address
/// `../<to>/`, relative so that it works wherever the output folder is served.
pub fn redirect_page(to: &str) -> String {
    let target = format!("../{}/", escape_html(to));
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <title>Moved</title>\n<link rel=\"canonical\" href=\"{target}\">\n\
         <meta http-equiv=\"refresh\" content=\"0; url={target}\">\n</head>\n<body>\n\
         <p>This post has moved to <a href=\"{target}\">{target}</a>.</p>\n</body>\n</html>\n"
    )
}

/// The file [`render()`] writes for the slug `slug`, relative to the output folder, with `/`:
/// `<slug>.md`, `<slug>.html` or `<slug>/index.html`.
pub(crate) fn file_path(format: Format, slug: &str) -> String {
    match format {
        Format::Zola => format!("{slug}.md"),
        Format::Hugo => format!("{slug}.html"),
        Format::Html => format!("{slug}/index.html"),
    }
}

/// The description a page shows: the meta description, else the excerpt.
fn description(blog: &BlogDetail) -> &str {
    if blog.fields.meta_description.is_empty() {
        &blog.fields.excerpt
    } else {
        &blog.fields.meta_description
    }
}

/// `t` as a TOML offset date-time. [`try_render_file`] has checked that its year has four
/// digits, which is all TOML needs; anything else is reported, never a panic.
fn toml_datetime(
    blog: &BlogDetail,
    field: &'static str,
    t: &DateTime<Utc>,
) -> Result<toml::value::Datetime, RenderError> {
    let text = t.to_rfc3339_opts(SecondsFormat::Secs, true);
    text.parse().map_err(|_| RenderError::DateOutOfRange {
        slug: blog.fields.slug.clone(),
        field,
        value: text.clone(),
    })
}

fn is_empty(s: &&str) -> bool {
    s.is_empty()
}

#[derive(Serialize)]
struct ZolaFront<'a> {
    title: &'a str,
    #[serde(skip_serializing_if = "is_empty")]
    description: &'a str,
    date: toml::value::Datetime,
    updated: toml::value::Datetime,
    slug: &'a str,
    /// Former addresses: Zola writes a redirect page at each.
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    aliases: &'a [String],
    #[serde(skip_serializing_if = "Taxonomies::is_empty")]
    taxonomies: Taxonomies<'a>,
    extra: Extra<'a>,
}

/// Zola's `[taxonomies]`. Zola refuses to build a page with a term that is empty once
/// trimmed, which the API allows (an entry of spaces), so such terms are left out.
#[derive(Serialize)]
struct Taxonomies<'a> {
    #[serde(skip_serializing_if = "Vec::is_empty")]
    categories: Vec<&'a str>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    tags: Vec<&'a str>,
}

/// The terms Zola accepts: not empty once trimmed.
fn zola_terms(terms: &[String]) -> Vec<&str> {
    terms
        .iter()
        .map(String::as_str)
        .filter(|t| !t.trim().is_empty())
        .collect()
}

impl Taxonomies<'_> {
    fn is_empty(&self) -> bool {
        self.categories.is_empty() && self.tags.is_empty()
    }
}

/// A post as the files show it: its fields, its featured image and its body as the site
/// holds them.
struct Post<'a> {
    blog: &'a BlogDetail,
    /// The featured image, when the service holds it (at its site path with the images
    /// brought home, else at the service's URL).
    featured: Option<&'a FeaturedOnSite>,
    /// The body, its service images at their site paths when they are brought home.
    content: &'a str,
}

impl<'a> Post<'a> {
    /// The featured image pages show: the site's (or the service's) copy, else the post's
    /// `featured_image_url`.
    fn featured_src(&self) -> Option<&'a str> {
        match self.featured {
            Some(featured) => Some(&featured.src),
            None => self.blog.fields.featured_image_url.as_deref(),
        }
    }
}

#[derive(Serialize)]
struct Extra<'a> {
    id: &'a str,
    /// The image to show (a site path with the images brought home), as before the images
    /// were typed; its size and alt text beside it when the service holds it.
    #[serde(skip_serializing_if = "Option::is_none")]
    featured_image: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    featured_image_width: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    featured_image_height: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    featured_image_alt: Option<&'a str>,
    /// TOML's integers are signed 64-bit: a larger count is an error, not a panic.
    word_count: i64,
    excerpt: &'a str,
    meta_title: &'a str,
}

fn extra<'a>(blog: &'a BlogDetail, post: Option<&Post<'a>>) -> Result<Extra<'a>, RenderError> {
    let word_count = i64::try_from(blog.word_count).map_err(|_| RenderError::NumberOutOfRange {
        slug: blog.fields.slug.clone(),
        field: "word_count",
        value: blog.word_count,
    })?;
    let featured = post.and_then(|post| post.featured);
    Ok(Extra {
        id: &blog.id,
        featured_image: match post {
            Some(post) => post.featured_src(),
            None => blog.fields.featured_image_url.as_deref(),
        },
        featured_image_width: featured.map(|f| f.width),
        featured_image_height: featured.map(|f| f.height),
        featured_image_alt: featured.map(|f| f.alt.as_str()),
        word_count,
        excerpt: &blog.fields.excerpt,
        meta_title: &blog.fields.meta_title,
    })
}

fn zola(post: &Post<'_>, aliases: &[String]) -> Result<(String, Vec<Finding>), RenderError> {
    let blog = post.blog;
    let front = ZolaFront {
        title: &blog.fields.title,
        description: description(blog),
        date: toml_datetime(blog, "published_at", &blog.published_at)?,
        updated: toml_datetime(blog, "updated_at", &blog.updated_at)?,
        slug: &blog.fields.slug,
        aliases,
        taxonomies: Taxonomies {
            categories: zola_terms(&blog.fields.categories),
            tags: zola_terms(&blog.fields.tags),
        },
        extra: extra(blog, Some(post))?,
    };
    let front = front_matter(&front);
    let (body, findings) = body::zola::body(post.content);
    Ok((format!("+++\n{front}+++\n{body}"), findings))
}

/// The TOML of a front matter. `toml` writes a string that holds a line break as a multi-line
/// string, whose lines are the string's own: a title or excerpt with a line `+++` would end the
/// front matter there for Zola and Hugo (Zola ends it at any `+++` followed by a line break),
/// and the build would fail. Such strings are written as basic strings instead, on one line
/// with `\n` escapes, which read back as the same string.
fn front_matter(front: &impl Serialize) -> String {
    let text = toml::to_string(front).expect("front matter serialises");
    if !text.contains("\"\"\"") && !text.contains("'''") {
        return text;
    }
    let document = toml_edit::Document::parse(text.as_str()).expect("toml writes TOML");
    let mut strings = Vec::new();
    multi_line_strings(document.as_table(), &text, &mut strings);
    let mut out = text.clone();
    strings.sort_by_key(|(range, _)| std::cmp::Reverse(range.start));
    for (range, value) in strings {
        out.replace_range(range, &basic_string(&value));
    }
    out
}

/// The byte ranges and values of the multi-line strings in `table`, nested tables and arrays
/// included.
fn multi_line_strings(
    table: &toml_edit::Table,
    text: &str,
    out: &mut Vec<(std::ops::Range<usize>, String)>,
) {
    fn value(v: &toml_edit::Value, text: &str, out: &mut Vec<(std::ops::Range<usize>, String)>) {
        match v {
            toml_edit::Value::String(s) => {
                if let Some(range) = s.span()
                    && (text[range.clone()].starts_with("\"\"\"")
                        || text[range.clone()].starts_with("'''"))
                {
                    out.push((range, s.value().clone()));
                }
            }
            toml_edit::Value::Array(array) => array.iter().for_each(|v| value(v, text, out)),
            toml_edit::Value::InlineTable(t) => t.iter().for_each(|(_, v)| value(v, text, out)),
            _ => {}
        }
    }
    for (_, item) in table.iter() {
        match item {
            toml_edit::Item::Value(v) => value(v, text, out),
            toml_edit::Item::Table(t) => multi_line_strings(t, text, out),
            _ => {}
        }
    }
}

/// `s` as a TOML basic string: quotes, backslashes and control characters escaped.
fn basic_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() && (c as u32) < 0x80 => {
                out.push_str(&format!("\\u{:04X}", c as u32));
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Hugo's front matter: every field the API gives, under the names Hugo reads (`title`,
/// `description`, `summary`, `date`, `lastmod`, `slug`, the default taxonomies `categories`
/// and `tags`, `images` for Hugo's Open Graph and Twitter card templates); the rest under
/// `params` (`.Params` in templates).
#[derive(Serialize)]
struct HugoFront<'a> {
    title: &'a str,
    #[serde(skip_serializing_if = "is_empty")]
    description: &'a str,
    #[serde(skip_serializing_if = "is_empty")]
    summary: &'a str,
    date: toml::value::Datetime,
    lastmod: toml::value::Datetime,
    slug: &'a str,
    categories: &'a [String],
    tags: &'a [String],
    #[serde(skip_serializing_if = "Vec::is_empty")]
    images: Vec<&'a str>,
    /// Former addresses (`/blog/<former-slug>/`): Hugo generates a redirect page at each.
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    aliases: &'a [String],
    params: Extra<'a>,
}

fn hugo(post: &Post<'_>, aliases: &[String]) -> Result<(String, Vec<Finding>), RenderError> {
    let blog = post.blog;
    let front = HugoFront {
        title: &blog.fields.title,
        description: description(blog),
        summary: &blog.fields.excerpt,
        date: toml_datetime(blog, "published_at", &blog.published_at)?,
        lastmod: toml_datetime(blog, "updated_at", &blog.updated_at)?,
        slug: &blog.fields.slug,
        categories: &blog.fields.categories,
        tags: &blog.fields.tags,
        images: post.featured_src().into_iter().collect(),
        aliases,
        params: extra(blog, Some(post))?,
    };
    let front = front_matter(&front);
    let (body, findings) = body::hugo::body(post.content);
    Ok((format!("+++\n{front}+++\n{body}\n"), findings))
}

/// Escapes text for HTML content and attribute values in either kind of quotes (`&`, `<`, `>`,
/// `"` and `'`).
pub fn escape_html(s: &str) -> String {
    escape(s, Escapes::ALL).into_owned()
}

fn html(post: &Post<'_>) -> String {
    let blog = post.blog;
    let e = escape_html;
    let published = blog.published_at.to_rfc3339_opts(SecondsFormat::Secs, true);
    let updated = blog.updated_at.to_rfc3339_opts(SecondsFormat::Secs, true);
    let title = if blog.fields.meta_title.is_empty() {
        &blog.fields.title
    } else {
        &blog.fields.meta_title
    };
    let mut out = String::new();
    out.push_str("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    out.push_str("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n");
    out.push_str(&format!("<title>{}</title>\n", e(title)));
    if !description(blog).is_empty() {
        out.push_str(&format!(
            "<meta name=\"description\" content=\"{}\">\n",
            e(description(blog))
        ));
    }
    if let Some(img) = &blog.fields.featured_image_url {
        out.push_str(&format!(
            "<meta property=\"og:image\" content=\"{}\">\n",
            e(img)
        ));
    }
    if !blog.fields.tags.is_empty() {
        out.push_str(&format!(
            "<meta name=\"keywords\" content=\"{}\">\n",
            e(&blog.fields.tags.join(", "))
        ));
    }
    out.push_str(&format!(
        "<meta name=\"blogread:slug\" content=\"{}\">\n<meta name=\"blogread:word-count\" content=\"{}\">\n",
        e(&blog.fields.slug),
        blog.word_count
    ));
    out.push_str("</head>\n<body>\n<article>\n<header>\n");
    out.push_str(&format!("<h1>{}</h1>\n", e(&blog.fields.title)));
    out.push_str(&format!(
        "<p><time datetime=\"{published}\">{}</time>",
        blog.published_at.format("%Y-%m-%d")
    ));
    if blog.updated_at != blog.published_at {
        out.push_str(&format!(
            " · updated <time datetime=\"{updated}\">{}</time>",
            blog.updated_at.format("%Y-%m-%d")
        ));
    }
    out.push_str(&format!(" · {} words</p>\n", blog.word_count));
    if !blog.fields.categories.is_empty() {
        let cats: Vec<String> = blog
            .fields
            .categories
            .iter()
            .map(|c| format!("<li>{}</li>", e(c)))
            .collect();
        out.push_str(&format!(
            "<ul class=\"categories\">{}</ul>\n",
            cats.concat()
        ));
    }
    match (post.featured, &blog.fields.featured_image_url) {
        (Some(featured), _) => out.push_str(&format!(
            "<img src=\"{}\" width=\"{}\" height=\"{}\" alt=\"{}\">\n",
            e(&featured.src),
            featured.width,
            featured.height,
            e(&featured.alt)
        )),
        (None, Some(img)) => out.push_str(&format!("<img src=\"{}\" alt=\"\">\n", e(img))),
        (None, None) => {}
    }
    out.push_str("</header>\n");
    out.push_str(post.content);
    out.push('\n');
    if !blog.fields.tags.is_empty() {
        let tags: Vec<String> = blog
            .fields
            .tags
            .iter()
            .map(|t| format!("<li>{}</li>", e(t)))
            .collect();
        out.push_str(&format!(
            "<footer><ul class=\"tags\">{}</ul></footer>\n",
            tags.concat()
        ));
    }
    out.push_str("</article>\n</body>\n</html>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(crate) fn blog() -> BlogDetail {
        serde_json::from_value(serde_json::json!({
            "id": "0190a1b2-0000-7000-8000-000000000001",
            "title": "Quotes \" and +++ and \\ backslashes",
            "slug": "hello-world",
            "excerpt": "An excerpt",
            "meta_title": "Meta",
            "meta_description": "",
            "featured_image_url": "https://img.example/a.png?x=1&y=2",
            "categories": ["Engineering", "Rust \"lang\""],
            "tags": ["a", "b"],
            "published_at": "2026-11-21T09:30:00Z",
            "content": "<p>One</p>\n\n<p>Two *not emphasis*</p>\n<pre>a\n\n\nb</pre>",
            "updated_at": "2026-11-22T10:00:00Z",
            "word_count": 5
        }))
        .unwrap()
    }

    fn split_front(text: &str) -> (toml::Table, &str) {
        let rest = text.strip_prefix("+++\n").unwrap();
        let end = rest.find("\n+++\n").unwrap();
        (rest[..end].parse().unwrap(), &rest[end + 5..])
    }

    #[test]
    fn zola_front_matter_is_toml_with_taxonomies_and_extra() {
        let (path, text) = render(Format::Zola, &blog());
        assert_eq!(path, "hello-world.md");
        let (front, body) = split_front(&text);
        assert_eq!(front["title"].as_str(), Some(blog().fields.title.as_str()));
        assert_eq!(front["description"].as_str(), Some("An excerpt"));
        assert_eq!(
            front["date"].as_datetime().unwrap().to_string(),
            "2026-11-21T09:30:00Z"
        );
        assert_eq!(
            front["updated"].as_datetime().unwrap().to_string(),
            "2026-11-22T10:00:00Z"
        );
        assert_eq!(front["slug"].as_str(), Some("hello-world"));
        let tax = front["taxonomies"].as_table().unwrap();
        assert_eq!(tax["categories"].as_array().unwrap().len(), 2);
        assert_eq!(tax["tags"].as_array().unwrap()[1].as_str(), Some("b"));
        let extra = front["extra"].as_table().unwrap();
        assert_eq!(extra["word_count"].as_integer(), Some(5));
        assert_eq!(
            extra["featured_image"].as_str(),
            Some("https://img.example/a.png?x=1&y=2")
        );
        assert!(
            body.starts_with("<script></script ><div class=\"blogread-content\"><p>One</p>\n\n"),
            "{body}"
        );
    }

    /// The top-level keys of Zola's page front matter (it ignores others, older releases
    /// refused them).
    const ZOLA_PAGE_KEYS: [&str; 14] = [
        "title",
        "description",
        "updated",
        "date",
        "draft",
        "render",
        "slug",
        "path",
        "taxonomies",
        "weight",
        "authors",
        "aliases",
        "template",
        "extra",
    ];

    #[test]
    fn zola_front_matter_follows_zolas_page_rules() {
        let mut b = blog();
        b.fields.tags = vec!["  ".into(), "b".into()];
        b.fields.categories = vec![" ".into()];
        let (_, text) = render(Format::Zola, &b);
        let (front, _) = split_front(&text);
        for key in front.keys() {
            assert!(
                ZOLA_PAGE_KEYS.contains(&key.as_str()),
                "{key} is not Zola's"
            );
        }
        for key in ["title", "description", "slug"] {
            assert!(front[key].is_str(), "{key}");
        }
        assert!(
            !front["slug"].as_str().unwrap().is_empty(),
            "slug can't be empty"
        );
        // Dates Zola parses: RFC 3339 offset date-times.
        for key in ["date", "updated"] {
            let d = front[key].as_datetime().unwrap();
            assert!(
                d.date.is_some() && d.time.is_some() && d.offset.is_some(),
                "{key}"
            );
        }
        // Taxonomies: a table of lists of strings, no term empty once trimmed.
        let tax = front["taxonomies"].as_table().unwrap();
        assert_eq!(tax.keys().collect::<Vec<_>>(), ["tags"]);
        for terms in tax.values() {
            for term in terms.as_array().unwrap() {
                assert!(!term.as_str().unwrap().trim().is_empty());
            }
        }
        assert!(front["extra"].is_table());
    }

    #[test]
    fn an_empty_zola_body_is_an_empty_wrapper() {
        let mut b = blog();
        b.content.clear();
        let (_, text) = render(Format::Zola, &b);
        assert!(
            text.ends_with("+++\n<script></script ><div class=\"blogread-content\"></div>\n"),
            "{text}"
        );
    }

    #[test]
    fn zola_omits_empty_taxonomies_and_missing_image() {
        let mut b = blog();
        b.fields.categories.clear();
        b.fields.tags.clear();
        b.fields.featured_image_url = None;
        let (_, text) = render(Format::Zola, &b);
        let (front, _) = split_front(&text);
        assert!(!front.contains_key("taxonomies"));
        assert!(
            !front["extra"]
                .as_table()
                .unwrap()
                .contains_key("featured_image")
        );
    }

    #[test]
    fn hugo_front_matter_names_every_api_field_as_hugo_reads_it_and_keeps_the_body() {
        let (path, text) = render(Format::Hugo, &blog());
        assert_eq!(path, "hello-world.html");
        let (front, body) = split_front(&text);
        let keys: Vec<&str> = front.keys().map(String::as_str).collect();
        assert_eq!(
            keys,
            [
                "categories",
                "date",
                "description",
                "images",
                "lastmod",
                "params",
                "slug",
                "summary",
                "tags",
                "title"
            ]
        );
        assert_eq!(front["title"].as_str(), Some(blog().fields.title.as_str()));
        // No meta description: the excerpt describes the page.
        assert_eq!(front["description"].as_str(), Some("An excerpt"));
        assert_eq!(front["summary"].as_str(), Some("An excerpt"));
        assert_eq!(
            front["date"].as_datetime().unwrap().to_string(),
            "2026-11-21T09:30:00Z"
        );
        assert_eq!(
            front["lastmod"].as_datetime().unwrap().to_string(),
            "2026-11-22T10:00:00Z"
        );
        assert_eq!(front["slug"].as_str(), Some("hello-world"));
        assert_eq!(
            front["categories"].as_array().unwrap()[1].as_str(),
            Some("Rust \"lang\"")
        );
        assert_eq!(front["tags"].as_array().unwrap().len(), 2);
        assert_eq!(
            front["images"].as_array().unwrap()[0].as_str(),
            Some("https://img.example/a.png?x=1&y=2")
        );
        let params = front["params"].as_table().unwrap();
        assert_eq!(params["word_count"].as_integer(), Some(5));
        assert_eq!(params["meta_title"].as_str(), Some("Meta"));
        assert_eq!(params["excerpt"].as_str(), Some("An excerpt"));
        assert_eq!(params["id"].as_str(), Some(blog().id.as_str()));
        // The HTML content format: the body as written, blank lines included.
        assert_eq!(body, format!("{}\n", blog().content));
    }

    #[test]
    fn former_slugs_become_aliases_in_zola_and_hugo_and_a_redirect_page_in_html() {
        let former = vec!["first-name".to_owned(), "second-name".to_owned()];
        for format in [Format::Zola, Format::Hugo] {
            let (_, text) = render_with_aliases(format, &blog(), &former);
            let (front, _) = split_front(&text);
            assert_eq!(
                front["aliases"],
                toml::Value::Array(vec![
                    "/blog/first-name/".into(),
                    "/blog/second-name/".into()
                ]),
                "{format:?}"
            );
            let (_, plain) = render(format, &blog());
            assert!(!split_front(&plain).0.contains_key("aliases"), "{format:?}");
        }
        let page = redirect_page("new-name");
        assert!(page.contains("<meta http-equiv=\"refresh\" content=\"0; url=../new-name/\">"));
        assert!(page.contains("<link rel=\"canonical\" href=\"../new-name/\">"));
    }

    #[test]
    fn hugo_omits_what_the_blog_does_not_have() {
        let mut b = blog();
        b.fields.featured_image_url = None;
        b.fields.excerpt.clear();
        let (_, text) = render(Format::Hugo, &b);
        let (front, _) = split_front(&text);
        assert!(!front.contains_key("images"));
        assert!(!front.contains_key("summary"));
        assert!(!front.contains_key("description"));
    }

    #[test]
    fn html_is_standalone_and_escaped() {
        let (path, text) = render(Format::Html, &blog());
        assert_eq!(path, "hello-world/index.html");
        assert!(text.starts_with("<!DOCTYPE html>"));
        assert!(text.contains("<title>Meta</title>"));
        assert!(text.contains("<h1>Quotes &quot; and +++ and \\ backslashes</h1>"));
        assert!(text.contains("content=\"https://img.example/a.png?x=1&amp;y=2\""));
        assert!(text.contains("<li>Rust &quot;lang&quot;</li>"));
        assert!(text.contains(&blog().content));
    }

    #[test]
    fn zola_bodies_keep_every_line_in_one_html_block() {
        let (_, text) = render(Format::Zola, &blog());
        let (_, body) = split_front(&text);
        assert_eq!(
            body,
            format!(
                "<script></script ><div class=\"blogread-content\">{}</div>\n",
                blog().content
            )
        );
    }

    #[test]
    fn render_file_names_what_the_generator_cannot_show() {
        let mut b = blog();
        b.content = "<p>{% end %}</p>\n<script>\nlet t = `{% end %}`;\n</script>".into();
        let zola = render_file(Format::Zola, &b, &[]);
        assert_eq!(zola.path, "hello-world.md");
        assert_eq!(zola.inexact.len(), 1, "{:?}", zola.inexact);
        let inexact = &zola.inexact[0];
        assert_eq!((inexact.slug.as_str(), inexact.line), ("hello-world", 3));
        assert_eq!(
            inexact.to_string(),
            "post `hello-world`, line 3 of its body: `{% end %}` inside <script>: Zola stops the \
             build at a body shortcode without its `{% end %}`, or an `{% end %}` without its \
             start; written with `&#123;` instead, which shows as written there"
        );
        assert!(render_file(Format::Hugo, &b, &[]).inexact.is_empty());
        assert!(render_file(Format::Html, &b, &[]).inexact.is_empty());
    }

    #[test]
    fn a_date_outside_years_0_to_9999_is_an_error_in_every_format_not_a_panic() {
        for (field, date) in [
            ("published_at", "+10000-01-01T00:00:00Z"),
            ("updated_at", "+262142-12-31T23:59:59Z"),
            ("published_at", "-0001-12-31T23:59:59Z"),
        ] {
            let mut json = serde_json::to_value(blog()).unwrap();
            json[field] = date.into();
            let b: BlogDetail = serde_json::from_value(json).unwrap();
            for format in [Format::Zola, Format::Hugo, Format::Html] {
                let err = try_render_file(format, &b, &[]).unwrap_err();
                assert_eq!(
                    err,
                    RenderError::DateOutOfRange {
                        slug: "hello-world".into(),
                        field,
                        value: date.into()
                    },
                    "{format:?}"
                );
                let message = err.to_string();
                assert!(
                    message.starts_with(&format!("post `hello-world`: {field} {date} is outside")),
                    "{message}"
                );
            }
        }
        // The edges of the range are written.
        for date in ["0000-01-01T00:00:00Z", "9999-12-31T23:59:59Z"] {
            let mut json = serde_json::to_value(blog()).unwrap();
            json["published_at"] = date.into();
            let b: BlogDetail = serde_json::from_value(json).unwrap();
            let text = try_render_file(Format::Zola, &b, &[]).unwrap().text;
            let (front, _) = split_front(&text);
            assert_eq!(front["date"].as_datetime().unwrap().to_string(), date);
        }
    }

    #[test]
    fn a_word_count_beyond_tomls_integers_is_an_error_for_zola_and_hugo() {
        let mut b = blog();
        b.word_count = u64::MAX;
        for format in [Format::Zola, Format::Hugo] {
            let err = try_render_file(format, &b, &[]).unwrap_err();
            assert!(
                matches!(&err, RenderError::NumberOutOfRange { field: "word_count", value, .. } if *value == u64::MAX),
                "{err:?}"
            );
        }
        // Plain HTML writes it as it is.
        let html = try_render_file(Format::Html, &b, &[]).unwrap().text;
        assert!(html.contains(&u64::MAX.to_string()));
        b.word_count = i64::MAX as u64;
        assert!(try_render_file(Format::Zola, &b, &[]).is_ok());
    }

    #[test]
    fn a_line_of_plus_signs_in_a_title_or_excerpt_does_not_end_the_front_matter() {
        let mut b = blog();
        b.fields.title = "Intro\n+++\nRest +++\n\"quoted\" \\ and \u{7f}".into();
        b.fields.excerpt = "a\n+++".into();
        b.fields.tags = vec!["t\n+++\n".into(), "plain".into()];
        // Zola's front matter pattern, and Hugo's rule (the first line that starts with `+++`).
        let zola_front = regex::Regex::new(
            r"^[[:space:]]*\+\+\+(\r?\n(?s).*?(?-s))\+\+\+[[:space:]]*(?:$|(?:\r?\n((?s).*(?-s))$))",
        )
        .unwrap();
        for format in [Format::Zola, Format::Hugo] {
            let (_, text) = render(format, &b);
            let zola: toml::Table = zola_front.captures(&text).unwrap()[1].parse().unwrap();
            let rest = text.strip_prefix("+++\n").unwrap();
            let hugo: toml::Table = rest[..rest.find("\n+++").unwrap()].parse().unwrap();
            for front in [zola, hugo] {
                assert_eq!(
                    front["title"].as_str(),
                    Some(b.fields.title.as_str()),
                    "{format:?}"
                );
                let tags = front
                    .get("tags")
                    .or_else(|| front["taxonomies"].get("tags"))
                    .and_then(|tags| tags.as_array())
                    .unwrap();
                assert_eq!(tags[0].as_str(), Some("t\n+++\n"), "{format:?}");
            }
        }
    }
}
