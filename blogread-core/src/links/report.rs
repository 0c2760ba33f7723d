//! The links report: every placeholder a body holds, where it stands, and what the public
//! answer does with it given its target's state now (`docs/content.md#link-states`).
//!
//! # Why the report agrees with the resolver
//!
//! [`placeholders`] does not parse placeholders on its own: it runs the resolver's own rewrite
//! over the body, with a context in which every referenced slug resolves, and records each
//! placeholder the rewrite meets, with the byte range it covers and where it stands (the whole
//! `href` of an `<a>`, text, another attribute value, a comment). Only the target's state
//! decides what the rewrite does with a placeholder it meets, with one exception: the other
//! attributes of an `<a>` whose whole `href` is a placeholder (and what follows that
//! placeholder in the `href`) go with the link when it is removed, so they are recorded as
//! held by it. An opener the rewrite never met even with every target resolving (in a tag
//! name, a duplicate attribute, a doctype...) is removed by the safety pass whatever the
//! targets: it is reported as `markup`, and `malformed`.
//!
//! [`LinkTargets::verdict`] then gives the state of a slug from the project's posts and
//! aliases, with the resolver's order: a post published under the slug first, then an alias
//! of a published post. A property test (`tests/links_report_props.rs`) checks on random
//! bodies and target states that a placeholder is reported broken exactly when the public
//! answer drops it.
//!
//! One case is left to that answer: a URL inserted into a comment that would close it (a site
//! URL holding `-->`) makes the resolver drop the comment's placeholders; the report does not
//! know the site URL and says they resolve.

use std::borrow::Cow;
use std::collections::{BTreeSet, HashMap};
use std::ops::Range;
use std::sync::{Arc, Mutex};

use serde::{Deserialize, Serialize};

use super::{
    LinkContext, OPENER_FINDER, contains_placeholder, parse_placeholder, referenced_slugs, rewrite,
};
use crate::domain::{BlogId, BlogStatus, Timestamp};

/// Most characters of a placeholder as written that the report repeats (a malformed one may
/// run on for a long way).
const WRITTEN_MAX_CHARS: usize = 240;

/// Where a placeholder stands in the body.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Place {
    /// The whole `href` of an `<a>` (the link is kept only while the target resolves).
    Href,
    /// Text content (also of `<script>`, `<title>` and other raw-text elements).
    Text,
    /// Another attribute value, or an `href` that holds more than the placeholder.
    Attribute,
    /// A comment.
    Comment,
    /// Where no placeholder is recognised (a tag name, a duplicate attribute, a doctype...):
    /// always removed.
    Markup,
}

impl Place {
    /// The wire name.
    pub fn as_str(&self) -> &'static str {
        match self {
            Place::Href => "href",
            Place::Text => "text",
            Place::Attribute => "attribute",
            Place::Comment => "comment",
            Place::Markup => "markup",
        }
    }
}

/// One placeholder of a body, as [`placeholders`] finds it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Found {
    /// The placeholder as written (its first 240 characters, then `…`).
    pub written: String,
    /// The slug it names (whitespace-trimmed, lower-cased), or `None` when it is malformed or
    /// stands in [`Place::Markup`].
    pub slug: Option<String>,
    /// Where it stands.
    pub place: Place,
    /// For a placeholder in an `<a>` whose whole `href` is a placeholder (another attribute,
    /// or after that placeholder in the `href`): the index, in the same list, of that `href`
    /// placeholder. It is removed with the link when that one does not resolve.
    pub held_by: Option<usize>,
}

/// What the rewrite met, recorded while [`placeholders`] runs it.
#[derive(Debug, Default)]
pub(super) struct Recording {
    seen: Mutex<Vec<Seen>>,
    /// The start tag being rewritten whose whole `href` is a placeholder: the tag's start in
    /// the body and that placeholder's index.
    anchor: Mutex<Option<(usize, usize)>>,
}

#[derive(Debug, Clone)]
struct Seen {
    span: Range<usize>,
    slug: Option<String>,
    place: Place,
    held_by: Option<usize>,
}

impl Recording {
    /// Forgets what an earlier pass met (the rewrite may run a second, full pass).
    pub(super) fn reset(&self) {
        lock(&self.seen).clear();
        *lock(&self.anchor) = None;
    }

