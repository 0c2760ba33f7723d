//! The management API calls the end-to-end media benchmarks make over HTTP, as a client
//! does: a project and its admin token (with the operator token), a public key, published
//! posts, and images uploaded (a raw `multipart/form-data` body) and deleted.

use bytes::Bytes;
use serde::Deserialize;

/// A management API client for one server.
#[derive(Debug, Clone)]
pub struct Management {
    http: reqwest::Client,
    base: String,
}

/// A stored image as the API shows it (the fields the benchmarks read).
#[derive(Debug, Clone, Deserialize)]
pub struct MediaItem {
    /// The item's id.
    pub id: String,
    /// The master's absolute URL.
    pub url: String,
    /// The master's width in pixels.
    pub width: u32,
    /// The master's height in pixels.
    pub height: u32,
    /// The master's size in bytes.
    pub bytes: u64,
    /// The variants, narrowest first.
    pub variants: Vec<MediaVariant>,
}

/// A variant of a stored image.
#[derive(Debug, Clone, Deserialize)]
pub struct MediaVariant {
    /// Its width in pixels.
    pub width: u32,
    /// Its height in pixels.
    pub height: u32,
    /// Its size in bytes.
    pub bytes: u64,
    /// Its absolute URL.
    pub url: String,
}

/// The boundary of the upload bodies: no JPEG made by the benchmarks holds it (it is checked).
const BOUNDARY: &str = "blogread-bench-7f3a9c21e4b84d0f";

/// A `multipart/form-data` body with one part `file` holding `bytes` as `content_type`, and
/// the `Content-Type` header to send it with.
pub fn multipart(file_name: &str, content_type: &str, bytes: &[u8]) -> (Bytes, String) {
    assert!(
        !bytes
            .windows(BOUNDARY.len())
            .any(|w| w == BOUNDARY.as_bytes()),
        "the file holds the multipart boundary"
    );
    let mut body = Vec::with_capacity(bytes.len() + 256);
    body.extend_from_slice(
        format!(
            "--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"file\"; \
             filename=\"{file_name}\"\r\nContent-Type: {content_type}\r\n\r\n"
        )
        .as_bytes(),
    );
    body.extend_from_slice(bytes);
    body.extend_from_slice(format!("\r\n--{BOUNDARY}--\r\n").as_bytes());
    (
        Bytes::from(body),
        format!("multipart/form-data; boundary={BOUNDARY}"),
    )
}

impl Management {
    /// A client of the server at `base` (`http://ADDR`).
    pub fn new(base: &str) -> Self {
        Self {
            http: reqwest::Client::new(),
            base: base.trim_end_matches('/').to_owned(),
        }
    }

