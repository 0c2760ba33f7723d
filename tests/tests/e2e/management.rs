//! `docs/management-api.md`: projects, admin tokens, agent keys and the blog lifecycle.

use blogread_tests::spawn_app;
use reqwest::Method;
use serde_json::{Value, json};

const PUBLIC: &str = "/blog/api/v1/public/blogs";

#[tokio::test]
async fn projects_are_created_read_and_updated() {
    let app = spawn_app().await;
    let op = app.operator();
    let r = app
        .send(
            Method::POST,
            "/api/v1/projects",
            Some(&op),
            Some(json!({"name": "Acme", "site_url": "https://Acme.example.com/blog-root/"})),
        )
        .await;
    assert_eq!(r.status, 201, "{r:?}");
    let mut k: Vec<&String> = r.json.as_object().unwrap().keys().collect();
    k.sort();
    assert_eq!(k, ["created_at", "id", "name", "site_url"]);
    assert_eq!(
        r.json["site_url"], "https://Acme.example.com/blog-root/",
        "echoed as given"
    );
    let id = r.json["id"].as_str().unwrap().to_owned();
    assert_eq!(id, id.to_lowercase());
    let path = format!("/api/v1/projects/{id}");
    let r = app.get(&path, Some(&op)).await;
    assert_eq!((r.status, r.json["name"].as_str()), (200, Some("Acme")));

    let r = app
        .send(
            Method::PATCH,
            &path,
            Some(&op),
            Some(json!({"site_url": null})),
        )
        .await;
    assert_eq!(r.status, 200, "{r:?}");
    assert_eq!(r.json["site_url"], Value::Null);
    assert_eq!(r.json["name"], "Acme", "absent fields are unchanged");
    let r = app
        .send(
            Method::PATCH,
            &path,
            Some(&op),
            Some(json!({"name": "Acme 2"})),
        )
        .await;
    assert_eq!(r.json["name"], "Acme 2");

    let r = app
        .send(
            Method::PATCH,
            &path,
            Some(&op),
            Some(json!({"site_url": "ftp://x"})),
        )
        .await;
    assert_eq!(r.status, 422, "{r:?}");
    assert_eq!(
        r.detail(),
        "site_url: must be an absolute http or https URL such as https://www.example.com"
    );
    let r = app
        .send(
            Method::POST,
            "/api/v1/projects",
            Some(&op),
            Some(json!({"name": ""})),
        )
        .await;
    assert_eq!(r.status, 422, "{r:?}");
    let r = app
        .send(Method::POST, "/api/v1/projects", Some(&op), Some(json!({})))
        .await;
    assert_eq!(r.status, 400, "missing required field: {r:?}");
    assert!(r.detail().contains("name"), "{}", r.detail());
}

#[tokio::test]
async fn admin_tokens_are_shown_once_and_can_be_revoked() {
    let app = spawn_app().await;
    let p = app.new_project(None).await;
    let op = app.operator();
    let r = app
        .send(Method::POST, &p.path("/admin-tokens"), Some(&op), None)
        .await;
    assert_eq!(r.status, 201);
    let token = format!("Bearer {}", r.json["token"].as_str().unwrap());
    assert!(token.starts_with("Bearer sk_admin_"));
    let token_id = r.json["id"].as_str().unwrap().to_owned();
    assert_eq!(app.get(&p.path(""), Some(&token)).await.status, 200);
    let r = app
        .send(
            Method::DELETE,
            &p.path(&format!("/admin-tokens/{token_id}")),
            Some(&op),
            None,
        )
        .await;
    assert_eq!(r.status, 204);
    assert_eq!(
        app.get(&p.path(""), Some(&token)).await.status,
        401,
        "revoked"
    );
    let r = app
        .send(
            Method::DELETE,
            &p.path(&format!("/admin-tokens/{token_id}")),
            Some(&op),
            None,
        )
        .await;
    assert_eq!(r.status, 204, "deleting what is not there");
}

