//! The repository stands on its own (`docs/README.md`): every relative link in the README, in
//! `docs/` and in `benches/README.md` points at a file of the repository (and, with a
//! `#fragment`, at a heading of that file, by GitHub's anchor rules), and no file cites
//! specification documents kept outside the repository.

use std::collections::{BTreeSet, HashMap};
use std::fs;
use std::path::{Component, Path, PathBuf};

use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};

/// The file names of the specification documents that once lived outside the repository, and
/// their folder; spelled in pieces so that this file does not name them itself.
const OUTSIDE_REFERENCES: [&str; 3] = [
    concat!("SPEC", ".md"),
    concat!("DECISIONS", ".md"),
    concat!("shared", "/spec"),
];

/// The repository's root (the parent of this crate's folder).
fn root() -> PathBuf {
    blogread_tests::package_dir()
        .parent()
        .expect("the tests crate lives in the repository")
        .to_path_buf()
}

/// The Markdown files whose links are checked, relative to the root.
fn markdown_files(root: &Path) -> Vec<PathBuf> {
    let mut files = vec![
        PathBuf::from("README.md"),
        PathBuf::from("benches/README.md"),
    ];
    let mut docs: Vec<PathBuf> = fs::read_dir(root.join("docs"))
        .expect("docs/ exists")
        .map(|entry| entry.expect("docs/ is readable").path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "md"))
        .map(|path| {
            path.strip_prefix(root)
                .expect("under the root")
                .to_path_buf()
        })
        .collect();
    docs.sort();
    assert!(
        docs.iter().any(|p| p.ends_with("README.md")),
        "docs/README.md, the index, exists"
    );
    files.extend(docs);
    files
}

/// The anchor GitHub gives a heading: the heading's text in lower case, with every character
/// that is not a letter, a digit, `_`, `-` or a space dropped and each space made a `-`.
fn github_slug(text: &str) -> String {
    text.trim()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            '-' | '_' => Some(c),
            c if c.is_alphanumeric() => Some(c),
            _ => None,
        })
        .flat_map(char::to_lowercase)
        .collect()
}

/// What the checker needs of one Markdown file: its headings' anchors and its links.
struct Document {
    anchors: BTreeSet<String>,
    links: Vec<String>,
}

fn parse(text: &str) -> Document {
    let mut anchors = BTreeSet::new();
    let mut seen: HashMap<String, usize> = HashMap::new();
    let mut links = Vec::new();
    let mut heading: Option<String> = None;
    let options = Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH;
    for event in Parser::new_ext(text, options) {
        match event {
            Event::Start(Tag::Heading { .. }) => heading = Some(String::new()),
            Event::Text(t) | Event::Code(t) => {
                if let Some(h) = heading.as_mut() {
                    h.push_str(&t);
                }
            }
            Event::End(TagEnd::Heading(_)) => {
                let slug = github_slug(&heading.take().unwrap_or_default());
                // GitHub numbers repeated anchors: `x`, `x-1`, `x-2`...
                let count = seen.entry(slug.clone()).or_insert(0);
                let anchor = if *count == 0 {
                    slug
                } else {
                    format!("{slug}-{count}")
                };
                *count += 1;
                anchors.insert(anchor);
            }
            Event::Start(Tag::Link { dest_url, .. } | Tag::Image { dest_url, .. }) => {
                links.push(dest_url.into_string());
            }
            _ => {}
        }
    }
    Document { anchors, links }
}

/// True for a link that leaves the repository (`https://...`, `mailto:...`, `//host/...`).
fn is_external(link: &str) -> bool {
    link.starts_with("//")
        || link
            .split_once(':')
            .is_some_and(|(scheme, _)| !scheme.is_empty() && !scheme.contains('/'))
}

