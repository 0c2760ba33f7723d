//! What the output folder will hold: the files of every published post, by the slug of the
//! post each belongs to, built in memory from posts (a full read) or from the entries of the
//! changes feed applied to the last export's manifest, before anything is written.
//!
//! A post's files are found by its current slug (the manifest records it for every file, the
//! post's own and, for plain HTML, its redirect pages), so applying an entry never needs the
//! post's history: an upsert replaces every file of its slug, a delete removes them. A file
//! another post held (a redirect page at an alias taken over by a newly published post)
//! changes hands to the post written last, whichever order the two entries come in.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use super::media::files::Needed;
use super::media::site::{MediaRule, PostImages, SiteImages, Uses};
use super::render::{Inexact, check_post, file_path, redirect_page, try_render_post};
use super::types::{ExportError, Format};
use super::{Manifest, guard};
use crate::BlogDetail;

/// The output folder to be, and what stops some of it from being written.
pub(super) struct Plan<'a> {
    out: &'a Path,
    format: Format,
    /// The last export's manifest: the files the export may overwrite.
    old: &'a Manifest,
    /// Every file the export owns after this run, with the slug of the post it belongs to.
    files: BTreeMap<String, String>,
    /// The same, by slug.
    by_slug: BTreeMap<String, BTreeSet<String>>,
    /// The posts read this run, by slug, rendered once the images they use are known.
    posts: BTreeMap<String, Post>,
    /// Files of posts that were not written because the user owns a file there, by slug.
    conflicts: BTreeMap<String, Vec<String>>,
    /// With the images brought home: what decides which images are the service's.
    media: Option<MediaRule>,
    /// The images each post uses, by slug: masters by file name, with their size when an
    /// answer gave it. For the posts not read this run, as the manifest records them.
    uses: BTreeMap<String, Uses>,
}

/// A post read this run: what to render, and which of its files to write.
struct Post {
    blog: BlogDetail,
    aliases: Vec<String>,
    /// Its page and (plain HTML) redirect pages not left to a user's file.
    pages: Vec<String>,
}

/// A plan, ready to be written.
pub(super) struct Planned {
    /// The manifest after this run.
    pub(super) next: Manifest,
    /// The files to write (or to find already written), with their text.
    pub(super) texts: BTreeMap<String, String>,
    /// How many published posts the output folder holds.
    pub(super) blogs: usize,
    /// The files not written because the user owns them (their posts are not exported).
    pub(super) conflicts: Vec<String>,
    /// What the generator cannot show exactly, in the posts written this run.
    pub(super) inexact: Vec<Inexact>,
}

/// A plan whose files are all known but not yet rendered: the images they use are gathered
/// first.
pub(super) struct Unrendered {
    format: Format,
    files: BTreeMap<String, String>,
    posts: BTreeMap<String, Post>,
    conflicts: BTreeMap<String, Vec<String>>,
    media: Option<MediaRule>,
}

impl<'a> Plan<'a> {
    /// A plan for `out` with no file: a full read adds every post.
    /// `media` is the rule for the service's images when they are brought home.
    pub(super) fn empty(
        out: &'a Path,
        format: Format,
        old: &'a Manifest,
        media: Option<MediaRule>,
    ) -> Self {
        Self {
            out,
            format,
            old,
            files: BTreeMap::new(),
            by_slug: BTreeMap::new(),
            posts: BTreeMap::new(),
            conflicts: BTreeMap::new(),
            media,
            uses: BTreeMap::new(),
        }
    }

    /// A plan holding what the last export wrote: changes are applied to it.
    pub(super) fn from_manifest(
        out: &'a Path,
        format: Format,
        old: &'a Manifest,
        media: Option<MediaRule>,
    ) -> Self {
        let with_media = media.is_some();
        let mut plan = Self::empty(out, format, old, media);
        for (rel, slug) in &old.files {
            plan.hold(rel.clone(), slug.clone());
        }
        if with_media {
            for (rel, entry) in &old.media {
                let (Some(file), Ok(url)) = (
                    rel.strip_prefix("media/"),
                    crate::MediaUrl::parse(&entry.url),
                ) else {
                    continue;
                };
                for slug in &entry.posts {
                    plan.uses
                        .entry(slug.clone())
                        .or_default()
                        .insert(file.to_owned(), (url.clone(), None));
                }
            }
        }
        plan
    }

    /// Removes every file of the post at `slug`: it is no longer published there.
    pub(super) fn delete(&mut self, slug: &str) {
        for rel in self.by_slug.remove(slug).unwrap_or_default() {
            self.files.remove(&rel);
        }
        self.posts.remove(slug);
        self.conflicts.remove(slug);
        self.uses.remove(slug);
    }

