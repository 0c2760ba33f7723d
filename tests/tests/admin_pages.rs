//! The admin pages in a real browser: Debian's chromium driven over WebDriver (chromedriver,
//! started by `scripts/with-chromium`, which exports `BLOGREAD_TEST_WEBDRIVER_URL`) against
//! the real server on loopback. Every action's effect is checked over HTTP right after, on
//! the public or management API.
//!
//! Without `BLOGREAD_TEST_WEBDRIVER_URL` the browser cases print "skipped" and pass, unless
//! `BLOGREAD_REQUIRE_BROWSER=1` (CI), which turns the skip into a failure. The cases that need
//! no browser (cross-origin refusal, headers, cookie flags) always run.
//!
//! `BLOGREAD_ADMIN_SCREENSHOTS=DIR` makes `screenshots_of_the_main_pages` save PNGs of the main
//! pages into DIR (the README's pictures in docs/admin/ come from it).

use std::sync::Arc;
use std::time::Duration;

use blogread_core::hook::AddressPolicy;
use blogread_core::testing::receiver::{
    Answer, Event, Receiver, TestPki, loopback_resolver, test_notifier, test_pki,
};
use blogread_media::samples;
use blogread_tests::{OPERATOR_TOKEN, Scratch, TestApp, TestProject, spawn_app, spawn_app_with};
use fantoccini::{Client, ClientBuilder, Locator};
use reqwest::Method;
use serde_json::json;

/// How long a page may take to show what a test awaits.
const PAGE_WAIT: Duration = Duration::from_secs(60);

/// A headless chromium session, or `None` (after saying so) when no WebDriver server is set.
async fn browser() -> Option<Client> {
    let Ok(url) = std::env::var("BLOGREAD_TEST_WEBDRIVER_URL") else {
        if std::env::var("BLOGREAD_REQUIRE_BROWSER").is_ok_and(|v| v == "1") {
            panic!(
                "BLOGREAD_REQUIRE_BROWSER=1 but BLOGREAD_TEST_WEBDRIVER_URL is unset: run under scripts/with-chromium"
            );
        }
        eprintln!(
            "skipped: no BLOGREAD_TEST_WEBDRIVER_URL (run under scripts/with-chromium for the browser tests)"
        );
        return None;
    };
    // Under scripts/with-chromium the profile goes in the script's folder, which it removes
    // at exit with everything the browsers left; run by hand, in the system's temporary folder.
    let profile = match std::env::var_os("BLOGREAD_TEST_BROWSER_PROFILES") {
        Some(dir) => tempfile::tempdir_in(dir),
        None => tempfile::tempdir(),
    }
    .expect("a browser profile directory");
    let binary =
        std::env::var("BLOGREAD_TEST_CHROMIUM").unwrap_or_else(|_| "/usr/bin/chromium".into());
    let args = [
        "--headless".to_owned(),
        "--no-sandbox".to_owned(),
        "--disable-gpu".to_owned(),
        "--disable-quic".to_owned(),
        "--no-first-run".to_owned(),
        "--disable-background-networking".to_owned(),
        "--disable-component-update".to_owned(),
        "--disable-sync".to_owned(),
        "--disable-dev-shm-usage".to_owned(),
        "--window-size=1280,1000".to_owned(),
        format!("--user-data-dir={}", profile.path().display()),
    ];
    let mut caps = serde_json::Map::new();
    caps.insert(
        "goog:chromeOptions".into(),
        json!({ "binary": binary, "args": args }),
    );
    let client = ClientBuilder::rustls()
        .expect("rustls connector")
        .capabilities(caps)
        .connect(&url)
        .await
        .expect("a chromium session through chromedriver");
    // The profile directory must outlive the browser, which may still be closing when the
    // test ends: it is left to scripts/with-chromium to remove (see above).
    std::mem::forget(profile);
    Some(client)
}

/// Finds the element `xpath` names, waiting for it to appear.
async fn wait_for(b: &Client, xpath: &str) -> fantoccini::elements::Element {
    b.wait()
        .at_most(PAGE_WAIT)
        .for_element(Locator::XPath(xpath))
        .await
        .unwrap_or_else(|e| panic!("no element {xpath}: {e}"))
}

/// The button named `name`.
fn button(name: &str) -> String {
    format!("//button[normalize-space()='{name}']")
}

/// Clicks `element`, a submit button, and waits until the browser has replaced the page with
/// the answer (the old document's root goes stale), so that what is awaited next is looked
/// for on the new page only.
async fn submit(b: &Client, element: fantoccini::elements::Element) {
    let page = b.find(Locator::Css("html")).await.unwrap();
    element.click().await.unwrap();
    let deadline = std::time::Instant::now() + PAGE_WAIT;
    while page.tag_name().await.is_ok() {
        assert!(
            std::time::Instant::now() < deadline,
            "no new page after the click"
        );
    }
}

/// Clicks the first button named `name` and waits for the page it leads to.
async fn click(b: &Client, name: &str) {
    submit(b, wait_for(b, &button(name)).await).await;
}

/// Clicks the button named `name` inside the section with id `section` and waits for the
/// page it leads to.
async fn click_in(b: &Client, section: &str, name: &str) {
    let xpath = format!("//section[@id='{section}']{}", button(name));
    submit(b, wait_for(b, &xpath).await).await;
}

/// The input or textarea whose label reads `label`.
async fn field(b: &Client, label: &str) -> fantoccini::elements::Element {
    let label_el = wait_for(b, &format!("//label[normalize-space()='{label}']")).await;
    let id = label_el
        .attr("for")
        .await
        .unwrap()
        .expect("the label names its input");
    b.find(Locator::Id(&id)).await.unwrap()
}

async fn type_into(b: &Client, label: &str, text: &str) {
    let input = field(b, label).await;
    input.clear().await.unwrap();
    input.send_keys(text).await.unwrap();
}

/// Waits for a status or alert message containing `text`.
async fn message(b: &Client, text: &str) -> String {
    wait_for(
        b,
        &format!("//*[(@role='status' or @role='alert') and contains(., \"{text}\")]"),
    )
    .await
    .text()
    .await
    .unwrap()
}

/// Signs in through the sign-in form with `token`.
async fn sign_in(b: &Client, app: &TestApp, token: &str) {
    b.goto(&app.url("/admin/")).await.unwrap();
    type_into(b, "Token", token).await;
    click(b, "Sign in").await;
}

/// The admin token of a test project (without `Bearer `).
fn admin_token(p: &TestProject) -> &str {
    p.admin.trim_start_matches("Bearer ")
}

/// The status of a public read with `key`.
async fn public_status(app: &TestApp, key: &str) -> u16 {
    app.get("/blog/api/v1/public/blogs", Some(&format!("Bearer {key}")))
        .await
        .status
}

/// An HTTP client that shows redirects instead of following them.
fn plain_http() -> reqwest::Client {
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap()
}

/// Signs in over plain HTTP; returns the `Set-Cookie` value.
async fn http_sign_in(app: &TestApp, token: &str, extra: &[(&str, &str)]) -> String {
    let mut req = plain_http()
        .post(app.url("/admin/sign-in"))
        .header("origin", &app.base)
        .form(&[("token", token)]);
    for (name, value) in extra {
        req = req.header(*name, *value);
    }
    let resp = req.send().await.unwrap();
    assert_eq!(resp.status().as_u16(), 303, "signed in");
    resp.headers()
        .get("set-cookie")
        .expect("a session cookie")
        .to_str()
        .unwrap()
        .to_owned()
}

fn cookie_pair(set_cookie: &str) -> String {
    set_cookie.split(';').next().unwrap().to_owned()
}

/// The form token of the session `cookie`, as a page at `path` renders it in its forms.
async fn form_token(app: &TestApp, cookie: &str, path: &str) -> String {
    let page = plain_http()
        .get(app.url(path))
        .header("cookie", cookie)
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let start = page
        .find("name=\"form_token\" value=\"")
        .unwrap_or_else(|| panic!("no form token in {path}: {page}"))
        + "name=\"form_token\" value=\"".len();
    page[start..start + page[start..].find('"').unwrap()].to_owned()
}

#[tokio::test]
async fn sign_in_refuses_public_keys_agent_keys_and_wrong_tokens() {
    let Some(b) = browser().await else { return };
    let app = spawn_app().await;
    let p = app.new_project(None).await;
    let agent = app
        .send(Method::POST, &p.path("/agent-keys"), Some(&p.admin), None)
        .await;
    let agent = agent.json["key"].as_str().unwrap().to_owned();
    for (token, says) in [
        (p.key.as_str(), "a public key is not accepted"),
        (agent.as_str(), "an agent key is not accepted"),
        ("sk_admin_not-a-token-of-anyone", "matches no credential"),
        (
            "some-wrong-operator-token-0123456789",
            "matches no credential",
        ),
    ] {
        sign_in(&b, &app, token).await;
        let shown = message(&b, says).await;
        assert!(
            shown.contains("operator token") || shown.contains("revoked"),
            "{shown}"
        );
        // A refused credential is never echoed back: the field is empty, the page does not
        // hold it, and no session was given.
        let typed = field(&b, "Token").await.prop("value").await.unwrap();
        assert_eq!(typed.as_deref(), Some(""));
        assert!(!b.source().await.unwrap().contains(token));
        assert!(b.get_named_cookie("blogread_admin").await.is_err());
    }
    sign_in(&b, &app, admin_token(&p)).await;
    wait_for(&b, "//h1[normalize-space()='Projects']").await;
    b.close().await.unwrap();
}

#[tokio::test]
async fn each_key_action_takes_effect_on_the_public_api_at_once() {
    let Some(b) = browser().await else { return };
    let app = spawn_app().await;
    let p = app.new_project(None).await;
    sign_in(&b, &app, admin_token(&p)).await;
    submit(
        &b,
        wait_for(&b, "//a[normalize-space()='Test project']").await,
    )
    .await;
    wait_for(&b, "//h3[normalize-space()='API Access']").await;
    wait_for(&b, "//h2[normalize-space()='Publishing']").await;

    // Hidden until Reveal.
    let masked = wait_for(&b, "//*[@id='api-key-masked']")
        .await
        .text()
        .await
        .unwrap();
    assert!(!masked.contains(&p.key[8..]), "{masked}");
    assert!(!b.source().await.unwrap().contains(&p.key));
    click(&b, "Reveal").await;
    let shown = wait_for(&b, "//input[@id='api-key']").await;
    assert!(
        b.source().await.unwrap().contains(&p.key),
        "shown after Reveal"
    );
    assert_eq!(
        shown.prop("value").await.unwrap().as_deref(),
        Some(p.key.as_str())
    );
    // Copy runs a script on this page: no new page to wait for.
    wait_for(&b, &button("Copy")).await.click().await.unwrap();
    wait_for(&b, &button("Copied")).await;

    // Rotate Key asks to Confirm; only then the old key stops working.
    click(&b, "Rotate Key").await;
    wait_for(&b, &button("Confirm")).await;
    assert_eq!(
        public_status(&app, &p.key).await,
        200,
        "not rotated before Confirm"
    );
    click(&b, "Confirm").await;
    message(&b, "API key rotated").await;
    let rotated = wait_for(&b, "//input[@id='api-key']")
        .await
        .prop("value")
        .await
        .unwrap()
        .unwrap();
    assert_ne!(rotated, p.key);
    assert_eq!(
        public_status(&app, &p.key).await,
        401,
        "the old key fails at once"
    );
    assert_eq!(public_status(&app, &rotated).await, 200);

    // Revoke, after Confirm: public access stops.
    click(&b, "Revoke").await;
    click(&b, "Confirm").await;
    message(&b, "API key revoked").await;
    assert_eq!(public_status(&app, &rotated).await, 401);

    // Generate API Key: a new key, working at once.
    click(&b, "Generate API Key").await;
    message(&b, "API key generated").await;
    let generated = wait_for(&b, "//input[@id='api-key']")
        .await
        .prop("value")
        .await
        .unwrap()
        .unwrap();
    assert!(generated.starts_with("pk_live_"));
    assert_eq!(public_status(&app, &generated).await, 200);
    b.close().await.unwrap();
}

#[tokio::test]
async fn the_deploy_hook_is_saved_refused_tested_and_removed() {
    let Some(b) = browser().await else { return };
    let pki = test_pki();
    let receiver = Receiver::start(&pki, Answer::Status(200)).await;
    let app = spawn_app_with(|service| {
        service
            .with_notifier(Arc::new(test_notifier(
                &pki,
                loopback_resolver(),
                Duration::from_secs(10),
            )))
            .with_hook_resolver(loopback_resolver(), AddressPolicy::GlobalAndLoopback)
    })
    .await;
    let p = app.new_project(None).await;
    sign_in(&b, &app, admin_token(&p)).await;
    wait_for(&b, "//h1[normalize-space()='Projects']").await;
    b.goto(&app.url(&format!("/admin/projects/{}", p.id)))
        .await
        .unwrap();

    // A refused URL: the API's detail next to the field, the typed value kept, nothing saved.
    let refused = "http://hooks.example.com/build_hooks/abc";
    type_into(&b, "Deploy hook URL", refused).await;
    click(&b, "Save").await;
    let detail = wait_for(&b, "//*[@id='hook-deploy_hook_url-error']")
        .await
        .text()
        .await
        .unwrap();
    let api = app
        .send(
            Method::PUT,
            &p.path("/deploy-hook"),
            Some(&p.admin),
            Some(json!({ "deploy_hook_url": refused })),
        )
        .await;
    assert_eq!(api.status, 422);
    assert_eq!(detail, api.detail(), "the same detail as the API");
    let typed = field(&b, "Deploy hook URL")
        .await
        .prop("value")
        .await
        .unwrap();
    assert_eq!(typed.as_deref(), Some(refused));
    let saved = app.get(&p.path("/deploy-hook"), Some(&p.admin)).await;
    assert_eq!(saved.json["has_hook"], false, "a refused URL is not saved");

    // Save: the URL is a credential, masked until Reveal.
    let url = receiver.url_string("/build_hooks/admin-s3cr3t-41b2");
    type_into(&b, "Deploy hook URL", &url).await;
    click(&b, "Save").await;
    message(&b, "Deploy hook saved").await;
    let saved = app.get(&p.path("/deploy-hook"), Some(&p.admin)).await;
    assert_eq!(saved.json["deploy_hook_url"], url.as_str());
    assert!(
        !b.source().await.unwrap().contains("admin-s3cr3t-41b2"),
        "masked"
    );
    click_in(&b, "deploy-hook", "Reveal").await;
    let shown = wait_for(&b, "//*[@id='hook-saved']")
        .await
        .text()
        .await
        .unwrap();
    assert_eq!(shown, url);

    // Test: one real POST to the HTTPS receiver; success, status and message shown.
    click(&b, "Test").await;
    let result = wait_for(&b, "//*[@id='test-result']")
        .await
        .text()
        .await
        .unwrap();
    assert!(
        result.contains("succeeded") && result.contains("200"),
        "{result}"
    );
    let log = wait_for(&b, "//table[@id='deliveries']")
        .await
        .text()
        .await
        .unwrap();
    assert!(log.contains("test") && log.contains("success"), "{log}");

    // Remove, after Confirm.
    click_in(&b, "deploy-hook", "Remove").await;
    click_in(&b, "deploy-hook", "Confirm").await;
    message(&b, "Deploy hook removed").await;
    let saved = app.get(&p.path("/deploy-hook"), Some(&p.admin)).await;
    assert_eq!(saved.json["has_hook"], false);
    drop(receiver);
    b.close().await.unwrap();
}

