//! The `blogread` binary: clear errors without panics, JSON output, export.

mod support;

use std::path::Path;
use std::process::{Command, Output};

use serde_json::json;
use support::*;

fn blogread(base: &str, key: Option<&str>, args: &[&str]) -> Output {
    blogread_in(None, base, key, args)
}

/// Runs the binary, in `dir` if given (the default state folder is relative to it).
fn blogread_in(dir: Option<&Path>, base: &str, key: Option<&str>, args: &[&str]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_blogread"));
    if let Some(dir) = dir {
        cmd.current_dir(dir);
    }
    cmd.env_remove("BLOGREAD_API_KEY")
        .env_remove("BLOGREAD_BASE_URL")
        .env_remove("BLOGREAD_STATE_DIR")
        .arg("--base-url")
        .arg(base)
        .arg("--attempts")
        .arg("1")
        .args(args);
    if let Some(key) = key {
        cmd.env("BLOGREAD_API_KEY", key);
    }
    cmd.output().unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn a_missing_key_is_a_clear_error() {
    let out = blogread("http://127.0.0.1:9", None, &["list"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("BLOGREAD_API_KEY is not set"),
        "{}",
        stderr(&out)
    );
    assert!(!stderr(&out).contains("panicked"));
}

#[test]
fn an_unreachable_server_is_a_clear_error() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    drop(listener);
    let out = blogread(&base, Some("pk_live_x"), &["sitemap"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("could not reach the blogread server"),
        "{}",
        stderr(&out)
    );
}

#[tokio::test]
async fn unauthorized_and_not_found_are_explained() {
    let stub = start_stub(|_, req| {
        if req.headers.get("authorization").map(String::as_str) != Some("Bearer pk_live_good") {
            reply(401, json!({"detail": "unknown public key"}))
        } else {
            serve(&[1], req)
        }
    })
    .await;
    let base = stub.base.clone();
    let out = tokio::task::spawn_blocking(move || blogread(&base, Some("pk_live_bad"), &["list"]))
        .await
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(
        err.contains("401") && err.contains("unknown public key"),
        "{err}"
    );
    assert!(!err.contains("pk_live_bad"), "the key is never printed");

    let base = stub.base.clone();
    let out = tokio::task::spawn_blocking(move || {
        blogread(&base, Some("pk_live_good"), &["get", "nope"])
    })
    .await
    .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("no published blog has the slug `nope`"));
}

#[tokio::test]
async fn list_get_and_sitemap_print_the_servers_json() {
    let stub = start_stub(|_, req| serve(&[2, 1], req)).await;
    let base = stub.base.clone();
    let (list, get, sitemap) = tokio::task::spawn_blocking(move || {
        (
            blogread(&base, Some("k"), &["list", "--limit", "1"]),
            blogread(&base, Some("k"), &["get", "blog-2"]),
            blogread(&base, Some("k"), &["sitemap"]),
        )
    })
    .await
    .unwrap();
    let list: serde_json::Value = serde_json::from_slice(&list.stdout).unwrap();
    assert_eq!(list, page(&[2], 2, 0));
    let get: serde_json::Value = serde_json::from_slice(&get.stdout).unwrap();
    assert_eq!(get, detail("blog-2"));
    let sitemap: serde_json::Value = serde_json::from_slice(&sitemap.stdout).unwrap();
    assert_eq!(sitemap, sitemap_of(&[2, 1]));
    assert!(
        stub.seen()
            .iter()
            .any(|s| s.query("limit").as_deref() == Some("1"))
    );
}

#[tokio::test]
async fn export_writes_files_and_reports() {
    let stub = start_stub(|_, req| serve(&[2, 1], req)).await;
    // A site's root, the current directory of the command: the state goes to ./.blogread.
    let site = std::env::temp_dir().join(format!("blogread-cli-export-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&site);
    std::fs::create_dir_all(&site).unwrap();
    let base = stub.base.clone();
    let dir = site.clone();
    let out = tokio::task::spawn_blocking(move || {
        blogread_in(
            Some(&dir),
            &base,
            Some("k"),
            &["export", "--format", "zola", "--out", "content/blog"],
        )
    })
    .await
    .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("exported 2 blogs"),
        "{}",
        stderr(&out)
    );
    assert!(!stderr(&out).contains("note: moved"), "{}", stderr(&out));
    let out_dir = site.join("content/blog");
    assert_eq!(names(&out_dir), vec!["blog-1.md", "blog-2.md"]);
    let state = names(&site.join(".blogread"));
    assert_eq!(state.len(), 2, "{state:?}");
    assert!(
        state[0].starts_with("export-content-blog-") && state[0].ends_with(".cache.json"),
        "{state:?}"
    );
    assert_eq!(
        state[1],
        state[0].replace(".cache.json", ".manifest.json"),
        "{state:?}"
    );
    std::fs::remove_dir_all(&site).unwrap();
}

/// `--base-url`, `--timeout` and `--attempts` are accepted after the command as well as
/// before it (`docs/client.md` lists them among the export's options).
#[tokio::test]
async fn global_options_are_accepted_after_the_command() {
    let stub = start_stub(|_, req| serve(&[2, 1], req)).await;
    let site = tempfile::tempdir().unwrap();
    let base = stub.base.clone();
    let dir = site.path().to_owned();
    let out = tokio::task::spawn_blocking(move || {
        Command::new(env!("CARGO_BIN_EXE_blogread"))
            .current_dir(&dir)
            .env_remove("BLOGREAD_BASE_URL")
            .env_remove("BLOGREAD_STATE_DIR")
            .env("BLOGREAD_API_KEY", "k")
            .args(["export", "--format", "zola", "--out", "content/blog"])
            .args(["--timeout", "5", "--attempts", "1", "--base-url", &base])
            .output()
            .unwrap()
    })
    .await
    .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        names(&site.path().join("content/blog")),
        ["blog-1.md", "blog-2.md"]
    );
}

#[test]
fn a_missing_base_url_is_a_clear_error() {
    let out = Command::new(env!("CARGO_BIN_EXE_blogread"))
        .env_remove("BLOGREAD_BASE_URL")
        .env("BLOGREAD_API_KEY", "k")
        .arg("list")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("--base-url URL or set BLOGREAD_BASE_URL"),
        "{}",
        stderr(&out)
    );
}

