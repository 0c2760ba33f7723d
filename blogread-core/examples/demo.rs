//! Seeds an in-memory store with a few linked posts and prints what the public API returns.
//!
//! `cargo run -p blogread-core --example demo`

use std::sync::Arc;

use blogread_core::Service;
use blogread_core::auth::Caller;
use blogread_core::domain::BlogInput;
use blogread_core::read::RawListParams;
use blogread_core::store::MemoryStore;

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let service = Service::new(Arc::new(MemoryStore::new()));
    // This program owns its store: it acts as the operator, with no token to present.
    let auth = &Caller::operator();

    let project = service
        .create_project(
            auth,
            "Demo blog".into(),
            Some("https://blog.example".into()),
        )
        .await?;
    let key = service.generate_public_key(auth, project.id).await?.key;

    let posts = [
        (
            "getting-started",
            "Getting started",
            r#"<h2>Welcome</h2><p>Start here, then read <a href="[INTERNAL:deep-dive]">the deep dive</a>.</p>"#,
            true,
        ),
        (
            "deep-dive",
            "A deep dive",
            "<p>Back to [INTERNAL:getting-started]. The <a href=\"[INTERNAL:secret-draft]\">draft</a> is not out yet.</p>",
            true,
        ),
        ("secret-draft", "Secret draft", "<p>Not yet.</p>", false),
    ];
    for (slug, title, content, publish) in posts {
        let blog = service
            .create_blog(
                auth,
                project.id,
                BlogInput {
                    title: Some(title.into()),
                    slug: Some(slug.into()),
                    content: Some(content.into()),
                    categories: Some(vec!["Guides".into()]),
                    ..Default::default()
                },
            )
            .await?;
        if publish {
            service
                .publish_blog(auth, project.id, blog.id, None)
                .await?;
        }
    }

    let creds = &Caller::public(&key);
    let list = service
        .list_blogs(
            creds,
            RawListParams {
                include_content: Some("true".to_owned()),
                ..Default::default()
            },
            None,
        )
        .await?;
    println!("GET /blog/api/v1/public/blogs?include_content=true");
    println!(
        "{}",
        serde_json::to_string_pretty(&list.into_value().map(|a| a.value()))?
    );
    let one = service.get_blog(creds, "deep-dive", None).await?;
    println!("\nGET /blog/api/v1/public/blogs/deep-dive");
    println!(
        "{}",
        serde_json::to_string_pretty(&one.into_value().map(|a| a.value()))?
    );
    Ok(())
}
