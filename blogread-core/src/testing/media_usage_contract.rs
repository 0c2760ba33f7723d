//! The media usage part of the store contract (see [`super::contract`]): which posts use each
//! image (`docs/media.md#usage`), kept by every post write, and the delete it refuses.

use std::sync::Arc;
use std::time::Duration;

use crate::domain::{
    AltText, BlogDetail, BlogInput, ChangeEntry, FeaturedImage, FeaturedImageVariant, ManagedBlog,
    MediaId, MediaItem, SecretHash, Sha256Hex, Trigger,
};
use crate::error::Error;
use crate::fragment_cache::FragmentCache;
use crate::read::{ChangeParams, Conditional, ListParams};
use crate::response_cache::ResponseCache;
use crate::service::{MediaView, Service};
use crate::store::Store;
use crate::testing::media_contract::{MediaFixture, PUBLIC_URL, created};
use crate::testing::{Fixture, blog_id};
use blogread_media::samples;

impl MediaFixture {
    /// The titles of the posts using item `id`, as the item's answer lists them.
    async fn users(&self, id: MediaId) -> Vec<String> {
        let f = &self.f;
        let view = f.service.media_item(&f.admin, f.project, id).await.unwrap();
        view.used_by.into_iter().map(|u| u.title).collect()
    }

    /// Edits `blog`'s working copy.
    async fn edit(&self, blog: &ManagedBlog, patch: BlogInput) {
        let f = &self.f;
        f.service
            .edit_blog(&f.admin, f.project, blog_id(blog), patch)
            .await
            .expect("edit");
    }
}

/// A body showing `url` as an image.
fn img(url: &str) -> String {
    format!("<p>Look:</p><img alt=\"x\" src=\"{url}\">")
}

/// Usage follows the featured image and the body's `<img>` of the working copy and of the
/// published snapshot through edit, publish, unpublish, schedule and delete; a media URL
/// under another public URL, or an image in a comment, is no use.
pub async fn media_usage_follows_featured_images_and_bodies_through_every_write(
    store: Arc<dyn Store>,
) {
    let m = MediaFixture::new(store).await;
    let f = &m.f;
    let a: MediaView = created(m.upload(samples::jpeg(1000, 500, 1), "").await.unwrap());
    f.clock.advance(1);
    let b = created(m.upload(samples::jpeg(640, 480, 2), "").await.unwrap());
    f.clock.advance(1);
    let c = created(m.upload(samples::png(300, 200, 3, 100), "").await.unwrap());
    let elsewhere = a.url.replace(PUBLIC_URL, "https://elsewhere.example");

    let one = f
        .draft_with(BlogInput {
            title: Some("One".into()),
            slug: Some("one".into()),
            featured_image_url: Some(Some(a.url.clone())),
            content: Some(img(&b.variants[0].url)),
            ..Default::default()
        })
        .await;
    f.draft(
        "two",
        "Two",
        &format!("{}<!-- <img src=\"{}\"> -->", img(&elsewhere), c.url),
    )
    .await;
    assert_eq!(m.users(a.item.id).await, ["One"]);
    assert_eq!(
        m.users(b.item.id).await,
        ["One"],
        "a variant's URL names its item"
    );
    assert!(m.users(c.item.id).await.is_empty());

    // The list shows the same.
    let list = f
        .service
        .media_list(&f.admin, f.project, ListParams::default())
        .await
        .unwrap();
    let used: Vec<(MediaId, usize)> = list
        .media
        .iter()
        .map(|v| (v.item.id, v.used_by.len()))
        .collect();
    assert_eq!(used, [(c.item.id, 0), (b.item.id, 1), (a.item.id, 1)]);
    assert_eq!(list.media[2].used_by[0].slug, "one");
    assert_eq!(list.media[2].used_by[0].id, blog_id(&one));

    // Published, then emptied in the working copy: the published snapshot still uses both.
    f.publish(&one, None).await;
    m.edit(
        &one,
        BlogInput {
            featured_image_url: Some(None),
            content: Some(img(&c.url)),
            ..Default::default()
        },
    )
    .await;
    assert_eq!(m.users(a.item.id).await, ["One"]);
    assert_eq!(m.users(b.item.id).await, ["One"]);
    assert_eq!(
        m.users(c.item.id).await,
        ["One"],
        "the working copy's image"
    );

    // Unpublished: only the working copy is held.
    f.service
        .unpublish_blog(&f.admin, f.project, blog_id(&one))
        .await
        .unwrap();
    assert!(m.users(a.item.id).await.is_empty());
    assert!(m.users(b.item.id).await.is_empty());
    assert_eq!(m.users(c.item.id).await, ["One"]);

    // Scheduled: the snapshot held for the go-live uses it too.
    let three = f
        .draft_with(BlogInput {
            title: Some("Three".into()),
            slug: Some("three".into()),
            featured_image_url: Some(Some(b.url.clone())),
            ..Default::default()
        })
        .await;
    f.publish(&three, Some("2026-06-01T00:00:00Z")).await;
    m.edit(
        &three,
        BlogInput {
            featured_image_url: Some(None),
            ..Default::default()
        },
    )
    .await;
    assert_eq!(m.users(b.item.id).await, ["Three"]);

    // Deleted: nothing of it is left.
    f.service
        .delete_blog(&f.admin, f.project, blog_id(&one))
        .await
        .unwrap();
    f.service
        .delete_blog(&f.admin, f.project, blog_id(&three))
        .await
        .unwrap();
    for item in [&a, &b, &c] {
        assert!(m.users(item.item.id).await.is_empty(), "{item:?}");
    }
}