/// `list --all` prints the object `list` prints, with every published blog in it.
#[tokio::test]
async fn list_all_prints_the_shape_of_list_with_every_blog() {
    let stub = start_stub(|_, req| serve(&[3, 2, 1], req)).await;
    let base = stub.base.clone();
    let (all, mixed) = tokio::task::spawn_blocking(move || {
        (
            blogread(&base, Some("k"), &["list", "--all"]),
            blogread(&base, Some("k"), &["list", "--all", "--limit", "2"]),
        )
    })
    .await
    .unwrap();
    assert!(all.status.success(), "{}", stderr(&all));
    let all: serde_json::Value = serde_json::from_slice(&all.stdout).unwrap();
    let mut expected = page(&[3, 2, 1], 3, 0);
    expected["limit"] = json!(3);
    assert_eq!(all, expected);
    assert_eq!(mixed.status.code(), Some(2), "--all pages by itself");
    assert!(stderr(&mixed).contains("--limit"), "{}", stderr(&mixed));
}

/// Without the ETag cache every answer is a download, and the report says how many.
#[tokio::test]
async fn export_without_the_cache_counts_every_answer_with_a_body() {
    let stub = start_stub(|_, req| serve(&[2, 1], req)).await;
    let site = tempfile::tempdir().unwrap();
    let base = stub.base.clone();
    let dir = site.path().to_owned();
    let out = tokio::task::spawn_blocking(move || {
        blogread_in(
            Some(&dir),
            &base,
            Some("k"),
            &["export", "--format", "html", "--out", "out", "--no-cache"],
        )
    })
    .await
    .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let bodies = stub
        .seen()
        .iter()
        .filter(|req| serve(&[2, 1], req).status == 200)
        .count();
    assert!(bodies >= 3, "a list, a sitemap and two blogs at least");
    assert!(
        stderr(&out).contains(&format!("(0 answers not modified, {bodies} downloaded)")),
        "{}",
        stderr(&out)
    );
}

