//! `blogread-server demo`: a project with about 25 realistic posts (published ones that link to
//! each other with `[INTERNAL:slug]` placeholders, one link to a draft, one to an unpublished
//! post, a renamed post whose old slug redirects, categories, tags, featured images), and the
//! curl commands to try it, which answer as their comments say when pasted top to bottom.
//!
//! When the server keeps images, the demo stores three pictures made in code at start (the
//! repository holds no binary file) and uses them as the posts' featured images and in a body,
//! so that the public answers show `featured_image` and a printed line fetches one.
//!
//! A second `demo` on the same database reuses the demo project it finds there: its posts are
//! reset to the demo content and its public key kept, so the printed commands hold again.

use blogread_core::Service;
use blogread_core::auth::Caller;
use blogread_core::domain::{BlogId, BlogInput, ProjectId, Timestamp};
use blogread_core::error::NotFound;
use blogread_core::read::ListParams;
use blogread_core::service::{MediaUpload, MediaView, Uploaded};

/// The name of the demo project (how a later `demo` finds it again).
pub const DEMO_PROJECT_NAME: &str = "Demo blog";

/// The site URL of the demo project (internal links resolve under it).
pub const DEMO_SITE_URL: &str = "https://www.example.com";

/// What `demo` seeded.
#[derive(Debug, Clone)]
pub struct DemoProject {
    /// The project.
    pub project: ProjectId,
    /// Its public key.
    pub public_key: String,
    /// Slugs of the published posts, newest first.
    pub published: Vec<String>,
    /// A draft (404 on the public API).
    pub draft: (BlogId, String),
    /// An unpublished post (404 on the public API).
    pub unpublished: (BlogId, String),
    /// A published post that was renamed: its old slug and its current one (the old one is
    /// listed by `/blogs/redirects` and is 404 at `/blogs/{slug}`).
    pub renamed: (String, String),
    /// When the project was created, if this run reused a demo project already in the
    /// database (its posts reset to the demo content) rather than creating one.
    pub reused: Option<Timestamp>,
    /// The public URL of a stored image the posts use, when the server keeps images.
    pub image: Option<String>,
}

/// The demo's pictures, made in code: each one's seed (its colours) and alt text.
const IMAGES: [(u32, &str); 3] = [
    (
        11,
        "An orange and teal gradient, standing in for a photo of a harbour at dawn",
    ),
    (
        23,
        "A violet gradient, standing in for a photo of a team at a whiteboard",
    ),
    (
        37,
        "A green gradient, standing in for a screenshot of a build log",
    ),
];

/// Stores the demo's pictures in `project` (each answered as already there when a former
/// run stored it); none when the server keeps no images.
async fn seed_images(
    service: &Service,
    project: ProjectId,
) -> blogread_core::Result<Vec<MediaView>> {
    if service.media_setup().is_none() {
        return Ok(Vec::new());
    }
    let mut views = Vec::new();
    for (seed, alt) in IMAGES {
        let upload = MediaUpload {
            bytes: blogread_media::samples::jpeg(1200, 675, seed).into(),
            declared_type: Some("image/jpeg".into()),
            alt: Some(alt.into()),
        };
        match service
            .upload_media(&Caller::operator(), project, upload)
            .await?
        {
            Uploaded::Created(view) | Uploaded::Existing(view) => views.push(view),
        }
    }
    Ok(views)
}

struct Post {
    slug: &'static str,
    /// The slug the post was first published under, before a rename (slug history).
    old_slug: Option<&'static str>,
    title: &'static str,
    category: &'static str,
    tags: &'static [&'static str],
    excerpt: &'static str,
    lead: &'static str,
}

