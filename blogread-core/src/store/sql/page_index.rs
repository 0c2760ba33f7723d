//! Deep pages at the cost of the first: a small index of the public order, per project (and
//! category filter) and content version, that turns an `OFFSET` into a keyset seek.
//!
//! The public list is ordered by `(published_at, id)` descending and paged by `limit` and
//! `offset`. A database answers `OFFSET n` by stepping over `n` index entries, so the last
//! page of a large project costs time in proportion to its size, and reading a whole project
//! page by page costs its square. [`Marks`] keep every [`STRIDE`]-th key of the order: a page
//! at `offset` seeks to the mark before it (`(published_at, id) < mark`, one index seek) and
//! steps over fewer than [`STRIDE`] entries from there.
//!
//! The marks are exact by the content-version rule: they are read in one statement with the
//! project's content version, every change of what the public list holds bumps that version,
//! and each page query reads the version again in its own statement (the same snapshot as
//! its rows). A page whose version differs from its marks' is not used: the marks are read
//! again, and if the store keeps changing under the read, the page is read the plain way. The
//! marks also know the filter's total, so a page in a category no longer counts the category.
//!
//! Memory is bounded: the index holds at most [`PageIndex::max_keys`] key-sized slots in all
//! (24 bytes each), counting each filter's keys, one slot for the filter itself and its
//! category name by size (a client may ask for many long category names), and forgets the
//! least recently used filters first.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use super::rows::DbId;
use crate::domain::ProjectId;

/// Every `STRIDE`-th key is kept: a page steps over fewer entries than this after its seek.
pub(crate) const STRIDE: u64 = 128;

/// The default bound of [`PageIndex`]: 2^19 keys (about 12 MiB), enough for every page of
/// 67 million published blogs.
pub(crate) const DEFAULT_MAX_KEYS: usize = 1 << 19;

/// A position in the public order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Key {
    /// `published_at` (the stored integer).
    pub(crate) published_at: i64,
    /// The blog id, the tie-break.
    pub(crate) id: DbId,
}

/// Where a page starts: after `after` (from the start when `None`), skipping `skip` blogs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Seek {
    /// The key the page starts after.
    pub(crate) after: Option<Key>,
    /// Blogs to step over after that key: fewer than [`STRIDE`].
    pub(crate) skip: u64,
}

/// The marks of one filter at one content version.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Marks {
    /// The project's content version they were read at.
    pub(crate) version: i64,
    /// The number of blogs the filter matches.
    pub(crate) total: u64,
    /// `keys[i]` is the key of the blog at position `(i + 1) * STRIDE - 1` (from 0).
    keys: Vec<Key>,
}

impl Marks {
    /// Marks from the keys at positions `STRIDE - 1`, `2 * STRIDE - 1`, ... in order.
    pub(crate) fn new(version: i64, total: u64, keys: Vec<Key>) -> Self {
        Self {
            version,
            total,
            keys,
        }
    }

    /// Where the page at `offset` starts; `None` past the end (an empty page).
    pub(crate) fn seek(&self, offset: u64) -> Option<Seek> {
        if offset >= self.total {
            return None;
        }
        let strides = offset / STRIDE;
        if strides == 0 {
            return Some(Seek {
                after: None,
                skip: offset,
            });
        }
        // The blog at `strides * STRIDE - 1` comes just before the stride `offset` is in.
        let mark = usize::try_from(strides - 1)
            .ok()
            .and_then(|i| self.keys.get(i))?;
        Some(Seek {
            after: Some(*mark),
            skip: offset - strides * STRIDE,
        })
    }
}

/// The size of one [`Key`] in memory: the unit [`PageIndex`] counts in.
const KEY_BYTES: usize = std::mem::size_of::<Key>();

/// What holding `marks` for a filter in `category` costs, in key-sized slots: its keys, one
/// for the entry, and the category name.
fn cost(category: Option<&str>, marks: &Marks) -> usize {
    marks.keys.len() + 1 + category.map_or(0, |c| c.len().div_ceil(KEY_BYTES))
}

/// Which list the marks are of: a project's, or one category's (by category key).
type Filter = (ProjectId, Option<String>);

/// The marks of recently read filters, bounded in keys (see the module docs).
#[derive(Debug)]
pub(crate) struct PageIndex {
    max_keys: usize,
    state: Mutex<State>,
}

#[derive(Debug, Default)]
struct State {
    entries: HashMap<Filter, Entry>,
    keys: usize,
    clock: u64,
}

#[derive(Debug)]
struct Entry {
    marks: Arc<Marks>,
    used: u64,
    /// Its [`cost`].
    cost: usize,
}

impl Default for PageIndex {
    fn default() -> Self {
        Self::new(DEFAULT_MAX_KEYS)
    }
}

impl PageIndex {
    /// An empty index holding at most `max_keys` keys (0 keeps nothing).
    pub(crate) fn new(max_keys: usize) -> Self {
        Self {
            max_keys,
            state: Mutex::default(),
        }
    }

    /// The most keys it holds.
    #[cfg(test)]
    pub(crate) fn max_keys(&self) -> usize {
        self.max_keys
    }

    /// The marks of `project`'s list (in `category`, by key), if held.
    pub(crate) fn get(&self, project: ProjectId, category: Option<&str>) -> Option<Arc<Marks>> {
        let mut state = self.lock();
        state.clock += 1;
        let now = state.clock;
        let filter = (project, category.map(str::to_owned));
        let entry = state.entries.get_mut(&filter)?;
        entry.used = now;
        Some(Arc::clone(&entry.marks))
    }

