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

use super::render::{Inexact, file_path, redirect_page, try_render_file};
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
    /// The text of each file written this run (a subset of `files`).
    texts: BTreeMap<String, String>,
    /// Files of posts that were not written because the user owns a file there, by slug.
    conflicts: BTreeMap<String, Vec<String>>,
    /// What the generator cannot show exactly, by slug of the posts written this run.
    inexact: BTreeMap<String, Vec<Inexact>>,
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

impl<'a> Plan<'a> {
    /// A plan for `out` with no file: a full read adds every post.
    pub(super) fn empty(out: &'a Path, format: Format, old: &'a Manifest) -> Self {
        Self {
            out,
            format,
            old,
            files: BTreeMap::new(),
            by_slug: BTreeMap::new(),
            texts: BTreeMap::new(),
            conflicts: BTreeMap::new(),
            inexact: BTreeMap::new(),
        }
    }

    /// A plan holding what the last export wrote: changes are applied to it.
    pub(super) fn from_manifest(out: &'a Path, format: Format, old: &'a Manifest) -> Self {
        let mut plan = Self::empty(out, format, old);
        for (rel, slug) in &old.files {
            plan.hold(rel.clone(), slug.clone());
        }
        plan
    }

    /// Removes every file of the post at `slug`: it is no longer published there.
    pub(super) fn delete(&mut self, slug: &str) {
        for rel in self.by_slug.remove(slug).unwrap_or_default() {
            self.files.remove(&rel);
            self.texts.remove(&rel);
        }
        self.conflicts.remove(slug);
        self.inexact.remove(slug);
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
        let rendered = try_render_file(self.format, blog, aliases)?;
        let mut pages = vec![(rendered.path, rendered.text)];
        if self.format == Format::Html {
            // Plain HTML has no generator to write redirect pages: one page per former slug.
            pages.extend(
                aliases
                    .iter()
                    .map(|from| (file_path(Format::Html, from), redirect_page(slug))),
            );
        }
        for (i, (rel, text)) in pages.into_iter().enumerate() {
            debug_assert!(super::is_export_file(&rel));
            // A link on the way is an error (for every file, before any is written), not a
            // conflict.
            if guard::exists(self.out, &rel)? && !self.old.owns(&rel) {
                self.conflicts.entry(slug.clone()).or_default().push(rel);
                continue;
            }
            self.hold(rel.clone(), slug.clone());
            self.texts.insert(rel, text);
            if i == 0 && !rendered.inexact.is_empty() {
                self.inexact.insert(slug.clone(), rendered.inexact.clone());
            }
        }
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

    /// The plan's outcome.
    pub(super) fn finish(self) -> Planned {
        let blogs = self
            .files
            .iter()
            .filter(|(rel, slug)| **rel == file_path(self.format, slug))
            .count();
        Planned {
            next: Manifest {
                files: self.files,
                ..Manifest::new()
            },
            texts: self.texts,
            blogs,
            conflicts: self.conflicts.into_values().flatten().collect(),
            inexact: self.inexact.into_values().flatten().collect(),
        }
    }
}
