//! Benchmark data: ~8 KB posts with internal-link placeholders, and a seeder that fills a store
//! with projects of published blogs through the core's own lifecycle rules.

use blogread_core::Service;
use blogread_core::auth::Caller;
use blogread_core::domain::{BlogInput, ProjectId, Timestamp};
use blogread_core::error::Result;
use blogread_core::lifecycle;

/// Target size of a generated post body, in bytes.
pub const POST_BYTES: usize = 8 * 1024;

/// The site URL of seeded projects.
pub const SITE_URL: &str = "https://www.example.com";

/// One section of a typical post: headings, inline markup, a list, an image, entities and a
/// code block. `links` supplies the placeholders still to place (plain text once it runs out).
fn section(n: usize, links: &mut impl Iterator<Item = String>) -> String {
    let mut link = || {
        links
            .next()
            .unwrap_or_else(|| "our earlier write-up".to_owned())
    };
    let l1 = link();
    let l2 = link();
    let h1 = link();
    let h1 = if h1.starts_with("[INTERNAL:") {
        h1
    } else {
        "https://status.example.com/".to_owned()
    };
    format!(
        r#"<h2 id="section-{n}">Section {n}: shipping faster</h2>
<p>Teams that deploy often <strong>recover faster</strong> and <em>learn sooner</em>. In this
section we look at what changed after we moved to trunk-based development&nbsp;&mdash; see {l1}
for the background &amp; the numbers.</p>
<ul>
  <li>Smaller pull requests, reviewed within the hour ({l2})</li>
  <li>Feature flags instead of long-lived branches</li>
  <li><a href="{h1}" rel="noopener">Automated rollbacks</a> on error-budget burn</li>
</ul>
<figure><img src="/uploads/2026/chart-{n}.png" alt="Lead time per week, section {n}" width="800" height="420" loading="lazy"><figcaption>Lead time dropped by 40&nbsp;%.</figcaption></figure>
<pre><code class="language-yaml">deploy:
  strategy: canary
  steps: [10, 50, 100]
</code></pre>
<blockquote><p>&ldquo;Ship small, ship often.&rdquo; &ndash; our CTO</p></blockquote>
"#
    )
}

/// An ~8 KB post (at least [`POST_BYTES`]) with the given placeholders (`[INTERNAL:slug]` as
/// text, or as an `href`) spread over it; those that do not fit in the sections go into a
/// closing paragraph.
pub fn post(placeholders: &[String]) -> String {
    let mut links = placeholders.iter().cloned();
    let mut body = String::with_capacity(POST_BYTES + 1024);
    let mut n = 1;
    while body.len() < POST_BYTES {
        body.push_str(&section(n, &mut links));
        n += 1;
    }
    let rest: Vec<String> = links.collect();
    if !rest.is_empty() {
        body.push_str(&format!("<p>Further reading: {}.</p>\n", rest.join(", ")));
    }
    body
}

/// The size of the data set to seed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Spec {
    /// Projects, each with its own public key.
    pub projects: usize,
    /// Published blogs per project.
    pub blogs_per_project: usize,
    /// Placeholders per post: all but one name another published blog of the project; one
    /// names a slug that does not exist (its link is dropped).
    pub links_per_post: usize,
}

/// What the seeder made: the public key and project id of each project, and the slug of a
/// blog in the middle of the first project.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Seeded {
    /// The spec it was made from.
    pub spec: Spec,
    /// `pk_live_...` per project.
    pub keys: Vec<String>,
    /// Project ids.
    pub projects: Vec<String>,
    /// A published slug of the first project.
    pub sample_slug: String,
}

/// The category of every third blog (blog `i` with `i % 3 == 0`); the others are in "Ops".
pub const CATEGORY: &str = "Engineering";

/// How many of `blogs_per_project` blogs are in [`CATEGORY`].
pub fn in_category(blogs_per_project: usize) -> usize {
    blogs_per_project.div_ceil(3)
}

/// The slug of blog `i` of a project.
pub fn slug(i: usize) -> String {
    format!("post-{i:05}")
}

/// A small deterministic generator (no `rand` dependency in the data set: runs are repeatable).
fn next(state: &mut u64) -> u64 {
    *state = state
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    *state >> 33
}

