//! The fragment cache's part of the store contract (see [`super::contract`]): after any
//! sequence of writes, every public answer made from cached per-post fragments is byte for
//! byte, ETag for ETag, the answer made from the store's rows as a whole, on every store.

use std::sync::Arc;

use crate::auth::Caller;
use crate::fragment_cache::FragmentCache;
use crate::read::{Answer, Conditional, RawListParams};
use crate::response_cache::ResponseCache;
use crate::service::Service;
use crate::store::{PageQuery, Store};
use crate::testing::random_writes::{CATEGORIES, Dice, SLUGS, random_write};
use crate::testing::{Fixture, OPERATOR_TOKEN};

const SITE: &str = "https://www.example.com";

/// One public answer as a client sees it: the ETag and body of a 200, the ETag of a 304, or
/// the error's text.
#[derive(Debug, PartialEq, Eq)]
enum Seen {
    Fresh(String, String),
    NotModified(String),
    Failed(String),
}

fn seen<T>(answer: crate::error::Result<Conditional<Answer<T>>>) -> Seen {
    match answer {
        Ok(Conditional::Fresh { etag, value }) => Seen::Fresh(
            etag,
            String::from_utf8(value.into_body().to_vec()).expect("JSON is UTF-8"),
        ),
        Ok(Conditional::NotModified { etag }) => Seen::NotModified(etag),
        Err(err) => Seen::Failed(err.to_string()),
    }
}

/// A reader of the project's public answers: another server instance on the same store.
fn reader(store: &Arc<dyn Store>, f: &Fixture, fragments: FragmentCache) -> Service {
    Service::new(Arc::clone(store))
        .with_clock(f.clock.clone())
        .with_operator_token(
            crate::domain::OperatorToken::new(OPERATOR_TOKEN).expect("long enough"),
        )
        .with_response_cache(ResponseCache::disabled())
        .with_fragment_cache(fragments)
}

/// Every public answer the check compares: list pages of several sizes and offsets, with and
/// without bodies and a category; every slug the posts can take, plain and with the ETag the
/// first reader gave (a 304 for a post that exists, a 404 for one that does not).
async fn answers(service: &Service, key: &Caller, etags: Option<&[Option<String>]>) -> Vec<Seen> {
    let mut out = Vec::new();
    for limit in ["2", "50"] {
        for offset in ["0", "3"] {
            for category in [None, Some(CATEGORIES[0]), Some("TIPS")] {
                for content in ["false", "true"] {
                    let params = RawListParams {
                        limit: Some(limit.into()),
                        offset: Some(offset.into()),
                        category: category.map(str::to_owned),
                        include_content: Some(content.into()),
                    };
                    out.push(seen(service.list_blogs(key, params, None).await));
                }
            }
        }
    }
    for (at, slug) in SLUGS.iter().chain(&["nothing-here"]).enumerate() {
        let etag = etags.and_then(|e| e.get(at).cloned().flatten());
        out.push(seen(service.get_blog(key, slug, etag.as_deref()).await));
    }
    out
}

/// The ETags of the single-blog answers in `answers` (in slug order).
fn blog_etags(answers: &[Seen]) -> Vec<Option<String>> {
    answers[answers.len() - SLUGS.len() - 1..]
        .iter()
        .map(|seen| match seen {
            Seen::Fresh(etag, _) | Seen::NotModified(etag) => Some(etag.clone()),
            Seen::Failed(_) => Some("\"an-old-etag\"".to_owned()),
        })
        .collect()
}

/// After each of a sequence of random writes (publishes, re-syncs of titles, slugs,
/// categories and bodies with links, unpublishes, deletes, schedules going live, site URL
/// changes), the answers of instances with the fragment cache (large, small enough to evict,
/// and behind the response cache) are those of an instance with neither cache, byte for
/// byte; and the store's page keys are its pages' posts, in order, with the same total.
pub async fn answers_from_fragments_are_the_answers_from_rows(store: Arc<dyn Store>) {
    let f = Fixture::new(Arc::clone(&store), Some(SITE)).await;
    for seed in [0x9e37_79b9_7f4a_7c15_u64, 0x0123_4567_89ab_cdef] {
        let project = f.another(Some(SITE)).await;
        let key = project.key();
        let plain = reader(&store, &project, FragmentCache::disabled());
        let instances = [
            (
                "fragments",
                reader(&store, &project, FragmentCache::new(1 << 20)),
            ),
            (
                "small fragments",
                reader(&store, &project, FragmentCache::new(48 << 10)),
            ),
            ("both caches", project.service.clone()),
        ];
        let mut dice = Dice(seed);
        let mut posts = Vec::new();
        for round in 0..60 {
            random_write(&project, &mut dice, &mut posts).await;
            let want = answers(&plain, &key, None).await;
            let etags = blog_etags(&want);
            let want_conditional = answers(&plain, &key, Some(&etags)).await;
            for (name, instance) in &instances {
                // Twice: the first read fills the fragments, the second is served from them.
                for pass in ["cold", "warm"] {
                    let got = answers(instance, &key, None).await;
                    assert!(
                        got == want,
                        "seed {seed:x}, round {round}, {name}, {pass}: {}",
                        first_difference(&got, &want)
                    );
                }
                let got = answers(instance, &key, Some(&etags)).await;
                assert!(
                    got == want_conditional,
                    "seed {seed:x}, round {round}, {name}, conditional: {}",
                    first_difference(&got, &want_conditional)
                );
            }
            page_keys_are_the_pages_posts(&store, &project).await;
        }
    }
}

fn first_difference(got: &[Seen], want: &[Seen]) -> String {
    got.iter()
        .zip(want)
        .enumerate()
        .find(|(_, (g, w))| g != w)
        .map_or_else(
            || format!("{} answers, {} wanted", got.len(), want.len()),
            |(at, (g, w))| format!("answer {at}: got {g:?}, want {w:?}"),
        )
}

/// The keys the store reads for a page are the posts of the page it reads as a whole.
async fn page_keys_are_the_pages_posts(store: &Arc<dyn Store>, f: &Fixture) {
    for category in [None, Some("news")] {
        for offset in [0, 1, 4] {
            let query = PageQuery {
                limit: 3,
                offset,
                category: category.map(str::to_owned),
                include_content: false,
            };
            let page = store.published_page(f.project, &query).await.unwrap();
            let keys = store.published_page_keys(f.project, &query).await.unwrap();
            let ids: Vec<_> = page.blogs.iter().map(|b| b.id).collect();
            let key_ids: Vec<_> = keys.keys.iter().map(|k| k.id).collect();
            assert_eq!((key_ids, keys.total), (ids, page.total), "{query:?}");
        }
    }
}