const POSTS: &[Post] = &[
    Post {
        slug: "why-we-moved-to-a-static-site",
        old_slug: None,
        title: "Why we moved to a static site",
        category: "Engineering",
        tags: &["static-sites", "performance"],
        excerpt: "Faster pages, fewer moving parts, and a build that runs in under a minute.",
        lead: "For three years our marketing site ran on a dynamic CMS with a database, a cache and a queue. Every page view touched all three.",
    },
    Post {
        slug: "choosing-a-static-site-generator",
        old_slug: None,
        title: "Choosing a static site generator",
        category: "Engineering",
        tags: &["static-sites", "tooling"],
        excerpt: "Build speed, templating and content sources compared.",
        lead: "We tried four generators on a copy of our real content before picking one, and the deciding factor was not the one we expected.",
    },
    Post {
        slug: "fetching-content-at-build-time",
        old_slug: None,
        title: "Fetching content at build time",
        category: "Engineering",
        tags: &["api", "builds"],
        excerpt: "One request per page of 100 posts, a key in the build environment, and nothing in the browser.",
        lead: "The site reads its posts from the blog API while it builds, so visitors never wait for an API call.",
    },
    Post {
        slug: "paging-through-hundreds-of-posts",
        old_slug: None,
        title: "Paging through hundreds of posts",
        category: "Engineering",
        tags: &["api", "pagination"],
        excerpt: "How limit, offset and total fit together.",
        lead: "The list endpoint returns at most 100 posts per request, along with the total, so a build knows how many pages to ask for.",
    },
    Post {
        slug: "generating-a-sitemap",
        old_slug: Some("sitemaps-from-the-api"),
        title: "Generating a sitemap from the API",
        category: "SEO",
        tags: &["seo", "sitemap"],
        excerpt: "Slugs and dates for every published post in one request.",
        lead: "Search engines find new posts sooner when the sitemap lists them with an accurate last-modified date.",
    },
    Post {
        slug: "writing-meta-descriptions",
        old_slug: None,
        title: "Writing meta descriptions that get clicks",
        category: "SEO",
        tags: &["seo", "writing"],
        excerpt: "Two sentences, one promise, no keyword stuffing.",
        lead: "A meta description does not change your ranking, but it decides whether the result gets the click.",
    },
    Post {
        slug: "internal-links-that-never-break",
        old_slug: None,
        title: "Internal links that never break",
        category: "Content",
        tags: &["links", "writing"],
        excerpt: "Link by slug and let the API write the URL.",
        lead: "Authors link to other posts with a placeholder instead of a URL, and the API turns it into a link when the site is built.",
    },
    Post {
        slug: "featured-images-done-right",
        old_slug: None,
        title: "Featured images done right",
        category: "Design",
        tags: &["images", "performance"],
        excerpt: "Sizes, formats and alt text for the image at the top of each post.",
        lead: "The featured image is the first thing a reader sees and often the heaviest thing on the page.",
    },
    Post {
        slug: "a-style-guide-for-headings",
        old_slug: None,
        title: "A style guide for headings",
        category: "Content",
        tags: &["writing", "accessibility"],
        excerpt: "Sentence case, one idea each, and never skip a level.",
        lead: "Readers skim headings before they decide to read a post, and screen reader users navigate by them.",
    },
    Post {
        slug: "deploy-hooks-explained",
        old_slug: None,
        title: "Deploy hooks explained",
        category: "Engineering",
        tags: &["builds", "deploy-hooks"],
        excerpt: "A POST that tells the hosting platform to rebuild the site.",
        lead: "When a post is published the service sends one request to the deploy hook URL, and the platform starts a new build.",
    },
    Post {
        slug: "keeping-api-keys-out-of-git",
        old_slug: None,
        title: "Keeping API keys out of git",
        category: "Security",
        tags: &["security", "api"],
        excerpt: "Build environment variables, and what to do when a key leaks anyway.",
        lead: "The public key is read-only, but it still belongs in the build environment rather than in the repository.",
    },
    Post {
        slug: "rotating-a-leaked-key",
        old_slug: None,
        title: "Rotating a leaked key in five minutes",
        category: "Security",
        tags: &["security", "operations"],
        excerpt: "Rotate, update the build variable, rebuild.",
        lead: "Rotation issues a new key and the old one stops working on the very next request.",
    },
    Post {
        slug: "caching-api-responses-with-etags",
        old_slug: None,
        title: "Caching API responses with ETags",
        category: "Engineering",
        tags: &["api", "performance", "caching"],
        excerpt: "Send If-None-Match and skip the download when nothing changed.",
        lead: "Every response carries an ETag, so an incremental build can ask whether anything changed and get a 304 when it did not.",
    },
    Post {
        slug: "categories-versus-tags",
        old_slug: None,
        title: "Categories versus tags",
        category: "Content",
        tags: &["taxonomy", "writing"],
        excerpt: "Few categories for navigation, many tags for discovery.",
        lead: "Categories answer where a post lives on the site; tags answer what it mentions.",
    },
    Post {
        slug: "measuring-reading-time",
        old_slug: None,
        title: "Measuring reading time from word count",
        category: "Design",
        tags: &["writing", "ux"],
        excerpt: "Words divided by 230, rounded up, shown next to the date.",
        lead: "The single-post response includes a word count, which is all a template needs to show an honest reading time.",
    },
    Post {
        slug: "accessible-images-and-alt-text",
        old_slug: None,
        title: "Accessible images and alt text",
        category: "Design",
        tags: &["accessibility", "images"],
        excerpt: "Describe the purpose of the image, not its pixels.",
        lead: "Good alt text says what the image is for in the context of the post.",
    },
    Post {
        slug: "a-content-calendar-that-works",
        old_slug: None,
        title: "A content calendar that works",
        category: "Content",
        tags: &["planning", "writing"],
        excerpt: "One post a week, planned a month ahead, reviewed every Friday.",
        lead: "Our calendar failed twice before we made it small enough to keep.",
    },
    Post {
        slug: "previewing-drafts-safely",
        old_slug: None,
        title: "Previewing drafts safely",
        category: "Engineering",
        tags: &["drafts", "workflow"],
        excerpt: "Drafts never reach the public API, so previews need their own path.",
        lead: "The public API only ever returns published posts, which keeps drafts out of production builds by construction.",
    },
    Post {
        slug: "unpublishing-without-broken-links",
        old_slug: None,
        title: "Unpublishing without broken links",
        category: "Content",
        tags: &["links", "workflow"],
        excerpt: "Links to a post that goes away are dropped, and the admin pages say so first.",
        lead: "When a post is unpublished, links to it from other posts are dropped at the next build: a link written around text keeps its text, a bare placeholder goes, and Unpublish asks first when any would.",
    },
    Post {
        slug: "monitoring-the-build-pipeline",
        old_slug: None,
        title: "Monitoring the build pipeline",
        category: "Operations",
        tags: &["operations", "builds"],
        excerpt: "What to alert on when every publish triggers a build.",
        lead: "With a deploy hook every publish starts a build, so a failing build is the first sign that something is off.",
    },
    Post {
        slug: "lessons-from-our-first-year",
        old_slug: None,
        title: "Lessons from our first year of publishing",
        category: "Company",
        tags: &["retrospective"],
        excerpt: "Fifty-two posts, three redesigns and one very long outage.",
        lead: "A year ago we published our first post on the new stack. Here is what we would do again and what we would not.",
    },
    Post {
        slug: "old-pricing-announcement",
        old_slug: None,
        title: "Our old pricing (unpublished)",
        category: "Company",
        tags: &["pricing"],
        excerpt: "Superseded by the current pricing page.",
        lead: "This announcement described plans that no longer exist, so it was taken down.",
    },
    Post {
        slug: "beta-program-recap",
        old_slug: None,
        title: "Beta program recap (unpublished)",
        category: "Company",
        tags: &["beta"],
        excerpt: "Taken down after the launch.",
        lead: "The beta ran for eight weeks with forty teams.",
    },
    Post {
        slug: "upcoming-redesign",
        old_slug: None,
        title: "Our upcoming redesign (draft)",
        category: "Design",
        tags: &["design"],
        excerpt: "A preview of the new look.",
        lead: "The new design is not finished yet; this draft is not visible through the public API.",
    },
    Post {
        slug: "roadmap-next-quarter",
        old_slug: None,
        title: "Roadmap for next quarter (draft)",
        category: "Company",
        tags: &["roadmap"],
        excerpt: "What we plan to ship.",
        lead: "This roadmap is still being written.",
    },
];