    /// Records a placeholder covering `span` of the body; returns its index.
    pub(super) fn record(
        &self,
        span: Range<usize>,
        slug: Option<String>,
        place: Place,
        held_by: Option<usize>,
    ) -> usize {
        let mut seen = lock(&self.seen);
        seen.push(Seen {
            span,
            slug,
            place,
            held_by,
        });
        seen.len() - 1
    }

    /// Notes that the start tag at `tag_start` is an `<a>` whose whole `href` is placeholder
    /// `index`.
    pub(super) fn open_anchor(&self, tag_start: usize, index: usize) {
        *lock(&self.anchor) = Some((tag_start, index));
    }

    /// The `href` placeholder of the start tag at `tag_start`, when it is such an `<a>`.
    pub(super) fn anchor_at(&self, tag_start: usize) -> Option<usize> {
        lock(&self.anchor).and_then(|(at, index)| (at == tag_start).then_some(index))
    }
}

/// A lock that a panic elsewhere cannot make unusable (what it guards is rebuilt every pass).
fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

/// Every placeholder of `body` in body order: each `[INTERNAL:` opener, and each
/// percent-encoded one that makes up a whole `href`. Linear in the body, as resolving it is.
pub fn placeholders(body: &str) -> Vec<Found> {
    if !contains_placeholder(body) {
        return Vec::new();
    }
    let mut referenced = BTreeSet::new();
    referenced_slugs(body, &mut referenced);
    let recording = Arc::new(Recording::default());
    let ctx = LinkContext {
        recording: Some(Arc::clone(&recording)),
        ..LinkContext::new(
            None,
            referenced
                .into_iter()
                .map(|slug| (slug, String::new()))
                .collect(),
        )
    };
    // A rewrite that fails leaves the body to the safety pass, which removes every opener:
    // nothing met, everything markup.
    let seen = match rewrite(body, &ctx, body.len()) {
        Ok(_) => std::mem::take(&mut *lock(&recording.seen)),
        Err(_) => Vec::new(),
    };
    assemble(body, seen)
}

/// Sorts what the rewrite met into body order, adds the openers it never met, and renumbers
/// `held_by`.
fn assemble(body: &str, seen: Vec<Seen>) -> Vec<Found> {
    let mut order: Vec<usize> = (0..seen.len()).collect();
    order.sort_by_key(|&i| (seen[i].span.start, i));
    // The spans covered, to tell the openers never met.
    let mut covered: Vec<Range<usize>> = seen.iter().map(|s| s.span.clone()).collect();
    covered.sort_by_key(|r| r.start);
    let mut entries: Vec<(usize, Option<usize>, Found)> = Vec::with_capacity(seen.len());
    let mut last_start = None;
    for &i in &order {
        let s = &seen[i];
        if last_start == Some(s.span.start) {
            continue;
        }
        last_start = Some(s.span.start);
        entries.push((
            s.span.start,
            Some(i),
            Found {
                written: written(body, s.span.clone()),
                slug: s.slug.clone(),
                place: s.place,
                held_by: s.held_by,
            },
        ));
    }
    let mut cover = covered.iter().peekable();
    let mut reach = 0usize;
    for at in OPENER_FINDER.find_iter(body.as_bytes()) {
        while let Some(range) = cover.next_if(|r| r.start <= at) {
            reach = reach.max(range.end);
        }
        if at < reach || covered.iter().any(|r| r.start == at) {
            continue;
        }
        let end = parse_placeholder(body, at).end;
        entries.push((
            at,
            None,
            Found {
                written: written(body, at..end),
                slug: None,
                place: Place::Markup,
                held_by: None,
            },
        ));
    }
    entries.sort_by_key(|(at, _, _)| *at);
    let index_of: HashMap<usize, usize> = entries
        .iter()
        .enumerate()
        .filter_map(|(at, (_, seen, _))| Some(((*seen)?, at)))
        .collect();
    entries
        .into_iter()
        .map(|(_, _, mut found)| {
            found.held_by = found.held_by.and_then(|i| index_of.get(&i).copied());
            found
        })
        .collect()
}