#[tokio::test]
async fn export_warns_about_what_the_generator_cannot_show_naming_the_post() {
    let stub = start_stub(|_, req| {
        let mut reply = serve(&[2, 1], req);
        if req.path().ends_with("/blogs/blog-2") {
            let mut blog = detail("blog-2");
            blog["content"] =
                serde_json::json!("<p>{% end %}</p>\n<script>let t = `{% end %}`;</script>");
            reply.body = blog.to_string();
        }
        reply
    })
    .await;
    let scratch = tempfile::Builder::new()
        .prefix("blogread-cli-inexact-")
        .tempdir()
        .unwrap();
    let site = scratch.path().to_path_buf();
    let base = stub.base.clone();
    let dir = site.clone();
    let out = tokio::task::spawn_blocking(move || {
        blogread_in(
            Some(&dir),
            &base,
            Some("k"),
            &["export", "--format", "zola", "--out", "content/blog"],
        )
    })
    .await
    .unwrap();
    // A warning, not an error: the file is written so that the site builds.
    assert!(out.status.success(), "{}", stderr(&out));
    let printed = stderr(&out);
    let warnings: Vec<&str> = printed
        .lines()
        .filter(|l| l.starts_with("warning:"))
        .collect();
    assert_eq!(warnings.len(), 1, "{}", stderr(&out));
    assert!(
        warnings[0].starts_with(
            "warning: post `blog-2`, line 2 of its body: `{% end %}` inside <script>: Zola stops \
             the build"
        ),
        "{}",
        warnings[0]
    );
    let file = std::fs::read_to_string(site.join("content/blog/blog-2.md")).unwrap();
    assert!(
        file.contains("<p>&#123;% end %}</p>\n<script>let t = `&#123;% end %}`;</script >"),
        "{file}"
    );
}

/// What `hugo new site` writes into hugo.toml (Hugo 0.168).
const FRESH_HUGO_TOML: &str =
    "baseURL = 'https://example.org/'\nlocale = 'en-us'\ntitle = 'My New Hugo Project'\n";