#[tokio::test]
async fn a_draft_published_from_its_page_is_public_at_once() {
    let Some(b) = browser().await else { return };
    let app = spawn_app().await;
    let p = app.new_project(Some("https://site.example")).await;
    let target = app
        .create_blog(
            &p,
            json!({"title": "Target", "slug": "target", "content": "<p>t</p>"}),
        )
        .await;
    assert_eq!(app.publish(&p, &target, None).await.status, 200);
    app.create_blog(
        &p,
        json!({"title": "Fresh draft", "slug": "fresh-draft", "content": "<p>See [INTERNAL:target].</p>"}),
    )
    .await;
    let public = "/blog/api/v1/public/blogs/fresh-draft";
    assert_eq!(app.get(public, Some(&p.bearer_key())).await.status, 404);

    sign_in(&b, &app, OPERATOR_TOKEN).await;
    b.goto(&app.url(&format!("/admin/projects/{}/posts?status=draft", p.id)))
        .await
        .unwrap();
    let list = wait_for(&b, "//table[@id='posts']")
        .await
        .text()
        .await
        .unwrap();
    assert!(
        list.contains("Fresh draft") && !list.contains("Target"),
        "{list}"
    );
    submit(
        &b,
        wait_for(&b, "//a[normalize-space()='Fresh draft']").await,
    )
    .await;
    let frame = wait_for(&b, "//iframe[@id='preview']").await;
    frame.enter_frame().await.unwrap();
    let link = wait_for(&b, "//a[normalize-space()='Target']").await;
    assert_eq!(
        link.attr("href").await.unwrap().as_deref(),
        Some("https://site.example/blog/target/")
    );
    let preview = b.source().await.unwrap();
    assert!(!preview.contains("[INTERNAL:"), "{preview}");
    b.enter_parent_frame().await.unwrap();

    // The editor: a refused slug keeps what was typed, with the API's detail by the field.
    type_into(&b, "Slug", "Not A Slug").await;
    click(&b, "Save").await;
    wait_for(&b, "//*[@id='slug-error']").await;
    let typed = field(&b, "Slug").await.prop("value").await.unwrap();
    assert_eq!(typed.as_deref(), Some("Not A Slug"));
    type_into(&b, "Slug", "fresh-draft").await;
    type_into(&b, "Title", "Fresh post").await;
    click(&b, "Save").await;
    message(&b, "Working copy saved").await;

    assert!(
        b.find(Locator::XPath(&button("Unpublish"))).await.is_err(),
        "not for a draft"
    );
    click(&b, "Publish").await;
    message(&b, "Published").await;
    let status = wait_for(&b, "//*[@id='post-status']")
        .await
        .text()
        .await
        .unwrap();
    assert_eq!(status, "published");
    let r = app.get(public, Some(&p.bearer_key())).await;
    assert_eq!(r.status, 200, "public at once: {r:?}");
    assert_eq!(r.json["title"], "Fresh post");
    wait_for(&b, &button("Unpublish")).await;
    wait_for(&b, &button("Re-sync")).await;
    b.close().await.unwrap();
}

#[tokio::test]
async fn the_operator_issues_admin_tokens_and_agent_keys_shown_once() {
    let Some(b) = browser().await else { return };
    let app = spawn_app().await;
    sign_in(&b, &app, OPERATOR_TOKEN).await;
    type_into(&b, "Name", "Made in the browser").await;
    click(&b, "Create").await;
    wait_for(&b, "//h1[normalize-space()='Made in the browser']").await;
    click(&b, "Generate API Key").await;
    message(&b, "API key generated").await;

    click(&b, "Create admin token").await;
    let token = wait_for(&b, "//input[@id='once-value']")
        .await
        .prop("value")
        .await
        .unwrap()
        .unwrap();
    assert!(token.starts_with("sk_admin_"));
    click(&b, "Create agent key").await;
    let agent = wait_for(&b, "//input[@id='once-value']")
        .await
        .prop("value")
        .await
        .unwrap()
        .unwrap();
    assert!(agent.starts_with("sk_agent_"));
    b.refresh().await.unwrap();
    wait_for(&b, "//h2[normalize-space()='Admin tokens']").await;
    let page = b.source().await.unwrap();
    assert!(
        !page.contains(&token) && !page.contains(&agent),
        "shown once only"
    );

    // The admin token signs in; revoking it ends that session at once.
    let cookie = cookie_pair(&http_sign_in(&app, &token, &[]).await);
    let projects = plain_http()
        .get(app.url("/admin/projects"))
        .header("cookie", &cookie)
        .send()
        .await
        .unwrap();
    assert_eq!(projects.status().as_u16(), 200);
    click_in(&b, "admin-tokens", "Revoke").await;
    click_in(&b, "admin-tokens", "Confirm").await;
    message(&b, "Admin token revoked").await;
    let after = plain_http()
        .get(app.url("/admin/projects"))
        .header("cookie", &cookie)
        .send()
        .await
        .unwrap();
    assert_eq!(
        after.status().as_u16(),
        303,
        "the session ended with its token"
    );
    b.close().await.unwrap();
}

#[tokio::test]
async fn the_browser_keeps_an_http_only_strict_cookie_and_sign_out_ends_the_session() {
    let Some(b) = browser().await else { return };
    let app = spawn_app().await;
    sign_in(&b, &app, OPERATOR_TOKEN).await;
    wait_for(&b, "//h1[normalize-space()='Projects']").await;
    let cookie = b.get_named_cookie("blogread_admin").await.unwrap();
    assert_eq!(cookie.http_only(), Some(true));
    assert!(format!("{:?}", cookie.same_site()).contains("Strict"));
    let session = format!("blogread_admin={}", cookie.value());
    click(&b, "Sign out").await;
    wait_for(&b, &button("Sign in")).await;
    let after = plain_http()
        .get(app.url("/admin/projects"))
        .header("cookie", &session)
        .send()
        .await
        .unwrap();
    assert_eq!(
        after.status().as_u16(),
        303,
        "signed out in the database too"
    );
    b.goto(&app.url("/admin/projects")).await.unwrap();
    wait_for(&b, &button("Sign in")).await;
    b.close().await.unwrap();
}

#[tokio::test]
async fn cross_origin_posts_are_refused_with_403_and_change_nothing() {
    let app = spawn_app().await;
    let p = app.new_project(None).await;
    let cookie = cookie_pair(&http_sign_in(&app, admin_token(&p), &[]).await);
    let revoke = app.url(&format!("/admin/projects/{}/key/revoke", p.id));
    for (name, value) in [
        ("origin", "http://evil.example"),
        ("referer", "http://evil.example/page"),
    ] {
        let resp = plain_http()
            .post(&revoke)
            .header("cookie", &cookie)
            .header(name, value)
            .form(&[("confirm", "yes")])
            .send()
            .await
            .unwrap();
        assert_eq!(resp.status().as_u16(), 403);
        let body = resp.text().await.unwrap();
        assert!(
            body.contains("cross-origin") && body.contains("evil.example"),
            "{body}"
        );
    }
    let resp = plain_http()
        .post(&revoke)
        .header("cookie", &cookie)
        .form(&[("confirm", "yes")])
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status().as_u16(), 403, "no Origin nor Referer");
    assert_eq!(
        public_status(&app, &p.key).await,
        200,
        "nothing was revoked"
    );
    // The same request from the server's own origin, with the session's form token, goes
    // through.
    let token = form_token(&app, &cookie, &format!("/admin/projects/{}", p.id)).await;
    let resp = plain_http()
        .post(&revoke)
        .header("cookie", &cookie)
        .header("origin", &app.base)
        .form(&[("confirm", "yes"), ("form_token", token.as_str())])
        .send()
        .await
        .unwrap();
    assert_eq!(
        resp.status().as_u16(),
        303,
        "done, and redirected to its page"
    );
    assert_eq!(public_status(&app, &p.key).await, 401);
}

/// A form planted on the admin origin passes the Origin check: without the form token of
/// the session it is sent in, no change goes through, on any action.
#[tokio::test]
async fn forms_without_the_sessions_form_token_are_refused_and_change_nothing() {
    let app = spawn_app().await;
    let p = app.new_project(None).await;
    let post = app
        .create_blog(&p, json!({"title": "Post", "slug": "post"}))
        .await;
    let cookie = cookie_pair(&http_sign_in(&app, OPERATOR_TOKEN, &[]).await);
    let other = cookie_pair(&http_sign_in(&app, OPERATOR_TOKEN, &[]).await);
    let settings = format!("/admin/projects/{}", p.id);
    let own = form_token(&app, &cookie, &settings).await;
    let of_other_session = form_token(&app, &other, &settings).await;
    assert_ne!(own, of_other_session, "bound to the session");
    let post_page = format!("/admin/projects/{}/posts/{post}", p.id);
    assert_eq!(form_token(&app, &cookie, &post_page).await, own);

    let actions = [
        format!("{settings}/key/revoke"),
        format!("{settings}/key/rotate"),
        format!("{settings}/hook/remove"),
        format!("{settings}/settings/save"),
        format!("{settings}/agent-key/create"),
        format!("{settings}/admin-token/create"),
        format!("{settings}/posts"),
        format!("{post_page}/publish"),
        format!("{post_page}/save"),
        format!("{post_page}/delete"),
        "/admin/projects".to_owned(),
        "/admin/sign-out".to_owned(),
    ];
    for action in &actions {
        for token in [
            None,
            Some(""),
            Some("forged"),
            Some(of_other_session.as_str()),
        ] {
            let mut form = vec![("confirm", "yes"), ("name", "Renamed"), ("title", "T")];
            if let Some(token) = token {
                form.push(("form_token", token));
            }
            let resp = plain_http()
                .post(app.url(action))
                .header("cookie", &cookie)
                .header("origin", &app.base)
                .form(&form)
                .send()
                .await
                .unwrap();
            assert_eq!(resp.status().as_u16(), 403, "{action} with {token:?}");
            let body = resp.text().await.unwrap();
            assert!(body.contains("form token"), "{action}: {body}");
        }
    }
    // Nothing changed: the key works, the post is a draft, the project keeps its name, no
    // credential was made, and the session is still signed in.
    assert_eq!(public_status(&app, &p.key).await, 200);
    let blog = app
        .get(&p.path(&format!("/blogs/{post}")), Some(&p.admin))
        .await;
    assert_eq!(blog.json["status"], "draft");
    let project = app.get(&p.path(""), Some(&p.admin)).await;
    assert_eq!(project.json["name"], "Test project");
    let keys = app.get(&p.path("/agent-keys"), Some(&p.admin)).await;
    assert_eq!(keys.json["agent_keys"], json!([]));
    assert_eq!(form_token(&app, &cookie, &settings).await, own);

    // With its own token, the same form goes through.
    let resp = plain_http()
        .post(app.url(&format!("{settings}/key/revoke")))
        .header("cookie", &cookie)
        .header("origin", &app.base)
        .form(&[("confirm", "yes"), ("form_token", own.as_str())])
        .send()
        .await
        .unwrap();
    assert_eq!(
        resp.status().as_u16(),
        303,
        "done, and redirected to its page"
    );
    assert_eq!(public_status(&app, &p.key).await, 401);
}

/// The answer to a POST: its status, its `Location` (if any) and its page.
struct PostAnswer {
    status: u16,
    location: Option<String>,
    page: String,
}

/// Posts `form` (urlencoded, the session's form token put first) to `path` from the server's
/// own origin; returns the answer as it came (a redirect is not followed).
async fn post_answer(app: &TestApp, cookie: &str, path: &str, form: &str) -> PostAnswer {
    let token = form_token(app, cookie, "/admin/projects").await;
    let resp = plain_http()
        .post(app.url(path))
        .header("cookie", cookie)
        .header("origin", &app.base)
        .header("content-type", "application/x-www-form-urlencoded")
        .body(format!("form_token={token}&{form}"))
        .send()
        .await
        .unwrap();
    let status = resp.status().as_u16();
    let location = resp
        .headers()
        .get("location")
        .map(|l| l.to_str().unwrap().to_owned());
    PostAnswer {
        status,
        location,
        page: resp.text().await.unwrap(),
    }
}

/// Posts `form` to `path` as [`post_answer`] does and, when the answer redirects (`303`),
/// reads the page it redirects to as the browser would; returns the status and the page.
async fn post_form(app: &TestApp, cookie: &str, path: &str, form: &str) -> (u16, String) {
    let answer = post_answer(app, cookie, path, form).await;
    match answer.location {
        Some(to) if answer.status == 303 => admin_get(app, cookie, &to).await,
        _ => (answer.status, answer.page),
    }
}

/// A project with a draft (its id), and the operator's session cookie.
async fn a_draft_and_the_operator(app: &TestApp) -> (TestProject, String, String) {
    let p = app.new_project(None).await;
    let post = app
        .create_blog(&p, json!({"title": "Post", "slug": "post"}))
        .await;
    let cookie = cookie_pair(&http_sign_in(app, OPERATOR_TOKEN, &[]).await);
    (p, post, cookie)
}