/// Deleting an image a post uses is a conflict naming the post, and deletes nothing; once no
/// post uses it, it deletes. A use is kept by the image's digest: an image deleted and
/// uploaded again is used by the posts that named it.
pub async fn a_used_image_is_not_deleted_and_an_unused_one_is(store: Arc<dyn Store>) {
    let m = MediaFixture::new(store).await;
    let f = &m.f;
    let a = created(m.upload(samples::jpeg(800, 600, 4), "").await.unwrap());
    let post = f.published("cover", "The cover post", &img(&a.url)).await;
    let files = m.files().await;

    let refused = f.service.delete_media(&f.admin, f.project, a.item.id).await;
    match refused {
        Err(Error::Conflict(detail)) => {
            assert!(detail.contains("\"The cover post\""), "{detail}");
            assert!(detail.contains("remove it"), "{detail}");
        }
        other => panic!("expected a conflict, got {other:?}"),
    }
    assert_eq!(m.users(a.item.id).await, ["The cover post"], "still there");
    assert_eq!(m.files().await, files, "no file removed");

    // Gone from the working copy only: the published post still shows it.
    m.edit(
        &post,
        BlogInput {
            content: Some("<p>No image.</p>".into()),
            ..Default::default()
        },
    )
    .await;
    assert!(matches!(
        f.service.delete_media(&f.admin, f.project, a.item.id).await,
        Err(Error::Conflict(_))
    ));
    f.publish(&post, None).await;
    f.service
        .delete_media(&f.admin, f.project, a.item.id)
        .await
        .unwrap();
    assert!(m.files().await.is_empty());

    // Named while it is not stored, then uploaded again: it is used from the start.
    f.draft("again", "Again", &img(&a.url)).await;
    let back = created(m.upload(samples::jpeg(800, 600, 4), "").await.unwrap());
    assert_eq!(back.item.sha256, a.item.sha256);
    let titles: Vec<&str> = back.used_by.iter().map(|u| u.title.as_str()).collect();
    assert_eq!(titles, ["Again"]);
}

/// The single-blog answer of `slug`.
async fn public_blog(f: &Fixture, slug: &str) -> BlogDetail {
    f.service
        .get_blog(&f.key(), slug, None)
        .await
        .unwrap()
        .into_value()
        .expect("fresh")
        .value()
}

/// The changes feed of `f` after `since`: its upserts' featured images by slug, and its
/// cursor.
async fn changed(
    f: &Fixture,
    since: Option<String>,
) -> (Vec<(String, Option<FeaturedImage>)>, String) {
    let feed = f
        .service
        .changes(&f.key(), ChangeParams { since, limit: 100 }, None)
        .await
        .unwrap()
        .into_value()
        .expect("fresh")
        .value();
    let upserts = feed
        .changes
        .into_iter()
        .filter_map(|entry| match entry {
            ChangeEntry::Upsert { blog, .. } => {
                Some((blog.fields.slug().to_string(), blog.featured_image))
            }
            ChangeEntry::Delete { .. } => None,
        })
        .collect();
    (upserts, feed.cursor)
}