/// A site root with a fresh hugo.toml, for the `export --format hugo` tests.
fn hugo_site(name: &str) -> std::path::PathBuf {
    let site = std::env::temp_dir().join(format!("blogread-cli-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&site);
    std::fs::create_dir_all(&site).unwrap();
    std::fs::write(site.join("hugo.toml"), FRESH_HUGO_TOML).unwrap();
    site
}

#[tokio::test]
async fn hugo_export_on_a_fresh_site_fails_with_the_lines_to_add_and_writes_nothing() {
    let stub = start_stub(|_, req| serve(&[2, 1], req)).await;
    let site = hugo_site("hugo-fresh");
    let (base, dir) = (stub.base.clone(), site.clone());
    let out = tokio::task::spawn_blocking(move || {
        blogread_in(
            Some(&dir),
            &base,
            Some("k"),
            &["export", "--format", "hugo", "--out", "content/blog"],
        )
    })
    .await
    .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(
        err.contains(&site.join("hugo.toml").display().to_string())
            && err.contains("\n\n[security]\nallowContent = ['! ^text/org$']\n\n")
            && err.contains("--configure-hugo")
            && err.contains("Nothing was written"),
        "{err}"
    );
    assert_eq!(names(&site), vec!["hugo.toml"], "nothing written");
    assert_eq!(
        std::fs::read_to_string(site.join("hugo.toml")).unwrap(),
        FRESH_HUGO_TOML
    );
    assert_eq!(stub.count(), 0, "the API is not asked");
    std::fs::remove_dir_all(&site).unwrap();
}

#[tokio::test]
async fn configure_hugo_adds_the_policy_says_so_and_exports() {
    let stub = start_stub(|_, req| serve(&[2, 1], req)).await;
    let site = hugo_site("hugo-configure");
    let (base, dir) = (stub.base.clone(), site.clone());
    let out = tokio::task::spawn_blocking(move || {
        let args = [
            "export",
            "--format",
            "hugo",
            "--out",
            "content/blog",
            "--configure-hugo",
        ];
        (
            blogread_in(Some(&dir), &base, Some("k"), &args),
            blogread_in(Some(&dir), &base, Some("k"), &args),
        )
    })
    .await
    .unwrap();
    let (first, second) = out;
    assert!(first.status.success(), "{}", stderr(&first));
    assert!(
        stderr(&first).contains("note: added allowContent = ['! ^text/org$'] under [security]"),
        "{}",
        stderr(&first)
    );
    assert_eq!(
        std::fs::read_to_string(site.join("hugo.toml")).unwrap(),
        format!("{FRESH_HUGO_TOML}\n[security]\nallowContent = ['! ^text/org$']\n")
    );
    assert_eq!(
        names(&site.join("content/blog")),
        vec!["blog-1.html", "blog-2.html"]
    );
    assert!(second.status.success(), "{}", stderr(&second));
    assert!(
        !stderr(&second).contains("note: added"),
        "{}",
        stderr(&second)
    );
    std::fs::remove_dir_all(&site).unwrap();
}

#[tokio::test]
async fn hugo_export_without_a_site_configuration_warns_and_exports() {
    let stub = start_stub(|_, req| serve(&[1], req)).await;
    let site = hugo_site("hugo-none");
    std::fs::remove_file(site.join("hugo.toml")).unwrap();
    let (base, dir) = (stub.base.clone(), site.clone());
    let out = tokio::task::spawn_blocking(move || {
        blogread_in(
            Some(&dir),
            &base,
            Some("k"),
            &["export", "--format", "hugo", "--out", "content/blog"],
        )
    })
    .await
    .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("warning: no Hugo configuration")
            && err.contains("[security]\nallowContent = ['! ^text/org$']"),
        "{err}"
    );
    assert_eq!(names(&site.join("content/blog")), vec!["blog-1.html"]);
    std::fs::remove_dir_all(&site).unwrap();
}

/// The sorted names in `dir`.
fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn help_names_the_environment_and_the_formats() {
    let out = Command::new(env!("CARGO_BIN_EXE_blogread"))
        .args(["export", "--help"])
        .output()
        .unwrap();
    let help = String::from_utf8_lossy(&out.stdout);
    assert!(
        help.contains("zola") && help.contains("hugo") && help.contains("html"),
        "{help}"
    );
    let out = Command::new(env!("CARGO_BIN_EXE_blogread"))
        .arg("--help")
        .output()
        .unwrap();
    let help = String::from_utf8_lossy(&out.stdout);
    assert!(
        help.contains("BLOGREAD_API_KEY") && help.contains("BLOGREAD_BASE_URL"),
        "{help}"
    );
}

/// Each full read is explained in one line; the summary says how many changes were applied
/// and how many answers were downloaded.
#[tokio::test]
async fn export_says_in_one_line_why_it_reads_everything_and_counts_downloads() {
    let site = std::sync::Arc::new(std::sync::Mutex::new(support::feed::Site::default()));
    site.lock().unwrap().publish("a", "A");
    site.lock().unwrap().publish("b", "B");
    let served = site.clone();
    let stub = start_stub(move |_, req| served.lock().unwrap().serve(req)).await;
    let dir = tempfile::tempdir().unwrap();
    let run = |extra: &'static [&'static str]| {
        let (base, dir) = (stub.base.clone(), dir.path().to_owned());
        tokio::task::spawn_blocking(move || {
            let mut args = vec!["export", "--format", "zola", "--out", "content/blog"];
            args.extend(extra);
            let out = blogread_in(Some(&dir), &base, Some("k"), &args);
            assert!(out.status.success(), "{}", stderr(&out));
            stderr(&out)
        })
    };
    let notes = |err: &str| -> Vec<String> {
        err.lines()
            .filter(|l| l.starts_with("note: reading every published post: "))
            .map(str::to_owned)
            .collect()
    };

    let err = run(&[]).await.unwrap();
    assert_eq!(
        notes(&err),
        [
            "note: reading every published post: no saved cursor (a first export into this folder, \
          state from an older blogread, or a last export that did not finish or left posts \
          unwritten)"
        ]
    );
    assert!(
        err.contains("exported 2 blogs to content/blog: 2 written, 0 unchanged, 0 removed (0 answers not modified, 1 downloaded)"),
        "{err}"
    );

    site.lock().unwrap().retitle("a", "A2");
    let err = run(&[]).await.unwrap();
    assert!(notes(&err).is_empty(), "{err}");
    assert!(
        err.contains("exported 2 blogs to content/blog (1 change since the last export): 1 written, 0 unchanged, 0 removed (0 answers not modified, 1 downloaded)"),
        "{err}"
    );

    let err = run(&["--full"]).await.unwrap();
    assert_eq!(
        notes(&err),
        ["note: reading every published post: a full read was asked for (--full)"]
    );
    assert!(
        err.contains(": 0 written, 2 unchanged, 0 removed (0 answers not modified, 1 downloaded)"),
        "{err}"
    );

    {
        let mut site = site.lock().unwrap();
        site.unpublish("b");
        site.oldest = site.seq;
    }
    let err = run(&[]).await.unwrap();
    let note = notes(&err);
    assert_eq!(note.len(), 1, "{err}");
    assert!(
        note[0].contains("the server no longer keeps the changes since the saved cursor (410: "),
        "{err}"
    );
    assert!(err.contains("exported 1 blogs to content/blog: 0 written, 1 unchanged, 1 removed (0 answers not modified, 1 downloaded)"), "{err}");

    site.lock().unwrap().feed = false;
    let err = run(&[]).await.unwrap();
    assert_eq!(
        notes(&err),
        [format!(
            "note: reading every published post: the server has no changes feed (404 at \
             {}/blog/api/v1/public/changes), so every post is downloaded and no cursor is kept",
            stub.base
        )]
    );
    // A list page, the sitemap, the redirects and the one post (the feed's 404 is not a
    // download).
    assert!(
        err.contains("(0 answers not modified, 4 downloaded)"),
        "{err}"
    );
}