/// The body's text over `span`, cut to [`WRITTEN_MAX_CHARS`].
fn written(body: &str, span: Range<usize>) -> String {
    let text = body.get(span).unwrap_or_default();
    match text.char_indices().nth(WRITTEN_MAX_CHARS) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_owned(),
    }
}

/// The stored form of a body's placeholders (compact JSON, one array per placeholder), as the
/// SQL stores keep it; `""` for none.
pub fn to_stored(found: &[Found]) -> String {
    if found.is_empty() {
        return String::new();
    }
    let rows: Vec<(&str, Option<&str>, &str, Option<usize>)> = found
        .iter()
        .map(|f| {
            (
                f.written.as_str(),
                f.slug.as_deref(),
                f.place.as_str(),
                f.held_by,
            )
        })
        .collect();
    serde_json::to_string(&rows).unwrap_or_default()
}

/// Reads [`to_stored`]'s form back; `None` when it does not parse.
pub fn from_stored(stored: &str) -> Option<Vec<Found>> {
    if stored.is_empty() {
        return Some(Vec::new());
    }
    let rows: Vec<(String, Option<String>, Place, Option<usize>)> =
        serde_json::from_str(stored).ok()?;
    Some(
        rows.into_iter()
            .map(|(written, slug, place, held_by)| Found {
                written,
                slug,
                place,
                held_by,
            })
            .collect(),
    )
}

/// The slug and holder of one stored placeholder, read from [`to_stored`]'s form without
/// copying the text it was written as: what judging a placeholder needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredLink<'a> {
    /// The slug it names (see [`Found::slug`]), borrowed from the stored text when it holds
    /// no escape.
    pub slug: Option<Cow<'a, str>>,
    /// See [`Found::held_by`].
    pub held_by: Option<usize>,
}

/// One stored placeholder as [`stored_links`] reads it: the written text and the place
/// skipped.
#[derive(Deserialize)]
struct StoredRow<'a>(
    serde::de::IgnoredAny,
    #[serde(borrow)] Option<Cow<'a, str>>,
    serde::de::IgnoredAny,
    Option<usize>,
);

/// Reads the slugs and holders of [`to_stored`]'s form, in order; `None` when it does not
/// parse.
pub fn stored_links(stored: &str) -> Option<Vec<StoredLink<'_>>> {
    if stored.is_empty() {
        return Some(Vec::new());
    }
    let rows: Vec<StoredRow<'_>> = serde_json::from_str(stored).ok()?;
    Some(
        rows.into_iter()
            .map(|StoredRow(_, slug, _, held_by)| StoredLink { slug, held_by })
            .collect(),
    )
}

/// Where a placeholder's target stands, as the public API would resolve it now.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LinkState {
    /// The slug is a published post's: the link is written.
    Resolved,
    /// The slug is an old slug of a published post: the link goes to its current slug.
    Alias,
    /// The slug is only in a working copy (a draft, or a slug edited and not yet published).
    Draft,
    /// The post with the slug goes live later: the link appears then.
    Scheduled,
    /// The post with the slug was unpublished.
    Unpublished,
    /// No post has the slug.
    Missing,
    /// Not a valid placeholder, or written where no placeholder is recognised.
    Malformed,
}

impl LinkState {
    /// Every state, in the order the docs list them.
    pub const ALL: [LinkState; 7] = [
        LinkState::Resolved,
        LinkState::Alias,
        LinkState::Draft,
        LinkState::Scheduled,
        LinkState::Unpublished,
        LinkState::Missing,
        LinkState::Malformed,
    ];

    /// Whether the public answer drops a placeholder in this state (every state but
    /// `resolved` and `alias`).
    pub fn is_broken(&self) -> bool {
        !matches!(self, LinkState::Resolved | LinkState::Alias)
    }

    /// The wire name.
    pub fn as_str(&self) -> &'static str {
        match self {
            LinkState::Resolved => "resolved",
            LinkState::Alias => "alias",
            LinkState::Draft => "draft",
            LinkState::Scheduled => "scheduled",
            LinkState::Unpublished => "unpublished",
            LinkState::Missing => "missing",
            LinkState::Malformed => "malformed",
        }
    }
}