/// The project's content version, as the public key's look-up reads it.
async fn version(f: &Fixture) -> u64 {
    f.service
        .store()
        .project_by_public_key(&SecretHash::of(&f.public_key))
        .await
        .unwrap()
        .expect("the fixture's key is valid")
        .content_version
}

/// A published post whose featured image is one of the project's stored images (by the
/// master's or a variant's URL) shows it in every public answer: the master's URL and size,
/// the alt text and the variants; any other URL (another site, the service under another
/// public URL, a digest no item has) shows `null`. Editing the alt text changes the answers
/// of the published posts that show it, and only theirs: one change number, the content
/// version once, one `updated` firing; the same text again, or an item no published post
/// features, changes nothing. An item uploaded after a published post names it changes that
/// post's answer in the same way.
pub async fn featured_images_show_their_item_and_an_alt_edit_fires_once(store: Arc<dyn Store>) {
    let m = MediaFixture::new(Arc::clone(&store)).await;
    let f = &m.f;
    let a = created(
        m.upload(samples::jpeg(1000, 500, 1), "A kite")
            .await
            .unwrap(),
    );
    f.clock.advance(1);
    let b = created(m.upload(samples::png(300, 200, 2, 100), "").await.unwrap());
    let featuring = |slug: &str, url: &str| BlogInput {
        title: Some(slug.to_uppercase()),
        slug: Some(slug.into()),
        featured_image_url: Some(Some(url.to_owned())),
        content: Some(img(&b.url)),
        ..Default::default()
    };
    let missing = a.url.replace(a.item.sha256.as_str(), &"c".repeat(64));
    for (slug, url) in [
        ("one", a.url.clone()),
        ("two", a.variants[0].url.clone()),
        (
            "three",
            a.url.replace(PUBLIC_URL, "https://elsewhere.example"),
        ),
        ("four", "https://cdn.example.com/a.jpg".to_owned()),
        ("five", missing.clone()),
    ] {
        let post = f.draft_with(featuring(slug, &url)).await;
        f.publish(&post, None).await;
    }
    // A draft showing it changes no public answer.
    let six = f.draft_with(featuring("six", &a.url)).await;
    // The images a post uses: its featured image and its body's, once each, newest first.
    let used: Vec<MediaId> = f
        .service
        .blog_media(&f.admin, f.project, blog_id(&six))
        .await
        .unwrap()
        .into_iter()
        .map(|v| v.item.id)
        .collect();
    assert_eq!(used, [b.item.id, a.item.id]);

    let want = FeaturedImage {
        url: a.url.clone(),
        width: 1000,
        height: 500,
        alt: "A kite".into(),
        variants: a
            .variants
            .iter()
            .map(|v| FeaturedImageVariant {
                width: v.variant.width,
                url: v.url.clone(),
            })
            .collect(),
    };
    assert_eq!(want.variants.len(), 2, "480 and 960");
    for slug in ["one", "two"] {
        assert_eq!(
            public_blog(f, slug).await.featured_image,
            Some(want.clone()),
            "{slug}"
        );
    }
    for slug in ["three", "four", "five"] {
        assert_eq!(public_blog(f, slug).await.featured_image, None, "{slug}");
    }
    for with_content in [false, true] {
        let params = if with_content {
            ListParams::default().with_content()
        } else {
            ListParams::default()
        };
        let list = f
            .service
            .list_blogs(&f.key(), params, None)
            .await
            .unwrap()
            .into_value()
            .unwrap()
            .value();
        let shown: Vec<(String, bool)> = list
            .blogs
            .iter()
            .map(|b| (b.fields.slug().to_string(), b.featured_image.is_some()))
            .collect();
        assert_eq!(shown.len(), 5);
        for (slug, image) in shown {
            assert_eq!(image, slug == "one" || slug == "two", "{slug}");
        }
    }
    let (upserts, cursor) = changed(f, None).await;
    assert_eq!(upserts.len(), 5);
    assert!(
        upserts
            .iter()
            .all(|(slug, image)| { image.is_some() == (slug == "one" || slug == "two") })
    );

    // Quiet, then a hook: what follows is recorded, and claimed here.
    assert!(f.service.wait_for_firings(Duration::from_secs(10)).await);
    store
        .set_deploy_hook(f.project, Some("https://hooks.example.com/build"))
        .await
        .unwrap();
    let now = f.service.now();
    let before = version(f).await;
    let alt = AltText::new("A red kite").unwrap();
    let edited = store
        .set_media_alt(f.project, a.item.id, &alt, PUBLIC_URL, now)
        .await
        .unwrap()
        .expect("the item");
    assert_eq!(edited.alt, alt);
    assert_eq!(
        version(f).await,
        before + 1,
        "the content version moves once"
    );
    let firings = store.claim_firings(None, now).await.unwrap();
    assert_eq!(firings.len(), 1, "{firings:?}");
    assert_eq!(
        (firings[0].trigger, firings[0].slug.as_str()),
        (Trigger::Updated, "one")
    );
    let (upserts, cursor) = changed(f, Some(cursor)).await;
    let slugs: Vec<&str> = upserts.iter().map(|(slug, _)| slug.as_str()).collect();
    assert_eq!(slugs, ["one", "two"], "exactly the posts showing it");
    for (_, image) in &upserts {
        assert_eq!(image.as_ref().map(|i| i.alt.as_str()), Some("A red kite"));
    }
    assert_eq!(
        public_blog(f, "one").await.featured_image.map(|i| i.alt),
        Some("A red kite".to_owned()),
        "read again, past every cache"
    );

    // The same text again, or an item no published post features: nothing moves.
    store
        .set_media_alt(f.project, a.item.id, &alt, PUBLIC_URL, now)
        .await
        .unwrap();
    store
        .set_media_alt(f.project, b.item.id, &alt, PUBLIC_URL, now)
        .await
        .unwrap();
    assert_eq!(version(f).await, before + 1);
    assert!(store.claim_firings(None, now).await.unwrap().is_empty());
    let (upserts, cursor) = changed(f, Some(cursor)).await;
    assert!(upserts.is_empty(), "{upserts:?}");

    // Post "five" named an image before it was stored: storing it changes its answer.
    let sha256 = Sha256Hex::parse(&"c".repeat(64)).unwrap();
    let item = MediaItem {
        id: MediaId::generate(),
        sha256,
        alt: AltText::new("Late").unwrap(),
        ..a.item.clone()
    };
    store.insert_media(&item, PUBLIC_URL).await.unwrap();
    assert_eq!(version(f).await, before + 2);
    let firings = store.claim_firings(None, now).await.unwrap();
    assert_eq!(
        firings
            .iter()
            .map(|x| (x.trigger, x.slug.as_str()))
            .collect::<Vec<_>>(),
        [(Trigger::Updated, "five")]
    );
    let (upserts, _) = changed(f, Some(cursor)).await;
    assert_eq!(upserts.len(), 1);
    assert_eq!(upserts[0].0, "five");
    let shown = upserts[0].1.clone().expect("now shown");
    assert_eq!(
        (shown.url.as_str(), shown.alt.as_str()),
        (missing.as_str(), "Late")
    );
}