/// A destructive button shows its question and a `Confirm` that posts it again; until then
/// nothing changes.
#[tokio::test]
async fn destructive_buttons_ask_to_confirm_and_change_nothing_until_confirmed() {
    let app = spawn_app().await;
    let (p, post, cookie) = a_draft_and_the_operator(&app).await;
    let agent = app
        .send(Method::POST, &p.path("/agent-keys"), Some(&p.admin), None)
        .await;
    let agent_id = agent.json["id"].as_str().unwrap().to_owned();
    let settings = format!("/admin/projects/{}", p.id);
    for (path, form, question) in [
        (
            format!("{settings}/key/rotate"),
            String::new(),
            "Rotate the API key?",
        ),
        (
            format!("{settings}/key/revoke"),
            String::new(),
            "Revoke the API key?",
        ),
        (
            format!("{settings}/agent-key/delete"),
            format!("id={agent_id}"),
            "Delete this agent key?",
        ),
        (
            format!("{settings}/posts/{post}/delete"),
            String::new(),
            "Delete this post?",
        ),
    ] {
        let (status, page) = post_form(&app, &cookie, &path, &form).await;
        assert_eq!(status, 200, "{path}");
        assert!(page.contains(question), "{path}: {page}");
        let confirm = format!("action=\"{path}\"");
        let confirm_form = page
            .split("<form")
            .find(|f| f.contains(&confirm) && f.contains("name=\"confirm\" value=\"yes\""));
        assert!(confirm_form.is_some(), "{path}: a Confirm form: {page}");
    }
    assert_eq!(
        public_status(&app, &p.key).await,
        200,
        "the key still works"
    );
    let keys = app.get(&p.path("/agent-keys"), Some(&p.admin)).await;
    assert_eq!(keys.json["agent_keys"][0]["id"], agent_id.as_str());
    let blog = app
        .get(&p.path(&format!("/blogs/{post}")), Some(&p.admin))
        .await;
    assert_eq!(blog.status, 200, "the post is still there");

    // Confirmed, the agent key goes.
    let (status, page) = post_form(
        &app,
        &cookie,
        &format!("{settings}/agent-key/delete"),
        &format!("id={agent_id}&confirm=yes"),
    )
    .await;
    assert_eq!(status, 200);
    assert!(page.contains("Agent key deleted."), "{page}");
    let keys = app.get(&p.path("/agent-keys"), Some(&p.admin)).await;
    assert_eq!(keys.json["agent_keys"], json!([]));
}

/// An agent key or admin token id that is not one (malformed, or left out) is the API's 404
/// detail, shown in its section of the settings page.
#[tokio::test]
async fn a_malformed_agent_key_or_admin_token_id_is_a_404_in_its_section() {
    let app = spawn_app().await;
    let p = app.new_project(None).await;
    let cookie = cookie_pair(&http_sign_in(&app, OPERATOR_TOKEN, &[]).await);
    let settings = format!("/admin/projects/{}", p.id);
    for id in ["not-an-id", ""] {
        for (button, section, detail) in [
            ("agent-key/delete", "agent_key", "no agent key with this id"),
            (
                "admin-token/revoke",
                "admin_token",
                "no admin token with this id",
            ),
        ] {
            let path = format!("{settings}/{button}");
            let (status, page) =
                post_form(&app, &cookie, &path, &format!("id={id}&confirm=yes")).await;
            assert_eq!(status, 404, "{button} {id}");
            let shown = format!("id=\"{section}-form-error\">{detail}");
            assert!(page.contains(&shown), "{button} {id}: {page}");
        }
    }
}

/// A POST to a button that no page has changes nothing: under a project's settings it is the
/// error page of an unknown project, under a post the post page says there is no such post
/// action (404 both).
#[tokio::test]
async fn a_button_that_does_not_exist_is_a_404_and_changes_nothing() {
    let app = spawn_app().await;
    let (p, post, cookie) = a_draft_and_the_operator(&app).await;
    let settings = format!("/admin/projects/{}", p.id);
    for path in [
        format!("{settings}/key/erase"),
        format!("{settings}/keys/revoke"),
        format!("{settings}/agent_key/create"),
    ] {
        let (status, page) = post_form(&app, &cookie, &path, "confirm=yes").await;
        assert_eq!(status, 404, "{path}");
        assert!(page.contains("no project with this id"), "{path}: {page}");
    }
    let (status, page) = post_form(
        &app,
        &cookie,
        &format!("{settings}/posts/{post}/erase"),
        "confirm=yes",
    )
    .await;
    assert_eq!(status, 404);
    assert!(
        page.contains("id=\"action-error\">no blog with this id in this project"),
        "{page}"
    );
    assert!(page.contains("id=\"editor\""), "the post page: {page}");
    assert_eq!(public_status(&app, &p.key).await, 200);
    let keys = app.get(&p.path("/agent-keys"), Some(&p.admin)).await;
    assert_eq!(keys.json["agent_keys"], json!([]));
    let blog = app
        .get(&p.path(&format!("/blogs/{post}")), Some(&p.admin))
        .await;
    assert_eq!(blog.json["status"], "draft");
}

/// A form that sends a field twice is ambiguous: refused with 400 naming the field, and
/// nothing changes.
#[tokio::test]
async fn a_form_with_a_field_twice_is_refused_and_changes_nothing() {
    let app = spawn_app().await;
    let (p, post, cookie) = a_draft_and_the_operator(&app).await;
    let settings = format!("/admin/projects/{}", p.id);
    for (path, form, field) in [
        (format!("{settings}/settings/save"), "name=A&name=B", "name"),
        (
            format!("{settings}/posts/{post}/save"),
            "title=A&slug=a&slug=b",
            "slug",
        ),
    ] {
        let (status, page) = post_form(&app, &cookie, &path, form).await;
        assert_eq!(status, 400, "{path}");
        assert!(
            page.contains(&format!("duplicate field `{field}`")),
            "{path}: {page}"
        );
    }
    let project = app.get(&p.path(""), Some(&p.admin)).await;
    assert_eq!(project.json["name"], "Test project");
    let blog = app
        .get(&p.path(&format!("/blogs/{post}")), Some(&p.admin))
        .await;
    assert_eq!(blog.json["title"], "Post");
}

/// A refused sign-in never sends the typed credential back.
#[tokio::test]
async fn a_refused_sign_in_does_not_echo_the_credential() {
    let app = spawn_app().await;
    let p = app.new_project(None).await;
    let agent = app
        .send(Method::POST, &p.path("/agent-keys"), Some(&p.admin), None)
        .await;
    let agent = agent.json["key"].as_str().unwrap().to_owned();
    for typed in [
        agent.as_str(),
        p.key.as_str(),
        "some-wrong-operator-token-0123456789",
    ] {
        let resp = plain_http()
            .post(app.url("/admin/sign-in"))
            .header("origin", &app.base)
            .form(&[("token", typed)])
            .send()
            .await
            .unwrap();
        assert_eq!(resp.status().as_u16(), 401);
        let body = resp.text().await.unwrap();
        assert!(!body.contains(typed), "echoed: {body}");
        assert!(!body.contains(&typed[..12]), "echoed in part: {body}");
    }
}

#[tokio::test]
async fn pages_carry_the_security_headers_and_no_inline_script() {
    let app = spawn_app().await;
    let p = app.new_project(None).await;
    let cookie = cookie_pair(&http_sign_in(&app, OPERATOR_TOKEN, &[]).await);
    for path in [
        "/admin/projects".to_owned(),
        format!("/admin/projects/{}", p.id),
        format!("/admin/projects/{}/posts", p.id),
        "/admin/static/copy.js".to_owned(),
    ] {
        let resp = plain_http()
            .get(app.url(&path))
            .header("cookie", &cookie)
            .send()
            .await
            .unwrap();
        let header = |name: &str| {
            resp.headers()
                .get(name)
                .map(|v| v.to_str().unwrap().to_owned())
                .unwrap_or_default()
        };
        let csp = header("content-security-policy");
        assert!(csp.contains("script-src 'self'"), "{path}: {csp}");
        assert!(csp.contains("frame-ancestors 'none'"), "{path}: {csp}");
        assert!(!csp.contains("unsafe-inline"), "{path}: {csp}");
        assert_eq!(header("cache-control"), "no-store", "{path}");
        assert_eq!(header("referrer-policy"), "same-origin", "{path}");
        let body = resp.text().await.unwrap();
        assert!(!body.contains("<script>"), "{path}: no inline script");
        if path.ends_with(".js") {
            continue;
        }
        assert!(
            body.contains("name=\"viewport\""),
            "{path}: readable on a phone"
        );
    }
}

#[tokio::test]
async fn the_session_cookie_is_http_only_strict_and_secure_over_https() {
    let app = spawn_app().await;
    let plain = http_sign_in(&app, OPERATOR_TOKEN, &[]).await;
    assert!(plain.contains("HttpOnly"), "{plain}");
    assert!(plain.contains("SameSite=Strict"), "{plain}");
    assert!(plain.contains("Path=/admin"), "{plain}");
    assert!(!plain.contains("Secure"), "plain http: {plain}");
    // Behind a TLS-terminating proxy that says the request came over https.
    let resp = plain_http()
        .post(app.url("/admin/sign-in"))
        .header("origin", app.base.replace("http://", "https://"))
        .header("x-forwarded-proto", "https")
        .form(&[("token", OPERATOR_TOKEN)])
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status().as_u16(), 303);
    let secure = resp.headers()["set-cookie"].to_str().unwrap();
    assert!(secure.contains("; Secure"), "{secure}");
}

/// Saves PNGs of the main pages into `BLOGREAD_ADMIN_SCREENSHOTS` when it is set.
#[tokio::test]
async fn screenshots_of_the_main_pages() {
    let Ok(dir) = std::env::var("BLOGREAD_ADMIN_SCREENSHOTS") else {
        return;
    };
    let Some(b) = browser().await else { return };
    let app = spawn_app().await;
    let service = app.service.clone();
    let demo = blogread_server::demo::seed(&service).await.unwrap();
    let dir = std::path::PathBuf::from(dir);
    std::fs::create_dir_all(&dir).unwrap();
    let shot = |name: &'static str| {
        let b = b.clone();
        let dir = dir.clone();
        async move {
            let png = b.screenshot().await.unwrap();
            std::fs::write(dir.join(name), png).unwrap();
        }
    };
    b.goto(&app.url("/admin/")).await.unwrap();
    wait_for(&b, &button("Sign in")).await;
    shot("sign-in.png").await;
    sign_in(&b, &app, OPERATOR_TOKEN).await;
    wait_for(&b, "//h1[normalize-space()='Projects']").await;
    shot("projects.png").await;
    b.goto(&app.url(&format!("/admin/projects/{}", demo.project)))
        .await
        .unwrap();
    click(&b, "Reveal").await;
    wait_for(&b, "//input[@id='api-key']").await;
    shot("project-settings.png").await;
    b.goto(&app.url(&format!("/admin/projects/{}/posts", demo.project)))
        .await
        .unwrap();
    wait_for(&b, "//table[@id='posts']").await;
    shot("posts.png").await;
    b.goto(&app.url(&format!(
        "/admin/projects/{}/posts/{}",
        demo.project, demo.draft.0
    )))
    .await
    .unwrap();
    wait_for(&b, "//article[@id='preview']").await;
    shot("post.png").await;
    b.set_window_size(390, 844).await.unwrap();
    b.goto(&app.url(&format!("/admin/projects/{}", demo.project)))
        .await
        .unwrap();
    wait_for(&b, "//h3[normalize-space()='API Access']").await;
    shot("project-settings-phone.png").await;
    b.close().await.unwrap();
}

#[tokio::test]
async fn behind_an_https_public_url_the_cookie_is_secure_and_that_origin_is_accepted() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let service = blogread_core::Service::new(Arc::new(blogread_core::store::MemoryStore::new()))
        .with_operator_token(blogread_core::domain::OperatorToken::new(OPERATOR_TOKEN).unwrap());
    let options = blogread_server::admin::AdminOptions {
        public_url: Some("https://blog.example.com/".parse().unwrap()),
    };
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(blogread_server::Server::new(service).admin(options).serve(
        listener,
        async move {
            let _ = stopped.await;
        },
    ));
    let sign_in = |origin: &'static str| {
        plain_http()
            .post(format!("{base}/admin/sign-in"))
            .header("origin", origin)
            .form(&[("token", OPERATOR_TOKEN)])
            .send()
    };
    // The proxy forwards plain http; the public URL says users come over https.
    let resp = sign_in("https://blog.example.com").await.unwrap();
    assert_eq!(
        resp.status().as_u16(),
        303,
        "the public origin is the server's own"
    );
    let cookie = resp.headers()["set-cookie"].to_str().unwrap();
    assert!(cookie.contains("; Secure"), "{cookie}");
    let resp = sign_in("https://other.example.com").await.unwrap();
    assert_eq!(resp.status().as_u16(), 403);
    stop.send(()).unwrap();
    server.await.unwrap().unwrap();
}

/// A project of any size lists its posts one page at a time: the first hundred, a count, and
/// links to the next page that keep the status filter; the last page links back.
#[tokio::test]
async fn the_posts_page_shows_a_hundred_posts_at_a_time_with_links_between_pages() {
    let app = spawn_app().await;
    let p = app.new_project(None).await;
    for i in 0..230 {
        app.create_blog(
            &p,
            serde_json::json!({"title": format!("Post {i}"), "slug": format!("post-{i}")}),
        )
        .await;
    }
    let cookie = cookie_pair(&http_sign_in(&app, OPERATOR_TOKEN, &[]).await);
    let page = |query: &str| {
        let url = app.url(&format!("/admin/projects/{}/posts{query}", p.id));
        let cookie = cookie.clone();
        async move {
            let resp = plain_http()
                .get(url)
                .header("cookie", cookie)
                .send()
                .await
                .unwrap();
            assert_eq!(resp.status().as_u16(), 200);
            resp.text().await.unwrap()
        }
    };
    let rows = |body: &str| body.matches("<tr><td><a href=").count();
    let first = page("?status=draft").await;
    assert_eq!(rows(&first), 100, "one page of posts");
    assert!(first.contains("Posts 1 to 100 of 230"), "a count");
    assert!(
        first.contains("?status=draft&amp;offset=100\" rel=\"next\">Older</a>"),
        "a link to the next page, filter kept"
    );
    assert!(
        !first.contains("rel=\"prev\""),
        "no newer page before the first"
    );
    let last = page("?status=draft&offset=200").await;
    assert_eq!(rows(&last), 30);
    assert!(last.contains("Posts 201 to 230 of 230"));
    assert!(last.contains("offset=100\" rel=\"prev\">Newer</a>"));
    assert!(
        !last.contains("rel=\"next\""),
        "no older page after the last"
    );
    let bad = plain_http()
        .get(app.url(&format!("/admin/projects/{}/posts?offset=x", p.id)))
        .header("cookie", &cookie)
        .send()
        .await
        .unwrap();
    assert_eq!(
        bad.status().as_u16(),
        400,
        "a bad offset is refused as the API refuses it"
    );
}