/// A post as a link target: what decides the state of a slug that names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LinkTarget {
    /// The post.
    pub id: BlogId,
    /// Its status.
    pub status: BlogStatus,
    /// Its working slug.
    pub slug: String,
    /// Its working title.
    pub title: String,
    /// The slug and title of the snapshot it holds for the public (published or scheduled).
    pub public: Option<(String, String)>,
    /// Its go-live time when scheduled.
    pub go_live: Option<Timestamp>,
}

impl LinkTarget {
    /// Whether its snapshot is public at `now`.
    fn live(&self, now: Timestamp) -> bool {
        match self.status {
            BlogStatus::Published => self.public.is_some(),
            BlogStatus::Scheduled => self.go_live.is_some_and(|at| at <= now),
            _ => false,
        }
    }
}

/// A project's posts and aliases, indexed by slug, to judge placeholders against.
#[derive(Debug, Clone)]
pub struct LinkTargets {
    posts: Vec<LinkTarget>,
    by_id: HashMap<BlogId, usize, foldhash::fast::RandomState>,
    by_public: SlugMap,
    by_working: SlugMap,
    aliases: SlugMap,
    now: Timestamp,
}

/// The state of one slug, and the post it names if any.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verdict {
    /// The state.
    pub state: LinkState,
    /// The post the slug names (for `alias`, the renamed post), if any.
    pub target: Option<BlogId>,
    /// The slug the link goes to, or would: the post's public slug (for `alias`, the current
    /// one), else its working slug.
    pub target_slug: Option<String>,
    /// The target post's title (public when it has a public snapshot).
    pub target_title: Option<String>,
    /// For `scheduled`: when the target goes live.
    pub go_live: Option<Timestamp>,
}

impl Verdict {
    fn bare(state: LinkState) -> Self {
        Self {
            state,
            target: None,
            target_slug: None,
            target_title: None,
            go_live: None,
        }
    }
}

/// Post index by slug (see the workspace manifest for the hasher).
type SlugMap = HashMap<String, usize, foldhash::fast::RandomState>;

impl LinkTargets {
    /// The project's posts and its aliases (old slug -> post) as they are at `now`.
    pub fn new(
        posts: Vec<LinkTarget>,
        aliases: impl IntoIterator<Item = (String, BlogId)>,
        now: Timestamp,
    ) -> Self {
        let mut targets = Self {
            posts: Vec::with_capacity(posts.len()),
            by_id: HashMap::with_capacity_and_hasher(posts.len(), Default::default()),
            by_public: SlugMap::with_capacity_and_hasher(posts.len(), Default::default()),
            by_working: SlugMap::with_capacity_and_hasher(posts.len(), Default::default()),
            aliases: SlugMap::default(),
            now,
        };
        targets.extend(posts, aliases);
        targets
    }

    /// Adds posts and aliases read since (some of the project's: see
    /// `Store::link_targets_named`): a post already held is kept as it is, and an alias of a
    /// post not held is left out.
    pub fn extend(
        &mut self,
        posts: Vec<LinkTarget>,
        aliases: impl IntoIterator<Item = (String, BlogId)>,
    ) {
        for post in posts {
            if self.by_id.contains_key(&post.id) {
                continue;
            }
            let at = self.posts.len();
            self.by_id.insert(post.id, at);
            self.by_working.insert(post.slug.clone(), at);
            if let Some((slug, _)) = &post.public {
                self.by_public.insert(slug.clone(), at);
            }
            self.posts.push(post);
        }
        for (alias, id) in aliases {
            if let Some(&at) = self.by_id.get(&id) {
                self.aliases.insert(alias, at);
            }
        }
    }

    /// The posts.
    pub fn posts(&self) -> &[LinkTarget] {
        &self.posts
    }

    /// The post `id`, if it is one of them.
    pub fn post(&self, id: BlogId) -> Option<&LinkTarget> {
        self.by_id.get(&id).map(|&at| &self.posts[at])
    }

