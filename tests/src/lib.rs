//! End-to-end tests for blogread: real stores, real servers on loopback, real receivers.
//!
//! The tests live under `tests/tests/`; this library holds what they share: [`spawn_app`]
//! starts the real server in-process on a random loopback port (the listener is bound before
//! the server task starts, so no test sleeps), and [`TestApp`] drives it over HTTP only.
#![forbid(unsafe_code)]

pub mod dom;

use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use blogread_core::Service;
use blogread_core::domain::OperatorToken;
use blogread_core::media::{ImagePool, LocalFolder};
use blogread_core::service::MediaSetup;
use blogread_core::store::{MemoryStore, Store};
use blogread_core::testing::databases;
use reqwest::Method;
use reqwest::header::HeaderMap;
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

pub use blogread_core::testing::OPERATOR_TOKEN;

/// This crate's folder when the test runs (cargo sets `CARGO_MANIFEST_DIR` then too), not the
/// one it was built in: a target folder shared between checkouts may hold a test binary built
/// from another one, whose folder is gone.
pub fn package_dir() -> PathBuf {
    std::env::var_os("CARGO_MANIFEST_DIR")
        .map(PathBuf::from)
        .expect("cargo sets CARGO_MANIFEST_DIR when it runs a test")
}

/// A path for one test's files under the temporary directory, in a folder named
/// `blogread-e2e-{name}-…` that is removed, with everything in it, when this is dropped (when
/// the test fails too), so that runs leave nothing behind. Derefs to the path.
pub struct Scratch {
    _dir: tempfile::TempDir,
    path: PathBuf,
}

impl Scratch {
    /// A new, empty folder.
    pub fn folder(name: &str) -> Self {
        let dir = Self::new_dir(name);
        let path = dir.path().to_path_buf();
        Self { _dir: dir, path }
    }

    /// A path that does not exist yet, in a new folder (for what a test expects to be made).
    pub fn absent(name: &str) -> Self {
        let dir = Self::new_dir(name);
        let path = dir.path().join(name);
        Self { _dir: dir, path }
    }

    fn new_dir(name: &str) -> tempfile::TempDir {
        tempfile::Builder::new()
            .prefix(&format!("blogread-e2e-{name}-"))
            .tempdir()
            .expect("a temporary folder")
    }
}

impl std::ops::Deref for Scratch {
    type Target = Path;

    fn deref(&self) -> &Path {
        &self.path
    }
}

impl AsRef<Path> for Scratch {
    fn as_ref(&self) -> &Path {
        &self.path
    }
}

