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
//! Memory is bounded by what it really holds: each filter is charged its real size (its keys,
//! its category name, the marks' allocation, and the cache's own slot and bookkeeping), the
//! whole index holds at most [`DEFAULT_CAPACITY_BYTES`], and a filter that matches fewer
//! blogs than one [`STRIDE`] is never held (its pages need no seek; a client making up
//! categories costs nothing here). It is a sharded cache (`quick_cache`) whose eviction is
//! O(1): a read of one project never waits on a lock that every read of every project takes,
//! and a full index is as fast as an empty one.

use std::hash::Hash;
use std::sync::Arc;

use quick_cache::sync::Cache;
use quick_cache::{Equivalent, OptionsBuilder, Weighter};

use super::values::DbId;
use crate::domain::ProjectId;

/// Every `STRIDE`-th key is kept: a page steps over fewer entries than this after its seek.
pub(crate) const STRIDE: u64 = 128;

/// The default bound of [`PageIndex`]: 16 MiB of real memory, enough for the marks of every
/// page of about 80 million published blogs (24 bytes a mark, one mark per 128 blogs).
pub(crate) const DEFAULT_CAPACITY_BYTES: u64 = 16 * 1024 * 1024;

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
    /// `keys[i]` is the key of the blog at position `(i + 1) * STRIDE - 1` (from 0); a boxed
    /// slice, so that what it holds is what it costs.
    keys: Box<[Key]>,
}

impl Marks {
    /// Marks from the keys at positions `STRIDE - 1`, `2 * STRIDE - 1`, ... in order.
    pub(crate) fn new(version: i64, total: u64, keys: Vec<Key>) -> Self {
        Self {
            version,
            total,
            keys: keys.into_boxed_slice(),
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

    /// Whether holding these marks is worth anything: a filter shorter than one stride is
    /// paged from its top without a seek.
    fn worth_holding(&self) -> bool {
        self.total >= STRIDE
    }
}

/// Which list the marks are of: a project's, or one category's (by category key, boxed so
/// that its capacity is its length).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct Filter(ProjectId, Option<Box<str>>);

/// A [`Filter`] to look up without allocating; hashes as a [`Filter`] does.
#[derive(Hash)]
struct FilterRef<'a>(ProjectId, Option<&'a str>);

impl Equivalent<Filter> for FilterRef<'_> {
    fn equivalent(&self, key: &Filter) -> bool {
        self.0 == key.0 && self.1 == key.1.as_deref()
    }
}

/// What one held filter costs beyond its category name and its keys: the cache's slot (key,
/// value pointer, links, hash table entry and a share of its non-resident entries), the
/// `Arc<Marks>` allocation, and the allocator's headers of the three allocations.
const ENTRY_OVERHEAD: u64 = 64
    + std::mem::size_of::<(Filter, Arc<Marks>)>() as u64
    + 2 * std::mem::size_of::<usize>() as u64
    + std::mem::size_of::<Marks>() as u64
    + 3 * 16;

/// The real size of a held filter, in bytes (see [`ENTRY_OVERHEAD`]).
#[derive(Debug, Clone, Copy)]
struct RealSize;

impl Weighter<Filter, Arc<Marks>> for RealSize {
    fn weight(&self, filter: &Filter, marks: &Arc<Marks>) -> u64 {
        ENTRY_OVERHEAD
            + filter.1.as_ref().map_or(0, |c| c.len() as u64)
            + (marks.keys.len() * std::mem::size_of::<Key>()) as u64
    }
}

/// A typical held filter, for sizing the cache's tables: a project of a few thousand blogs.
const TYPICAL_ENTRY_BYTES: u64 = ENTRY_OVERHEAD + 32 * std::mem::size_of::<Key>() as u64;

/// The marks of recently read filters, bounded in bytes (see the module docs).
pub(crate) struct PageIndex {
    /// `None` when the bound is 0 (nothing is held).
    cache: Option<Cache<Filter, Arc<Marks>, RealSize>>,
}

impl std::fmt::Debug for PageIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PageIndex")
            .field("bytes", &self.bytes())
            .field("filters", &self.len())
            .finish()
    }
}

impl Default for PageIndex {
    fn default() -> Self {
        Self::new(DEFAULT_CAPACITY_BYTES)
    }
}