/// Index of the first unpublished and the first draft post in [`POSTS`].
const FIRST_UNPUBLISHED: usize = 21;
const FIRST_DRAFT: usize = 23;

/// The body of post `i`; the first one shows `image` (its 960 px copy) after its lead.
fn body(i: usize, image: Option<&MediaView>) -> String {
    let post = &POSTS[i];
    let next = &POSTS[(i + 1) % FIRST_UNPUBLISHED];
    let other = &POSTS[(i + 5) % FIRST_UNPUBLISHED];
    let mut html = format!(
        "<p>{lead}</p>\n<h2>What changed</h2>\n<p>We wrote about the groundwork in <a href=\"[INTERNAL:{next}]\">{next_title}</a>; this post builds on it. The short version: fewer moving parts and a build anyone on the team can run.</p>\n<ul>\n  <li>Start from what readers need.</li>\n  <li>Measure before and after.</li>\n  <li>Keep the content in one place.</li>\n</ul>\n<h3>Further reading</h3>\n<p>See also [INTERNAL:{other}] for a related topic.</p>\n",
        lead = post.lead,
        next = next.slug,
        next_title = next.title,
        other = other.slug,
    );
    if let Some(image) = image.filter(|_| i == 0) {
        let shown = image
            .variants
            .iter()
            .find(|v| v.variant.width == 960)
            .map_or(
                (image.url.as_str(), image.item.width, image.item.height),
                |v| (v.url.as_str(), v.variant.width, v.variant.height),
            );
        html.push_str(&format!(
            "<p><img src=\"{}\" alt=\"{}\" width=\"{}\" height=\"{}\"></p>\n",
            shown.0,
            blogread_markup::escape::escape(
                image.item.alt.as_str(),
                blogread_markup::escape::Escapes::TEXT_OR_ATTRIBUTE_VALUE
            ),
            shown.1,
            shown.2
        ));
    }
    if i == 2 {
        html.push_str(&format!(
            "<p>We will cover the new look in <a href=\"[INTERNAL:{}]\">our redesign post</a> once it is out.</p>\n",
            POSTS[FIRST_DRAFT].slug
        ));
    }
    if let Some(old) = POSTS.iter().find_map(|p| p.old_slug).filter(|_| i == 6) {
        html.push_str(&format!(
            "<p>Links written before a rename keep working: <a href=\"[INTERNAL:{old}]\">our sitemap post</a> changed its slug, and this link follows it.</p>\n"
        ));
    }
    if i == 3 {
        html.push_str(&format!(
            "<p>Pricing used to be explained in <a href=\"[INTERNAL:{}]\">an older announcement</a>.</p>\n",
            POSTS[FIRST_UNPUBLISHED].slug
        ));
    }
    html.push_str(
        "<blockquote><p>Publish when it is useful, not when it is perfect.</p></blockquote>\n",
    );
    html
}

