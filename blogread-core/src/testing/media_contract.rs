//! The media part of the store contract (see [`super::contract`]): a project's images, their
//! rows in the store and their files in a real folder, through the service as the API calls
//! it. Each case makes its pictures in code ([`blogread_media::samples`]).

use std::sync::Arc;
use std::time::{Duration, SystemTime};

use bytes::Bytes;

use crate::auth::Caller;
use crate::domain::StoredImageType;
use crate::error::{Error, NotFound};
use crate::media::{ImagePool, LocalFolder, MediaFiles, MediaPath};
use crate::read::ListParams;
use crate::service::{MediaSetup, MediaUpload, MediaView, Uploaded};
use crate::store::Store;
use crate::testing::Fixture;
use blogread_media::{OutputKind, samples};

/// The public URL the fixtures' items are served under.
pub(super) const PUBLIC_URL: &str = "https://blog.example.com";

/// A fixture whose service keeps its images in a temporary folder.
pub(super) struct MediaFixture {
    pub(super) f: Fixture,
    folder: LocalFolder,
    _dir: tempfile::TempDir,
}

impl MediaFixture {
    pub(super) async fn new(store: Arc<dyn Store>) -> Self {
        let mut f = Fixture::new(store, None).await;
        let dir = tempfile::tempdir().expect("temporary folder");
        let folder = LocalFolder::open(&dir.path().join("media")).expect("media folder");
        let setup = MediaSetup::new(
            Arc::new(folder.clone()),
            ImagePool::new(2, Duration::from_secs(60)),
            PUBLIC_URL,
        );
        f.service = f.service.clone().with_media(setup);
        Self {
            f,
            folder,
            _dir: dir,
        }
    }

    /// A media setup over the fixture's folder, for another instance of the service.
    pub(super) fn setup(&self) -> MediaSetup {
        MediaSetup::new(
            Arc::new(self.folder.clone()),
            ImagePool::new(1, Duration::from_secs(60)),
            PUBLIC_URL,
        )
    }

    pub(super) async fn upload(&self, bytes: Vec<u8>, alt: &str) -> crate::error::Result<Uploaded> {
        self.upload_as(&self.f.admin, bytes, alt).await
    }

    async fn upload_as(
        &self,
        caller: &Caller,
        bytes: Vec<u8>,
        alt: &str,
    ) -> crate::error::Result<Uploaded> {
        self.f
            .service
            .upload_media(
                caller,
                self.f.project,
                MediaUpload {
                    bytes: Bytes::from(bytes),
                    declared_type: None,
                    alt: Some(alt.to_owned()),
                },
            )
            .await
    }

    pub(super) async fn files(&self) -> Vec<String> {
        let mut names: Vec<String> = self
            .folder
            .list(SystemTime::UNIX_EPOCH)
            .await
            .expect("listing")
            .into_iter()
            .map(|f| f.path.to_string())
            .collect();
        names.sort();
        names
    }
}

/// Every byte of a file read to be served.
async fn bytes_of(file: crate::media::FileRead) -> Vec<u8> {
    use futures_util::TryStreamExt;
    let chunks: Vec<Bytes> = file.chunks.try_collect().await.expect("read the file");
    chunks.concat()
}

pub(super) fn created(uploaded: Uploaded) -> MediaView {
    match uploaded {
        Uploaded::Created(view) => view,
        Uploaded::Existing(view) => panic!("expected a new item, got the existing {view:?}"),
    }
}

