//! The media usage part of the store contract (see [`super::contract`]): which posts use each
//! image (`docs/media.md#usage`), kept by every post write, and the delete it refuses.

use std::sync::Arc;

use crate::domain::{BlogInput, ManagedBlog, MediaId};
use crate::error::Error;
use crate::read::ListParams;
use crate::service::MediaView;
use crate::store::Store;
use crate::testing::blog_id;
use crate::testing::media_contract::{MediaFixture, PUBLIC_URL, created};
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
