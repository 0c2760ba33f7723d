//! `docs/public-api.md#credentials` and `docs/management-api.md#who-may-call-what`: the public
//! key (header or query, header wins), rotation and revocation, and who may call the management
//! API (401 / 403).

use blogread_tests::spawn_app;
use reqwest::Method;
use serde_json::json;

const LIST: &str = "/blog/api/v1/public/blogs";

#[tokio::test]
async fn the_key_works_in_the_header_or_the_query_and_missing_is_401() {
    let app = spawn_app().await;
    let p = app.new_project(None).await;
    let r = app.get(LIST, Some(&p.bearer_key())).await;
    assert_eq!(r.status, 200);
    let r = app.get(&format!("{LIST}?api_key={}", p.key), None).await;
    assert_eq!(r.status, 200);
    let r = app
        .get(&format!("{LIST}/sitemap?api_key={}", p.key), None)
        .await;
    assert_eq!(r.status, 200);
    let r = app
        .get(
            &format!("{LIST}?api_key={}", p.key),
            Some(&format!("bearer {}", p.key)),
        )
        .await;
    assert_eq!(r.status, 200, "the scheme is case-insensitive");
    for path in [
        LIST.to_owned(),
        format!("{LIST}/x"),
        format!("{LIST}/sitemap"),
        format!("{LIST}?api_key="),
    ] {
        let r = app.get(&path, None).await;
        assert_eq!(r.status, 401, "{path}");
        assert!(r.detail().contains("api_key"), "{}", r.detail());
    }
    let r = app
        .get(&format!("{LIST}?api_key=pk_live_unknown"), None)
        .await;
    assert_eq!(r.status, 401);
    assert!(r.detail().contains("matches no project"), "{}", r.detail());
}

#[tokio::test]
async fn the_header_wins_over_the_query_even_when_wrong() {
    let app = spawn_app().await;
    let p = app.new_project(None).await;
    let r = app
        .get(
            &format!("{LIST}?api_key={}", p.key),
            Some("Bearer pk_live_wrong"),
        )
        .await;
    assert_eq!(
        r.status, 401,
        "a wrong header is not rescued by a right api_key"
    );
    let r = app
        .get(
            &format!("{LIST}?api_key=pk_live_wrong"),
            Some(&p.bearer_key()),
        )
        .await;
    assert_eq!(r.status, 200, "a right header wins over a wrong api_key");
    let r = app
        .get(
            &format!("{LIST}?api_key={}", p.key),
            Some(&format!("Basic {}", p.key)),
        )
        .await;
    assert_eq!(r.status, 401);
    assert!(r.detail().contains("Bearer"), "{}", r.detail());
    let r = app
        .get(&format!("{LIST}?api_key={}", p.key), Some("Bearer "))
        .await;
    assert_eq!(r.status, 401);
    assert!(r.detail().contains("empty"), "{}", r.detail());
}

#[tokio::test]
async fn agent_keys_and_admin_tokens_are_not_public_keys() {
    let app = spawn_app().await;
    let p = app.new_project(None).await;
    let agent = app
        .send(Method::POST, &p.path("/agent-keys"), Some(&p.admin), None)
        .await;
    let agent_key = agent.json["key"].as_str().unwrap().to_owned();
    let r = app.get(LIST, Some(&format!("Bearer {agent_key}"))).await;
    assert_eq!(r.status, 401);
    assert!(r.detail().contains("agent keys"), "{}", r.detail());
    let r = app.get(&format!("{LIST}?api_key={agent_key}"), None).await;
    assert_eq!(r.status, 401);
    let r = app.get(LIST, Some(&p.admin)).await;
    assert_eq!(r.status, 401);
    assert!(r.detail().contains("public key"), "{}", r.detail());
}