/// Keeps one test's database alive until the test ends: a SQLite file's directory (removed on
/// drop) or a PostgreSQL database (dropped on drop).
pub struct StoreGuard(#[allow(dead_code)] Box<dyn std::any::Any + Send + Sync>);

impl StoreGuard {
    /// Keeps `guard` (a temporary directory, a database to drop) alive with the app.
    pub fn new(guard: impl std::any::Any + Send + Sync) -> Self {
        Self(Box::new(guard))
    }
}

/// A fresh, empty store for one test, on the backend `BLOGREAD_E2E_STORE` names: `sqlite` (the
/// default: a new SQLite file), `postgres` (a new database on the server named by
/// `BLOGREAD_TEST_POSTGRES_URL`, as `scripts/with-postgres` provides) or `memory`.
pub async fn fresh_store() -> (Arc<dyn Store>, StoreGuard) {
    let backend = std::env::var("BLOGREAD_E2E_STORE").unwrap_or_else(|_| "sqlite".into());
    match backend.as_str() {
        "sqlite" => {
            let (store, dir) = databases::fresh_sqlite().await;
            (store, StoreGuard(Box::new(dir)))
        }
        "postgres" => {
            let (store, db) = databases::fresh_postgres().await.expect(
                "BLOGREAD_E2E_STORE=postgres needs BLOGREAD_TEST_POSTGRES_URL: run under scripts/with-postgres",
            );
            (store, StoreGuard(Box::new(db)))
        }
        "memory" => (Arc::new(MemoryStore::new()), StoreGuard(Box::new(()))),
        other => panic!("BLOGREAD_E2E_STORE must be sqlite, postgres or memory (got `{other}`)"),
    }
}

/// A fresh, empty database that several servers open, each with its own connections (as
/// several processes would), on the backend `BLOGREAD_E2E_STORE` names; the in-memory backend,
/// which only one store object can hold, hands out that one object each time. Keep it alive
/// while the servers run.
pub struct SharedDatabase {
    url: Option<String>,
    first: Arc<dyn Store>,
    _guard: StoreGuard,
}

impl SharedDatabase {
    /// A fresh database, opened once.
    pub async fn fresh() -> Self {
        let (url, guard) = match backend().as_str() {
            "sqlite" => {
                let dir = tempfile::tempdir().expect("temporary directory");
                let url = format!("sqlite://{}", dir.path().join("blogread.db").display());
                (Some(url), StoreGuard(Box::new(dir)))
            }
            "postgres" => {
                let (url, db) = databases::fresh_database().await.expect(
                    "BLOGREAD_E2E_STORE=postgres needs BLOGREAD_TEST_POSTGRES_URL: run under scripts/with-postgres",
                );
                (Some(url), StoreGuard(Box::new(db)))
            }
            _ => (None, StoreGuard(Box::new(()))),
        };
        let first = match &url {
            Some(url) => blogread_core::store::open_store(url)
                .await
                .expect("open the database"),
            None => Arc::new(MemoryStore::new()),
        };
        Self {
            url,
            first,
            _guard: guard,
        }
    }

    /// The store it was opened with first.
    pub fn store(&self) -> Arc<dyn Store> {
        Arc::clone(&self.first)
    }

    /// The database opened again, with connections of its own.
    pub async fn open_again(&self) -> Arc<dyn Store> {
        match &self.url {
            Some(url) => blogread_core::store::open_store(url)
                .await
                .expect("open the database again"),
            None => self.store(),
        }
    }
}

/// The backend the end-to-end tests run on (see [`fresh_store`]).
pub fn backend() -> String {
    std::env::var("BLOGREAD_E2E_STORE").unwrap_or_else(|_| "sqlite".into())
}

/// Everything the server logged while the tests ran (all tests of the binary share it).
pub fn captured_logs() -> String {
    let buf = log_buffer().lock().expect("log buffer");
    String::from_utf8_lossy(&buf).into_owned()
}

fn log_buffer() -> &'static Arc<Mutex<Vec<u8>>> {
    static BUF: OnceLock<Arc<Mutex<Vec<u8>>>> = OnceLock::new();
    BUF.get_or_init(|| Arc::new(Mutex::new(Vec::new())))
}

#[derive(Clone)]
struct BufWriter(Arc<Mutex<Vec<u8>>>);