/// A post whose body attacks the operator who opens its admin page, written by the least
/// trusted credential (an agent key of project A): a meta refresh that would take the tab
/// away, a form that would revoke project B's public key on one click, and a fake "session
/// expired" form that would post what the operator types into the author's own post.
async fn hostile_post(app: &TestApp) -> (TestProject, TestProject, String) {
    let a = app.new_project(None).await;
    let b = app.new_project(None).await;
    let agent = app
        .send(Method::POST, &a.path("/agent-keys"), Some(&a.admin), None)
        .await;
    let agent = format!("Bearer {}", agent.json["key"].as_str().unwrap());
    let created = app
        .send(
            Method::POST,
            &a.path("/blogs"),
            Some(&agent),
            Some(json!({"title": "Hostile", "slug": "hostile"})),
        )
        .await;
    assert_eq!(created.status, 201, "{created:?}");
    let post = created.json["id"].as_str().unwrap().to_owned();
    let body = format!(
        "<p>Attack marker</p>\
         <meta http-equiv=\"refresh\" content=\"0;url=/admin/projects\">\
         <form method=\"post\" action=\"/admin/projects/{b}/key/revoke\">\
         <input type=\"hidden\" name=\"confirm\" value=\"yes\">\
         <button>Continue reading</button></form>\
         <form method=\"post\" action=\"/admin/projects/{a}/posts/{post}/save\">\
         <p>Your session has expired: enter your token.</p>\
         <input type=\"password\" name=\"content\"><button>Sign in again</button></form>",
        a = a.id,
        b = b.id,
    );
    let edited = app
        .send(
            Method::PATCH,
            &a.path(&format!("/blogs/{post}")),
            Some(&agent),
            Some(json!({ "content": body })),
        )
        .await;
    assert_eq!(edited.status, 200, "{edited:?}");
    (a, b, post)
}

#[tokio::test]
async fn the_preview_is_served_sanitised_under_a_sandboxing_policy() {
    let app = spawn_app().await;
    let (a, _, post) = hostile_post(&app).await;
    let cookie = cookie_pair(&http_sign_in(&app, OPERATOR_TOKEN, &[]).await);
    let page_path = format!("/admin/projects/{}/posts/{post}", a.id);
    let page = plain_http()
        .get(app.url(&page_path))
        .header("cookie", &cookie)
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(
        page.contains(&format!(
            "<iframe class=\"preview\" id=\"preview\" sandbox src=\"{page_path}/preview\""
        )),
        "{page}"
    );
    // The author's HTML is in the page only as the editor's escaped text.
    for markup in [
        "<meta http-equiv",
        "<button>Continue reading",
        "<input type=\"password\"",
    ] {
        assert!(!page.contains(markup), "{markup} in the operator's page");
    }
    assert!(page.contains("&lt;button&gt;Continue reading"), "{page}");
    let preview = plain_http()
        .get(app.url(&format!("{page_path}/preview")))
        .header("cookie", &cookie)
        .send()
        .await
        .unwrap();
    assert_eq!(preview.status().as_u16(), 200);
    let csp = preview.headers()["content-security-policy"]
        .to_str()
        .unwrap()
        .to_owned();
    assert!(csp.starts_with("sandbox; default-src 'none'"), "{csp}");
    assert!(csp.contains("frame-ancestors 'self'"), "{csp}");
    assert_eq!(preview.headers()["x-frame-options"], "SAMEORIGIN");
    let shown = preview.text().await.unwrap().to_ascii_lowercase();
    assert!(shown.contains("attack marker"), "{shown}");
    for gone in ["<meta http-equiv", "<form", "<input", "<button"] {
        assert!(!shown.contains(gone), "{gone} in {shown}");
    }
    // Without a session the preview is not shown.
    let anonymous = plain_http()
        .get(app.url(&format!("{page_path}/preview")))
        .send()
        .await
        .unwrap();
    assert_eq!(anonymous.status().as_u16(), 303);
}

#[tokio::test]
async fn an_authors_html_in_the_preview_can_only_show() {
    let Some(browser) = browser().await else {
        return;
    };
    let app = spawn_app().await;
    let (a, b, post) = hostile_post(&app).await;
    sign_in(&browser, &app, OPERATOR_TOKEN).await;
    wait_for(&browser, "//h1[normalize-space()='Projects']").await;
    let page = app.url(&format!("/admin/projects/{}/posts/{post}", a.id));
    browser.goto(&page).await.unwrap();
    wait_for(&browser, "//h1[normalize-space()='Hostile']").await;
    let frame = wait_for(&browser, "//iframe[@id='preview']").await;
    assert_eq!(frame.attr("sandbox").await.unwrap().as_deref(), Some(""));

    // Inside the frame: the author's text, and none of the author's forms or refresh.
    frame.enter_frame().await.unwrap();
    wait_for(&browser, "//p[normalize-space()='Attack marker']").await;
    let controls = browser
        .find_all(Locator::Css(
            "form, input, button, meta[http-equiv], textarea",
        ))
        .await
        .unwrap();
    assert!(
        controls.is_empty(),
        "{} controls in the preview",
        controls.len()
    );
    browser.enter_parent_frame().await.unwrap();

    // The operator's page holds no button of the author's to click.
    for name in ["Continue reading", "Sign in again"] {
        assert!(
            browser.find(Locator::XPath(&button(name))).await.is_err(),
            "{name}"
        );
    }
    // The refresh would have taken the tab to the projects at once: it stays on the post.
    let left = browser
        .wait()
        .at_most(Duration::from_secs(3))
        .for_element(Locator::XPath("//h1[normalize-space()='Projects']"))
        .await;
    assert!(left.is_err(), "the tab was taken away from the post");
    assert_eq!(browser.current_url().await.unwrap().as_str(), page);
    // Project B's key still works; the author's post holds what the author wrote.
    assert_eq!(public_status(&app, &b.key).await, 200);
    let stored = app
        .get(&a.path(&format!("/blogs/{post}")), Some(&a.admin))
        .await;
    assert!(
        stored.json["content"]
            .as_str()
            .unwrap()
            .contains("Attack marker")
    );
    browser.close().await.unwrap();
}

// ---- links: the post page's sections, the project's broken links, the Confirm steps ----

/// A project (site URL `https://site.example`) whose published post `Target` is linked to by
/// two published posts: `Linker A` (twice, and also to a missing slug, a draft and a post
/// scheduled for 2099, which the public answer drops) and `Linker B` (once).
struct Linked {
    p: TestProject,
    target: String,
    linker_a: String,
    linker_b: String,
}

/// The go-live time of the scheduled post of [`linked_posts`], as the pages show it.
const LATER_GOES_LIVE: &str = "2099-01-01 09:30 UTC";

async fn linked_posts(app: &TestApp) -> Linked {
    let p = app.new_project(Some("https://site.example")).await;
    let target = app
        .create_blog(
            &p,
            json!({"title": "Target", "slug": "target", "content": "<p>t</p>"}),
        )
        .await;
    assert_eq!(app.publish(&p, &target, None).await.status, 200);
    app.create_blog(&p, json!({"title": "Draft post", "slug": "draft-post"}))
        .await;
    let later = app
        .create_blog(&p, json!({"title": "Later", "slug": "later"}))
        .await;
    let scheduled = app.publish(&p, &later, Some("2099-01-01T09:30:00Z")).await;
    assert_eq!(scheduled.json["status"], "scheduled", "{scheduled:?}");
    let linker_a = app
        .create_blog(
            &p,
            json!({"title": "Linker A", "slug": "linker-a", "content":
                "<p><a href=\"[INTERNAL:target]\">one</a> <a href=\"[INTERNAL:nowhere]\">gone</a> \
                 <a href=\"[INTERNAL:target]\">two</a> <a href=\"[INTERNAL:draft-post]\">draft</a> \
                 <a href=\"[INTERNAL:later]\">later</a></p>"}),
        )
        .await;
    assert_eq!(app.publish(&p, &linker_a, None).await.status, 200);
    let linker_b = app
        .create_blog(
            &p,
            json!({"title": "Linker B", "slug": "linker-b", "content":
                "<p>See <a href=\"[INTERNAL:target]\">the target</a>.</p>"}),
        )
        .await;
    assert_eq!(app.publish(&p, &linker_b, None).await.status, 200);
    Linked {
        p,
        target,
        linker_a,
        linker_b,
    }
}

/// The status of post `id` on the management API.
async fn managed_status(app: &TestApp, p: &TestProject, id: &str) -> String {
    let r = app
        .get(&p.path(&format!("/blogs/{id}")), Some(&p.admin))
        .await;
    assert_eq!(r.status, 200, "{r:?}");
    r.json["status"].as_str().unwrap().to_owned()
}

/// The public answer for `slug`: its status, and its content when found.
async fn public_post(app: &TestApp, p: &TestProject, slug: &str) -> (u16, String) {
    let r = app
        .get(
            &format!("/blog/api/v1/public/blogs/{slug}"),
            Some(&p.bearer_key()),
        )
        .await;
    let content = r.json["content"].as_str().unwrap_or_default().to_owned();
    (r.status, content)
}

/// The texts of the elements `xpath` names, in page order.
async fn texts(b: &Client, xpath: &str) -> Vec<String> {
    let mut out = Vec::new();
    for e in b.find_all(Locator::XPath(xpath)).await.unwrap() {
        out.push(e.text().await.unwrap());
    }
    out
}

/// The admin page at `path` for the session `cookie`: its status and body.
async fn admin_get(app: &TestApp, cookie: &str, path: &str) -> (u16, String) {
    let resp = plain_http()
        .get(app.url(path))
        .header("cookie", cookie)
        .send()
        .await
        .unwrap();
    (resp.status().as_u16(), resp.text().await.unwrap())
}

#[tokio::test]
async fn the_post_page_shows_each_links_state_broken_first_and_who_links_here() {
    let Some(b) = browser().await else { return };
    let app = spawn_app().await;
    let l = linked_posts(&app).await;
    sign_in(&b, &app, OPERATOR_TOKEN).await;
    b.goto(&app.url(&format!("/admin/projects/{}/posts/{}", l.p.id, l.linker_a)))
        .await
        .unwrap();
    wait_for(&b, "//h2[normalize-space()='Links in this post']").await;
    let states = texts(
        &b,
        "//table[@id='links']/tbody/tr/td/span[contains(@class, 'link-state')]",
    )
    .await;
    // Broken first (working copy, then published, each in body order), then the rest.
    let broken = ["missing", "draft", "scheduled"];
    let expected: Vec<&str> = broken
        .iter()
        .chain(broken.iter())
        .copied()
        .chain(["resolved"; 4])
        .collect();
    assert_eq!(states, expected);
    let rows = texts(&b, "//table[@id='links']/tbody/tr").await;
    assert!(rows[0].contains("[INTERNAL:nowhere]"), "{rows:?}");
    assert!(rows[0].contains("working") && rows[3].contains("published"));
    assert!(
        rows[2].contains(&format!("goes live {LATER_GOES_LIVE}")),
        "{rows:?}"
    );
    assert!(rows[6].contains("[INTERNAL:target]"), "{rows:?}");

    b.goto(&app.url(&format!("/admin/projects/{}/posts/{}", l.p.id, l.target)))
        .await
        .unwrap();
    wait_for(&b, "//h2[normalize-space()='Linked from']").await;
    let linked_from = texts(&b, "//ul[@id='linked-from']/li").await;
    assert_eq!(
        linked_from,
        [
            "Linker A (working, 2 links)",
            "Linker A (published, 2 links)",
            "Linker B (working, 1 link)",
            "Linker B (published, 1 link)",
        ]
    );
    submit(
        &b,
        wait_for(
            &b,
            "//ul[@id='linked-from']/li[4]/a[normalize-space()='Linker B']",
        )
        .await,
    )
    .await;
    wait_for(&b, "//h1[normalize-space()='Linker B']").await;
    assert!(
        b.current_url()
            .await
            .unwrap()
            .as_str()
            .ends_with(&l.linker_b),
        "the linking post's page"
    );
    b.close().await.unwrap();
}

#[tokio::test]
async fn the_project_page_counts_published_posts_with_broken_links_and_lists_them() {
    let Some(b) = browser().await else { return };
    let app = spawn_app().await;
    let l = linked_posts(&app).await;
    sign_in(&b, &app, admin_token(&l.p)).await;
    b.goto(&app.url(&format!("/admin/projects/{}", l.p.id)))
        .await
        .unwrap();
    let summary = wait_for(&b, "//*[@id='broken-links-summary']")
        .await
        .text()
        .await
        .unwrap();
    assert!(
        summary.starts_with("1 published post has broken links (3 links in all)"),
        "{summary}"
    );
    submit(
        &b,
        wait_for(
            &b,
            "//*[@id='broken-links-summary']/a[normalize-space()='See the broken links']",
        )
        .await,
    )
    .await;
    wait_for(&b, "//h1[normalize-space()='Broken links of Test project']").await;
    // Post, copy, placeholder, where, state: the working copy's, then the published one's.
    let mut rows = Vec::new();
    for tr in b
        .find_all(Locator::XPath("//table[@id='broken-links']/tbody/tr"))
        .await
        .unwrap()
    {
        let mut cells = Vec::new();
        for td in tr.find_all(Locator::XPath("./td")).await.unwrap() {
            cells.push(td.text().await.unwrap());
        }
        rows.push(cells);
    }
    let later = format!("scheduled (goes live {LATER_GOES_LIVE}) → Later");
    let expected: Vec<Vec<String>> = ["working", "published"]
        .into_iter()
        .flat_map(|copy| {
            [
                ("[INTERNAL:nowhere]", "missing".to_owned()),
                ("[INTERNAL:draft-post]", "draft → Draft post".to_owned()),
                ("[INTERNAL:later]", later.clone()),
            ]
            .map(|(placeholder, state)| {
                vec![
                    "Linker A linker-a".to_owned(),
                    copy.to_owned(),
                    placeholder.to_owned(),
                    "href".to_owned(),
                    state,
                ]
            })
        })
        .collect();
    assert_eq!(rows, expected);
    let count = wait_for(&b, "//*[@id='broken-links-count']")
        .await
        .text()
        .await
        .unwrap();
    assert_eq!(count, "Broken links 1 to 6 of 6");
    // Each row's post links to its page; a target that is not public yet, to its own.
    submit(
        &b,
        wait_for(
            &b,
            "(//table[@id='broken-links']//a[normalize-space()='Draft post'])[1]",
        )
        .await,
    )
    .await;
    wait_for(&b, "//h1[normalize-space()='Draft post']").await;
    b.back().await.unwrap();
    submit(
        &b,
        wait_for(
            &b,
            "(//table[@id='broken-links']//a[normalize-space()='Linker A'])[1]",
        )
        .await,
    )
    .await;
    wait_for(&b, "//h1[normalize-space()='Linker A']").await;
    assert!(
        b.current_url()
            .await
            .unwrap()
            .as_str()
            .ends_with(&l.linker_a)
    );
    b.close().await.unwrap();
}