#[test]
fn export_help_explains_the_incremental_export_and_full() {
    let out = Command::new(env!("CARGO_BIN_EXE_blogread"))
        .args(["export", "--help"])
        .output()
        .unwrap();
    let help = String::from_utf8_lossy(&out.stdout);
    for needle in ["--full", "*.cursor.json", "Incremental:", "(410)", "(404)"] {
        assert!(help.contains(needle), "{needle}: {help}");
    }
}

/// Runs `blogread export --format zola --out content/blog` with `extra` arguments in `dir`
/// with the key `key`, off the async runtime.
async fn export_in(
    dir: &Path,
    base: &str,
    key: &'static str,
    extra: &'static [&'static str],
) -> Output {
    let (dir, base) = (dir.to_owned(), base.to_owned());
    tokio::task::spawn_blocking(move || {
        let mut args = vec!["export", "--format", "zola", "--out", "content/blog"];
        args.extend(extra);
        blogread_in(Some(&dir), &base, Some(key), &args)
    })
    .await
    .unwrap()
}

/// The lines of standard error that start with `error:`.
fn errors(o: &Output) -> Vec<String> {
    stderr(o)
        .lines()
        .filter(|l| l.starts_with("error:"))
        .map(str::to_owned)
        .collect()
}

#[tokio::test]
async fn export_of_a_post_dated_after_9999_fails_clearly_and_writes_nothing() {
    let stub = start_stub(|_, req| {
        if req.path() != "/blog/api/v1/public/changes" {
            return no_such_route(req);
        }
        let mut blog = detail("far-future");
        blog["published_at"] = json!("+10000-01-01T00:00:00Z");
        reply(
            200,
            json!({"changes": [{"change": "upsert", "blog": blog, "aliases": []}], "cursor": "c1", "has_more": false}),
        )
    })
    .await;
    let site = tempfile::tempdir().unwrap();
    let out = export_in(site.path(), &stub.base, "k", &[]).await;
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(!err.contains("panicked"), "{err}");
    assert_eq!(
        errors(&out),
        [
            "error: post `far-future`: published_at +10000-01-01T00:00:00Z is outside the years \
             0000 to 9999, the only ones RFC 3339 dates and Zola's and Hugo's TOML front matter \
             can hold; correct the post's date on the server, then export again; nothing was \
             written"
        ]
    );
    assert_eq!(names(site.path()), Vec::<String>::new(), "no folder made");
}

#[tokio::test]
async fn export_stops_at_the_answer_cap_naming_the_flag_and_writes_nothing() {
    // A feed answer that never ends, without a Content-Length.
    let stub = start_raw(|_| Raw::Endless {
        head: chunked_head(200),
        chunk: " ".repeat(64 * 1024),
    })
    .await;
    let site = tempfile::tempdir().unwrap();
    let out = export_in(site.path(), &stub.base, "k", &["--max-answer-mib", "2"]).await;
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let lines = errors(&out);
    assert_eq!(lines.len(), 1, "{}", stderr(&out));
    assert!(
        lines[0].contains("/blog/api/v1/public/changes is larger than 2 MiB")
            && lines[0].contains("--max-answer-mib")
            && lines[0].ends_with("nothing was written"),
        "{}",
        lines[0]
    );
    assert_eq!(names(site.path()), Vec::<String>::new());
}