/// After any of the writes that change featured images (publishes naming stored images,
/// alt edits, uploads of an image a post already names, edits to another image), the public
/// answers of instances with the fragment and response caches are byte for byte, ETag for
/// ETag, those of an instance with neither, cold and warm, plain and conditional.
pub async fn featured_images_from_caches_are_the_answers_from_rows(store: Arc<dyn Store>) {
    let m = MediaFixture::new(Arc::clone(&store)).await;
    let f = &m.f;
    let reader = |fragments: FragmentCache, responses: ResponseCache| {
        Service::new(Arc::clone(&store))
            .with_clock(f.clock.clone())
            .with_fragment_cache(fragments)
            .with_response_cache(responses)
            .with_media(m.setup())
    };
    let plain = reader(FragmentCache::disabled(), ResponseCache::disabled());
    let instances = [
        reader(FragmentCache::new(1 << 20), ResponseCache::disabled()),
        reader(FragmentCache::new(1 << 20), ResponseCache::default()),
        f.service.clone(),
    ];
    let a = created(
        m.upload(samples::jpeg(1000, 500, 1), "First")
            .await
            .unwrap(),
    );
    let b = created(m.upload(samples::jpeg(2000, 1000, 2), "").await.unwrap());
    let later = a.url.replace(a.item.sha256.as_str(), &"d".repeat(64));
    let mut posts = Vec::new();
    for step in 0..12 {
        f.clock.advance(1);
        let now = f.service.now();
        match step % 6 {
            0 | 3 => {
                let url = [&a.url, &b.variants[1].url, &later][step % 3].clone();
                let post = f
                    .draft_with(BlogInput {
                        title: Some(format!("Post {step}")),
                        slug: Some(format!("post-{step}")),
                        featured_image_url: Some(Some(url)),
                        ..Default::default()
                    })
                    .await;
                posts.push(f.publish(&post, None).await);
            }
            1 | 4 => {
                let alt = AltText::new(format!("Alt {step}")).unwrap();
                let item = if step == 1 { &a.item } else { &b.item };
                store
                    .set_media_alt(f.project, item.id, &alt, PUBLIC_URL, now)
                    .await
                    .unwrap();
            }
            2 => {
                let item = MediaItem {
                    id: MediaId::generate(),
                    sha256: Sha256Hex::parse(&"d".repeat(64)).unwrap(),
                    ..a.item.clone()
                };
                store.insert_media(&item, PUBLIC_URL).await.unwrap();
            }
            _ => {
                // A post's featured image moved to another item.
                let post = &posts[step % posts.len()];
                m.edit(
                    post,
                    BlogInput {
                        featured_image_url: Some(Some(b.url.clone())),
                        ..Default::default()
                    },
                )
                .await;
                f.publish(post, None).await;
            }
        }
        let want = public_answers(&plain, f, None).await;
        let etags: Vec<String> = want.iter().map(|(etag, _)| etag.clone()).collect();
        for (at, instance) in instances.iter().enumerate() {
            for pass in ["cold", "warm"] {
                let got = public_answers(instance, f, None).await;
                assert!(
                    got == want,
                    "step {step}, instance {at}, {pass}: {got:?} != {want:?}"
                );
            }
            // Every answer that exists is a 304 under the plain instance's ETag; a 404 stays.
            let not_modified: Vec<(String, String)> = want
                .iter()
                .map(|(etag, body)| match etag.is_empty() {
                    true => (String::new(), body.clone()),
                    false => (etag.clone(), String::new()),
                })
                .collect();
            let conditional = public_answers(instance, f, Some(&etags)).await;
            assert!(
                conditional == not_modified,
                "step {step}, instance {at}: {conditional:?} != {not_modified:?}"
            );
        }
    }
}