    /// The aliases (old slug -> index of the post).
    pub fn aliases_of(&self, id: BlogId) -> Vec<&str> {
        let mut out: Vec<&str> = self
            .aliases
            .iter()
            .filter(|(_, at)| self.posts[**at].id == id)
            .map(|(alias, _)| alias.as_str())
            .collect();
        out.sort_unstable();
        out
    }

    /// The state of a placeholder naming `slug` (`None`: malformed), as the public answer
    /// would resolve it now.
    pub fn verdict(&self, slug: Option<&str>) -> Verdict {
        self.expand(self.judge(slug))
    }

    /// What [`LinkTargets::verdict`] says, without copying the target's slug and title: the
    /// state and the post named. A report judges every placeholder of a project and shows a
    /// page of them, so it expands only those it shows.
    pub fn judge(&self, slug: Option<&str>) -> Judgement {
        let Some(slug) = slug else {
            return Judgement::bare(LinkState::Malformed);
        };
        let now = self.now;
        let with = |state: LinkState, at: usize| Judgement {
            state,
            target: Some(at),
        };
        if let Some(&at) = self.by_public.get(slug)
            && self.posts[at].live(now)
        {
            return with(LinkState::Resolved, at);
        }
        if let Some(&at) = self.aliases.get(slug)
            && self.posts[at].live(now)
        {
            return with(LinkState::Alias, at);
        }
        // Not resolvable: say why, from the post that holds the slug.
        let holder = self
            .by_public
            .get(slug)
            .or_else(|| self.by_working.get(slug))
            .map(|&at| {
                (
                    at,
                    self.posts[at]
                        .public
                        .as_ref()
                        .is_some_and(|(s, _)| s == slug),
                )
            })
            .or_else(|| self.aliases.get(slug).map(|&at| (at, true)));
        let Some((at, public_slug)) = holder else {
            return Judgement::bare(LinkState::Missing);
        };
        let state = match self.posts[at].status {
            BlogStatus::Unpublished => LinkState::Unpublished,
            BlogStatus::Scheduled if public_slug => LinkState::Scheduled,
            // A draft, or a slug edited on a published or scheduled post and not yet
            // published under it.
            _ => LinkState::Draft,
        };
        with(state, at)
    }

    /// The verdict a judgement stands for: the named post's slug, title and go-live time.
    pub fn expand(&self, judgement: Judgement) -> Verdict {
        let Some(post) = judgement.target.and_then(|at| self.posts.get(at)) else {
            return Verdict::bare(judgement.state);
        };
        let (target_slug, target_title) = match &post.public {
            Some((slug, title)) => (slug.clone(), title.clone()),
            None => (post.slug.clone(), post.title.clone()),
        };
        Verdict {
            state: judgement.state,
            target: Some(post.id),
            target_slug: Some(target_slug),
            target_title: Some(target_title),
            go_live: (judgement.state == LinkState::Scheduled)
                .then_some(post.go_live)
                .flatten(),
        }
    }
}

/// The state of one slug and the index, in [`LinkTargets::posts`], of the post it names:
/// [`Verdict`] before its strings are copied.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Judgement {
    /// The state.
    pub state: LinkState,
    /// The post named (for `alias`, the renamed post), if any.
    pub target: Option<usize>,
}