/// Seeds a new demo project through `service`, acting as the operator.
pub async fn seed(service: &Service) -> blogread_core::Result<DemoProject> {
    let auth = &Caller::operator();
    let project = service
        .create_project(auth, DEMO_PROJECT_NAME.into(), Some(DEMO_SITE_URL.into()))
        .await?
        .id;
    let key = service.generate_public_key(auth, project).await?.key;
    seed_posts(service, project, key, None).await
}

/// The demo project of this database, ready to try: the oldest project named
/// [`DEMO_PROJECT_NAME`] with the demo site URL, its posts reset to the demo content (every
/// post it has deleted, the demo posts created again) and its public key kept (generated if
/// it has none); or, when there is none, a new one ([`seed`]).
pub async fn seed_or_reset(service: &Service) -> blogread_core::Result<DemoProject> {
    let auth = &Caller::operator();
    let existing = service.projects(auth).await?.into_iter().find(|p| {
        p.name.as_str() == DEMO_PROJECT_NAME
            && p.site_url.as_ref().map(|u| u.as_str()) == Some(DEMO_SITE_URL)
    });
    let Some(project) = existing else {
        return seed(service).await;
    };
    loop {
        let page = service
            .blogs(auth, project.id, None, ListParams::new().limit(100))
            .await?;
        if page.blogs.is_empty() {
            break;
        }
        for blog in page.blogs {
            service.delete_blog(auth, project.id, blog.id).await?;
        }
    }
    let key = match service.reveal_public_key(auth, project.id).await {
        Ok(shown) => shown.key,
        Err(blogread_core::Error::NotFound(NotFound::PublicKey)) => {
            service.generate_public_key(auth, project.id).await?.key
        }
        Err(other) => return Err(other),
    };
    seed_posts(service, project.id, key, Some(project.created_at)).await
}

