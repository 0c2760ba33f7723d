//! A complete small static site from a blogread project, with minijinja templates:
//!
//! - `index.html`, `page/2/index.html`, ...: the blogs, newest first, paginated;
//! - `blog/<slug>/index.html`: one page per blog;
//! - `category/<name>/index.html`: one page per category;
//! - `sitemap.xml`, with each post's last update.
//!
//! ```text
//! export BLOGREAD_API_KEY=pk_live_...
//! cargo run -p blogread-client --example static_site -- \
//!     --base-url http://127.0.0.1:8080 --site-url https://www.example.com --out site
//! ```
//!
//! Internal links in post bodies are resolved by the server to `{site_url}/blog/<slug>/`,
//! where `site_url` is the *project's* site URL. This site puts each post at exactly that path,
//! so set the project's site URL (PATCH /api/v1/projects/{id} `{"site_url": ...}`) to the same
//! value you pass as `--site-url`, and every internal link lands on a generated page. With no
//! `--site-url` the site uses root-relative links (`/blog/<slug>/`), which is also what the
//! server writes for a project without a site URL.

use std::collections::BTreeMap;
use std::error::Error;
use std::path::{Path, PathBuf};

use blogread_client::{BlogListItem, Client};
use clap::Parser;
use minijinja::{Environment, context};

/// Builds a static site from a blogread project.
#[derive(Parser, Debug)]
pub struct Args {
    /// The blogread server's root URL.
    #[arg(long, env = "BLOGREAD_BASE_URL")]
    pub base_url: String,
    /// The address the site is served at (no trailing slash needed); empty for root-relative
    /// links. Must equal the project's site_url for internal links to resolve into the site.
    #[arg(long, default_value = "")]
    pub site_url: String,
    /// The output folder.
    #[arg(long, default_value = "site")]
    pub out: PathBuf,
    /// Blogs per index page.
    #[arg(long, default_value_t = 10)]
    pub per_page: usize,
}

const LAYOUT: &str = r#"<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{% block title %}Blog{% endblock %}</title>
{% block head %}{% endblock %}</head>
<body><nav><a href="{{ base }}/">Home</a>{% for c in all_categories %} · <a href="{{ base }}/category/{{ c.slug }}/">{{ c.name }}</a>{% endfor %}</nav>
<main>{% block main %}{% endblock %}</main></body></html>
"#;

const LIST_ITEMS: &str = r#"<ul class="posts">{% for b in blogs %}
<li><a href="{{ base }}/blog/{{ b.slug }}/">{{ b.title }}</a> <time datetime="{{ b.published_at }}">{{ b.published_at[:10] }}</time>{% if b.excerpt %}<p>{{ b.excerpt }}</p>{% endif %}</li>{% endfor %}
</ul>"#;

const INDEX: &str = r#"{% extends "layout.html" %}
{% block main %}<h1>Blog</h1>{% include "list_items.html" %}
<nav class="pagination">{% if prev %}<a rel="prev" href="{{ base }}{{ prev }}">Newer</a>{% endif %} Page {{ page }} of {{ pages }} {% if next %}<a rel="next" href="{{ base }}{{ next }}">Older</a>{% endif %}</nav>
{% endblock %}"#;

const CATEGORY: &str = r#"{% extends "layout.html" %}
{% block title %}{{ name }}{% endblock %}
{% block main %}<h1>{{ name }}</h1>{% include "list_items.html" %}{% endblock %}"#;

const POST: &str = r#"{% extends "layout.html" %}
{% block title %}{{ blog.meta_title or blog.title }}{% endblock %}
{% block head %}{% if blog.meta_description %}<meta name="description" content="{{ blog.meta_description }}">{% endif %}
<link rel="canonical" href="{{ base }}/blog/{{ blog.slug }}/">{% endblock %}
{% block main %}<article><h1>{{ blog.title }}</h1>
<p><time datetime="{{ blog.published_at }}">{{ blog.published_at[:10] }}</time>{% for c in blog.categories %} · <a href="{{ base }}/category/{{ c | category_slug }}/">{{ c }}</a>{% endfor %}</p>
{% if blog.featured_image_url %}<img src="{{ blog.featured_image_url }}" alt="">{% endif %}
{{ blog.content | safe }}
{% if blog.tags %}<p class="tags">{% for t in blog.tags %}<span>#{{ t }}</span> {% endfor %}</p>{% endif %}
</article>{% endblock %}"#;

const SITEMAP: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
<url><loc>{{ base }}/</loc></url>{% for e in entries %}
<url><loc>{{ base }}/blog/{{ e.slug }}/</loc>{% if e.updated_at %}<lastmod>{{ e.updated_at }}</lastmod>{% endif %}</url>{% endfor %}
</urlset>
"#;

