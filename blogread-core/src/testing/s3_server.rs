//! An S3 server for tests (feature `test-s3`): s3s-fs, a real implementation of the S3
//! protocol (SigV4 signatures, ListObjectsV2, S3's error documents) over a temporary
//! folder, started inside the test process on a free port of 127.0.0.1. Nothing to install,
//! nothing shared between cases: each [`S3Server`] has its own folder, bucket and port.
//!
//! ```no_run
//! # async fn example() {
//! use blogread_core::media::ObjectStorage;
//! use blogread_core::testing::s3_server::S3Server;
//!
//! let server = S3Server::start();
//! let files = ObjectStorage::from_url_and_access(&server.url("media"), &server.access()).unwrap();
//! // … or, for a child process (a blogread server), `--media-url` and the environment:
//! // Command::new(..).arg("--media-url").arg(server.url("media")).envs(server.env())
//! # }
//! ```

use std::net::SocketAddr;
use std::thread::JoinHandle;

use hyper_util::rt::{TokioExecutor, TokioIo};
use hyper_util::server::conn::auto::Builder as ConnectionBuilder;
use s3s::auth::SimpleAuth;
use s3s::service::S3ServiceBuilder;
use tokio::sync::oneshot;

use crate::media::S3Access;

/// The region the server's clients sign for (s3s-fs accepts any).
pub const REGION: &str = "us-east-1";

/// A running S3 server with one empty bucket; stopped, and its folder removed, when dropped.
pub struct S3Server {
    /// Its endpoint, `http://127.0.0.1:{port}`.
    pub endpoint: String,
    /// The bucket made for the test.
    pub bucket: String,
    /// The access key id it accepts.
    pub access_key: String,
    /// The secret access key of that id.
    pub secret: String,
    stop: Option<oneshot::Sender<()>>,
    thread: Option<JoinHandle<()>>,
    /// The folder the objects are kept in, removed after the server stops.
    _folder: tempfile::TempDir,
}

impl S3Server {
    /// Starts a server with one bucket, `blogread-test`, on a thread (and runtime) of its own,
    /// so it serves whatever runtime the test uses, and goes on serving while the test
    /// blocks. Panics if it cannot start (a test fixture).
    pub fn start() -> Self {
        let folder = tempfile::tempdir().expect("a temporary folder for the S3 server");
        let bucket = "blogread-test".to_owned();
        // s3s-fs keeps a bucket as a folder of its root.
        std::fs::create_dir(folder.path().join(&bucket)).expect("the bucket's folder");
        let access_key = format!("test-key-{}", uuid::Uuid::now_v7().simple());
        let secret = format!("test-secret-{}", uuid::Uuid::now_v7().simple());

        let files = s3s_fs::FileSystem::new(folder.path()).expect("s3s-fs over the folder");
        let mut service = S3ServiceBuilder::new(files);
        service.set_auth(SimpleAuth::from_single(access_key.clone(), secret.clone()));
        let service = service.build();

        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a free local port");
        listener
            .set_nonblocking(true)
            .expect("a non-blocking listener");
        let address: SocketAddr = listener.local_addr().expect("the listener's address");
        let (stop, stopped) = oneshot::channel::<()>();
        let thread = std::thread::Builder::new()
            .name("s3-test-server".into())
            .spawn(move || {
                let runtime = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .expect("the S3 server's runtime");
                runtime.block_on(async move {
                    let listener =
                        tokio::net::TcpListener::from_std(listener).expect("a tokio listener");
                    let connections = ConnectionBuilder::new(TokioExecutor::new());
                    let mut stopped = std::pin::pin!(stopped);
                    loop {
                        let socket = tokio::select! {
                            accepted = listener.accept() => match accepted {
                                Ok((socket, _)) => socket,
                                Err(_) => continue,
                            },
                            _ = &mut stopped => break,
                        };
                        let connection = connections
                            .serve_connection(TokioIo::new(socket), service.clone())
                            .into_owned();
                        tokio::spawn(async move {
                            let _ = connection.await;
                        });
                    }
                });
                // Dropping the runtime ends the connections still open.
            })
            .expect("the S3 server's thread");
        Self {
            endpoint: format!("http://{address}"),
            bucket,
            access_key,
            secret,
            stop: Some(stop),
            thread: Some(thread),
            _folder: folder,
        }
    }

    /// The media store URL of the bucket under `prefix` (`s3://blogread-test/{prefix}`; an
    /// empty `prefix` names the bucket's root).
    pub fn url(&self, prefix: &str) -> String {
        format!("s3://{}/{prefix}", self.bucket)
    }

    /// How an [`ObjectStorage`](crate::media::ObjectStorage) in this process reaches it.
    pub fn access(&self) -> S3Access {
        S3Access {
            endpoint: self.endpoint.clone(),
            region: REGION.to_owned(),
            access_key_id: self.access_key.clone(),
            secret_access_key: self.secret.clone(),
        }
    }

    /// The `AWS_*` environment a child process (a blogread server given `--media-url`) reaches
    /// it with.
    pub fn env(&self) -> Vec<(&'static str, String)> {
        vec![
            ("AWS_ENDPOINT_URL", self.endpoint.clone()),
            ("AWS_ALLOW_HTTP", "true".to_owned()),
            ("AWS_REGION", REGION.to_owned()),
            ("AWS_ACCESS_KEY_ID", self.access_key.clone()),
            ("AWS_SECRET_ACCESS_KEY", self.secret.clone()),
        ]
    }
}

impl Drop for S3Server {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}
