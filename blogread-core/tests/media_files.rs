//! The media files contract on every backend: a folder of the disk, and an S3 bucket served
//! by a real S3 server in the test process (feature `test-s3`). Then what only the bucket
//! backend has: its URL, its shared bucket, its failures.

#[cfg(unix)]
mod media_in_a_folder {
    use blogread_core::media::LocalFolder;

    blogread_core::media_files_contract_tests!({
        let dir = tempfile::tempdir().expect("a temporary folder");
        let files = LocalFolder::open(&dir.path().join("media")).expect("open the folder");
        (files, dir)
    });
}

#[cfg(feature = "test-s3")]
mod media_in_a_bucket {
    use std::time::{Duration, SystemTime};

    use blogread_core::domain::ProjectId;
    use blogread_core::error::{Error, error_chain};
    use blogread_core::media::{MediaFiles, MediaPath, ObjectStorage, S3Access};
    use blogread_core::testing::s3_server::S3Server;
    use blogread_media::OutputKind;
    use bytes::Bytes;

    const SHA: &str = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";

    blogread_core::media_files_contract_tests!({
        let server = S3Server::start();
        let files = ObjectStorage::from_url_and_access(&server.url("media"), &server.access())
            .expect("the bucket");
        (files, server)
    });

    fn master(project: ProjectId) -> MediaPath {
        MediaPath::master(project, SHA, OutputKind::Jpeg).unwrap()
    }

    #[test]
    fn a_url_that_names_no_bucket_is_refused_saying_what_to_write() {
        for url in ["s3://", "s3:///media", "http://x", "file:///x", "media"] {
            match ObjectStorage::from_url(url) {
                Err(Error::Config(message)) => {
                    assert!(
                        message.contains("write s3://bucket or s3://bucket/prefix"),
                        "{url}: {message}"
                    );
                }
                other => panic!("{url}: {other:?}"),
            }
        }
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_bucket_shared_under_other_prefixes_lists_and_touches_only_its_own() {
        let server = S3Server::start();
        let ours =
            ObjectStorage::from_url_and_access(&server.url("media"), &server.access()).unwrap();
        let theirs =
            ObjectStorage::from_url_and_access(&server.url("media-old"), &server.access()).unwrap();
        let root = ObjectStorage::from_url_and_access(&server.url(""), &server.access()).unwrap();
        let project = ProjectId::generate();
        ours.put(&master(project), Bytes::from_static(b"ours"))
            .await
            .unwrap();
        theirs
            .put(&master(project), Bytes::from_static(b"theirs"))
            .await
            .unwrap();
        let listed: Vec<String> = ours
            .list(SystemTime::now())
            .await
            .unwrap()
            .into_iter()
            .map(|f| f.path.to_string())
            .collect();
        assert_eq!(listed, [master(project).to_string()]);
        // At the bucket's root, `media/…` and `media-old/…` are keys of someone else:
        // not media paths, so not listed (and so never swept).
        assert_eq!(root.list(SystemTime::now()).await.unwrap(), []);
        ours.delete(&master(project)).await.unwrap();
        assert_eq!(
            theirs.get(&master(project)).await.unwrap().unwrap(),
            "theirs"
        );
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_wrong_secret_is_refused_by_the_server_and_not_logged() {
        let server = S3Server::start();
        let mut access = server.access();
        access.secret_access_key = "not-the-secret-0123456789".to_owned();
        let files = ObjectStorage::from_url_and_access(&server.url("media"), &access).unwrap();
        let err = files
            .put(&master(ProjectId::generate()), Bytes::from_static(b"x"))
            .await
            .expect_err("a request signed with the wrong secret");
        let Error::Storage(_) = &err else {
            panic!("{err:?}")
        };
        let logged = error_chain(&err);
        assert!(!logged.contains("not-the-secret"), "{logged}");
        assert!(!format!("{access:?}").contains("not-the-secret"));
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn an_unreachable_endpoint_is_a_storage_error_soon() {
        // A port that was free a moment ago: nothing listens there.
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let access = S3Access {
            endpoint: format!("http://127.0.0.1:{port}"),
            region: "us-east-1".to_owned(),
            access_key_id: "key".to_owned(),
            secret_access_key: "secret-that-must-not-show".to_owned(),
        };
        let files = ObjectStorage::from_url_and_access("s3://bucket/media", &access).unwrap();
        let started = std::time::Instant::now();
        let got = tokio::time::timeout(
            Duration::from_secs(60),
            files.get(&master(ProjectId::generate())),
        )
        .await
        .expect("an answer within a minute, not a hang");
        let err = got.expect_err("nothing answers");
        assert!(matches!(err, Error::Storage(_)), "{err:?}");
        let logged = error_chain(&err);
        assert!(logged.contains("media bucket bucket"), "{logged}");
        assert!(!logged.contains("secret-that-must-not-show"), "{logged}");
        assert!(
            started.elapsed() < Duration::from_secs(40),
            "{:?}",
            started.elapsed()
        );
    }
}