impl Judgement {
    fn bare(state: LinkState) -> Self {
        Self {
            state,
            target: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn places(body: &str) -> Vec<(String, Option<String>, Place, Option<usize>)> {
        placeholders(body)
            .into_iter()
            .map(|f| (f.written, f.slug, f.place, f.held_by))
            .collect()
    }

    fn p(
        written: &str,
        slug: Option<&str>,
        place: Place,
        held_by: Option<usize>,
    ) -> (String, Option<String>, Place, Option<usize>) {
        (written.to_owned(), slug.map(str::to_owned), place, held_by)
    }

    #[test]
    fn a_body_without_placeholders_has_none() {
        assert!(placeholders("<p>plain [internal:x]</p>").is_empty());
    }

    #[test]
    fn each_place_is_told_apart() {
        assert_eq!(
            places(
                r#"<p>See [INTERNAL: Hello ]</p><a href="[INTERNAL:b]#x" title="[INTERNAL:c]">t</a><img alt="[INTERNAL:d]"><!-- [INTERNAL:e] -->"#
            ),
            vec![
                p("[INTERNAL: Hello ]", Some("hello"), Place::Text, None),
                p("[INTERNAL:b]", Some("b"), Place::Href, None),
                p("[INTERNAL:c]", Some("c"), Place::Attribute, Some(1)),
                p("[INTERNAL:d]", Some("d"), Place::Attribute, None),
                p("[INTERNAL:e]", Some("e"), Place::Comment, None),
            ]
        );
    }

    #[test]
    fn percent_encoded_href_is_a_placeholder() {
        assert_eq!(
            places(r#"<a href="%5BINTERNAL:a%5D">x</a> %5BINTERNAL:b%5D"#),
            vec![p("%5BINTERNAL:a%5D", Some("a"), Place::Href, None)]
        );
    }

    #[test]
    fn malformed_and_markup_placeholders_have_no_slug() {
        assert_eq!(
            places(r#"<p>[INTERNAL:Not_A_Slug] [INTERNAL:open</p><p [INTERNAL:x]>"#),
            vec![
                p("[INTERNAL:Not_A_Slug]", None, Place::Text, None),
                p("[INTERNAL:open", None, Place::Text, None),
                p("[INTERNAL:x]", None, Place::Markup, None),
            ]
        );
    }

    #[test]
    fn stored_form_round_trips() {
        let found =
            placeholders(r#"<a href="[INTERNAL:b]" title="[INTERNAL:c]">[INTERNAL:bad slug]</a>"#);
        assert_eq!(found.len(), 3);
        assert_eq!(from_stored(&to_stored(&found)), Some(found));
        assert_eq!(from_stored(""), Some(Vec::new()));
        assert_eq!(from_stored("not json"), None);
    }

    #[test]
    fn long_malformed_placeholders_are_cut() {
        let body = format!("<p>[INTERNAL:{}</p>", "a".repeat(5000));
        let found = placeholders(&body);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].written.chars().count(), WRITTEN_MAX_CHARS + 1);
    }

    fn target(
        slug: &str,
        status: BlogStatus,
        public: Option<&str>,
        go_live: Option<i64>,
    ) -> LinkTarget {
        LinkTarget {
            id: BlogId::generate(),
            status,
            slug: slug.to_owned(),
            title: format!("{slug} title"),
            public: public.map(|s| (s.to_owned(), format!("{s} public"))),
            go_live: go_live.map(|s| Timestamp::from_unix_seconds(s).unwrap()),
        }
    }

    #[test]
    fn verdicts_follow_the_resolver_order() {
        let renamed = target("new", BlogStatus::Published, Some("new"), None);
        let renamed_id = renamed.id;
        let posts = vec![
            renamed,
            target("draft", BlogStatus::Draft, None, None),
            target("later", BlogStatus::Scheduled, Some("later"), Some(2000)),
            target("due", BlogStatus::Scheduled, Some("due"), Some(500)),
            target("gone", BlogStatus::Unpublished, None, None),
            target("edited", BlogStatus::Published, Some("live"), None),
        ];
        let targets = LinkTargets::new(
            posts,
            [("old".to_owned(), renamed_id)],
            Timestamp::from_unix_seconds(1000).unwrap(),
        );
        let state = |slug: Option<&str>| targets.verdict(slug).state;
        assert_eq!(state(Some("new")), LinkState::Resolved);
        assert_eq!(state(Some("old")), LinkState::Alias);
        assert_eq!(
            targets.verdict(Some("old")).target_slug.as_deref(),
            Some("new")
        );
        assert_eq!(state(Some("draft")), LinkState::Draft);
        assert_eq!(state(Some("later")), LinkState::Scheduled);
        assert_eq!(
            targets.verdict(Some("later")).go_live,
            Timestamp::from_unix_seconds(2000)
        );
        assert_eq!(state(Some("due")), LinkState::Resolved);
        assert_eq!(state(Some("gone")), LinkState::Unpublished);
        assert_eq!(state(Some("live")), LinkState::Resolved);
        assert_eq!(state(Some("edited")), LinkState::Draft);
        assert_eq!(state(Some("nothing")), LinkState::Missing);
        assert_eq!(state(None), LinkState::Malformed);
    }
}