#[tokio::test]
async fn unpublish_of_a_linked_post_names_the_links_it_takes_and_waits_for_confirm() {
    let Some(b) = browser().await else { return };
    let app = spawn_app().await;
    let l = linked_posts(&app).await;
    sign_in(&b, &app, OPERATOR_TOKEN).await;
    b.goto(&app.url(&format!("/admin/projects/{}/posts/{}", l.p.id, l.target)))
        .await
        .unwrap();
    click(&b, "Unpublish").await;
    let question = wait_for(&b, "//div[@class='confirm']")
        .await
        .text()
        .await
        .unwrap();
    assert!(
        question.contains("Unpublish this post? It leaves the public API at once."),
        "{question}"
    );
    assert!(
        question.contains("3 internal links will disappear from 2 published posts:"),
        "{question}"
    );
    assert_eq!(
        texts(&b, "//ul[@id='confirm-links-from']/li").await,
        ["Linker A (2)", "Linker B (1)"]
    );
    let to_a = wait_for(
        &b,
        "//ul[@id='confirm-links-from']/li/a[normalize-space()='Linker A']",
    )
    .await
    .attr("href")
    .await
    .unwrap();
    assert_eq!(
        to_a.as_deref(),
        Some(format!("/admin/projects/{}/posts/{}", l.p.id, l.linker_a).as_str())
    );
    // Nothing has changed yet.
    assert_eq!(managed_status(&app, &l.p, &l.target).await, "published");
    assert_eq!(public_post(&app, &l.p, "target").await.0, 200);
    let (_, linking) = public_post(&app, &l.p, "linker-b").await;
    assert!(linking.contains("/blog/target/"), "{linking}");

    click(&b, "Confirm").await;
    message(&b, "Unpublished.").await;
    let status = wait_for(&b, "//*[@id='post-status']")
        .await
        .text()
        .await
        .unwrap();
    assert_eq!(status, "unpublished");
    assert_eq!(managed_status(&app, &l.p, &l.target).await, "unpublished");
    assert_eq!(public_post(&app, &l.p, "target").await.0, 404);
    let (_, linking) = public_post(&app, &l.p, "linker-b").await;
    assert!(!linking.contains("/blog/target/"), "{linking}");
    b.close().await.unwrap();
}

#[tokio::test]
async fn delete_of_a_linked_post_names_the_links_it_takes_before_confirm() {
    let Some(b) = browser().await else { return };
    let app = spawn_app().await;
    let l = linked_posts(&app).await;
    sign_in(&b, &app, OPERATOR_TOKEN).await;
    let page = app.url(&format!("/admin/projects/{}/posts/{}", l.p.id, l.target));
    b.goto(&page).await.unwrap();
    click(&b, "Delete").await;
    let question = wait_for(&b, "//div[@class='confirm']")
        .await
        .text()
        .await
        .unwrap();
    assert!(
        question
            .contains("Delete this post? This cannot be undone. It leaves the public API at once."),
        "{question}"
    );
    assert!(
        question.contains("3 internal links will disappear from 2 published posts:"),
        "{question}"
    );
    assert_eq!(
        texts(&b, "//ul[@id='confirm-links-from']/li").await,
        ["Linker A (2)", "Linker B (1)"]
    );
    assert_eq!(managed_status(&app, &l.p, &l.target).await, "published");
    assert_eq!(public_post(&app, &l.p, "target").await.0, 200);

    // Cancel leaves the post as it was, without the question.
    submit(
        &b,
        wait_for(&b, "//div[@class='confirm']/a[normalize-space()='Cancel']").await,
    )
    .await;
    wait_for(&b, "//h1[normalize-space()='Target']").await;
    assert!(
        b.find(Locator::XPath("//div[@class='confirm']"))
            .await
            .is_err()
    );

    click(&b, "Delete").await;
    click(&b, "Confirm").await;
    wait_for(&b, "//h1[normalize-space()='Posts of Test project']").await;
    let gone = app
        .get(&l.p.path(&format!("/blogs/{}", l.target)), Some(&l.p.admin))
        .await;
    assert_eq!(gone.status, 404);
    let (_, linking) = public_post(&app, &l.p, "linker-a").await;
    assert!(!linking.contains("/blog/target/"), "{linking}");
    b.close().await.unwrap();
}

#[tokio::test]
async fn publishing_a_post_with_an_unresolvable_placeholder_names_it_in_a_notice() {
    let Some(b) = browser().await else { return };
    let app = spawn_app().await;
    let l = linked_posts(&app).await;
    let typo = app
        .create_blog(
            &l.p,
            json!({"title": "Typo", "slug": "typo", "content":
                "<p><a href=\"[INTERNAL:targte]\">the target</a> and <a href=\"[INTERNAL:target]\">again</a></p>"}),
        )
        .await;
    sign_in(&b, &app, OPERATOR_TOKEN).await;
    b.goto(&app.url(&format!("/admin/projects/{}/posts/{typo}", l.p.id)))
        .await
        .unwrap();
    click(&b, "Publish").await;
    let notice = message(&b, "Published").await;
    assert_eq!(
        notice,
        "Published: the public API shows it now. 1 internal link will not resolve and is left out of the public answer: [INTERNAL:targte]."
    );
    let (status, content) = public_post(&app, &l.p, "typo").await;
    assert_eq!(status, 200, "the publish went through");
    assert!(
        !content.contains("targte") && content.contains("/blog/target/"),
        "{content}"
    );
    b.close().await.unwrap();
}

/// Without links to it in published posts, `Unpublish` acts at once; with them, it asks first
/// and changes nothing until `Confirm` posts it again.
#[tokio::test]
async fn unpublish_acts_at_once_unless_links_would_disappear() {
    let app = spawn_app().await;
    let l = linked_posts(&app).await;
    let cookie = cookie_pair(&http_sign_in(&app, OPERATOR_TOKEN, &[]).await);
    let post = |id: &str| format!("/admin/projects/{}/posts/{id}", l.p.id);

    // Nobody links to Linker B.
    let (status, page) = post_form(
        &app,
        &cookie,
        &format!("{}/unpublish", post(&l.linker_b)),
        "",
    )
    .await;
    assert_eq!(status, 200);
    assert!(page.contains("Unpublished."), "{page}");
    assert!(!page.contains("class=\"confirm\""), "{page}");
    assert_eq!(managed_status(&app, &l.p, &l.linker_b).await, "unpublished");
    assert_eq!(public_post(&app, &l.p, "linker-b").await.0, 404);

    // Linker A still links to Target twice.
    let unpublish = format!("{}/unpublish", post(&l.target));
    let (status, page) = post_form(&app, &cookie, &unpublish, "").await;
    assert_eq!(status, 200);
    assert!(page.contains("Unpublish this post?"), "{page}");
    assert!(
        page.contains("2 internal links will disappear from 1 published post:"),
        "{page}"
    );
    let confirm_form = page.split("<form").find(|f| {
        f.contains(&format!("action=\"{unpublish}\""))
            && f.contains("name=\"confirm\" value=\"yes\"")
    });
    assert!(confirm_form.is_some(), "a Confirm form: {page}");
    assert_eq!(managed_status(&app, &l.p, &l.target).await, "published");
    assert_eq!(public_post(&app, &l.p, "target").await.0, 200);

    let (status, page) = post_form(&app, &cookie, &unpublish, "confirm=yes").await;
    assert_eq!(status, 200);
    assert!(page.contains("Unpublished."), "{page}");
    assert_eq!(managed_status(&app, &l.p, &l.target).await, "unpublished");
    assert_eq!(public_post(&app, &l.p, "target").await.0, 404);
}

/// Authors are not trusted on the admin origin: a title or placeholder with markup, written with
/// an agent key, shows as text wherever the links are listed.
#[tokio::test]
async fn an_authors_title_and_placeholders_in_the_link_lists_are_text() {
    let app = spawn_app().await;
    let l = linked_posts(&app).await;
    let agent = app
        .send(
            Method::POST,
            &l.p.path("/agent-keys"),
            Some(&l.p.admin),
            None,
        )
        .await;
    let agent = format!("Bearer {}", agent.json["key"].as_str().unwrap());
    let hostile = "<img src=x onerror=alert(1)>";
    let created = app
        .send(
            Method::POST,
            &l.p.path("/blogs"),
            Some(&agent),
            Some(
                json!({"title": hostile, "slug": "hostile-linker", "content":
                "<p><a href=\"[INTERNAL:target]\">t</a> <a href=\"[INTERNAL:nowhere]\">n</a> \
                 [INTERNAL:x\" autofocus onfocus=\"alert(2)]</p>"}),
            ),
        )
        .await;
    assert_eq!(created.status, 201, "{created:?}");
    let id = created.json["id"].as_str().unwrap();
    let published = app
        .send(
            Method::POST,
            &l.p.path(&format!("/blogs/{id}/publish")),
            Some(&agent),
            None,
        )
        .await;
    assert_eq!(published.status, 200, "{published:?}");

    let cookie = cookie_pair(&http_sign_in(&app, OPERATOR_TOKEN, &[]).await);
    let target = format!("/admin/projects/{}/posts/{}", l.p.id, l.target);
    let mut pages = vec![
        ("Linked from", admin_get(&app, &cookie, &target).await),
        (
            "the links page",
            admin_get(&app, &cookie, &format!("/admin/projects/{}/links", l.p.id)).await,
        ),
    ];
    for action in ["delete", "unpublish"] {
        pages.push((
            action,
            post_form(&app, &cookie, &format!("{target}/{action}"), "").await,
        ));
    }
    for (what, (status, page)) in pages {
        assert_eq!(status, 200, "{what}");
        assert!(
            page.contains("&lt;img src=x onerror=alert(1)&gt;"),
            "{what}: the title as text: {page}"
        );
        assert!(!page.contains("<img"), "{what}: {page}");
        assert!(!page.contains("x\" autofocus"), "{what}: {page}");
    }
    // The malformed placeholder, quotes and all, as text.
    let (_, links) = admin_get(&app, &cookie, &format!("/admin/projects/{}/links", l.p.id)).await;
    assert!(
        links.contains("<code>[INTERNAL:x&quot; autofocus onfocus=&quot;alert(2)]</code>"),
        "{links}"
    );
}

/// The links page lists a project's broken links a hundred at a time, with a count and links
/// between pages; a project without any says so, and its page says no published post has one.
#[tokio::test]
async fn the_links_page_shows_a_hundred_broken_links_at_a_time_with_links_between_pages() {
    let app = spawn_app().await;
    let p = app.new_project(None).await;
    let other = app.new_project(None).await;
    let cookie = cookie_pair(&http_sign_in(&app, OPERATOR_TOKEN, &[]).await);
    let links = format!("/admin/projects/{}/links", p.id);
    let (status, empty) = admin_get(&app, &cookie, &links).await;
    assert_eq!(status, 200);
    assert!(
        empty.contains("No broken links: every internal link of every post resolves."),
        "{empty}"
    );
    let (_, settings) = admin_get(&app, &cookie, &format!("/admin/projects/{}", p.id)).await;
    assert!(
        settings.contains("No published post has a broken link."),
        "{settings}"
    );
    assert!(
        settings.contains(&format!("href=\"{links}\"")),
        "{settings}"
    );

    let body: String = (0..230)
        .map(|i| format!("<p>[INTERNAL:gone-{i}]</p>"))
        .collect();
    app.create_blog(
        &p,
        json!({"title": "Many", "slug": "many", "content": body}),
    )
    .await;
    let rows = |page: &str| page.matches("<tr class=\"broken\">").count();
    let (_, first) = admin_get(&app, &cookie, &links).await;
    assert_eq!(rows(&first), 100, "one page of links");
    assert!(first.contains("Broken links 1 to 100 of 230"), "{first}");
    assert!(first.contains(&format!(
        "href=\"{links}?offset=100\" rel=\"next\">Next</a>"
    )));
    assert!(!first.contains("rel=\"prev\""));
    let (_, last) = admin_get(&app, &cookie, &format!("{links}?offset=200")).await;
    assert_eq!(rows(&last), 30);
    assert!(last.contains("Broken links 201 to 230 of 230"));
    assert!(last.contains("[INTERNAL:gone-229]") && !last.contains("[INTERNAL:gone-199]"));
    assert!(last.contains(&format!(
        "href=\"{links}?offset=100\" rel=\"prev\">Previous</a>"
    )));
    assert!(!last.contains("rel=\"next\""));
    let (status, _) = admin_get(&app, &cookie, &format!("{links}?offset=x")).await;
    assert_eq!(status, 400, "a bad offset is refused as the API refuses it");

    // Another project's admin sees nothing of it.
    let theirs = cookie_pair(&http_sign_in(&app, admin_token(&other), &[]).await);
    let (status, page) = admin_get(&app, &theirs, &links).await;
    assert_ne!(status, 200);
    assert!(!page.contains("gone-0"), "{page}");
}

// ---- POST, redirect, GET: every action answers with a redirect to a page saying what it did ----