#[tokio::test]
async fn agent_keys_are_listed_without_secrets_and_deleted() {
    let app = spawn_app().await;
    let p = app.new_project(None).await;
    let r = app
        .send(Method::POST, &p.path("/agent-keys"), Some(&p.admin), None)
        .await;
    assert_eq!(r.status, 201);
    let key = r.json["key"].as_str().unwrap().to_owned();
    let id = r.json["id"].as_str().unwrap().to_owned();
    assert!(key.starts_with("sk_agent_"));
    let r = app.get(&p.path("/agent-keys"), Some(&p.admin)).await;
    assert_eq!(r.status, 200);
    let list = r.json["agent_keys"].as_array().unwrap();
    assert_eq!(list.len(), 1);
    assert_eq!(list[0]["id"], id.as_str());
    assert_eq!(list[0]["prefix"], &key[..12]);
    assert!(!r.text.contains(&key), "the secret is shown once only");
    let agent = format!("Bearer {key}");
    let created = app
        .send(
            Method::POST,
            &p.path("/blogs"),
            Some(&agent),
            Some(json!({"title": "By agent", "slug": "by-agent"})),
        )
        .await;
    assert_eq!(created.status, 201, "{created:?}");
    let r = app
        .send(
            Method::DELETE,
            &p.path(&format!("/agent-keys/{id}")),
            Some(&p.admin),
            None,
        )
        .await;
    assert_eq!(r.status, 204);
    assert_eq!(app.get(&p.path("/blogs"), Some(&agent)).await.status, 401);
}

#[tokio::test]
async fn blog_lifecycle_draft_edit_publish_resync_unpublish_delete() {
    let app = spawn_app().await;
    let p = app.new_project(None).await;
    let key = p.bearer_key();
    let r = app
        .send(
            Method::POST,
            &p.path("/blogs"),
            Some(&p.admin),
            Some(json!({
                "title": "Hello",
                "slug": "hello",
                "content": "<p>[INTERNAL:hello] v1</p>",
                "categories": ["b", "a"],
                "tags": ["z", "y"],
            })),
        )
        .await;
    assert_eq!(r.status, 201, "{r:?}");
    assert_eq!(r.json["status"], "draft");
    assert_eq!(r.json["published_at"], Value::Null);
    assert_eq!(r.json["categories"], json!(["b", "a"]), "order kept");
    assert_eq!(
        r.json["content"], "<p>[INTERNAL:hello] v1</p>",
        "working copy as written"
    );
    let id = r.json["id"].as_str().unwrap().to_owned();
    let blog = p.path(&format!("/blogs/{id}"));
    assert_eq!(
        app.get(&format!("{PUBLIC}/hello"), Some(&key)).await.status,
        404
    );

    let r = app
        .send(
            Method::POST,
            &format!("{blog}/unpublish"),
            Some(&p.admin),
            None,
        )
        .await;
    assert_eq!(r.status, 409, "unpublishing a draft: {r:?}");
    assert!(!r.detail().is_empty());

    let r = app
        .send(
            Method::POST,
            &format!("{blog}/publish"),
            Some(&p.admin),
            Some(json!({"published_at": "2026-01-01T12:00:00.750+02:00"})),
        )
        .await;
    assert_eq!(r.status, 200, "{r:?}");
    assert_eq!(r.json["status"], "published");
    assert_eq!(
        r.json["published_at"], "2026-01-01T10:00:00Z",
        "UTC, whole seconds"
    );
    let public = app.get(&format!("{PUBLIC}/hello"), Some(&key)).await;
    assert_eq!(public.status, 200);
    assert!(public.json["content"].as_str().unwrap().contains("v1"));

    let r = app
        .send(
            Method::PATCH,
            &blog,
            Some(&p.admin),
            Some(json!({"content": "<p>v2</p>", "featured_image_url": "https://img.example.com/x.png"})),
        )
        .await;
    assert_eq!(r.status, 200, "{r:?}");
    assert_eq!(r.json["content"], "<p>v2</p>");
    let public = app.get(&format!("{PUBLIC}/hello"), Some(&key)).await;
    assert!(
        public.json["content"].as_str().unwrap().contains("v1"),
        "an edit does not change the public output"
    );
    let r = app
        .send(
            Method::POST,
            &format!("{blog}/publish"),
            Some(&p.admin),
            None,
        )
        .await;
    assert_eq!(r.status, 200, "re-sync without a body: {r:?}");
    assert_eq!(
        r.json["published_at"], "2026-01-01T10:00:00Z",
        "kept on re-sync"
    );
    let public = app.get(&format!("{PUBLIC}/hello"), Some(&key)).await;
    assert_eq!(public.json["content"], "<p>v2</p>");
    assert_eq!(
        public.json["featured_image_url"],
        "https://img.example.com/x.png"
    );

    let r = app
        .send(
            Method::PATCH,
            &blog,
            Some(&p.admin),
            Some(json!({"featured_image_url": null})),
        )
        .await;
    assert_eq!(
        r.json["featured_image_url"],
        Value::Null,
        "null removes the image"
    );

    let r = app
        .send(
            Method::POST,
            &format!("{blog}/unpublish"),
            Some(&p.admin),
            None,
        )
        .await;
    assert_eq!(
        (r.status, r.json["status"].as_str()),
        (200, Some("unpublished"))
    );
    assert_eq!(
        app.get(&format!("{PUBLIC}/hello"), Some(&key)).await.status,
        404
    );

    let r = app.get(&blog, Some(&p.admin)).await;
    assert_eq!(r.status, 200);
    let r = app.send(Method::DELETE, &blog, Some(&p.admin), None).await;
    assert_eq!(r.status, 204);
    assert_eq!(app.get(&blog, Some(&p.admin)).await.status, 404);
}