/// `path` joined to `base`, with `.` and `..` applied; `None` when it climbs out of the root.
fn normalise(base: &Path, path: &str) -> Option<PathBuf> {
    let mut out = PathBuf::new();
    for part in base.join(path).components() {
        match part {
            Component::ParentDir => {
                if !out.pop() {
                    return None;
                }
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    Some(out)
}

/// Every broken relative link of the checked files, as `file: link (why)`.
fn broken_links(root: &Path) -> Vec<String> {
    let files = markdown_files(root);
    let mut documents: HashMap<PathBuf, Document> = HashMap::new();
    for file in &files {
        let text = fs::read_to_string(root.join(file))
            .unwrap_or_else(|e| panic!("cannot read {}: {e}", file.display()));
        documents.insert(file.clone(), parse(&text));
    }
    let mut broken = Vec::new();
    for file in &files {
        let dir = file.parent().unwrap_or(Path::new(""));
        for link in &documents[file].links {
            if is_external(link) {
                continue;
            }
            let (path, fragment) = link.split_once('#').unwrap_or((link, ""));
            let target = if path.is_empty() {
                file.clone()
            } else {
                match normalise(dir, path) {
                    Some(target) if root.join(&target).exists() => target,
                    _ => {
                        broken.push(format!("{}: {link} (no such file)", file.display()));
                        continue;
                    }
                }
            };
            if fragment.is_empty() || target.extension().is_none_or(|ext| ext != "md") {
                continue;
            }
            let anchors = match documents.get(&target) {
                Some(doc) => doc.anchors.clone(),
                None => {
                    let text = fs::read_to_string(root.join(&target)).unwrap_or_default();
                    parse(&text).anchors
                }
            };
            if !anchors.contains(fragment) {
                broken.push(format!(
                    "{}: {link} (no heading of {} has the anchor #{fragment})",
                    file.display(),
                    target.display()
                ));
            }
        }
    }
    broken
}

#[test]
fn every_relative_link_in_the_docs_points_at_a_file_and_heading() {
    let broken = broken_links(&root());
    assert!(
        broken.is_empty(),
        "relative links that point nowhere (fix the link or the heading):\n{}",
        broken.join("\n")
    );
}

/// Every file of the repository outside `.git` and build folders, relative to the root.
fn repository_files(root: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut folders = vec![PathBuf::new()];
    while let Some(folder) = folders.pop() {
        let entries = fs::read_dir(root.join(&folder))
            .unwrap_or_else(|e| panic!("cannot list {}: {e}", folder.display()));
        for entry in entries {
            let entry = entry.expect("a readable folder entry");
            let name = entry.file_name();
            let path = folder.join(&name);
            let kind = entry.file_type().expect("a file type");
            if kind.is_dir() {
                if name != ".git" && name != "target" {
                    folders.push(path);
                }
            } else if kind.is_file() {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

#[test]
fn no_file_cites_specification_documents_outside_the_repository() {
    let root = root();
    let mut citing = Vec::new();
    for file in repository_files(&root) {
        let Ok(bytes) = fs::read(root.join(&file)) else {
            continue;
        };
        let text = String::from_utf8_lossy(&bytes);
        for (number, line) in text.lines().enumerate() {
            if let Some(name) = OUTSIDE_REFERENCES.iter().find(|n| line.contains(*n)) {
                citing.push(format!("{}:{}: cites {name}", file.display(), number + 1));
            }
        }
    }
    assert!(
        citing.is_empty(),
        "the repository must stand on its own: state the rule, or link to the docs/ section \
         that states it, instead of citing files outside the repository:\n{}",
        citing.join("\n")
    );
}

#[test]
fn heading_anchors_follow_githubs_rules() {
    assert_eq!(github_slug("ETags and 304"), "etags-and-304");
    assert_eq!(github_slug("Limits and time-outs"), "limits-and-time-outs");
    assert_eq!(github_slug("`blogread export`"), "blogread-export");
    assert_eq!(github_slug("What a body may hold?"), "what-a-body-may-hold");
    assert_eq!(github_slug("SQLite or PostgreSQL"), "sqlite-or-postgresql");
    let doc = parse(
        "# A\n\n## Same\n\n## Same\n\n[x](#same-1) [y](other.md#a)\n\n```\n[no](link.md)\n```\n",
    );
    assert!(doc.anchors.contains("same") && doc.anchors.contains("same-1"));
    assert_eq!(
        doc.links,
        ["#same-1", "other.md#a"],
        "code blocks hold no links"
    );
    assert!(is_external("https://example.com/") && is_external("mailto:a@b.c"));
    assert!(!is_external("docs/README.md") && !is_external("#anchor"));
}
