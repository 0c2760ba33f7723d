//! A model project served as a server with the changes feed serves it: posts stamped with the
//! number of the change that last touched their answer, deletions kept as tombstones, and the
//! list, single-blog, sitemap and redirects endpoints answering from the same posts (so a
//! full read through the list and one through the feed can be compared).

use std::collections::BTreeMap;

use serde_json::{Value, json};

use super::{Reply, Seen, no_such_route, reply};

/// One published post.
#[derive(Debug, Clone)]
pub struct Post {
    pub id: u64,
    pub title: String,
    pub content: String,
    /// Former slugs with the change that made each one, newest first.
    pub aliases: Vec<(String, u64)>,
    /// The change that last touched the post's answer or its aliases.
    pub seq: u64,
}

/// A project.
#[derive(Debug)]
pub struct Site {
    /// Published posts by slug.
    pub posts: BTreeMap<String, Post>,
    /// Slugs that named a published post and no longer do, with the change that removed them.
    pub tombstones: BTreeMap<String, u64>,
    pub seq: u64,
    pub next_id: u64,
    /// Whether the server has the feed (404 from its router otherwise).
    pub feed: bool,
    /// Cursors before this change are 410 (their deletions are no longer kept).
    pub oldest: u64,
    /// What cursors are bound to (a cursor of another database is 400).
    pub epoch: String,
    /// Entries per page.
    pub page_size: usize,
}

impl Default for Site {
    fn default() -> Self {
        Self {
            posts: BTreeMap::new(),
            tombstones: BTreeMap::new(),
            seq: 0,
            next_id: 1,
            feed: true,
            oldest: 0,
            epoch: "e1".to_owned(),
            page_size: 100,
        }
    }
}

impl Site {
    fn bump(&mut self) -> u64 {
        self.seq += 1;
        self.seq
    }

    /// Stamps the post at `slug` with a new change (its answer changed: a post it links to
    /// changed, say).
    pub fn touch(&mut self, slug: &str) {
        let seq = self.bump();
        self.posts.get_mut(slug).expect("published").seq = seq;
    }

    /// Frees `slug` from any post's aliases (a post is published or renamed to it).
    fn take_over(&mut self, slug: &str) {
        let holders: Vec<String> = self
            .posts
            .iter()
            .filter(|(_, p)| p.aliases.iter().any(|(a, _)| a == slug))
            .map(|(s, _)| s.clone())
            .collect();
        for holder in holders {
            self.posts
                .get_mut(&holder)
                .unwrap()
                .aliases
                .retain(|(a, _)| a != slug);
            self.touch(&holder);
        }
        self.tombstones.remove(slug);
    }

    /// Publishes a new post at `slug`.
    pub fn publish(&mut self, slug: &str, title: &str) {
        assert!(!self.posts.contains_key(slug), "{slug} is published");
        self.take_over(slug);
        let id = self.next_id;
        self.next_id += 1;
        let seq = self.bump();
        self.posts.insert(
            slug.to_owned(),
            Post {
                id,
                title: title.to_owned(),
                content: format!("<p>{title}</p>"),
                aliases: Vec::new(),
                seq,
            },
        );
    }

    /// Changes the title (and so the body) of the post at `slug`.
    pub fn retitle(&mut self, slug: &str, title: &str) {
        let seq = self.bump();
        let post = self.posts.get_mut(slug).expect("published");
        post.title = title.to_owned();
        post.content = format!("<p>{title}</p>");
        post.seq = seq;
    }

    /// Moves the post at `from` to `to`; `from` becomes its newest alias.
    pub fn rename(&mut self, from: &str, to: &str) {
        assert!(!self.posts.contains_key(to), "{to} is published");
        let mut post = self.posts.remove(from).expect("published");
        let seq = self.bump();
        self.tombstones.insert(from.to_owned(), seq);
        post.aliases.retain(|(a, _)| a != to && a != from);
        post.aliases.insert(0, (from.to_owned(), seq));
        self.take_over(to);
        post.seq = self.bump();
        self.posts.insert(to.to_owned(), post);
    }

    /// Stamps the deletion of `slug` with a new change, so that it comes after the entries
    /// of the change that made it (a server may give a rename's upsert before its delete).
    pub fn restamp_deletion(&mut self, slug: &str) {
        let seq = self.bump();
        *self.tombstones.get_mut(slug).expect("deleted") = seq;
    }

    /// Unpublishes (or deletes) the post at `slug`: its slug is gone, and so are its aliases.
    pub fn unpublish(&mut self, slug: &str) {
        self.posts.remove(slug).expect("published");
        let seq = self.bump();
        self.tombstones.insert(slug.to_owned(), seq);
    }

    /// The cursor a client holds after reading up to change `seq`.
    pub fn cursor(&self, seq: u64) -> String {
        format!("{}.{seq}", self.epoch)
    }

    fn detail(&self, slug: &str, post: &Post) -> Value {
        json!({
            "id": format!("00000000-0000-7000-8000-{:012}", post.id),
            "title": post.title, "slug": slug, "excerpt": "", "meta_title": "",
            "meta_description": "", "featured_image_url": null,
            "categories": ["News"], "tags": [], "featured_image": null,
            "published_at": format!("2026-11-{:02}T09:30:00Z", 1 + post.id % 28),
            "content": post.content,
            "updated_at": format!("2026-11-{:02}T10:00:00Z", 1 + post.seq % 28),
            "word_count": post.title.split_whitespace().count()
        })
    }