/// An upload is stored as a master and its variants, listed newest first, read, given a new
/// alt text and deleted, its files with it; URLs are absolute and named by the digest.
pub async fn uploads_are_stored_listed_read_edited_and_deleted(store: Arc<dyn Store>) {
    let m = MediaFixture::new(store).await;
    let (f, project) = (&m.f, m.f.project);
    let big = created(
        m.upload(samples::jpeg(2000, 1000, 1), "A wide one")
            .await
            .unwrap(),
    );
    let item = &big.item;
    assert_eq!(item.content_type, StoredImageType::Jpeg);
    assert_eq!((item.width, item.height), (2000, 1000));
    assert_eq!(item.alt.as_str(), "A wide one");
    let widths: Vec<u32> = item.variants.iter().map(|v| v.width).collect();
    assert_eq!(widths, [480, 960, 1600]);
    assert_eq!(
        big.url,
        format!("{PUBLIC_URL}/media/{project}/{}.jpg", item.sha256)
    );
    assert_eq!(
        big.variants[0].url,
        format!("{PUBLIC_URL}/media/{project}/{}/w480.jpg", item.sha256)
    );
    assert_eq!(m.files().await.len(), 4, "a master and three variants");

    f.clock.advance(1);
    let small = created(m.upload(samples::png(300, 200, 2, 100), "").await.unwrap());
    assert_eq!(small.item.content_type, StoredImageType::Png);
    assert!(
        small.item.variants.is_empty(),
        "no variant is wider than 300 px"
    );
    assert!(small.url.ends_with(".png"), "{}", small.url);

    let list = f
        .service
        .media_list(&f.admin, project, ListParams::default())
        .await
        .unwrap();
    assert_eq!(list.total, 2);
    let ids: Vec<_> = list.media.iter().map(|v| v.item.id).collect();
    assert_eq!(ids, [small.item.id, big.item.id], "newest first");
    let page = f
        .service
        .media_list(&f.admin, project, ListParams::default().limit(1).offset(1))
        .await
        .unwrap();
    assert_eq!((page.total, page.media.len()), (2, 1));
    assert_eq!(page.media[0].item.id, big.item.id);

    let read = f
        .service
        .media_item(&f.admin, project, big.item.id)
        .await
        .unwrap();
    assert_eq!(read, big);
    let edited = f
        .service
        .set_media_alt(&f.admin, project, big.item.id, "Better words".into())
        .await
        .unwrap();
    assert_eq!(edited.item.alt.as_str(), "Better words");
    assert!(matches!(
        f.service
            .set_media_alt(&f.admin, project, big.item.id, "x".repeat(1001))
            .await,
        Err(Error::Invalid(e)) if e.field == "alt"
    ));

    f.service
        .delete_media(&f.admin, project, big.item.id)
        .await
        .unwrap();
    assert!(matches!(
        f.service.media_item(&f.admin, project, big.item.id).await,
        Err(Error::NotFound(NotFound::Media))
    ));
    assert!(matches!(
        f.service.delete_media(&f.admin, project, big.item.id).await,
        Err(Error::NotFound(NotFound::Media))
    ));
    let left = m.files().await;
    assert_eq!(
        left.len(),
        1,
        "only the small item's master is left: {left:?}"
    );
    assert!(left[0].contains(small.item.sha256.as_str()));
}

/// The same bytes uploaded again to a project answer its existing item, also when the
/// uploads run at once (exactly one of them creates it); another project's identical upload
/// is its own item.
pub async fn identical_uploads_give_one_item_per_project(store: Arc<dyn Store>) {
    let m = MediaFixture::new(store).await;
    let bytes = samples::jpeg(700, 500, 7);
    let first = created(m.upload(bytes.clone(), "first").await.unwrap());
    match m.upload(bytes.clone(), "second").await.unwrap() {
        Uploaded::Existing(again) => assert_eq!(again, first, "the existing item, alt unchanged"),
        Uploaded::Created(_) => panic!("the same bytes made a second item"),
    }

    let other = m.upload(samples::jpeg(700, 500, 8), "").await.unwrap();
    let racing = samples::jpeg(640, 480, 9);
    let uploads = (0..4).map(|_| m.upload(racing.clone(), ""));
    let results = futures_util::future::join_all(uploads).await;
    let created_count = results
        .iter()
        .filter(|r| matches!(r, Ok(Uploaded::Created(_))))
        .count();
    assert_eq!(created_count, 1, "{results:?}");
    let ids: std::collections::HashSet<_> = results
        .into_iter()
        .map(|r| match r.unwrap() {
            Uploaded::Created(v) | Uploaded::Existing(v) => v.item.id,
        })
        .collect();
    assert_eq!(ids.len(), 1);
    let list =
        m.f.service
            .media_list(&m.f.admin, m.f.project, ListParams::default())
            .await
            .unwrap();
    assert_eq!(list.total, 3, "{other:?}");

    // Another project is never compared with this one.
    let elsewhere = m.f.another(None).await;
    let theirs =
        m.f.service
            .upload_media(
                &elsewhere.admin,
                elsewhere.project,
                MediaUpload {
                    bytes: Bytes::from(bytes),
                    declared_type: Some("image/jpeg".into()),
                    alt: None,
                },
            )
            .await
            .unwrap();
    let theirs = created(theirs);
    assert_ne!(theirs.item.id, first.item.id);
    assert_eq!(theirs.item.sha256, first.item.sha256);
    assert_eq!(theirs.item.project_id, elsewhere.project);
}