    /// Holds `marks` for the filter (replacing older ones), forgetting the least recently used
    /// filters while the bound is exceeded. Marks larger than the bound are not held.
    pub(crate) fn put(&self, project: ProjectId, category: Option<&str>, marks: Arc<Marks>) {
        let size = cost(category, &marks);
        let mut state = self.lock();
        let filter = (project, category.map(str::to_owned));
        if let Some(old) = state.entries.remove(&filter) {
            state.keys -= old.cost;
        }
        if size > self.max_keys {
            return;
        }
        while state.keys + size > self.max_keys {
            let Some(oldest) = state
                .entries
                .iter()
                .min_by_key(|(_, e)| e.used)
                .map(|(f, _)| f.clone())
            else {
                break;
            };
            if let Some(e) = state.entries.remove(&oldest) {
                state.keys -= e.cost;
            }
        }
        state.clock += 1;
        let used = state.clock;
        state.keys += size;
        state.entries.insert(
            filter,
            Entry {
                marks,
                used,
                cost: size,
            },
        );
    }

    /// Forgets the filter's marks if they are still `stale` (a newer set may have replaced
    /// them meanwhile).
    pub(crate) fn forget(&self, project: ProjectId, category: Option<&str>, stale: &Arc<Marks>) {
        let mut state = self.lock();
        let filter = (project, category.map(str::to_owned));
        if state
            .entries
            .get(&filter)
            .is_some_and(|e| Arc::ptr_eq(&e.marks, stale))
            && let Some(e) = state.entries.remove(&filter)
        {
            state.keys -= e.cost;
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        // The state stays consistent between statements, so a panic elsewhere while holding
        // the lock leaves nothing half-done: keep using it.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use uuid::Uuid;

    use super::*;

    fn key(n: u64) -> Key {
        Key {
            published_at: -i64::try_from(n).unwrap(),
            id: DbId(Uuid::from_u128(u128::from(n))),
        }
    }

    /// Marks of a list of `total` blogs whose blog at position `p` has key `key(p)`.
    fn marks(version: i64, total: u64) -> Marks {
        let keys = (1..=total / STRIDE).map(|i| key(i * STRIDE - 1)).collect();
        Marks::new(version, total, keys)
    }

    #[test]
    fn a_page_seeks_to_the_mark_before_its_stride_and_skips_the_rest() {
        let m = marks(1, 1000);
        assert_eq!(
            m.seek(0),
            Some(Seek {
                after: None,
                skip: 0
            })
        );
        assert_eq!(
            m.seek(STRIDE - 1),
            Some(Seek {
                after: None,
                skip: STRIDE - 1
            })
        );
        assert_eq!(
            m.seek(STRIDE),
            Some(Seek {
                after: Some(key(STRIDE - 1)),
                skip: 0
            })
        );
        assert_eq!(
            m.seek(999),
            Some(Seek {
                after: Some(key(7 * STRIDE - 1)),
                skip: 999 - 7 * STRIDE
            })
        );
    }

    #[test]
    fn a_page_past_the_end_is_empty() {
        assert_eq!(marks(1, 1000).seek(1000), None);
        assert_eq!(marks(1, 0).seek(0), None);
        assert_eq!(marks(1, 2 * STRIDE).seek(2 * STRIDE), None);
        assert!(marks(1, 2 * STRIDE).seek(2 * STRIDE - 1).is_some());
    }

    #[test]
    fn the_index_forgets_the_least_recently_used_filter_past_its_bound() {
        // Each of these costs 10 keys, one slot for its entry and one for a category name.
        let index = PageIndex::new(24);
        let p = ProjectId::generate();
        let big = Arc::new(marks(1, 10 * STRIDE));
        index.put(p, None, Arc::clone(&big));
        index.put(p, Some("a"), Arc::clone(&big));
        assert!(index.get(p, None).is_some(), "both fit");
        // "a" is now the least recently used: adding "b" drops it, not the project's list.
        index.put(p, Some("b"), Arc::clone(&big));
        assert!(index.get(p, Some("a")).is_none());
        assert!(index.get(p, None).is_some());
        assert!(index.get(p, Some("b")).is_some());
        assert!(index.max_keys() >= index.lock().keys);
    }

    #[test]
    fn long_category_names_count_against_the_bound() {
        let index = PageIndex::new(1000);
        let p = ProjectId::generate();
        for i in 0..100 {
            // An empty category with a 4,000-byte name, as a client may ask for.
            let name = format!("{i:04}").repeat(1000);
            index.put(p, Some(&name), Arc::new(marks(1, 0)));
            assert!(index.lock().keys <= index.max_keys(), "within the bound");
        }
        let held = index.lock().entries.len();
        assert!(
            held <= 1000 / 168,
            "{held} names of 4,000 bytes held in 1,000 slots"
        );
    }

    #[test]
    fn marks_larger_than_the_bound_are_not_held() {
        let index = PageIndex::new(5);
        let p = ProjectId::generate();
        index.put(p, None, Arc::new(marks(1, 10 * STRIDE)));
        assert!(index.get(p, None).is_none());
        assert_eq!(index.lock().keys, 0);
    }

    #[test]
    fn forget_drops_only_the_stale_marks() {
        let index = PageIndex::default();
        let p = ProjectId::generate();
        let old = Arc::new(marks(1, STRIDE));
        let new = Arc::new(marks(2, STRIDE));
        index.put(p, None, Arc::clone(&old));
        index.put(p, None, Arc::clone(&new));
        index.forget(p, None, &old);
        assert_eq!(index.get(p, None).map(|m| m.version), Some(2));
        index.forget(p, None, &new);
        assert!(index.get(p, None).is_none());
        assert_eq!(index.lock().keys, 0);
    }
}