    fn upsert(&self, slug: &str, post: &Post) -> Value {
        json!({
            "change": "upsert",
            "blog": self.detail(slug, post),
            "aliases": post.aliases.iter().map(|(a, _)| a).collect::<Vec<_>>()
        })
    }

    /// Published posts, newest first (the list's order).
    fn newest_first(&self) -> Vec<(&String, &Post)> {
        let mut posts: Vec<_> = self.posts.iter().collect();
        posts.sort_by_key(|(_, p)| std::cmp::Reverse(p.id));
        posts
    }

    /// The answer to `GET /changes`.
    fn changes(&self, req: &Seen) -> Reply {
        let since = match req.query("since") {
            None => None,
            Some(text) => {
                let parsed = text
                    .split_once('.')
                    .filter(|(epoch, _)| *epoch == self.epoch)
                    .and_then(|(_, seq)| seq.parse::<u64>().ok());
                match parsed {
                    None => {
                        return reply(
                            400,
                            json!({"detail": "the cursor is not one of this project's"}),
                        );
                    }
                    Some(seq) if seq < self.oldest => {
                        return reply(
                            410,
                            json!({"detail": "the cursor is older than the kept deletions; sync from the start (omit since)"}),
                        );
                    }
                    Some(seq) => Some(seq),
                }
            }
        };
        let mut entries: Vec<(u64, Value)> = self
            .posts
            .iter()
            .filter(|(_, p)| since.is_none_or(|s| p.seq > s))
            .map(|(slug, p)| (p.seq, self.upsert(slug, p)))
            .collect();
        if let Some(since) = since {
            entries.extend(
                self.tombstones
                    .iter()
                    .filter(|(slug, seq)| **seq > since && !self.posts.contains_key(*slug))
                    .map(|(slug, seq)| (*seq, json!({"change": "delete", "slug": slug}))),
            );
        }
        entries.sort_by_key(|(seq, _)| *seq);
        let limit = req
            .query("limit")
            .map_or(self.page_size, |l| l.parse().unwrap());
        let has_more = entries.len() > limit;
        entries.truncate(limit.min(self.page_size));
        let cursor = match entries.last() {
            Some((seq, _)) if has_more => *seq,
            _ => self.seq,
        };
        reply(
            200,
            json!({
                "changes": entries.into_iter().map(|(_, e)| e).collect::<Vec<_>>(),
                "cursor": self.cursor(cursor),
                "has_more": has_more
            }),
        )
    }

    /// Answers `req` as the server would.
    pub fn serve(&self, req: &Seen) -> Reply {
        let path = req.path();
        if path == "/blog/api/v1/public/changes" {
            return if self.feed {
                self.changes(req)
            } else {
                no_such_route(req)
            };
        }
        let Some(rest) = path.strip_prefix("/blog/api/v1/public/blogs") else {
            return no_such_route(req);
        };
        match rest {
            "" => {
                let posts = self.newest_first();
                let offset: usize = req.query("offset").map_or(0, |o| o.parse().unwrap());
                let limit: usize = req.query("limit").map_or(50, |l| l.parse().unwrap());
                let blogs: Vec<Value> = posts
                    .iter()
                    .skip(offset)
                    .take(limit)
                    .map(|(slug, post)| {
                        let mut item = self.detail(slug, post);
                        let item = item.as_object_mut().unwrap();
                        for field in ["content", "updated_at", "word_count"] {
                            item.remove(field);
                        }
                        Value::Object(item.clone())
                    })
                    .collect();
                reply(
                    200,
                    json!({"blogs": blogs, "total": posts.len(), "limit": limit, "offset": offset}),
                )
            }
            "/sitemap" => {
                let blogs: Vec<Value> = self
                    .newest_first()
                    .iter()
                    .map(|(slug, post)| {
                        let d = self.detail(slug, post);
                        json!({"slug": slug, "published_at": d["published_at"], "updated_at": d["updated_at"]})
                    })
                    .collect();
                reply(200, json!({"total": blogs.len(), "blogs": blogs}))
            }
            "/redirects" => {
                let mut all: Vec<(u64, &String, &String)> = self
                    .posts
                    .iter()
                    .flat_map(|(to, p)| p.aliases.iter().map(move |(from, at)| (*at, from, to)))
                    .collect();
                all.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(b.1)));
                let redirects: Vec<Value> = all
                    .iter()
                    .map(|(_, from, to)| json!({"from": from, "to": to}))
                    .collect();
                reply(
                    200,
                    json!({"total": redirects.len(), "redirects": redirects}),
                )
            }
            _ => {
                let slug = rest.trim_start_matches('/');
                match self.posts.get(slug) {
                    Some(post) => reply(200, self.detail(slug, post)),
                    None => reply(
                        404,
                        json!({"detail": "no published blog with this slug in this project"}),
                    ),
                }
            }
        }
    }
}