#[tokio::test]
async fn blog_rules_are_422_and_conflicts_409() {
    let app = spawn_app().await;
    let p = app.new_project(None).await;
    let id = app
        .create_blog(&p, json!({"title": "One", "slug": "one"}))
        .await;
    // A 422 names the field first, then the rule, once: `field: rule`.
    for (body, detail) in [
        (
            json!({"title": "Two", "slug": "Not A Slug"}),
            "slug: must be lower-case letters a-z and digits, in words joined by single hyphens (e.g. `my-first-post`)",
        ),
        (
            json!({"title": "Two", "slug": "sitemap"}),
            "slug: `sitemap` is reserved (the path /blog/api/v1/public/blogs/sitemap addresses the sitemap); choose another",
        ),
        (
            json!({"title": "", "slug": "two"}),
            "title: must be 1 to 300 characters (got 0)",
        ),
        (
            json!({"title": "x".repeat(301), "slug": "two"}),
            "title: must be 1 to 300 characters (got 301)",
        ),
        (
            json!({"title": "[INTERNAL:one]", "slug": "two"}),
            "title: must not contain `[INTERNAL:` placeholders (they are accepted only in content)",
        ),
        (
            json!({"title": "Two", "slug": "two", "featured_image_url": "not a url"}),
            "featured_image_url: must be an absolute http or https URL such as https://images.example.com/cover.png",
        ),
    ] {
        let r = app
            .send(
                Method::POST,
                &p.path("/blogs"),
                Some(&p.admin),
                Some(body.clone()),
            )
            .await;
        assert_eq!(r.status, 422, "{body}: {r:?}");
        assert_eq!(r.detail(), detail, "{body}");
    }
    let r = app
        .send(
            Method::POST,
            &p.path("/blogs"),
            Some(&p.admin),
            Some(json!({"title": "Dup", "slug": "one"})),
        )
        .await;
    assert_eq!(r.status, 409, "duplicate slug: {r:?}");
    let r = app
        .send(
            Method::POST,
            &p.path(&format!("/blogs/{id}/publish")),
            Some(&p.admin),
            Some(json!({"published_at": "2999-01-01T00:00:00Z"})),
        )
        .await;
    assert_eq!(r.status, 200, "a future published_at schedules: {r:?}");
    assert_eq!(r.json["status"], "scheduled");
    let r = app
        .send(
            Method::POST,
            &p.path(&format!("/blogs/{id}/unpublish")),
            Some(&p.admin),
            None,
        )
        .await;
    assert_eq!(r.status, 409, "a scheduled blog is not published: {r:?}");
    assert!(r.detail().contains("unschedule"), "{r:?}");
    let r = app
        .send(
            Method::POST,
            &p.path(&format!("/blogs/{id}/publish")),
            Some(&p.admin),
            Some(json!({"published_at": "yesterday"})),
        )
        .await;
    assert_eq!(
        r.status, 422,
        "valid JSON, a value that is not a timestamp: {r:?}"
    );
    assert_eq!(
        r.detail(),
        "published_at: must be an RFC 3339 timestamp such as 2026-11-21T09:30:00Z (got `yesterday`)"
    );
    let r = app
        .send(
            Method::POST,
            &p.path(&format!("/blogs/{id}/publish")),
            Some(&p.admin),
            Some(json!({"published_at": 20261121})),
        )
        .await;
    assert_eq!(r.status, 400, "not a string at all: {r:?}");
    let r = app
        .send(
            Method::POST,
            &p.path(&format!("/blogs/{id}/publish")),
            None,
            Some(json!({"published_at": "yesterday"})),
        )
        .await;
    assert_eq!(
        r.status, 401,
        "the caller is checked before the value: {r:?}"
    );
    let r = app
        .send(
            Method::POST,
            &p.path("/blogs"),
            Some(&p.admin),
            Some(json!({"title": 5, "slug": "five"})),
        )
        .await;
    assert_eq!(r.status, 400, "wrong type: {r:?}");
}