    /// Writes `blog` at its slug, with `aliases` (its former slugs) as the format wants them,
    /// replacing whatever its slug had. A file the user owns (it exists and the last export
    /// did not write it) is left alone and recorded as a conflict. Fails if the post holds a
    /// value no file can ([`super::RenderError`]), or a path goes through a symbolic link
    /// below the output folder.
    pub(super) fn upsert(
        &mut self,
        blog: &BlogDetail,
        aliases: &[String],
    ) -> Result<(), ExportError> {
        let slug = &blog.slug;
        self.delete(slug);
        // Found now, before anything is written, whatever the images turn out to be.
        check_post(self.format, blog)?;
        let mut pages = vec![file_path(self.format, slug)];
        if self.format == Format::Html {
            // Plain HTML has no generator to write redirect pages: one page per former slug.
            pages.extend(aliases.iter().map(|from| file_path(Format::Html, from)));
        }
        let mut kept = Vec::new();
        for rel in pages {
            debug_assert!(super::is_export_file(&rel));
            // A link on the way is an error (for every file, before any is written), not a
            // conflict.
            if guard::exists(self.out, &rel)? && !self.old.owns(&rel) {
                self.conflicts.entry(slug.clone()).or_default().push(rel);
                continue;
            }
            self.hold(rel.clone(), slug.clone());
            kept.push(rel);
        }
        if let Some(rule) = &self.media {
            self.uses.insert(slug.clone(), rule.uses(blog));
        }
        self.posts.insert(
            slug.clone(),
            Post {
                blog: blog.clone(),
                aliases: aliases.to_vec(),
                pages: kept,
            },
        );
        Ok(())
    }

    /// Records `rel` as a file of the post at `slug`, taking it from another slug if one held
    /// it.
    fn hold(&mut self, rel: String, slug: String) {
        if let Some(before) = self.files.insert(rel.clone(), slug.clone())
            && before != slug
            && let Some(set) = self.by_slug.get_mut(&before)
        {
            set.remove(&rel);
            if set.is_empty() {
                self.by_slug.remove(&before);
            }
        }
        self.by_slug.entry(slug).or_default().insert(rel);
    }

    /// The masters the exported posts use, by path (`media/<file>`), with the posts using
    /// each; empty when the images are not brought home.
    pub(super) fn needed(&self) -> BTreeMap<String, Needed> {
        let mut needed: BTreeMap<String, Needed> = BTreeMap::new();
        for (slug, uses) in &self.uses {
            // A post whose page is left to a user's file is not exported: it uses nothing.
            if !self.by_slug.contains_key(slug) {
                continue;
            }
            for (file, (url, size)) in uses {
                let need = needed
                    .entry(format!("media/{file}"))
                    .or_insert_with(|| Needed {
                        url: url.clone(),
                        size: None,
                        posts: BTreeSet::new(),
                    });
                need.size = need.size.or(*size);
                need.posts.insert(slug.clone());
            }
        }
        needed
    }

    /// Every file known, none rendered yet.
    pub(super) fn unrendered(self) -> Unrendered {
        Unrendered {
            format: self.format,
            files: self.files,
            posts: self.posts,
            conflicts: self.conflicts,
            media: self.media,
        }
    }
}

impl Unrendered {
    /// The plan's outcome, its posts rendered with `site`'s images (when they are brought
    /// home). The manifest's image entries are the caller's.
    pub(super) fn finish(self, site: &SiteImages) -> Result<Planned, ExportError> {
        let format = self.format;
        let blogs = self
            .files
            .iter()
            .filter(|(rel, slug)| **rel == file_path(format, slug))
            .count();
        let mut texts = BTreeMap::new();
        let mut inexact = Vec::new();
        for (slug, post) in &self.posts {
            let images = self.media.as_ref().map(|rule| PostImages { rule, site });
            let rendered = try_render_post(format, &post.blog, &post.aliases, images)?;
            for rel in &post.pages {
                // A redirect page another post took over is that post's.
                if self.files.get(rel) != Some(slug) {
                    continue;
                }
                let text = if *rel == rendered.path {
                    inexact.extend(rendered.inexact.iter().cloned());
                    rendered.text.clone()
                } else {
                    redirect_page(slug)
                };
                texts.insert(rel.clone(), text);
            }
        }
        Ok(Planned {
            next: Manifest {
                files: self.files,
                ..Manifest::new()
            },
            texts,
            blogs,
            conflicts: self.conflicts.into_values().flatten().collect(),
            inexact,
        })
    }
}