#[tokio::test]
async fn export_of_a_feed_whose_has_more_never_ends_stops_at_the_page_cap() {
    let stub = start_stub(|i, _| {
        reply(
            200,
            json!({
                "changes": [{"change": "delete", "slug": format!("gone-{i}")}],
                "cursor": format!("c{i}"),
                "has_more": true
            }),
        )
    })
    .await;
    let site = tempfile::tempdir().unwrap();
    let out = export_in(site.path(), &stub.base, "k", &["--max-pages", "25"]).await;
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let lines = errors(&out);
    assert_eq!(lines.len(), 1, "{}", stderr(&out));
    assert!(
        lines[0].contains("stopped after 25 pages") && lines[0].contains("--max-pages"),
        "{}",
        lines[0]
    );
    assert_eq!(stub.count(), 25);
    assert_eq!(names(site.path()), Vec::<String>::new());

    let out = export_in(site.path(), &stub.base, "k", &["--max-entries", "40"]).await;
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).contains("--max-entries"), "{}", stderr(&out));
}

#[tokio::test]
async fn export_past_its_deadline_stops_naming_the_flag_and_writes_nothing() {
    let stub = start_raw(|_| Raw::Freeze).await;
    let site = tempfile::tempdir().unwrap();
    let out = export_in(site.path(), &stub.base, "k", &["--deadline", "1"]).await;
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert_eq!(
        errors(&out),
        [
            "error: the export did not finish reading from the server within its deadline of 1 s; \
             nothing was written. If the server is merely slow, give it longer (--deadline SECS, \
             or ExportOptions::deadline)"
        ]
    );
    assert_eq!(names(site.path()), Vec::<String>::new());
}

const KEY_A: &str = "pk_live_AAAAaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
const KEY_B: &str = "pk_live_BBBBbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb";

#[tokio::test]
async fn export_refuses_a_state_folder_written_for_another_projects_key_unless_full() {
    // Two projects on one server, their cursors bound to each (another's is 400).
    let mut a = support::feed::Site {
        epoch: "project-a".into(),
        ..Default::default()
    };
    for slug in ["a1", "a2", "a3"] {
        a.publish(slug, slug);
    }
    let mut b = support::feed::Site {
        epoch: "project-b".into(),
        ..Default::default()
    };
    b.publish("b1", "b1");
    let stub =
        start_stub(
            move |_, req| match req.headers.get("authorization").map(String::as_str) {
                Some(auth) if auth == format!("Bearer {KEY_A}") => a.serve(req),
                _ => b.serve(req),
            },
        )
        .await;
    let site = tempfile::tempdir().unwrap();
    let first = export_in(site.path(), &stub.base, KEY_A, &[]).await;
    assert!(first.status.success(), "{}", stderr(&first));
    let files = || names(&site.path().join("content/blog"));
    assert_eq!(files(), ["a1.md", "a2.md", "a3.md"]);

    let other = export_in(site.path(), &stub.base, KEY_B, &[]).await;
    assert_eq!(other.status.code(), Some(1), "{}", stderr(&other));
    let lines = errors(&other);
    assert_eq!(lines.len(), 1, "{}", stderr(&other));
    let state = site.path().join(".blogread");
    assert!(
        lines[0].starts_with(&format!(
            "error: the state folder {} is of another project's export: its manifest for this \
             output folder lists 3 files exported with the public key pk_live_AAAA…, and this \
             export's key is pk_live_BBBB…, whose project the server says is another",
            state.display()
        )) && lines[0].contains("--full"),
        "{}",
        lines[0]
    );
    assert!(
        !stderr(&other).contains("note: reading every"),
        "{}",
        stderr(&other)
    );
    assert_eq!(files(), ["a1.md", "a2.md", "a3.md"], "not one file removed");
    assert!(!stderr(&other).contains(KEY_B), "the key is never printed");

    let full = export_in(site.path(), &stub.base, KEY_B, &["--full"]).await;
    assert!(full.status.success(), "{}", stderr(&full));
    assert_eq!(files(), ["b1.md"]);
}