    /// The path of one of the server's absolute URLs (`/media/...`).
    pub fn path_of<'a>(&self, url: &'a str) -> &'a str {
        url.strip_prefix(&self.base).unwrap_or(url)
    }

    /// Sends `method path` with `token` and an optional body of `content_type`; the status
    /// and the answer's bytes.
    async fn send(
        &self,
        method: reqwest::Method,
        path: &str,
        token: &str,
        body: Option<(Bytes, String)>,
    ) -> Result<(u16, Bytes), String> {
        let mut req = self
            .http
            .request(method, format!("{}/api/v1{path}", self.base))
            .bearer_auth(token);
        if let Some((bytes, content_type)) = body {
            req = req.header("content-type", content_type).body(bytes);
        }
        let resp = req.send().await.map_err(|e| format!("{path}: {e}"))?;
        let status = resp.status().as_u16();
        let bytes = resp.bytes().await.map_err(|e| format!("{path}: {e}"))?;
        Ok((status, bytes))
    }

    /// A JSON call that must answer `expected`; its JSON answer.
    async fn json(
        &self,
        method: reqwest::Method,
        path: &str,
        token: &str,
        body: serde_json::Value,
        expected: u16,
    ) -> Result<serde_json::Value, String> {
        let body = Some((Bytes::from(body.to_string()), "application/json".to_owned()));
        let (status, bytes) = self.send(method, path, token, body).await?;
        if status != expected {
            return Err(format!(
                "{path}: {status} (expected {expected}): {}",
                String::from_utf8_lossy(&bytes)
            ));
        }
        serde_json::from_slice(&bytes).map_err(|e| format!("{path}: {e}"))
    }

    /// Creates a project with the operator token; its id.
    pub async fn create_project(&self, operator: &str, name: &str) -> Result<String, String> {
        let project = self
            .json(
                reqwest::Method::POST,
                "/projects",
                operator,
                serde_json::json!({ "name": name }),
                201,
            )
            .await?;
        string_field(&project, "id")
    }

    /// A new admin token of `project`, made with the operator token.
    pub async fn create_admin_token(
        &self,
        operator: &str,
        project: &str,
    ) -> Result<String, String> {
        let token = self
            .json(
                reqwest::Method::POST,
                &format!("/projects/{project}/admin-tokens"),
                operator,
                serde_json::json!({}),
                201,
            )
            .await?;
        string_field(&token, "token")
    }

    /// Generates `project`'s public key (`pk_live_...`).
    pub async fn create_public_key(&self, admin: &str, project: &str) -> Result<String, String> {
        let key = self
            .json(
                reqwest::Method::POST,
                &format!("/projects/{project}/public-key"),
                admin,
                serde_json::json!({}),
                201,
            )
            .await?;
        string_field(&key, "key")
    }

    /// Creates a post and publishes it.
    pub async fn publish_post(
        &self,
        admin: &str,
        project: &str,
        slug: &str,
        title: &str,
        content: &str,
    ) -> Result<(), String> {
        let blogs = format!("/projects/{project}/blogs");
        let created = self
            .json(
                reqwest::Method::POST,
                &blogs,
                admin,
                serde_json::json!({ "title": title, "slug": slug, "content": content }),
                201,
            )
            .await?;
        let id = string_field(&created, "id")?;
        self.json(
            reqwest::Method::POST,
            &format!("{blogs}/{id}/publish"),
            admin,
            serde_json::json!({}),
            200,
        )
        .await
        .map(drop)
    }

    /// Uploads `jpeg` as a new image of `project`; the item, which must be new (201).
    pub async fn upload(
        &self,
        admin: &str,
        project: &str,
        jpeg: &[u8],
    ) -> Result<MediaItem, String> {
        let body = multipart("photo.jpg", "image/jpeg", jpeg);
        self.upload_body(admin, project, body).await
    }

    /// Uploads a body made by [`multipart`] (made once, sent many times); the item, which must
    /// be new (201).
    pub async fn upload_body(
        &self,
        admin: &str,
        project: &str,
        body: (Bytes, String),
    ) -> Result<MediaItem, String> {
        let path = format!("/projects/{project}/media");
        let (status, bytes) = self
            .send(reqwest::Method::POST, &path, admin, Some(body))
            .await?;
        if status != 201 {
            return Err(format!(
                "{path}: {status} (expected 201: a new item): {}",
                String::from_utf8_lossy(&bytes)
            ));
        }
        serde_json::from_slice(&bytes).map_err(|e| format!("{path}: {e}"))
    }

    /// Deletes an image (204).
    pub async fn delete_media(&self, admin: &str, project: &str, id: &str) -> Result<(), String> {
        let path = format!("/projects/{project}/media/{id}");
        let (status, bytes) = self
            .send(reqwest::Method::DELETE, &path, admin, None)
            .await?;
        if status != 204 {
            return Err(format!(
                "{path}: {status} (expected 204): {}",
                String::from_utf8_lossy(&bytes)
            ));
        }
        Ok(())
    }
}

fn string_field(value: &serde_json::Value, name: &str) -> Result<String, String> {
    value[name]
        .as_str()
        .map(str::to_owned)
        .ok_or_else(|| format!("no `{name}` in {value}"))
}