/// A category's path segment: lower-case, letters and digits kept, anything else a hyphen.
/// The server matches categories case-insensitively, so `Rust` and `rust` share a page.
pub fn category_slug(name: &str) -> String {
    let mut slug = String::new();
    for c in name.trim().chars().flat_map(char::to_lowercase) {
        if c.is_alphanumeric() {
            slug.push(c);
        } else if !slug.ends_with('-') && !slug.is_empty() {
            slug.push('-');
        }
    }
    let slug = slug.trim_end_matches('-').to_owned();
    if slug.is_empty() {
        "uncategorised".to_owned()
    } else {
        slug
    }
}

fn environment() -> Environment<'static> {
    let mut env = Environment::new();
    // Names ending in .html and .xml are auto-escaped; bodies are marked `safe` explicitly.
    env.add_template("layout.html", LAYOUT).expect("template");
    env.add_template("list_items.html", LIST_ITEMS)
        .expect("template");
    env.add_template("index.html", INDEX).expect("template");
    env.add_template("category.html", CATEGORY)
        .expect("template");
    env.add_template("post.html", POST).expect("template");
    env.add_template("sitemap.xml", SITEMAP).expect("template");
    env.add_filter("category_slug", |s: String| category_slug(&s));
    env
}

fn write(out: &Path, rel: &str, text: &str, written: &mut Vec<String>) -> std::io::Result<()> {
    let path = out.join(rel);
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)?;
    }
    std::fs::write(path, text)?;
    written.push(rel.to_owned());
    Ok(())
}

/// Builds the site into `out` and returns the files written, relative to `out`.
pub async fn build_site(
    client: &Client,
    site_url: &str,
    out: &Path,
    per_page: usize,
) -> Result<Vec<String>, Box<dyn Error + Send + Sync>> {
    // Every post with its content and last update, from one consistent read.
    let published = client.published(true).await?;
    let blogs: Vec<BlogListItem> = published.blogs.iter().map(|p| p.blog.clone()).collect();
    let entries: Vec<_> = published
        .blogs
        .iter()
        .map(|p| context! { slug => p.blog.slug, updated_at => p.updated_at })
        .collect();
    let base = site_url.trim_end_matches('/');
    let env = environment();
    let mut written = Vec::new();

    // Categories, merged case-insensitively under one slug, named as first seen.
    let mut categories: BTreeMap<String, (String, Vec<&BlogListItem>)> = BTreeMap::new();
    for blog in &blogs {
        for name in &blog.categories {
            categories
                .entry(category_slug(name))
                .or_insert_with(|| (name.clone(), Vec::new()))
                .1
                .push(blog);
        }
    }
    let all_categories: Vec<_> = categories
        .iter()
        .map(|(slug, (name, _))| context! { slug, name })
        .collect();

    let per_page = per_page.max(1);
    let chunks: Vec<&[BlogListItem]> = if blogs.is_empty() {
        vec![&[]]
    } else {
        blogs.chunks(per_page).collect()
    };
    let pages = chunks.len();
    let page_path = |n: usize| {
        if n == 1 {
            "/".to_owned()
        } else {
            format!("/page/{n}/")
        }
    };
    for (i, chunk) in chunks.iter().enumerate() {
        let n = i + 1;
        let html = env.get_template("index.html")?.render(context! {
            base, all_categories, blogs => chunk, page => n, pages,
            prev => (n > 1).then(|| page_path(n - 1)),
            next => (n < pages).then(|| page_path(n + 1)),
        })?;
        let rel = format!("{}index.html", page_path(n).trim_start_matches('/'));
        write(out, &rel, &html, &mut written)?;
    }

    for blog in &blogs {
        let html = env
            .get_template("post.html")?
            .render(context! { base, all_categories, blog })?;
        write(
            out,
            &format!("blog/{}/index.html", blog.slug),
            &html,
            &mut written,
        )?;
    }

    for (slug, (name, members)) in &categories {
        let html = env
            .get_template("category.html")?
            .render(context! { base, all_categories, name, blogs => members })?;
        write(
            out,
            &format!("category/{slug}/index.html"),
            &html,
            &mut written,
        )?;
    }

    let xml = env
        .get_template("sitemap.xml")?
        .render(context! { base, entries })?;
    write(out, "sitemap.xml", &xml, &mut written)?;
    Ok(written)
}

#[allow(dead_code)] // the tests crate includes this file for `build_site` only
#[tokio::main(flavor = "current_thread")]
async fn main() -> std::process::ExitCode {
    let args = Args::parse();
    let Ok(key) = std::env::var("BLOGREAD_API_KEY") else {
        eprintln!("error: set BLOGREAD_API_KEY to the project's public key (pk_live_...)");
        return std::process::ExitCode::FAILURE;
    };
    let client = match Client::new(&args.base_url, key) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("error: {e}");
            return std::process::ExitCode::FAILURE;
        }
    };
    match build_site(&client, &args.site_url, &args.out, args.per_page).await {
        Ok(files) => {
            println!("wrote {} files to {}", files.len(), args.out.display());
            std::process::ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}