#[tokio::test]
async fn export_from_another_folder_names_the_state_folder_it_looked_for() {
    let stub = start_stub(|_, req| serve(&[3, 2, 1], req)).await;
    let site = tempfile::tempdir().unwrap();
    let first = export_in(site.path(), &stub.base, "k", &[]).await;
    assert!(first.status.success(), "{}", stderr(&first));
    let before = names(&site.path().join("content/blog"));

    // The same output folder from `content/`: the default state folder is content/.blogread.
    let content = site.path().join("content");
    let (base, dir) = (stub.base.clone(), content.clone());
    let out = tokio::task::spawn_blocking(move || {
        blogread_in(
            Some(&dir),
            &base,
            Some("k"),
            &["export", "--format", "zola", "--out", "blog"],
        )
    })
    .await
    .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let lines = errors(&out);
    assert_eq!(
        lines.len(),
        1,
        "one error, not one per post: {}",
        stderr(&out)
    );
    assert!(
        lines[0].starts_with(&format!(
            "error: blog holds 3 files an earlier blogread export wrote (blog-1.md, ...), but \
             the state folder {} has no manifest listing them",
            content.join(".blogread").display()
        )) && lines[0].contains("run the export from the site's root")
            && lines[0].contains("--state-dir"),
        "{}",
        lines[0]
    );
    assert!(!stderr(&out).contains("was not written by blogread"));
    assert!(!content.join(".blogread").exists(), "no stray state folder");
    assert_eq!(names(&site.path().join("content/blog")), before);
}

#[tokio::test]
async fn the_export_summary_names_the_state_folder_it_used() {
    let stub = start_stub(|_, req| serve(&[1], req)).await;
    let site = tempfile::tempdir().unwrap();
    let out = export_in(
        site.path(),
        &stub.base,
        "k",
        &["--state-dir", "build/../state"],
    )
    .await;
    assert!(out.status.success(), "{}", stderr(&out));
    let summary = stderr(&out)
        .lines()
        .find(|l| l.starts_with("exported 1 blogs"))
        .unwrap()
        .to_owned();
    assert!(
        summary.ends_with(&format!(
            "; state in {}",
            site.path().join("state").display()
        )),
        "{summary}"
    );
}

#[test]
fn help_names_the_limits_and_the_deadline_with_their_defaults() {
    let out = Command::new(env!("CARGO_BIN_EXE_blogread"))
        .args(["export", "--help"])
        .output()
        .unwrap();
    let help = String::from_utf8_lossy(&out.stdout);
    for needle in [
        "--max-answer-mib <MIB>",
        "[default: 64]",
        "--max-pages <N>",
        "[default: 100000]",
        "--max-entries <N>",
        "[default: 1000000]",
        "--deadline <SECS>",
        "[default: 1800]",
        "another project's key",
    ] {
        assert!(help.contains(needle), "{needle}: {help}");
    }
}

#[test]
fn a_site_root_that_is_no_path_or_is_given_to_plain_html_is_refused_before_anything_is_read() {
    let dir = tempfile::tempdir().unwrap();
    let out_dir = dir.path().join("out");
    let out_arg = out_dir.to_str().unwrap();
    // Nothing listens there: a refusal that reached the server would say so instead.
    for (args, said) in [
        (
            vec![
                "export",
                "--format",
                "zola",
                "--out",
                out_arg,
                "--site-root",
                "//evil.example/",
            ],
            "e.g. / or /my-blog/",
        ),
        (
            vec![
                "export",
                "--format",
                "hugo",
                "--out",
                out_arg,
                "--site-root",
                "blog",
            ],
            "does not start with `/`",
        ),
        (
            vec![
                "export",
                "--format",
                "html",
                "--out",
                out_arg,
                "--site-root",
                "/blog/",
            ],
            "plain HTML names its images relative to each page",
        ),
    ] {
        let out = blogread_in(
            Some(dir.path()),
            "http://127.0.0.1:9",
            Some("pk_live_x"),
            &args,
        );
        assert_ne!(out.status.code(), Some(0), "{args:?}");
        assert!(stderr(&out).contains(said), "{args:?}: {}", stderr(&out));
        assert!(!stderr(&out).contains("panicked"));
        assert!(!out_dir.exists(), "nothing is written");
    }
}
