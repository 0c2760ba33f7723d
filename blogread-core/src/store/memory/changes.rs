//! The in-memory store's room of the changes feed and its pruning.

use super::*;
use crate::store::rules::{self, FeedItem};

#[async_trait]
impl ChangeStore for MemoryStore {
    async fn changes(&self, project: ProjectId, query: &ChangeQuery) -> Result<ChangeRead> {
        let inner = self.read();
        let entry = inner
            .projects
            .get(&project)
            .ok_or(Error::NotFound(NotFound::Project))?;
        let mut read = ChangeRead {
            head: entry.change_seq,
            floor: entry.changes_floor,
            entries: Vec::new(),
            has_more: false,
        };
        let after = &query.after;
        if !rules::feed_reads(after, read.floor, read.head) {
            return Ok(read);
        }
        let mut deletes: Vec<(u64, String)> = Vec::new();
        if *after != ChangePosition::Start {
            deletes.extend(
                entry
                    .tombstones
                    .iter()
                    .filter(|(_, (change, _))| *change <= read.head)
                    .map(|(slug, (change, _))| (*change, slug.clone()))
                    .filter(|(change, slug)| {
                        let position = ChangePosition::Delete {
                            change: *change,
                            slug: slug.clone(),
                        };
                        position.is_after(after)
                    }),
            );
        }
        deletes.sort();
        let mut upserts: Vec<(ChangePosition, &Blog)> = inner
            .blogs
            .values()
            .filter(|b| b.project_id == project && b.state.snapshot().is_some())
            .filter_map(|b| {
                let change = inner.change_nos.get(&b.id).copied().unwrap_or(0);
                let position = ChangePosition::Upsert { change, id: b.id };
                (change <= read.head && position.is_after(after)).then_some((position, b))
            })
            .collect();
        upserts.sort_by(|(a, _), (b, _)| {
            if a.is_after(b) {
                std::cmp::Ordering::Greater
            } else if b.is_after(a) {
                std::cmp::Ordering::Less
            } else {
                std::cmp::Ordering::Equal
            }
        });
        let (page, has_more) = rules::feed_page(
            query,
            deletes,
            upserts,
            |(position, _)| position.change(),
            |(_, b)| b.state.snapshot().map_or(0, |s| s.fields.content().len()),
        );
        read.has_more = has_more;
        for item in page {
            let entry = match item {
                FeedItem::Delete { change, slug } => (
                    ChangePosition::Delete {
                        change,
                        slug: slug.clone(),
                    },
                    StoredChange::Delete(slug),
                ),
                FeedItem::Upsert((position, b)) => {
                    let s = b.state.snapshot().expect("published");
                    let published = published_blog(b, s, true, inner.templates.get(&b.id));
                    let mut aliases: Vec<(Timestamp, &String)> = inner
                        .aliases
                        .iter()
                        .filter(|((p, _), (owner, _))| *p == project && *owner == b.id)
                        .map(|((_, alias), (_, at))| (*at, alias))
                        .collect();
                    aliases.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(b.1)));
                    let aliases = aliases.into_iter().map(|(_, a)| a.clone()).collect();
                    (position, StoredChange::Upsert(Box::new(published), aliases))
                }
            };
            read.entries.push(entry);
        }
        Ok(read)
    }

    async fn prune_changes(&self, before: Timestamp) -> Result<u64> {
        let mut inner = self.write();
        let mut pruned = 0u64;
        for entry in inner.projects.values_mut() {
            let mut floor = entry.changes_floor;
            entry.tombstones.retain(|_, (change, at)| {
                let keep = *at >= before;
                if !keep {
                    floor = floor.max(*change);
                    pruned += 1;
                }
                keep
            });
            entry.changes_floor = floor;
        }
        Ok(pruned)
    }
}