#[tokio::test]
async fn rotation_and_revocation_take_effect_on_the_next_request() {
    let app = spawn_app().await;
    let p = app.new_project(None).await;
    let old = p.bearer_key();
    assert_eq!(app.get(LIST, Some(&old)).await.status, 200);

    let r = app
        .send(Method::POST, &p.path("/public-key"), Some(&p.admin), None)
        .await;
    assert_eq!(r.status, 409, "generate when one exists: {r:?}");

    let r = app
        .send(
            Method::POST,
            &p.path("/public-key/rotate"),
            Some(&p.admin),
            None,
        )
        .await;
    assert_eq!(r.status, 201, "{r:?}");
    let new_key = r.json["key"].as_str().unwrap().to_owned();
    assert!(new_key.starts_with("pk_live_"));
    assert_ne!(format!("Bearer {new_key}"), old);
    assert_eq!(
        app.get(LIST, Some(&old)).await.status,
        401,
        "old key fails at once"
    );
    assert_eq!(
        app.get(LIST, Some(&format!("Bearer {new_key}")))
            .await
            .status,
        200
    );

    let r = app.get(&p.path("/public-key"), Some(&p.admin)).await;
    assert_eq!(
        (r.status, r.json["key"].as_str()),
        (200, Some(new_key.as_str())),
        "Reveal"
    );
    assert!(r.json["created_at"].is_string());

    let r = app
        .send(Method::DELETE, &p.path("/public-key"), Some(&p.admin), None)
        .await;
    assert_eq!(r.status, 204);
    assert!(r.text.is_empty());
    assert_eq!(
        app.get(LIST, Some(&format!("Bearer {new_key}")))
            .await
            .status,
        401,
        "revoked"
    );
    assert_eq!(
        app.get(&p.path("/public-key"), Some(&p.admin)).await.status,
        404
    );
    let r = app
        .send(Method::DELETE, &p.path("/public-key"), Some(&p.admin), None)
        .await;
    assert_eq!(r.status, 204, "revoking nothing is a success");
    let r = app
        .send(
            Method::POST,
            &p.path("/public-key/rotate"),
            Some(&p.admin),
            None,
        )
        .await;
    assert_eq!(r.status, 404, "rotating a key that does not exist");
    let r = app
        .send(Method::POST, &p.path("/public-key"), Some(&p.admin), None)
        .await;
    assert_eq!(r.status, 201, "generate again");
    let key = r.json["key"].as_str().unwrap();
    assert_eq!(
        app.get(LIST, Some(&format!("Bearer {key}"))).await.status,
        200
    );
}

#[tokio::test]
async fn management_credentials_401_and_403_rules() {
    let app = spawn_app().await;
    let p = app.new_project(None).await;
    let other = app.new_project(None).await;
    let agent = app
        .send(Method::POST, &p.path("/agent-keys"), Some(&p.admin), None)
        .await;
    let agent = format!("Bearer {}", agent.json["key"].as_str().unwrap());

    let r = app.get(&p.path(""), None).await;
    assert_eq!(r.status, 401);
    assert!(r.detail().contains("Bearer"), "{}", r.detail());
    let r = app.get(&p.path(""), Some("Bearer sk_admin_unknown")).await;
    assert_eq!(r.status, 401);
    let r = app.get(&p.path(""), Some("Bearer whatever-this-is")).await;
    assert_eq!(r.status, 401);
    let r = app.get(&p.path(""), Some(&p.bearer_key())).await;
    assert_eq!(r.status, 401, "a public key on a management endpoint");
    assert!(
        r.detail().contains("admin token"),
        "names the kind expected: {}",
        r.detail()
    );
    let r = app.get(&p.path("/public-key"), Some(&agent)).await;
    assert_eq!(r.status, 401, "an agent key on a key endpoint");
    let r = app.get(&p.path("/deploy-hook"), Some(&agent)).await;
    assert_eq!(r.status, 401, "an agent key on a hook endpoint");
    let r = app.get(&p.path("/blogs"), Some(&agent)).await;
    assert_eq!(r.status, 200, "an agent key may work on blogs");

    let r = app.get(&p.path(""), Some(&other.admin)).await;
    assert_eq!(r.status, 403, "another project's admin");
    let r = app.get(&p.path("/blogs"), Some(&other.admin)).await;
    assert_eq!(r.status, 403);
    let missing = "/api/v1/projects/0192d1a4-7b1c-7cc3-9f7e-2b6a0c1d2e3f";
    let r = app.get(missing, Some(&other.admin)).await;
    assert_eq!(r.status, 403, "403 whether or not the project exists");
    let r = app.get(missing, Some(&app.operator())).await;
    assert_eq!(r.status, 404, "the operator sees that it does not exist");

    let r = app
        .send(
            Method::POST,
            "/api/v1/projects",
            Some(&p.admin),
            Some(json!({"name": "x"})),
        )
        .await;
    assert_eq!(r.status, 403, "creating projects is for the operator");
    let r = app
        .send(Method::POST, &p.path("/admin-tokens"), Some(&p.admin), None)
        .await;
    assert_eq!(r.status, 403, "admin tokens are issued by the operator");
    let r = app
        .send(
            Method::POST,
            "/api/v1/projects",
            None,
            Some(json!({"name": "x"})),
        )
        .await;
    assert_eq!(r.status, 401);

    let r = app.get(&p.path(""), Some(&app.operator())).await;
    assert_eq!(r.status, 200, "the operator may do everything");
}