/// Media take the credentials blogs take: the project's admin or agent; another project's
/// admin is refused (403), a public key or nothing is not a management credential (401).
pub async fn media_follow_the_blog_credential_rules(store: Arc<dyn Store>) {
    let m = MediaFixture::new(store).await;
    let f = &m.f;
    let agent = f
        .service
        .create_agent_key(&f.admin, f.project)
        .await
        .unwrap();
    let by_agent = created(
        m.upload_as(&Caller::agent(agent.key), samples::jpeg(64, 64, 1), "")
            .await
            .unwrap(),
    );
    let other = f.another(None).await;
    let refused = [
        (other.admin.clone(), 403),
        (f.key(), 401),
        (Caller::from_authorization(None), 401),
    ];
    for (caller, status) in refused {
        let upload = m.upload_as(&caller, samples::jpeg(64, 64, 2), "").await;
        assert_eq!(upload.unwrap_err().http_status(), status);
        let list = f
            .service
            .media_list(&caller, f.project, ListParams::default())
            .await;
        assert_eq!(list.unwrap_err().http_status(), status);
        let delete = f
            .service
            .delete_media(&caller, f.project, by_agent.item.id)
            .await;
        assert_eq!(delete.unwrap_err().http_status(), status);
    }
    // Another project's item id is not found through this project.
    assert!(matches!(
        f.service
            .media_item(&other.admin, other.project, by_agent.item.id)
            .await,
        Err(Error::NotFound(NotFound::Media))
    ));
    assert_eq!(m.files().await.len(), 1);
}

/// A refused upload stores nothing: no row, no file.
pub async fn refused_uploads_store_nothing(store: Arc<dyn Store>) {
    let m = MediaFixture::new(store).await;
    let html = b"<!doctype html><script>alert(1)</script>".to_vec();
    let lying =
        m.f.service
            .upload_media(
                &m.f.admin,
                m.f.project,
                MediaUpload {
                    bytes: Bytes::from(html),
                    declared_type: Some("image/png".into()),
                    alt: None,
                },
            )
            .await;
    assert_eq!(lying.unwrap_err().http_status(), 415);
    let declared_wrong =
        m.f.service
            .upload_media(
                &m.f.admin,
                m.f.project,
                MediaUpload {
                    bytes: Bytes::from(samples::jpeg(32, 32, 1)),
                    declared_type: Some("image/png".into()),
                    alt: None,
                },
            )
            .await;
    assert_eq!(declared_wrong.unwrap_err().http_status(), 415);
    let empty = m.upload(Vec::new(), "").await.unwrap_err();
    assert_eq!(empty.http_status(), 422);
    let mut truncated = samples::png(300, 300, 2, 255);
    truncated.truncate(truncated.len() / 2);
    assert_eq!(
        m.upload(truncated, "").await.unwrap_err().http_status(),
        422
    );
    let long_alt = m
        .upload(samples::jpeg(32, 32, 3), &"a".repeat(1001))
        .await
        .unwrap_err();
    assert_eq!(long_alt.http_status(), 422);
    let list =
        m.f.service
            .media_list(&m.f.admin, m.f.project, ListParams::default())
            .await
            .unwrap();
    assert_eq!(list.total, 0);
    assert!(m.files().await.is_empty());
}