/// The ETag and body of the list (with and without bodies), of each post, and of the whole
/// changes feed, as `service` answers them; a 304's body is empty, an error's ETag is.
/// `etags` are sent as `If-None-Match`, one for each answer in that order.
async fn public_answers(
    service: &Service,
    f: &Fixture,
    etags: Option<&[String]>,
) -> Vec<(String, String)> {
    fn seen<T>(answer: Conditional<crate::read::Answer<T>>) -> (String, String) {
        let etag = answer.etag().to_owned();
        let body = answer
            .into_value()
            .map(|value| String::from_utf8(value.into_body().to_vec()).unwrap())
            .unwrap_or_default();
        (etag, body)
    }
    let key = f.key();
    let tag = |at: usize| etags.map(|e| e[at].clone());
    let mut out = Vec::new();
    for (at, params) in [ListParams::default(), ListParams::default().with_content()]
        .into_iter()
        .enumerate()
    {
        let answer = service.list_blogs(&key, params, tag(at).as_deref()).await;
        out.push(seen(answer.unwrap()));
    }
    for (at, slug) in (0..12).map(|step| format!("post-{step}")).enumerate() {
        match service.get_blog(&key, &slug, tag(at + 2).as_deref()).await {
            Ok(answer) => out.push(seen(answer)),
            Err(err) => out.push((String::new(), err.to_string())),
        }
    }
    let answer = service
        .changes(&key, ChangeParams::default(), tag(14).as_deref())
        .await;
    out.push(seen(answer.unwrap()));
    out
}