/// Seeds `spec` through `service`: each project gets a site URL and a public key, then its
/// blogs are created and published (with import `published_at` times ten minutes apart) by
/// the core's lifecycle rules and inserted in one store write each. `progress` is called
/// after each project.
pub async fn seed(service: &Service, spec: Spec, progress: impl Fn(usize)) -> Result<Seeded> {
    let base = Timestamp::parse("2024-01-01T00:00:00Z").expect("valid");
    let now = Timestamp::now();
    let mut rng = 0x5eed_u64;
    let mut keys = Vec::new();
    let mut projects = Vec::new();
    for p in 0..spec.projects {
        let me = &Caller::operator();
        let project = service
            .create_project(me, format!("Bench project {p}"), Some(SITE_URL.to_owned()))
            .await?;
        let key = service.generate_public_key(me, project.id).await?;
        seed_blogs(service, project.id, spec, base, now, &mut rng).await?;
        keys.push(key.key);
        projects.push(project.id.to_string());
        progress(p + 1);
    }
    Ok(Seeded {
        spec,
        keys,
        projects,
        sample_slug: slug(spec.blogs_per_project / 2),
    })
}

/// Seeds one project of `blogs` published posts (five placeholders each, as [`seed`] does);
/// returns its public key and id.
pub async fn seed_project(service: &Service, blogs: usize) -> Result<(String, ProjectId)> {
    let seeded = seed(
        service,
        Spec {
            projects: 1,
            blogs_per_project: blogs,
            links_per_post: 5,
        },
        |_| {},
    )
    .await?;
    let project = seeded.projects[0]
        .parse()
        .expect("the seeder's own project id");
    Ok((seeded.keys[0].clone(), project))
}

async fn seed_blogs(
    service: &Service,
    project: ProjectId,
    spec: Spec,
    base: Timestamp,
    now: Timestamp,
    rng: &mut u64,
) -> Result<()> {
    let n = spec.blogs_per_project;
    for i in 0..n {
        let mut links: Vec<String> = (1..spec.links_per_post)
            .map(|_| format!("[INTERNAL:{}]", slug(next(rng) as usize % n)))
            .collect();
        if spec.links_per_post > 0 {
            links.push(format!("[INTERNAL:retired-{i}]"));
        }
        let input = BlogInput {
            content: Some(post(&links)),
            excerpt: Some(
                "Teams that deploy often recover faster and learn sooner. Here is what changed \
                 after we moved to trunk-based development."
                    .to_owned(),
            ),
            meta_title: Some(format!("Shipping faster, part {i}")),
            meta_description: Some(
                "Lead time, rollbacks and review times before and after trunk-based development."
                    .to_owned(),
            ),
            featured_image_url: Some(Some(format!("https://cdn.example.com/images/post-{i}.jpg"))),
            categories: Some(vec![if i % 3 == 0 { CATEGORY } else { "Ops" }.to_owned()]),
            tags: Some(vec!["delivery".to_owned(), format!("tag-{}", i % 20)]),
            ..BlogInput::new(
                format!("Post {i}: what we learned shipping faster"),
                slug(i),
            )
        };
        let mut blog = lifecycle::create(project, input, now)?;
        let published_at =
            Timestamp::from_unix_seconds(base.unix_seconds() + 600 * i as i64).expect("in range");
        lifecycle::publish(&mut blog, Some(published_at.min(now)), now)?;
        service.store().insert_blog(&blog).await?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use blogread_core::store::MemoryStore;

    use super::*;

    #[test]
    fn posts_are_about_8_kb_and_keep_every_placeholder() {
        let links: Vec<String> = (0..5).map(|i| format!("[INTERNAL:{}]", slug(i))).collect();
        let body = post(&links);
        assert!(
            (POST_BYTES..POST_BYTES + 2048).contains(&body.len()),
            "{}",
            body.len()
        );
        for l in &links {
            assert!(body.contains(l.as_str()), "{l}");
        }
    }

    #[tokio::test]
    async fn seeds_published_blogs_that_the_public_api_reads() {
        let service = Service::new(Arc::new(MemoryStore::new()));
        let spec = Spec {
            projects: 2,
            blogs_per_project: 20,
            links_per_post: 5,
        };
        let seeded = seed(&service, spec, |_| {}).await.unwrap();
        assert_eq!(seeded.keys.len(), 2);
        let creds = &Caller::public(&seeded.keys[0]);
        let list = service
            .list_blogs(creds, blogread_core::read::ListParams::new(), None)
            .await
            .unwrap()
            .into_value()
            .unwrap()
            .value();
        assert_eq!(list.total, 20);
        let blog = service
            .get_blog(creds, &seeded.sample_slug, None)
            .await
            .unwrap()
            .into_value()
            .unwrap()
            .value();
        assert!(blog.content.contains("https://www.example.com/blog/post-"));
        assert!(!blog.content.contains("[INTERNAL:"));
    }
}