/// A served file is found by its exact public name only: the master and each variant, in
/// their one spelling, under their own project.
pub async fn served_files_are_found_by_their_exact_name_only(store: Arc<dyn Store>) {
    let m = MediaFixture::new(store).await;
    let view = created(m.upload(samples::jpeg(1000, 800, 4), "").await.unwrap());
    let (project, sha) = (m.f.project.to_string(), view.item.sha256.to_string());
    let serve = |p: String, rest: String| {
        let service = m.f.service.clone();
        async move { service.media_file(&p, &rest).await.unwrap() }
    };
    let master = serve(project.clone(), format!("{sha}.jpg"))
        .await
        .expect("the master");
    assert_eq!(master.content_type, StoredImageType::Jpeg);
    assert_eq!(master.sha256, sha);
    assert_eq!(master.file.length, view.item.bytes);
    let master = bytes_of(master.file).await;
    assert_eq!(crate::domain::Sha256Hex::of(&master).as_str(), sha);
    let variant = serve(project.clone(), format!("{sha}/w960.jpg"))
        .await
        .expect("the 960 px variant");
    assert_eq!(
        bytes_of(variant.file).await.len() as u64,
        view.item.variants[1].bytes
    );
    let other = m.f.another(None).await.project.to_string();
    for (p, rest) in [
        (project.clone(), format!("{sha}.png")),
        (project.clone(), format!("{sha}/w1600.jpg")),
        (project.clone(), format!("{sha}/w961.jpg")),
        (project.clone(), format!("{}.jpg", sha.to_uppercase())),
        (project.to_uppercase(), format!("{sha}.jpg")),
        (project.clone(), format!("../{sha}.jpg")),
        (other, format!("{sha}.jpg")),
    ] {
        assert!(serve(p.clone(), rest.clone()).await.is_none(), "{p}/{rest}");
    }
}

/// The sweep removes files that no row names once they are an hour old, and nothing else.
pub async fn the_sweep_removes_only_old_files_without_a_row(store: Arc<dyn Store>) {
    let m = MediaFixture::new(store).await;
    let kept = created(m.upload(samples::jpeg(500, 400, 5), "").await.unwrap());
    let orphan = |seed: u8| {
        MediaPath::master(
            m.f.project,
            &format!("{seed:02x}").repeat(32),
            OutputKind::Jpeg,
        )
        .expect("a valid name")
    };
    let (young, old) = (orphan(1), orphan(2));
    m.folder
        .put(&young, Bytes::from_static(b"young"))
        .await
        .unwrap();
    m.folder
        .put(&old, Bytes::from_static(b"old"))
        .await
        .unwrap();
    let two_hours_ago = SystemTime::now() - Duration::from_secs(7200);
    let age = |path: &MediaPath| {
        std::fs::File::options()
            .write(true)
            .open(m.folder.path().join(path.to_string()))
            .and_then(|file| file.set_modified(two_hours_ago))
            .expect("age a file");
    };
    age(&old);
    // The kept item's master is as old: its row keeps it.
    age(&MediaPath::master(m.f.project, kept.item.sha256.as_str(), OutputKind::Jpeg).unwrap());
    let before = m.files().await;
    let removed = m.f.service.sweep_media().await.unwrap();
    let left = m.files().await;
    assert_eq!(removed, 1, "before {before:?}, after {left:?}");
    assert!(!left.contains(&old.to_string()), "{left:?}");
    assert!(left.contains(&young.to_string()), "{left:?}");
    assert!(
        left.iter()
            .filter(|n| n.contains(kept.item.sha256.as_str()))
            .count()
            == 2,
        "the kept item's master and its one variant stay: {left:?}"
    );
}