/// A server whose deploy hooks may go to the HTTPS receivers of `pki` on loopback.
async fn hooked_app(pki: &TestPki) -> TestApp {
    spawn_app_with(|service| {
        service
            .with_notifier(Arc::new(test_notifier(
                pki,
                loopback_resolver(),
                Duration::from_secs(10),
            )))
            .with_hook_resolver(loopback_resolver(), AddressPolicy::GlobalAndLoopback)
    })
    .await
}

/// How many deploy hook deliveries project `p` has logged, once no firing is in flight.
async fn deliveries_logged(app: &TestApp, p: &TestProject) -> usize {
    assert!(app.service.wait_for_firings(Duration::from_secs(10)).await);
    let r = app
        .get(&p.path("/deploy-hook/deliveries"), Some(&p.admin))
        .await;
    assert_eq!(r.status, 200, "{r:?}");
    r.json["deliveries"].as_array().expect("deliveries").len()
}

/// Posts the action at `path` and checks the rule it keeps: `303 See Other` to the page `page`
/// with `?done=code`, whose `GET` says `notice`; a reload (that `GET` again) says it again and
/// fires no deploy hook of project `p`. Returns the page as first shown.
async fn act(
    app: &TestApp,
    cookie: &str,
    p: &TestProject,
    (path, form): (&str, &str),
    (page, code, notice): (&str, &str, &str),
) -> String {
    let answer = post_answer(app, cookie, path, form).await;
    assert_eq!(answer.status, 303, "{path}: {}", answer.page);
    let location = answer.location.expect("a redirect names its page");
    assert_eq!(location, format!("{page}?done={code}"), "{path}");
    let fired = deliveries_logged(app, p).await;
    let (status, shown) = admin_get(app, cookie, &location).await;
    assert_eq!(status, 200, "{location}");
    assert!(shown.contains(notice), "{location}: {notice} in {shown}");
    let (status, reloaded) = admin_get(app, cookie, &location).await;
    assert_eq!(status, 200, "{location} reloaded");
    assert!(reloaded.contains(notice), "{location} reloaded: {reloaded}");
    assert_eq!(
        deliveries_logged(app, p).await,
        fired,
        "{path}: a reload fires nothing"
    );
    shown
}

/// The ids of the admin tokens a settings page lists (in their Revoke forms).
fn admin_token_ids(page: &str) -> Vec<String> {
    page.split("<form")
        .filter(|f| f.contains("/admin-token/revoke\""))
        .filter_map(|f| {
            let start = f.find("name=\"id\" value=\"")? + "name=\"id\" value=\"".len();
            Some(f[start..start + f[start..].find('"')?].to_owned())
        })
        .collect()
}

/// Every action of the settings page, the posts page, a post's page, the projects page and
/// sign-in/out answers `303 See Other` to a page that says what was done; that page, reloaded,
/// says it again and does nothing again (no deploy hook fires). What is shown once shows on the
/// first `GET` only, and a reload says it was shown once.
#[tokio::test]
async fn every_action_answers_see_other_to_a_page_that_says_what_was_done() {
    let pki = test_pki();
    let receiver = Receiver::start(&pki, Answer::Status(200)).await;
    let app = hooked_app(&pki).await;
    let p = app.new_project(None).await;
    let cookie = cookie_pair(&http_sign_in(&app, OPERATOR_TOKEN, &[]).await);
    let settings = format!("/admin/projects/{}", p.id);
    let s = settings.as_str();
    let at = |action: &str| format!("{settings}/{action}");

    act(
        &app,
        &cookie,
        &p,
        (&at("settings/save"), "name=Renamed&site_url="),
        (s, "settings-saved", "Settings saved."),
    )
    .await;
    let project = app.get(&p.path(""), Some(&p.admin)).await;
    assert_eq!(project.json["name"], "Renamed");

    // Reveal shows the key on the first GET only.
    let shown = act(
        &app,
        &cookie,
        &p,
        (&at("key/reveal"), ""),
        (s, "key-revealed", "API key revealed."),
    )
    .await;
    assert!(shown.contains(&p.key), "{shown}");
    let (_, reloaded) = admin_get(&app, &cookie, &format!("{s}?done=key-revealed")).await;
    assert!(!reloaded.contains(&p.key), "hidden again: {reloaded}");
    assert!(
        reloaded.contains("hidden again: Reveal shows it."),
        "{reloaded}"
    );

    // A Confirm step renders the question and changes nothing: no redirect.
    let asked = post_answer(&app, &cookie, &at("key/rotate"), "").await;
    assert_eq!((asked.status, asked.location), (200, None));
    assert!(asked.page.contains("Rotate the API key?"));
    assert_eq!(public_status(&app, &p.key).await, 200);
    let shown = act(
        &app,
        &cookie,
        &p,
        (&at("key/rotate"), "confirm=yes"),
        (
            s,
            "key-rotated",
            "API key rotated: the old key no longer works.",
        ),
    )
    .await;
    assert!(
        shown.contains("id=\"api-key\""),
        "the new key, once: {shown}"
    );
    assert_eq!(public_status(&app, &p.key).await, 401);
    act(
        &app,
        &cookie,
        &p,
        (&at("key/revoke"), "confirm=yes"),
        (s, "key-revoked", "API key revoked: public access is off."),
    )
    .await;
    let shown = act(
        &app,
        &cookie,
        &p,
        (&at("key/generate"), ""),
        (s, "key-generated", "API key generated."),
    )
    .await;
    assert!(
        shown.contains("id=\"api-key\" readonly value=\"pk_live_"),
        "{shown}"
    );

    let hook = receiver.url_string("/build_hooks/prg-s3cr3t");
    act(
        &app,
        &cookie,
        &p,
        (&at("hook/save"), &format!("deploy_hook_url={hook}")),
        (s, "hook-saved", "Deploy hook saved."),
    )
    .await;
    let shown = act(
        &app,
        &cookie,
        &p,
        (&at("hook/reveal"), ""),
        (s, "hook-revealed", "Deploy hook URL revealed."),
    )
    .await;
    assert!(shown.contains("prg-s3cr3t"), "{shown}");
    let fired = deliveries_logged(&app, &p).await;
    let shown = act(
        &app,
        &cookie,
        &p,
        (&at("hook/test"), ""),
        (s, "hook-tested", "Deploy hook tested"),
    )
    .await;
    assert!(shown.contains("id=\"test-result\""), "{shown}");
    assert!(shown.contains("Test succeeded: status 200"), "{shown}");
    assert_eq!(
        deliveries_logged(&app, &p).await,
        fired + 1,
        "one test, however often the page is read"
    );
    let (_, reloaded) = admin_get(&app, &cookie, &format!("{s}?done=hook-tested")).await;
    assert!(!reloaded.contains("id=\"test-result\""), "{reloaded}");
    assert!(
        reloaded.contains("Its outcome was shown once."),
        "{reloaded}"
    );

    let shown = act(
        &app,
        &cookie,
        &p,
        (&at("agent-key/create"), ""),
        (s, "agent-key-created", "Agent key created."),
    )
    .await;
    assert!(
        shown.contains("id=\"once-value\" readonly value=\"sk_agent_"),
        "{shown}"
    );
    let keys = app.get(&p.path("/agent-keys"), Some(&p.admin)).await;
    let agent_id = keys.json["agent_keys"][0]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    act(
        &app,
        &cookie,
        &p,
        (
            &at("agent-key/delete"),
            &format!("id={agent_id}&confirm=yes"),
        ),
        (s, "agent-key-deleted", "Agent key deleted."),
    )
    .await;
    let keys = app.get(&p.path("/agent-keys"), Some(&p.admin)).await;
    assert_eq!(keys.json["agent_keys"], json!([]));

    let (_, before) = admin_get(&app, &cookie, s).await;
    let shown = act(
        &app,
        &cookie,
        &p,
        (&at("admin-token/create"), ""),
        (s, "admin-token-created", "Admin token created."),
    )
    .await;
    assert!(
        shown.contains("id=\"once-value\" readonly value=\"sk_admin_"),
        "{shown}"
    );
    let new_token = admin_token_ids(&shown)
        .into_iter()
        .find(|id| !admin_token_ids(&before).contains(id))
        .expect("the new admin token is listed");
    act(
        &app,
        &cookie,
        &p,
        (
            &at("admin-token/revoke"),
            &format!("id={new_token}&confirm=yes"),
        ),
        (s, "admin-token-revoked", "Admin token revoked."),
    )
    .await;
    let (_, after) = admin_get(&app, &cookie, s).await;
    assert!(!admin_token_ids(&after).contains(&new_token));

    // The posts page and a post's page.
    let created = post_answer(&app, &cookie, &at("posts"), "title=Draft&slug=prg-post").await;
    assert_eq!(created.status, 303, "{}", created.page);
    let location = created.location.unwrap();
    let post_page = location
        .strip_suffix("?done=draft-created")
        .expect(&location)
        .to_owned();
    assert!(post_page.starts_with(&format!("{s}/posts/")), "{post_page}");
    let (_, shown) = admin_get(&app, &cookie, &location).await;
    assert!(shown.contains("Draft created."), "{shown}");
    let post = |action: &str| format!("{post_page}/{action}");
    act(
        &app,
        &cookie,
        &p,
        (
            &post("save"),
            "title=Post&slug=prg-post&content=%3Cp%3E%5BINTERNAL%3Anowhere%5D%3C%2Fp%3E",
        ),
        (&post_page, "saved", "Working copy saved."),
    )
    .await;
    act(&app, &cookie, &p, (&post("publish"), ""), (&post_page, "published",
        "Published: the public API shows it now. 1 internal link will not resolve and is left out of the public answer: [INTERNAL:nowhere].")).await;
    act(&app, &cookie, &p, (&post("resync"), ""), (&post_page, "resynced",
        "Re-synced: the public API shows the working copy now. 1 internal link will not resolve")).await;
    act(
        &app,
        &cookie,
        &p,
        (&post("unpublish"), ""),
        (&post_page, "unpublished", "Unpublished."),
    )
    .await;
    act(
        &app,
        &cookie,
        &p,
        (&post("schedule"), "published_at=2099-01-01T09%3A30"),
        (
            &post_page,
            "scheduled",
            "Scheduled for 2099-01-01 09:30 UTC.",
        ),
    )
    .await;
    act(
        &app,
        &cookie,
        &p,
        (&post("unschedule"), ""),
        (&post_page, "unscheduled", "Unscheduled: back to draft."),
    )
    .await;
    act(
        &app,
        &cookie,
        &p,
        (&post("delete"), "confirm=yes"),
        (&at("posts"), "post-deleted", "Post deleted."),
    )
    .await;
    act(
        &app,
        &cookie,
        &p,
        (&at("hook/remove"), "confirm=yes"),
        (s, "hook-removed", "Deploy hook removed."),
    )
    .await;

    // The projects page.
    let created = post_answer(&app, &cookie, "/admin/projects", "name=Another&site_url=").await;
    assert_eq!(created.status, 303, "{}", created.page);
    let location = created.location.unwrap();
    assert!(
        location.starts_with("/admin/projects/") && location.ends_with("?done=project-created"),
        "{location}"
    );
    let (_, shown) = admin_get(&app, &cookie, &location).await;
    assert!(
        shown.contains("Project created.") && shown.contains("<h1>Another</h1>"),
        "{shown}"
    );

    // Sign out, then in.
    act(
        &app,
        &cookie,
        &p,
        ("/admin/sign-out", ""),
        ("/admin/", "signed-out", "Signed out."),
    )
    .await;
    let signed_in = plain_http()
        .post(app.url("/admin/sign-in"))
        .header("origin", &app.base)
        .form(&[("token", OPERATOR_TOKEN)])
        .send()
        .await
        .unwrap();
    assert_eq!(signed_in.status().as_u16(), 303);
    assert_eq!(
        signed_in.headers()["location"],
        "/admin/projects?done=signed-in"
    );
    let cookie = cookie_pair(signed_in.headers()["set-cookie"].to_str().unwrap());
    let (_, shown) = admin_get(&app, &cookie, "/admin/projects?done=signed-in").await;
    assert!(shown.contains("Signed in."), "{shown}");
    drop(receiver);
}

/// Re-sync, then a reload of the page it leads to: the deploy hook fires once.
#[tokio::test]
async fn a_resync_then_a_reload_fires_the_deploy_hook_exactly_once() {
    let pki = test_pki();
    let mut receiver = Receiver::start(&pki, Answer::Status(200)).await;
    let app = hooked_app(&pki).await;
    let p = app.new_project(None).await;
    let post = app
        .create_blog(
            &p,
            json!({"title": "Synced", "slug": "synced", "content": "<p>x</p>"}),
        )
        .await;
    assert_eq!(app.publish(&p, &post, None).await.status, 200);
    let url = receiver.url_string("/build_hooks/resync");
    let saved = app
        .send(
            Method::PUT,
            &p.path("/deploy-hook"),
            Some(&p.admin),
            Some(json!({ "deploy_hook_url": url })),
        )
        .await;
    assert_eq!(saved.status, 200, "{saved:?}");
    assert_eq!(deliveries_logged(&app, &p).await, 0);
    let cookie = cookie_pair(&http_sign_in(&app, OPERATOR_TOKEN, &[]).await);

    let page = format!("/admin/projects/{}/posts/{post}", p.id);
    let answer = post_answer(&app, &cookie, &format!("{page}/resync"), "").await;
    assert_eq!(answer.status, 303);
    let location = answer.location.unwrap();
    assert_eq!(location, format!("{page}?done=resynced"));
    for _ in 0..3 {
        let (status, shown) = admin_get(&app, &cookie, &location).await;
        assert_eq!(status, 200);
        assert!(
            shown.contains("Re-synced: the public API shows the working copy now."),
            "{shown}"
        );
    }
    assert_eq!(deliveries_logged(&app, &p).await, 1, "one firing");
    let requests = receiver
        .drain()
        .await
        .into_iter()
        .filter(|e| matches!(e, Event::Request(_)))
        .count();
    assert_eq!(requests, 1, "one POST reached the hook");
}