impl io::Write for BufWriter {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        self.0.lock().expect("log buffer").extend_from_slice(data);
        Ok(data.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

fn capture_logs() {
    static INIT: OnceLock<()> = OnceLock::new();
    INIT.get_or_init(|| {
        let buf = log_buffer().clone();
        let _ = tracing_subscriber::fmt()
            .with_env_filter(tracing_subscriber::EnvFilter::new("debug"))
            .with_ansi(false)
            .with_writer(move || BufWriter(buf.clone()))
            .try_init();
    });
}

/// A server running in-process for one test.
pub struct TestApp {
    /// `http://127.0.0.1:PORT`.
    pub base: String,
    /// The HTTP client.
    pub http: reqwest::Client,
    /// The service behind the server (to await hook firings; never to bypass HTTP).
    pub service: Service,
    shutdown: Option<oneshot::Sender<()>>,
    server: Option<JoinHandle<io::Result<()>>>,
    /// The folder the images are kept in, removed when the app is dropped.
    _media: Scratch,
    // Last, so the database outlives the server.
    _store: StoreGuard,
}

/// An answer, read whole.
#[derive(Debug)]
pub struct Resp {
    /// Status code.
    pub status: u16,
    /// Headers.
    pub headers: HeaderMap,
    /// Body text.
    pub text: String,
    /// Body as JSON (`Null` when it is not JSON).
    pub json: Value,
}

impl Resp {
    /// A header as text.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }

    /// The `detail` of an error body; panics unless the body is `{"detail": "..."}` JSON.
    pub fn detail(&self) -> &str {
        assert!(
            self.header("content-type")
                .is_some_and(|c| c.starts_with("application/json")),
            "error answers are JSON: {self:?}"
        );
        let obj = self.json.as_object().expect("error body is an object");
        assert_eq!(
            obj.len(),
            1,
            "error body is exactly {{\"detail\"}}: {}",
            self.text
        );
        obj["detail"].as_str().expect("detail is a string")
    }
}

/// A project made through the API, with an admin token and a public key.
#[derive(Debug, Clone)]
pub struct TestProject {
    /// Id.
    pub id: String,
    /// `Bearer sk_admin_...`.
    pub admin: String,
    /// `pk_live_...`.
    pub key: String,
}

impl TestProject {
    /// `Bearer <public key>`.
    pub fn bearer_key(&self) -> String {
        format!("Bearer {}", self.key)
    }

    /// `/api/v1/projects/{id}` + `rest`.
    pub fn path(&self, rest: &str) -> String {
        format!("/api/v1/projects/{}{rest}", self.id)
    }
}

/// Starts the server over a fresh store.
pub async fn spawn_app() -> TestApp {
    spawn_app_with(|service| service).await
}

/// Starts the server over a fresh store, with the service (test operator token set) adjusted
/// by `configure` (a notifier that trusts a test CA, say).
pub async fn spawn_app_with(configure: impl FnOnce(Service) -> Service) -> TestApp {
    let (store, guard) = fresh_store().await;
    spawn_app_over(store, guard, configure).await
}

/// Starts the server over `store` (kept alive by `guard`), the service adjusted by
/// `configure`. Like the real server, it keeps images: in a temporary folder of its own, two
/// uploads processed at once, their URLs under the server's own address.
pub async fn spawn_app_over(
    store: Arc<dyn Store>,
    guard: StoreGuard,
    configure: impl FnOnce(Service) -> Service,
) -> TestApp {
    capture_logs();
    // Bound first: the images' URLs name the address.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind loopback");
    let addr = listener.local_addr().expect("local addr");
    let base = format!("http://{addr}");
    let media_dir = Scratch::folder("media");
    let media = MediaSetup::new(
        Arc::new(LocalFolder::open(&media_dir).expect("open the media folder")),
        ImagePool::new(2, Duration::from_secs(30)),
        &base,
    );
    let service = configure(
        Service::new(store)
            .with_operator_token(OperatorToken::new(OPERATOR_TOKEN).expect("long enough"))
            .with_media(media),
    );
    let (tx, rx) = oneshot::channel::<()>();
    let server = tokio::spawn(blogread_server::Server::new(service.clone()).serve(
        listener,
        async {
            let _ = rx.await;
        },
    ));
    TestApp {
        base,
        http: reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .expect("client"),
        service,
        shutdown: Some(tx),
        server: Some(server),
        _media: media_dir,
        _store: guard,
    }
}

impl TestApp {
    /// The URL of `path`.
    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    /// `Bearer <operator token>`.
    pub fn operator(&self) -> String {
        format!("Bearer {OPERATOR_TOKEN}")
    }

    /// Sends a request: `auth` is the whole `Authorization` value, `body` JSON.
    pub async fn send(
        &self,
        method: Method,
        path: &str,
        auth: Option<&str>,
        body: Option<Value>,
    ) -> Resp {
        let mut req = self.http.request(method, self.url(path));
        if let Some(auth) = auth {
            req = req.header("authorization", auth);
        }
        if let Some(body) = body {
            req = req.json(&body);
        }
        read(req.send().await.expect("request")).await
    }

    /// `GET` with an optional `Authorization` value.
    pub async fn get(&self, path: &str, auth: Option<&str>) -> Resp {
        self.send(Method::GET, path, auth, None).await
    }

    /// A request built by the caller.
    pub async fn request(&self, req: reqwest::RequestBuilder) -> Resp {
        read(req.send().await.expect("request")).await
    }

    /// Sends raw bytes on a new connection and reads the answer until the server closes it
    /// (for requests a client library will not make). Returns the status and the body.
    pub async fn raw(&self, request: &[u8]) -> (u16, String) {
        let addr = self.base.trim_start_matches("http://");
        let mut stream = tokio::net::TcpStream::connect(addr).await.expect("connect");
        stream.write_all(request).await.expect("write");
        let mut out = Vec::new();
        let _ = stream.read_to_end(&mut out).await;
        let text = String::from_utf8_lossy(&out).into_owned();
        let status = text
            .split(' ')
            .nth(1)
            .and_then(|s| s.parse().ok())
            .unwrap_or(0);
        let body = text
            .split_once("\r\n\r\n")
            .map(|(_, b)| b.to_owned())
            .unwrap_or_default();
        (status, body)
    }

    /// Makes a project (operator), an admin token for it (operator) and its public key (admin).
    pub async fn new_project(&self, site_url: Option<&str>) -> TestProject {
        let op = self.operator();
        let r = self
            .send(
                Method::POST,
                "/api/v1/projects",
                Some(&op),
                Some(json!({"name": "Test project", "site_url": site_url})),
            )
            .await;
        assert_eq!(r.status, 201, "{r:?}");
        let id = r.json["id"].as_str().expect("id").to_owned();
        let r = self
            .send(
                Method::POST,
                &format!("/api/v1/projects/{id}/admin-tokens"),
                Some(&op),
                None,
            )
            .await;
        assert_eq!(r.status, 201, "{r:?}");
        let admin = format!("Bearer {}", r.json["token"].as_str().expect("token"));
        let r = self
            .send(
                Method::POST,
                &format!("/api/v1/projects/{id}/public-key"),
                Some(&admin),
                None,
            )
            .await;
        assert_eq!(r.status, 201, "{r:?}");
        let key = r.json["key"].as_str().expect("key").to_owned();
        TestProject { id, admin, key }
    }

    /// Uploads an image to the project's media through the management API, as a
    /// `multipart/form-data` body with its `file` and `alt` parts; returns the item (201 for a
    /// new image, 200 for bytes the project already holds).
    pub async fn upload_image(&self, p: &TestProject, bytes: &[u8], alt: &str) -> Value {
        const BOUNDARY: &str = "blogread-e2e-upload-5d2c";
        let mut body = format!(
            "--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"upload\"\r\n\r\n"
        )
        .into_bytes();
        body.extend_from_slice(bytes);
        body.extend_from_slice(
            format!(
                "\r\n--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"alt\"\r\n\r\n{alt}\r\n--{BOUNDARY}--\r\n"
            )
            .as_bytes(),
        );
        let r = self
            .request(
                self.http
                    .post(self.url(&p.path("/media")))
                    .header("authorization", &p.admin)
                    .header(
                        "content-type",
                        format!("multipart/form-data; boundary={BOUNDARY}"),
                    )
                    .body(body),
            )
            .await;
        assert!(matches!(r.status, 200 | 201), "{r:?}");
        r.json
    }

    /// Creates a draft through the API; returns its id.
    pub async fn create_blog(&self, p: &TestProject, body: Value) -> String {
        let r = self
            .send(Method::POST, &p.path("/blogs"), Some(&p.admin), Some(body))
            .await;
        assert_eq!(r.status, 201, "{r:?}");
        r.json["id"].as_str().expect("id").to_owned()
    }

    /// Publishes a blog through the API, optionally with an import `published_at`.
    pub async fn publish(&self, p: &TestProject, id: &str, published_at: Option<&str>) -> Resp {
        let body = published_at.map(|t| json!({ "published_at": t }));
        self.send(
            Method::POST,
            &p.path(&format!("/blogs/{id}/publish")),
            Some(&p.admin),
            body,
        )
        .await
    }

    /// Creates and publishes a blog; returns its id.
    pub async fn published_blog(
        &self,
        p: &TestProject,
        slug: &str,
        published_at: &str,
        extra: Value,
    ) -> String {
        let mut body = json!({ "title": format!("Title of {slug}"), "slug": slug });
        if let (Some(b), Some(e)) = (body.as_object_mut(), extra.as_object()) {
            for (k, v) in e {
                b.insert(k.clone(), v.clone());
            }
        }
        let id = self.create_blog(p, body).await;
        let r = self.publish(p, &id, Some(published_at)).await;
        assert_eq!(r.status, 200, "{r:?}");
        id
    }

    /// Starts a graceful shutdown without waiting for it (requests in flight go on).
    pub fn begin_shutdown(&mut self) {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
    }

    /// Stops the server gracefully and waits for it.
    pub async fn stop(mut self) -> io::Result<()> {
        self.begin_shutdown();
        match self.server.take() {
            Some(handle) => handle.await.expect("server task"),
            None => Ok(()),
        }
    }
}

impl Drop for TestApp {
    fn drop(&mut self) {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
    }
}

async fn read(resp: reqwest::Response) -> Resp {
    let status = resp.status().as_u16();
    let headers = resp.headers().clone();
    let text = resp.text().await.expect("body");
    let json = serde_json::from_str(&text).unwrap_or(Value::Null);
    Resp {
        status,
        headers,
        text,
        json,
    }
}