async fn seed_posts(
    service: &Service,
    project: ProjectId,
    public_key: String,
    reused: Option<Timestamp>,
) -> blogread_core::Result<DemoProject> {
    let auth = &Caller::operator();
    let now = service.now().unix_seconds();
    let images = seed_images(service, project).await?;
    let mut published = Vec::new();
    let mut draft = None;
    let mut unpublished = None;
    let mut renamed = None;
    for (i, post) in POSTS.iter().enumerate() {
        let input = BlogInput {
            content: Some(body(i, images.first())),
            excerpt: Some(post.excerpt.into()),
            meta_title: (i % 3 == 0).then(|| format!("{} | Demo blog", post.title)),
            meta_description: (i % 2 == 0).then(|| post.excerpt.to_owned()),
            // Stored images where the server keeps them, and one hosted elsewhere (as an
            // imported post's may be), whose `featured_image` is null.
            featured_image_url: (i % 4 != 3)
                .then(|| match images.get(i % 5) {
                    Some(image) => image.url.clone(),
                    None => format!("https://images.example.com/demo/{}.jpg", post.slug),
                })
                .map(Some),
            categories: Some(vec![post.category.into()]),
            tags: Some(post.tags.iter().map(|t| (*t).to_owned()).collect()),
            ..BlogInput::new(post.title, post.old_slug.unwrap_or(post.slug))
        };
        let blog = service.create_blog(auth, project, input).await?;
        let id = blog.id;
        if i >= FIRST_DRAFT {
            draft.get_or_insert((id, post.slug.to_owned()));
            continue;
        }
        let days_ago = (i as i64) * 9 + 2;
        let published_at = Timestamp::from_unix_seconds(now - days_ago * 86_400 - 3_600);
        service
            .publish_blog(auth, project, id, published_at)
            .await?;
        if let Some(old) = post.old_slug {
            // Renamed after publication: the re-sync keeps the old slug as an alias.
            let rename = BlogInput {
                slug: Some(post.slug.to_owned()),
                ..BlogInput::default()
            };
            service.edit_blog(auth, project, id, rename).await?;
            service.publish_blog(auth, project, id, None).await?;
            renamed = Some((old.to_owned(), post.slug.to_owned()));
        }
        if i >= FIRST_UNPUBLISHED {
            service.unpublish_blog(auth, project, id).await?;
            unpublished.get_or_insert((id, post.slug.to_owned()));
        } else {
            published.push(post.slug.to_owned());
        }
    }
    Ok(DemoProject {
        project,
        public_key,
        published,
        draft: draft.expect("POSTS has drafts"),
        unpublished: unpublished.expect("POSTS has unpublished posts"),
        renamed: renamed.expect("POSTS has a renamed post"),
        reused,
        image: images.first().map(|image| image.url.clone()),
    })
}

/// Where the operator token `demo` prints comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OperatorTokenSource {
    /// Generated for this run (not stored anywhere: a later run generates another).
    Generated,
    /// Configured (`BLOGREAD_ADMIN_TOKEN` or `--admin-token-file`).
    Configured,
}