/// A value shown once (a new agent key) is not in the URL, shows to its own session only, on
/// the first `GET` only; a reload says it was shown once.
#[tokio::test]
async fn a_value_shown_once_shows_to_its_own_session_once_and_is_never_in_the_url() {
    let app = spawn_app().await;
    let p = app.new_project(None).await;
    let cookie = cookie_pair(&http_sign_in(&app, OPERATOR_TOKEN, &[]).await);
    let other = cookie_pair(&http_sign_in(&app, OPERATOR_TOKEN, &[]).await);
    let settings = format!("/admin/projects/{}", p.id);
    let answer = post_answer(&app, &cookie, &format!("{settings}/agent-key/create"), "").await;
    assert_eq!(answer.status, 303);
    let location = answer.location.unwrap();
    assert_eq!(location, format!("{settings}?done=agent-key-created"));
    assert!(!answer.page.contains("sk_agent_"), "{}", answer.page);

    let (_, theirs) = admin_get(&app, &other, &location).await;
    assert!(
        !theirs.contains("id=\"once-value\""),
        "another session: {theirs}"
    );
    assert!(
        theirs.contains("It was shown once and is not shown again"),
        "{theirs}"
    );
    let (_, first) = admin_get(&app, &cookie, &location).await;
    let start = first.find("value=\"sk_agent_").expect("the key, once") + "value=\"".len();
    let key = &first[start..start + first[start..].find('"').unwrap()];
    let r = app.get(&p.path("/agent-keys"), Some(&p.admin)).await;
    assert!(
        key.starts_with(r.json["agent_keys"][0]["prefix"].as_str().unwrap()),
        "{key}"
    );
    let (_, reloaded) = admin_get(&app, &cookie, &location).await;
    assert!(
        !reloaded.contains(key) && !reloaded.contains("id=\"once-value\""),
        "{reloaded}"
    );
    assert!(
        reloaded.contains("It was shown once and is not shown again"),
        "{reloaded}"
    );
}

/// A notice is one of the fixed messages, chosen by a code: no text of the URL is shown.
#[tokio::test]
async fn a_notice_is_a_fixed_message_never_text_of_the_url() {
    let app = spawn_app().await;
    let p = app.new_project(None).await;
    let cookie = cookie_pair(&http_sign_in(&app, OPERATOR_TOKEN, &[]).await);
    for page in [
        format!("/admin/projects/{}", p.id),
        format!("/admin/projects/{}/posts", p.id),
        "/admin/projects".to_owned(),
    ] {
        for done in [
            "%3Cb%3Ehacked%3C%2Fb%3E",
            "Key+rotated+by+evil",
            "settings-saved%22",
        ] {
            let (status, shown) = admin_get(&app, &cookie, &format!("{page}?done={done}")).await;
            assert_eq!(status, 200, "{page}");
            assert!(
                !shown.contains("hacked") && !shown.contains("evil"),
                "{page}: {shown}"
            );
            assert!(!shown.contains("class=\"notice\""), "{page}: {shown}");
        }
    }
}

/// A refused action changes nothing and answers with the form again (what was typed, the API's
/// detail), not a redirect: a reload repeats nothing either.
#[tokio::test]
async fn a_refused_action_shows_the_form_again_without_a_redirect() {
    let app = spawn_app().await;
    let (p, post, cookie) = a_draft_and_the_operator(&app).await;
    let settings = format!("/admin/projects/{}", p.id);
    for (path, form, typed) in [
        (
            format!("{settings}/hook/save"),
            "deploy_hook_url=http://hooks.example.com/build_hooks/refused",
            "hooks.example.com",
        ),
        (
            format!("{settings}/posts/{post}/save"),
            "title=T&slug=Not+A+Slug",
            "Not A Slug",
        ),
    ] {
        let answer = post_answer(&app, &cookie, &path, form).await;
        assert!(
            answer.status >= 400 && answer.status < 500,
            "{path}: {}",
            answer.status
        );
        assert_eq!(answer.location, None, "{path}");
        assert!(answer.page.contains(typed), "{path}: {}", answer.page);
        assert!(answer.page.contains("class=\"error\""), "{path}");
    }
    let hook = app.get(&p.path("/deploy-hook"), Some(&p.admin)).await;
    assert_eq!(hook.json["has_hook"], false);
    let blog = app
        .get(&p.path(&format!("/blogs/{post}")), Some(&p.admin))
        .await;
    assert_eq!(blog.json["slug"], "post");
}

/// In Chromium: Re-sync, then a reload: the page says what was done, the browser asks nothing,
/// and the deploy hook fired once.
#[tokio::test]
async fn a_resync_in_the_browser_then_a_reload_fires_the_hook_once_and_shows_the_notice() {
    let Some(b) = browser().await else { return };
    let pki = test_pki();
    let mut receiver = Receiver::start(&pki, Answer::Status(200)).await;
    let app = hooked_app(&pki).await;
    let p = app.new_project(None).await;
    let post = app
        .create_blog(
            &p,
            json!({"title": "Synced", "slug": "synced", "content": "<p>x</p>"}),
        )
        .await;
    assert_eq!(app.publish(&p, &post, None).await.status, 200);
    let url = receiver.url_string("/build_hooks/browser-resync");
    let saved = app
        .send(
            Method::PUT,
            &p.path("/deploy-hook"),
            Some(&p.admin),
            Some(json!({ "deploy_hook_url": url })),
        )
        .await;
    assert_eq!(saved.status, 200, "{saved:?}");

    sign_in(&b, &app, OPERATOR_TOKEN).await;
    wait_for(&b, "//h1[normalize-space()='Projects']").await;
    b.goto(&app.url(&format!("/admin/projects/{}/posts/{post}", p.id)))
        .await
        .unwrap();
    click(&b, "Re-sync").await;
    message(&b, "Re-synced: the public API shows the working copy now.").await;
    assert!(
        b.current_url()
            .await
            .unwrap()
            .as_str()
            .ends_with("?done=resynced")
    );
    b.refresh().await.unwrap();
    wait_for(&b, "//h1[normalize-space()='Synced']").await;
    message(&b, "Re-synced: the public API shows the working copy now.").await;

    assert_eq!(deliveries_logged(&app, &p).await, 1, "one firing");
    let r = app
        .get(&p.path("/deploy-hook/deliveries"), Some(&p.admin))
        .await;
    assert_eq!(r.json["deliveries"][0]["blog_slug"], "synced");
    let requests = receiver
        .drain()
        .await
        .into_iter()
        .filter(|e| matches!(e, Event::Request(_)))
        .count();
    assert_eq!(requests, 1, "one POST reached the hook");
    // The delivery log on the settings page shows the one firing.
    b.goto(&app.url(&format!("/admin/projects/{}", p.id)))
        .await
        .unwrap();
    let rows = texts(&b, "//table[@id='deliveries']/tbody/tr").await;
    assert_eq!(rows.len(), 1, "{rows:?}");
    b.close().await.unwrap();
}

/// The post page lists a post's placeholders a hundred at a time, the broken ones first,
/// whatever its body holds: a page of a body with thousands of placeholders is the body (in
/// the editor) and a hundred rows, not every placeholder (21 MiB of HTML for a 1 MiB body,
/// once).
#[tokio::test]
async fn the_post_page_lists_a_hundred_links_at_a_time_whatever_the_body() {
    let app = spawn_app().await;
    let p = app.new_project(None).await;
    app.published_blog(&p, "target", "2026-01-01T00:00:00Z", json!({}))
        .await;
    let body: String = (0..3000)
        .map(|i| format!("[INTERNAL:gone-{i:04}] [INTERNAL:target] "))
        .collect();
    let id = app
        .published_blog(
            &p,
            "many",
            "2026-01-02T00:00:00Z",
            json!({ "content": body }),
        )
        .await;
    let cookie = cookie_pair(&http_sign_in(&app, OPERATOR_TOKEN, &[]).await);
    let page = format!("/admin/projects/{}/posts/{id}", p.id);
    let (status, html) = admin_get(&app, &cookie, &page).await;
    assert_eq!(status, 200);
    assert!(
        html.contains("Placeholders 1 to 100 of 12000, 6000 broken (listed first)."),
        "{}",
        &html[html.find("links-count").unwrap_or(0)..][..200]
    );
    let rows = html.matches("<tr class=\"broken\">").count();
    assert_eq!(rows, 100, "a hundred rows, all broken");
    assert!(
        html.len() < body.len() * 2 + 100_000,
        "{} bytes for a body of {}",
        html.len(),
        body.len()
    );
    // Past the broken ones, the rest, and a way back.
    let (_, html) = admin_get(&app, &cookie, &format!("{page}?links_offset=5950")).await;
    assert!(html.contains("Placeholders 5951 to 6050 of 12000"));
    assert_eq!(html.matches("<tr class=\"broken\">").count(), 50);
    assert_eq!(html.matches("<tr class=\"\">").count(), 50);
    assert!(html.contains("rel=\"prev\""));
    let (status, _) = admin_get(&app, &cookie, &format!("{page}?links_offset=x")).await;
    assert_eq!(status, 400, "the API's rule for a bad offset");
}

// ---- media: the Media page ----

/// The Upload form's file field, by its label.
const IMAGE_FIELD: &str = "Image (JPEG, PNG, GIF or WebP, at most 20 MiB)";

/// The Upload form's alt text field, by its label.
const ALT_FIELD: &str = "Alt text (what the image shows, for people who cannot see it)";

/// `bytes` written to a file `name` in a new folder, for the browser's file input: the
/// folder (removed when dropped) and the file's path.
fn file_of(name: &str, bytes: &[u8]) -> (Scratch, String) {
    let dir = Scratch::folder("upload");
    let path = dir.join(name);
    std::fs::write(&path, bytes).expect("write the file to upload");
    let path = path.to_str().expect("a UTF-8 path").to_owned();
    (dir, path)
}

/// Opens the Media page of `p` from its settings page (signed in).
async fn open_media_page(b: &Client, app: &TestApp, p: &TestProject) {
    b.goto(&app.url(&format!("/admin/projects/{}", p.id)))
        .await
        .unwrap();
    submit(b, wait_for(b, "//a[normalize-space()='Media']").await).await;
    wait_for(b, "//h1[normalize-space()='Media of Test project']").await;
}

/// Chooses the file at `path`, types `alt` and clicks `Upload`.
async fn upload(b: &Client, path: &str, alt: &str) {
    field(b, IMAGE_FIELD).await.send_keys(path).await.unwrap();
    type_into(b, ALT_FIELD, alt).await;
    click(b, "Upload").await;
}

/// The project's images as the management API lists them (newest first).
async fn media_of(app: &TestApp, p: &TestProject) -> serde_json::Value {
    let r = app.get(&p.path("/media"), Some(&p.admin)).await;
    assert_eq!(r.status, 200, "{r:?}");
    r.json
}

/// The path part of an absolute URL.
fn path_of(url: &serde_json::Value) -> String {
    let url = url.as_str().expect("a URL");
    let rest = url.split_once("://").expect("an absolute URL").1;
    rest[rest.find('/').expect("a path")..].to_owned()
}

/// Waits until the image `img` is loaded and decoded; its natural width (0 if it did not
/// load: refused by the page's policy, or not found).
async fn loaded_width(b: &Client, img: &fantoccini::elements::Element) -> u64 {
    b.execute_async(
        "const [img, done] = arguments; img.decode().then(() => done(img.naturalWidth), () => done(0));",
        vec![serde_json::to_value(img).unwrap()],
    )
    .await
    .unwrap()
    .as_u64()
    .unwrap_or(0)
}

#[tokio::test]
async fn an_image_uploaded_on_the_media_page_shows_its_thumbnail_and_size_and_is_edited_and_deleted()
 {
    let Some(b) = browser().await else { return };
    let app = spawn_app().await;
    let p = app.new_project(None).await;
    let (_dir, jpeg) = file_of("harbour.jpg", &samples::jpeg(1200, 800, 7));
    sign_in(&b, &app, admin_token(&p)).await;
    wait_for(&b, "//h1[normalize-space()='Projects']").await;
    open_media_page(&b, &app, &p).await;
    wait_for(
        &b,
        "//p[@id='no-media' and normalize-space()='No images yet.']",
    )
    .await;

    upload(&b, &jpeg, "The harbour at dawn").await;
    message(&b, "Image uploaded.").await;
    let listed = media_of(&app, &p).await;
    assert_eq!(listed["total"], 1, "{listed}");
    let item = &listed["media"][0];
    let id = item["id"].as_str().unwrap();
    assert_eq!(item["alt"], "The harbour at dawn");

    // The thumbnail: the 480 px copy, from this server, with its size, loaded lazily, and
    // allowed by the page's policy (it loads).
    let at = format!("//li[@id='media-{id}']");
    let img = wait_for(&b, &format!("{at}//img")).await;
    let thumb = &item["variants"][0];
    assert_eq!(thumb["width"], 480);
    assert_eq!(img.attr("src").await.unwrap(), Some(path_of(&thumb["url"])));
    assert_eq!(img.attr("width").await.unwrap().as_deref(), Some("480"));
    assert_eq!(img.attr("height").await.unwrap().as_deref(), Some("320"));
    assert_eq!(img.attr("loading").await.unwrap().as_deref(), Some("lazy"));
    assert_eq!(
        img.attr("alt").await.unwrap().as_deref(),
        Some("The harbour at dawn")
    );
    assert_eq!(loaded_width(&b, &img).await, 480);
    let bytes = item["bytes"].as_u64().unwrap();
    let size = if bytes < 1024 * 1024 {
        format!("{:.1} KB", bytes as f64 / 1024.0)
    } else {
        format!("{:.1} MB", bytes as f64 / (1024.0 * 1024.0))
    };
    assert_eq!(
        texts(&b, &format!("{at}//dd[@class='media-size']")).await,
        [format!("1200 × 800 px, {size}")]
    );
    assert_eq!(
        texts(&b, &format!("{at}//dd[@class='media-type']")).await,
        ["image/jpeg"]
    );
    let master = wait_for(&b, &format!("{at}//a[normalize-space()='Full image']")).await;
    assert_eq!(
        master.attr("href").await.unwrap(),
        Some(path_of(&item["url"]))
    );

    // The same file again: it was already there, nothing new stored.
    upload(&b, &jpeg, "Another alt").await;
    message(&b, "This image was already there").await;
    let listed = media_of(&app, &p).await;
    assert_eq!(listed["total"], 1, "{listed}");
    assert_eq!(listed["media"][0]["alt"], "The harbour at dawn");

    // Edit the alt text.
    type_into(&b, "Edit alt text", "Boats in the harbour").await;
    click(&b, "Save alt text").await;
    message(&b, "Alt text saved.").await;
    assert_eq!(
        media_of(&app, &p).await["media"][0]["alt"],
        "Boats in the harbour"
    );
    assert_eq!(
        texts(&b, &format!("{at}//dd[@class='media-alt']")).await,
        ["Boats in the harbour"]
    );

    // Used by a post (its featured image): the card names the post, linked to its page, and
    // Delete is refused, naming it, with nothing deleted.
    assert_eq!(
        texts(&b, &format!("{at}//dd[@class='media-used-by']")).await,
        ["no post"]
    );
    let post = app
        .create_blog(
            &p,
            json!({"title": "Harbour notes", "slug": "harbour-notes", "content": "<p>Boats.</p>", "featured_image_url": item["url"]}),
        )
        .await;
    b.refresh().await.unwrap();
    let user = wait_for(&b, &format!("{at}//dd[@class='media-used-by']/a")).await;
    assert_eq!(user.text().await.unwrap(), "Harbour notes");
    assert_eq!(
        user.attr("href").await.unwrap(),
        Some(format!("/admin/projects/{}/posts/{post}", p.id))
    );
    click(&b, "Delete").await;
    wait_for(&b, "//p[@id='confirm-question']").await;
    click(&b, "Confirm").await;
    let refusal = wait_for(&b, &format!("{at}//p[@class='error']")).await;
    assert!(
        refusal.text().await.unwrap().contains("Harbour notes"),
        "{:?}",
        refusal.text().await
    );
    assert_eq!(media_of(&app, &p).await["total"], 1);
    let gone = app
        .send(
            Method::DELETE,
            &p.path(&format!("/blogs/{post}")),
            Some(&p.admin),
            None,
        )
        .await;
    assert_eq!(gone.status, 204, "{gone:?}");
    // (The page shown is the answer to a POST: open it afresh rather than resend the form.)
    b.goto(&app.url(&format!("/admin/projects/{}/media", p.id)))
        .await
        .unwrap();
    wait_for(
        &b,
        &format!("{at}//dd[@class='media-used-by']/span[normalize-space()='no post']"),
    )
    .await;

    // Delete asks to confirm first, and changes nothing until then.
    click(&b, "Delete").await;
    let question = wait_for(&b, "//p[@id='confirm-question']").await;
    assert!(
        question
            .text()
            .await
            .unwrap()
            .starts_with("Delete this image?")
    );
    assert_eq!(media_of(&app, &p).await["total"], 1);
    assert_eq!(app.get(&path_of(&item["url"]), None).await.status, 200);
    click(&b, "Confirm").await;
    message(&b, "Image deleted").await;
    assert_eq!(media_of(&app, &p).await["total"], 0);
    assert_eq!(app.get(&path_of(&item["url"]), None).await.status, 404);
    wait_for(&b, "//p[@id='no-media']").await;
    b.close().await.unwrap();
}