impl PageIndex {
    /// An empty index holding at most `capacity_bytes` (0 keeps nothing).
    pub(crate) fn new(capacity_bytes: u64) -> Self {
        if capacity_bytes == 0 {
            return Self { cache: None };
        }
        let items = (capacity_bytes / TYPICAL_ENTRY_BYTES).clamp(64, 1 << 20) as usize;
        let options = OptionsBuilder::new()
            .estimated_items_capacity(items)
            .weight_capacity(capacity_bytes)
            .build()
            .expect("the options are complete");
        Self {
            cache: Some(Cache::with_options(
                options,
                RealSize,
                Default::default(),
                Default::default(),
            )),
        }
    }

    /// The bytes it holds, as charged.
    pub(crate) fn bytes(&self) -> u64 {
        self.cache.as_ref().map_or(0, Cache::weight)
    }

    /// The filters it holds.
    pub(crate) fn len(&self) -> usize {
        self.cache.as_ref().map_or(0, Cache::len)
    }

    /// The marks of `project`'s list (in `category`, by key), if held.
    pub(crate) fn get(&self, project: ProjectId, category: Option<&str>) -> Option<Arc<Marks>> {
        self.cache.as_ref()?.get(&FilterRef(project, category))
    }

    /// Holds `marks` for the filter (replacing older ones) when they are worth holding (see
    /// [`Marks`]); the cache forgets what was used least lately to stay within its bound.
    pub(crate) fn put(&self, project: ProjectId, category: Option<&str>, marks: Arc<Marks>) {
        let Some(cache) = &self.cache else { return };
        if marks.worth_holding() {
            cache.insert(Filter(project, category.map(Box::from)), marks);
        } else {
            cache.remove(&FilterRef(project, category));
        }
    }

    /// Forgets the filter's marks if they are still `stale` (a newer set may have replaced
    /// them meanwhile).
    pub(crate) fn forget(&self, project: ProjectId, category: Option<&str>, stale: &Arc<Marks>) {
        if let Some(cache) = &self.cache {
            cache.remove_if(&FilterRef(project, category), |held| {
                Arc::ptr_eq(held, stale)
            });
        }
    }
}

/// Drives a [`PageIndex`] from outside the crate, for the benchmarks only: filters are
/// numbered, and each is held with the marks of a list of `STRIDE * keys` blogs.
#[doc(hidden)]
#[derive(Debug)]
pub struct PageIndexBench {
    index: PageIndex,
    project: ProjectId,
    keys: usize,
}

impl PageIndexBench {
    /// An index of `capacity_bytes`, whose filters hold `keys` marks each.
    pub fn new(capacity_bytes: u64, keys: usize) -> Self {
        Self {
            index: PageIndex::new(capacity_bytes),
            project: ProjectId::generate(),
            keys,
        }
    }

    /// Reads filter `n`'s marks, holding them first if they are not held (as a page read
    /// does); returns whether they were held.
    pub fn read(&self, n: u64) -> bool {
        let category = n.to_string();
        if self.index.get(self.project, Some(&category)).is_some() {
            return true;
        }
        let keys = (0..self.keys)
            .map(|i| Key {
                published_at: -(i as i64),
                id: DbId(uuid::Uuid::from_u128(u128::from(n))),
            })
            .collect();
        let total = STRIDE * (self.keys as u64 + 1);
        self.index.put(
            self.project,
            Some(&category),
            Arc::new(Marks::new(1, total, keys)),
        );
        false
    }