#[tokio::test]
async fn the_operator_lists_projects_oldest_first_a_page_at_a_time() {
    let app = spawn_app().await;
    let op = app.operator();
    let mut created = Vec::new();
    for _ in 0..3 {
        created.push(app.new_project(None).await);
    }
    let r = app
        .get("/api/v1/projects?limit=2&offset=1", Some(&op))
        .await;
    assert_eq!(r.status, 200, "{r:?}");
    assert_eq!(r.json["total"], 3);
    assert_eq!(
        (r.json["limit"].as_u64(), r.json["offset"].as_u64()),
        (Some(2), Some(1))
    );
    let ids: Vec<&str> = r.json["projects"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["id"].as_str().unwrap())
        .collect();
    assert_eq!(
        ids,
        [created[1].id.as_str(), created[2].id.as_str()],
        "oldest first"
    );
    let mut keys: Vec<&String> = r.json["projects"][0].as_object().unwrap().keys().collect();
    keys.sort();
    assert_eq!(keys, ["created_at", "id", "name", "site_url"]);
    let r = app
        .get("/api/v1/projects?limit=500&offset=-4", Some(&op))
        .await;
    assert_eq!(
        (r.json["limit"].as_u64(), r.json["offset"].as_u64()),
        (Some(100), Some(0)),
        "clamped"
    );
    let r = app.get("/api/v1/projects?limit=many", Some(&op)).await;
    assert_eq!(r.status, 400, "{r:?}");
    let r = app.get("/api/v1/projects", Some(&created[0].admin)).await;
    assert_eq!(
        r.status, 403,
        "a project admin may not list projects: {r:?}"
    );
    let r = app.get("/api/v1/projects", None).await;
    assert_eq!(r.status, 401, "{r:?}");
}

#[tokio::test]
async fn malformed_or_unknown_ids_in_paths_are_404() {
    let app = spawn_app().await;
    let p = app.new_project(None).await;
    let op = app.operator();
    for path in [
        "/api/v1/projects/not-a-uuid".to_owned(),
        "/api/v1/projects/not-a-uuid/blogs".to_owned(),
        p.path("/blogs/not-a-uuid"),
        p.path("/blogs/0192d1a4-7b1c-7cc3-9f7e-2b6a0c1d2e3f"),
        "/api/v1/projects/0192d1a4-7b1c-7cc3-9f7e-2b6a0c1d2e3f".to_owned(),
    ] {
        let r = app.get(&path, Some(&op)).await;
        assert_eq!(r.status, 404, "{path}: {r:?}");
        assert!(!r.detail().is_empty());
    }
}

#[tokio::test]
async fn management_list_filters_by_status_and_pages() {
    let app = spawn_app().await;
    let p = app.new_project(None).await;
    app.published_blog(&p, "pub", "2026-01-01T00:00:00Z", json!({}))
        .await;
    app.create_blog(&p, json!({"title": "D1", "slug": "d1"}))
        .await;
    app.create_blog(&p, json!({"title": "D2", "slug": "d2"}))
        .await;
    let r = app.get(&p.path("/blogs"), Some(&p.admin)).await;
    assert_eq!(
        (r.json["total"].clone(), r.json["limit"].clone()),
        (json!(3), json!(50))
    );
    let r = app
        .get(
            &p.path("/blogs?status=draft&limit=1&offset=-5"),
            Some(&p.admin),
        )
        .await;
    assert_eq!(r.json["total"], 2);
    assert_eq!(r.json["limit"], 1);
    assert_eq!(r.json["offset"], 0);
    assert_eq!(r.json["blogs"].as_array().unwrap().len(), 1);
    let r = app
        .get(&p.path("/blogs?status=published"), Some(&p.admin))
        .await;
    assert_eq!(r.json["blogs"][0]["slug"], "pub");
    let r = app
        .get(&p.path("/blogs?status=bogus"), Some(&p.admin))
        .await;
    assert_eq!(r.status, 400);
    assert!(r.detail().contains("status"), "{}", r.detail());
    let r = app.get(&p.path("/blogs?limit=x"), Some(&p.admin)).await;
    assert_eq!(r.status, 400);
}