/// An alt text that tries to end its attribute and add an element, and a script.
const HOSTILE_ALT: &str =
    "\"><img src=x onerror=\"document.title='pwned'\"><script>document.title='pwned'</script>";

#[tokio::test]
async fn a_hostile_alt_text_on_the_media_page_shows_as_text_and_adds_nothing() {
    let Some(b) = browser().await else { return };
    let app = spawn_app().await;
    let p = app.new_project(None).await;
    let (_dir, jpeg) = file_of("plain.jpg", &samples::jpeg(300, 200, 3));
    sign_in(&b, &app, admin_token(&p)).await;
    wait_for(&b, "//h1[normalize-space()='Projects']").await;
    open_media_page(&b, &app, &p).await;
    upload(&b, &jpeg, "plain").await;
    message(&b, "Image uploaded.").await;
    // An author (an agent key) sets the hostile alt text over the API.
    let agent = app
        .send(Method::POST, &p.path("/agent-keys"), Some(&p.admin), None)
        .await;
    let agent = format!("Bearer {}", agent.json["key"].as_str().unwrap());
    let id = media_of(&app, &p).await["media"][0]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let r = app
        .send(
            Method::PATCH,
            &p.path(&format!("/media/{id}")),
            Some(&agent),
            Some(json!({ "alt": HOSTILE_ALT })),
        )
        .await;
    assert_eq!(r.status, 200, "{r:?}");

    open_media_page(&b, &app, &p).await;
    let at = format!("//li[@id='media-{id}']");
    // The text shows as written, in the list, the img's alt and the edit field...
    assert_eq!(
        texts(&b, &format!("{at}//dd[@class='media-alt']")).await,
        [HOSTILE_ALT]
    );
    let img = wait_for(&b, &format!("{at}//img")).await;
    assert_eq!(img.attr("alt").await.unwrap().as_deref(), Some(HOSTILE_ALT));
    let edit = field(&b, "Edit alt text").await;
    assert_eq!(
        edit.prop("value").await.unwrap().as_deref(),
        Some(HOSTILE_ALT)
    );
    // ...and adds no element: one image (the thumbnail), one script (the Copy button's).
    assert_eq!(b.find_all(Locator::Css("img")).await.unwrap().len(), 1);
    assert_eq!(b.find_all(Locator::Css("script")).await.unwrap().len(), 1);
    assert_eq!(
        b.title().await.unwrap(),
        "Media of Test project · blogread admin"
    );
    b.close().await.unwrap();
}

#[tokio::test]
async fn a_refused_upload_says_on_the_media_page_what_to_fix() {
    let Some(b) = browser().await else { return };
    let app = spawn_app().await;
    let p = app.new_project(None).await;
    sign_in(&b, &app, admin_token(&p)).await;
    wait_for(&b, "//h1[normalize-space()='Projects']").await;
    open_media_page(&b, &app, &p).await;

    // A text file named .png: its bytes say it is no image (415), the alt typed is kept.
    let (_text_dir, text) = file_of("notes.png", b"just some notes, not a picture\n");
    upload(&b, &text, "kept alt").await;
    let shown = message(&b, "not a JPEG, PNG, GIF or WebP image").await;
    assert!(shown.contains("told by its bytes"), "{shown}");
    let alt = field(&b, ALT_FIELD).await.prop("value").await.unwrap();
    assert_eq!(alt.as_deref(), Some("kept alt"));

    // A file over the upload cap is refused before it is read (413).
    let (_big_dir, big) = file_of("big.jpg", &vec![0u8; 21 * 1024 * 1024]);
    upload(&b, &big, "too big").await;
    message(&b, "The file is too large: an upload is at most 20 MiB.").await;

    assert_eq!(media_of(&app, &p).await["total"], 0);
    b.close().await.unwrap();
}

/// A `multipart/form-data` body: the form token first (when given), the file `name` with
/// `bytes`, and the alt text.
fn upload_body(token: Option<&str>, name: &str, bytes: &[u8], alt: &str) -> (String, Vec<u8>) {
    const BOUNDARY: &str = "blogread-admin-upload-4f1d";
    let mut body = Vec::new();
    let mut text = |field: &str, value: &str| {
        body.extend_from_slice(
            format!(
                "--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"{field}\"\r\n\r\n{value}\r\n"
            )
            .as_bytes(),
        );
    };
    if let Some(token) = token {
        text("form_token", token);
    }
    text("alt", alt);
    body.extend_from_slice(
        format!(
            "--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"{name}\"\r\nContent-Type: image/jpeg\r\n\r\n"
        )
        .as_bytes(),
    );
    body.extend_from_slice(bytes);
    body.extend_from_slice(format!("\r\n--{BOUNDARY}--\r\n").as_bytes());
    (format!("multipart/form-data; boundary={BOUNDARY}"), body)
}

/// Posts an upload body to the Media page of `p` from the server's own origin.
async fn post_upload(
    app: &TestApp,
    p: &TestProject,
    cookie: &str,
    (content_type, body): (String, Vec<u8>),
) -> PostAnswer {
    let resp = plain_http()
        .post(app.url(&format!("/admin/projects/{}/media", p.id)))
        .header("cookie", cookie)
        .header("origin", &app.base)
        .header("content-type", content_type)
        .body(body)
        .send()
        .await
        .unwrap();
    let status = resp.status().as_u16();
    let location = resp
        .headers()
        .get("location")
        .map(|l| l.to_str().unwrap().to_owned());
    PostAnswer {
        status,
        location,
        page: resp.text().await.unwrap(),
    }
}

#[tokio::test]
async fn the_upload_form_needs_its_form_token_read_from_the_multipart_body_within_the_upload_cap() {
    let app = spawn_app().await;
    let p = app.new_project(None).await;
    let cookie = cookie_pair(&http_sign_in(&app, admin_token(&p), &[]).await);
    let page = format!("/admin/projects/{}/media", p.id);
    let token = form_token(&app, &cookie, &page).await;
    let jpeg = samples::jpeg(64, 48, 1);

    // Without the token, or with another: refused, nothing stored.
    for sent in [None, Some("not-the-token")] {
        let answer = post_upload(&app, &p, &cookie, upload_body(sent, "a.jpg", &jpeg, "")).await;
        assert_eq!(answer.status, 403, "{}", answer.page);
        assert!(answer.page.contains("form token"), "{}", answer.page);
    }
    assert_eq!(media_of(&app, &p).await["total"], 0);

    // With it: stored, and the page says so.
    let answer = post_upload(
        &app,
        &p,
        &cookie,
        upload_body(Some(&token), "a.jpg", &jpeg, "A"),
    )
    .await;
    assert_eq!(answer.status, 303, "{}", answer.page);
    assert_eq!(
        answer.location.as_deref(),
        Some(format!("{page}?done=media-uploaded").as_str())
    );
    assert_eq!(media_of(&app, &p).await["media"][0]["alt"], "A");

    // A body over the forms' 4 MiB but within the upload's 20 MiB is read whole: the token
    // is found, and the file judged (no picture: 415 on the page, not 413).
    let junk = vec![b'x'; 5 * 1024 * 1024];
    let answer = post_upload(
        &app,
        &p,
        &cookie,
        upload_body(Some(&token), "b.jpg", &junk, ""),
    )
    .await;
    assert_eq!(answer.status, 415, "{}", answer.page);
    assert!(answer.page.contains("not a JPEG, PNG, GIF or WebP image"));

    // Over the upload's cap: refused before it is read, back to the page saying why; a body
    // a browser could still be sending is read to its end first (else the browser shows a
    // reset connection, not the answer), a larger one is answered at once.
    let head = |len: usize| {
        format!(
            "POST {page} HTTP/1.1\r\nHost: {host}\r\nOrigin: {base}\r\nCookie: {cookie}\r\nContent-Type: multipart/form-data; boundary=x\r\nContent-Length: {len}\r\nConnection: close\r\n\r\n",
            host = app.base.trim_start_matches("http://"),
            base = app.base,
        )
        .into_bytes()
    };
    let over = 21 * 1024 * 1024;
    let mut sent_whole = head(over);
    sent_whole.resize(sent_whole.len() + over, b'x');
    assert_eq!(app.raw(&sent_whole).await.0, 303);
    assert_eq!(app.raw(&head(200 * 1024 * 1024)).await.0, 303);
    let (status, shown) = admin_get(&app, &cookie, &format!("{page}?refused=too-large")).await;
    assert_eq!(status, 200);
    assert!(shown.contains("The file is too large"), "{shown}");
    assert_eq!(media_of(&app, &p).await["total"], 1);
}

/// The post editor picks its featured image from the project's images (a grid of
/// thumbnails), adds an image to the body with its alt text and size, and the post page
/// lists the stored images the post uses.
#[tokio::test]
async fn the_post_editor_picks_a_featured_image_and_inserts_an_image_into_the_body() {
    let Some(b) = browser().await else { return };
    let app = spawn_app().await;
    let p = app.new_project(None).await;
    let (_dir, jpeg) = file_of("kite.jpg", &samples::jpeg(1200, 800, 8));
    sign_in(&b, &app, admin_token(&p)).await;
    wait_for(&b, "//h1[normalize-space()='Projects']").await;
    open_media_page(&b, &app, &p).await;
    upload(&b, &jpeg, "A \"red\" kite & <sky>").await;
    message(&b, "Image uploaded.").await;
    let item = media_of(&app, &p).await["media"][0].clone();
    let id = item["id"].as_str().unwrap().to_owned();
    let post = app
        .create_blog(
            &p,
            json!({"title": "Kites", "slug": "kites", "content": "<p>Wind.</p>"}),
        )
        .await;
    b.goto(&app.url(&format!("/admin/projects/{}/posts/{post}", p.id)))
        .await
        .unwrap();
    wait_for(
        &b,
        "//section[@aria-labelledby='images-heading']//p[normalize-space()='No stored image.']",
    )
    .await;

    // The grid: the 480 px thumbnail, its alt text; picking it and saving sets the URL.
    let radio = wait_for(&b, &format!("//input[@id='pick-{id}']")).await;
    let thumb = wait_for(&b, &format!("//label[@for='pick-{id}']/img")).await;
    assert_eq!(
        thumb.attr("src").await.unwrap(),
        Some(path_of(&item["variants"][0]["url"]))
    );
    assert_eq!(loaded_width(&b, &thumb).await, 480);
    radio.click().await.unwrap();
    click(&b, "Save").await;
    message(&b, "Working copy saved.").await;
    let managed = app
        .get(&p.path(&format!("/blogs/{post}")), Some(&p.admin))
        .await;
    assert_eq!(
        managed.json["featured_image_url"], item["url"],
        "{managed:?}"
    );
    let radio = wait_for(&b, &format!("//input[@id='pick-{id}']")).await;
    assert!(radio.prop("checked").await.unwrap().as_deref() == Some("true"));

    // Insert into body: the image with its alt text, escaped, and its size, at the end.
    let insert = wait_for(
        &b,
        &format!("//fieldset[@id='insert-images']//button[@value='{id}']"),
    )
    .await;
    submit(&b, insert).await;
    message(&b, "Image added at the end of the body").await;
    let managed = app
        .get(&p.path(&format!("/blogs/{post}")), Some(&p.admin))
        .await;
    let url = item["url"].as_str().unwrap();
    assert_eq!(
        managed.json["content"],
        format!(
            "<p>Wind.</p>\n<img src=\"{url}\" alt=\"A &quot;red&quot; kite &amp; &lt;sky&gt;\" width=\"1200\" height=\"800\">"
        )
    );
    assert_eq!(managed.json["featured_image_url"], item["url"], "kept");

    // The post page lists it once, as featured.
    let listed = texts(&b, "//ul[@id='post-images']/li/span").await;
    assert_eq!(listed, ["1200 × 800, featured"]);
}