/// What `demo` prints: the credentials and curl commands that answer as their comments say
/// when pasted top to bottom (each comment ends with `(expect NNN)`, the status `curl -i`
/// shows). The ones that change the demo come last, each saying what it changes.
pub fn instructions(
    base: &str,
    demo: &DemoProject,
    operator_token: &str,
    token_source: OperatorTokenSource,
) -> String {
    let key = &demo.public_key;
    let public = format!("{base}/blog/api/v1/public");
    let projects = format!("{base}/api/v1/projects");
    let project = format!("{projects}/{}", demo.project);
    let first = &demo.published[0];
    let (draft_id, draft_slug) = &demo.draft;
    let unpublished_slug = &demo.unpublished.1;
    let (old_slug, new_slug) = &demo.renamed;
    let key_header = format!("-H 'Authorization: Bearer {key}'");
    let operator_header = format!("-H 'Authorization: Bearer {operator_token}'");
    let mut notes = String::new();
    if let Some(created) = demo.reused {
        notes.push_str(&format!(
            "\nThis database already held the demo project (created {created}): this run reused it\n\
             and reset its posts to the demo content. Its public key is the one it had (a key an\n\
             earlier run rotated stays rotated).\n"
        ));
    }
    if token_source == OperatorTokenSource::Generated {
        notes.push_str(
            "\nThe operator token is new for this run and stored nowhere: a token an earlier run\n\
             printed no longer works. Set BLOGREAD_ADMIN_TOKEN (32 characters or more) to keep one.\n",
        );
    }
    format!(
        "\
blogread demo
=============

Project id:     {project_id}
Public key:     {key}
Operator token: {operator_token}
{notes}
Admin pages:    {base}/admin/
  Sign in with the operator token above (the field labelled Token, then Sign in): the
  project's settings (Publishing, API Access, Deploy hook), its posts, admin tokens and
  agent keys.

Paste the commands below top to bottom: each answers as its comment says (`expect` is the
HTTP status, which -i shows first). The last four change the demo, as they say; a new
`blogread-server demo` on this database puts it back.

The public read API (docs/public-api.md):

  # newest 5 published posts, key in the header (expect 200)
  curl -si '{public}/blogs?limit=5' {key_header}

  # the key as a query parameter, one category, with content: links resolved (expect 200)
  curl -si '{public}/blogs?api_key={key}&category=engineering&include_content=true&limit=2'

  # one post by slug: content, updated_at, word_count, its featured image (expect 200)
  curl -si '{public}/blogs/{first}' {key_header}
{image_line}
  # the sitemap: slug and dates of every published post (expect 200)
  curl -si '{public}/blogs/sitemap' {key_header}

  # renamed posts, for redirects: {old_slug} -> {new_slug} (expect 200)
  curl -si '{public}/blogs/redirects' {key_header}

  # the old slug of a renamed post is 404, the detail naming the new one (expect 404)
  curl -si '{public}/blogs/{old_slug}' {key_header}

  # ETag round trip: keep the post's ETag, send it back, nothing changed (expect 304)
  ETAG=$(curl -s -o /dev/null -D - '{public}/blogs/{first}' {key_header} | grep -i '^etag:' | cut -d' ' -f2 | tr -d '\\r')
  curl -si '{public}/blogs/{first}' {key_header} -H \"If-None-Match: $ETAG\"

  # a draft is 404 (expect 404)
  curl -si '{public}/blogs/{draft_slug}' {key_header}

  # an unpublished post is 404 (expect 404)
  curl -si '{public}/blogs/{unpublished_slug}' {key_header}

  # a wrong key is 401 (expect 401)
  curl -si '{public}/blogs' -H 'Authorization: Bearer pk_live_wrong'

Management (docs/management-api.md), with the operator token:

  # the project (expect 200)
  curl -si '{project}' {operator_header}

  # every project, oldest first: for the operator only (expect 200)
  curl -si '{projects}' {operator_header}

  # the project's drafts (expect 200)
  curl -si '{project}/blogs?status=draft' {operator_header}

Changes to the demo (last, since they change what the lines above answer):

  # publish the draft {draft_slug}: it becomes public (expect 200)
  curl -si -X POST '{project}/blogs/{draft_id}/publish' {operator_header}

  # so the draft's line above now answers 200 (expect 200)
  curl -si '{public}/blogs/{draft_slug}' {key_header}

  # rotate the public key: the answer holds the new key; the old one stops working (expect 201)
  curl -si -X POST '{project}/public-key/rotate' {operator_header}

  # so every public line above, with the old key, now answers 401 (expect 401)
  curl -si '{public}/blogs?limit=5' {key_header}

API reference: {base}/docs (OpenAPI document: {base}/openapi.json)
",
        project_id = demo.project,
        image_line = demo.image.as_ref().map_or(String::new(), |url| format!(
            "\n  # an image of the posts, from the service storage, no key: its headers (expect 200)\n  \
             curl -sI '{url}'\n"
        )),
    )
}