    /// The bytes the index holds, as charged.
    pub fn bytes(&self) -> u64 {
        self.index.bytes()
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
    fn a_filter_shorter_than_a_stride_is_never_held() {
        let index = PageIndex::default();
        let p = ProjectId::generate();
        for total in [0, 1, STRIDE - 1] {
            index.put(p, Some("small"), Arc::new(marks(1, total)));
            assert!(index.get(p, Some("small")).is_none(), "{total}");
        }
        index.put(p, Some("small"), Arc::new(marks(1, STRIDE)));
        assert!(index.get(p, Some("small")).is_some());
        // Shrunk below a stride: the old marks are dropped, not kept.
        index.put(p, Some("small"), Arc::new(marks(2, 3)));
        assert!(index.get(p, Some("small")).is_none());
        assert_eq!((index.len(), index.bytes()), (0, 0));
    }

    #[test]
    fn each_filter_is_charged_its_real_size_and_the_index_stays_within_its_bound() {
        let p = ProjectId::generate();
        let index = PageIndex::new(1 << 20);
        let long = "x".repeat(4000);
        index.put(p, Some(&long), Arc::new(marks(1, 10 * STRIDE)));
        let charged = index.bytes();
        assert_eq!(
            charged,
            ENTRY_OVERHEAD + 4000 + 10 * std::mem::size_of::<Key>() as u64
        );
        assert!(charged > 4000 + 240 + 100, "name, keys and bookkeeping");
        for n in 0..10_000 {
            index.put(
                p,
                Some(&format!("{n}{long}")),
                Arc::new(marks(1, 10 * STRIDE)),
            );
            assert!(index.bytes() <= 1 << 20, "within the bound");
        }
        assert!(index.len() < (1 << 20) / 4000, "{}", index.len());
        assert!(
            index.get(p, Some(&format!("9999{long}"))).is_some(),
            "the newest is held"
        );
    }

    #[test]
    fn marks_larger_than_the_bound_are_not_held() {
        let index = PageIndex::new(2048);
        let p = ProjectId::generate();
        index.put(p, None, Arc::new(marks(1, 1000 * STRIDE)));
        assert!(index.get(p, None).is_none());
        assert_eq!(index.bytes(), 0);
        let off = PageIndex::new(0);
        off.put(p, None, Arc::new(marks(1, 10 * STRIDE)));
        assert!(off.get(p, None).is_none());
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
        assert_eq!(index.bytes(), 0);
    }

    #[test]
    fn a_projects_list_and_its_categories_are_told_apart() {
        let index = PageIndex::default();
        let (p, q) = (ProjectId::generate(), ProjectId::generate());
        index.put(p, None, Arc::new(marks(1, STRIDE)));
        index.put(p, Some("a"), Arc::new(marks(2, STRIDE)));
        index.put(q, Some("a"), Arc::new(marks(3, STRIDE)));
        assert_eq!(index.get(p, None).map(|m| m.version), Some(1));
        assert_eq!(index.get(p, Some("a")).map(|m| m.version), Some(2));
        assert_eq!(index.get(q, Some("a")).map(|m| m.version), Some(3));
        assert!(index.get(q, None).is_none());
        assert!(index.get(p, Some("")).is_none());
    }

    /// Anonymous resident memory of this process (the heap; not the program's own pages,
    /// which grow as new code first runs), in bytes.
    fn resident_bytes() -> u64 {
        let status = std::fs::read_to_string("/proc/self/status").expect("Linux /proc");
        let line = status
            .lines()
            .find(|l| l.starts_with("RssAnon:"))
            .expect("RssAnon in /proc/self/status");
        let kib: u64 = line.split_whitespace().nth(1).unwrap().parse().unwrap();
        kib * 1024
    }

    /// The real memory of a full index stays near its bound: run in a process of its own
    /// (the test below starts it), so that nothing else allocates meanwhile.
    #[test]
    #[ignore = "run in a process of its own by the_index_holds_no_more_memory_than_its_bound"]
    fn page_index_memory_worker() {
        const BOUND: u64 = DEFAULT_CAPACITY_BYTES;
        let p = ProjectId::generate();
        let before = resident_bytes();
        let index = PageIndex::new(BOUND);
        // 300,000 filters with names of 10 to 70 bytes and 1 to 8 marks each: far more than
        // the bound holds.
        for n in 0..300_000u64 {
            let name = format!("{n:06}{}", "c".repeat((n % 61) as usize + 4));
            let total = STRIDE * (n % 8 + 2);
            index.put(p, Some(&name), Arc::new(marks(1, total)));
        }
        assert!(index.bytes() <= BOUND);
        let grown = resident_bytes().saturating_sub(before);
        println!(
            "held {} filters, {} bytes charged; resident memory grew by {grown} bytes",
            index.len(),
            index.bytes()
        );
        // What is charged is what is held: the heap grows by the bound, not by a multiple.
        assert!(
            grown <= BOUND + BOUND / 10,
            "grew by {grown} bytes for a bound of {BOUND}"
        );
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn the_index_holds_no_more_memory_than_its_bound() {
        let out = std::process::Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                "store::sql::page_index::tests::page_index_memory_worker",
                "--ignored",
                "--nocapture",
                "--test-threads=1",
            ])
            .output()
            .unwrap();
        let shown = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(out.status.success(), "{shown}");
        assert!(shown.contains("1 passed"), "the worker ran: {shown}");
    }
}
