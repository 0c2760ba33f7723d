//! `blogread-server demo`: a project with about 25 realistic posts (published ones that link to
//! each other with `[INTERNAL:slug]` placeholders, one link to a draft, one to an unpublished
//! post, categories, tags, featured images), and the curl commands to try it.

use blogread_core::Service;
use blogread_core::auth::Caller;
use blogread_core::domain::{BlogId, NewBlog, ProjectId, Timestamp};

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
}

struct Post {
    slug: &'static str,
    title: &'static str,
    category: &'static str,
    tags: &'static [&'static str],
    excerpt: &'static str,
    lead: &'static str,
}

const POSTS: &[Post] = &[
    Post {
        slug: "why-we-moved-to-a-static-site",
        title: "Why we moved to a static site",
        category: "Engineering",
        tags: &["static-sites", "performance"],
        excerpt: "Faster pages, fewer moving parts, and a build that runs in under a minute.",
        lead: "For three years our marketing site ran on a dynamic CMS with a database, a cache and a queue. Every page view touched all three.",
    },
    Post {
        slug: "choosing-a-static-site-generator",
        title: "Choosing a static site generator",
        category: "Engineering",
        tags: &["static-sites", "tooling"],
        excerpt: "Build speed, templating and content sources compared.",
        lead: "We tried four generators on a copy of our real content before picking one, and the deciding factor was not the one we expected.",
    },
    Post {
        slug: "fetching-content-at-build-time",
        title: "Fetching content at build time",
        category: "Engineering",
        tags: &["api", "builds"],
        excerpt: "One request per page of 100 posts, a key in the build environment, and nothing in the browser.",
        lead: "The site reads its posts from the blog API while it builds, so visitors never wait for an API call.",
    },
    Post {
        slug: "paging-through-hundreds-of-posts",
        title: "Paging through hundreds of posts",
        category: "Engineering",
        tags: &["api", "pagination"],
        excerpt: "How limit, offset and total fit together.",
        lead: "The list endpoint returns at most 100 posts per request, along with the total, so a build knows how many pages to ask for.",
    },
    Post {
        slug: "generating-a-sitemap",
        title: "Generating a sitemap from the API",
        category: "SEO",
        tags: &["seo", "sitemap"],
        excerpt: "Slugs and dates for every published post in one request.",
        lead: "Search engines find new posts sooner when the sitemap lists them with an accurate last-modified date.",
    },
    Post {
        slug: "writing-meta-descriptions",
        title: "Writing meta descriptions that get clicks",
        category: "SEO",
        tags: &["seo", "writing"],
        excerpt: "Two sentences, one promise, no keyword stuffing.",
        lead: "A meta description does not change your ranking, but it decides whether the result gets the click.",
    },
    Post {
        slug: "internal-links-that-never-break",
        title: "Internal links that never break",
        category: "Content",
        tags: &["links", "writing"],
        excerpt: "Link by slug and let the API write the URL.",
        lead: "Authors link to other posts with a placeholder instead of a URL, and the API turns it into a link when the site is built.",
    },
    Post {
        slug: "featured-images-done-right",
        title: "Featured images done right",
        category: "Design",
        tags: &["images", "performance"],
        excerpt: "Sizes, formats and alt text for the image at the top of each post.",
        lead: "The featured image is the first thing a reader sees and often the heaviest thing on the page.",
    },
    Post {
        slug: "a-style-guide-for-headings",
        title: "A style guide for headings",
        category: "Content",
        tags: &["writing", "accessibility"],
        excerpt: "Sentence case, one idea each, and never skip a level.",
        lead: "Readers skim headings before they decide to read a post, and screen reader users navigate by them.",
    },
    Post {
        slug: "deploy-hooks-explained",
        title: "Deploy hooks explained",
        category: "Engineering",
        tags: &["builds", "deploy-hooks"],
        excerpt: "A POST that tells the hosting platform to rebuild the site.",
        lead: "When a post is published the service sends one request to the deploy hook URL, and the platform starts a new build.",
    },
    Post {
        slug: "keeping-api-keys-out-of-git",
        title: "Keeping API keys out of git",
        category: "Security",
        tags: &["security", "api"],
        excerpt: "Build environment variables, and what to do when a key leaks anyway.",
        lead: "The public key is read-only, but it still belongs in the build environment rather than in the repository.",
    },
    Post {
        slug: "rotating-a-leaked-key",
        title: "Rotating a leaked key in five minutes",
        category: "Security",
        tags: &["security", "operations"],
        excerpt: "Rotate, update the build variable, rebuild.",
        lead: "Rotation issues a new key and the old one stops working on the very next request.",
    },
    Post {
        slug: "caching-api-responses-with-etags",
        title: "Caching API responses with ETags",
        category: "Engineering",
        tags: &["api", "performance", "caching"],
        excerpt: "Send If-None-Match and skip the download when nothing changed.",
        lead: "Every response carries an ETag, so an incremental build can ask whether anything changed and get a 304 when it did not.",
    },
    Post {
        slug: "categories-versus-tags",
        title: "Categories versus tags",
        category: "Content",
        tags: &["taxonomy", "writing"],
        excerpt: "Few categories for navigation, many tags for discovery.",
        lead: "Categories answer where a post lives on the site; tags answer what it mentions.",
    },
    Post {
        slug: "measuring-reading-time",
        title: "Measuring reading time from word count",
        category: "Design",
        tags: &["writing", "ux"],
        excerpt: "Words divided by 230, rounded up, shown next to the date.",
        lead: "The single-post response includes a word count, which is all a template needs to show an honest reading time.",
    },
    Post {
        slug: "accessible-images-and-alt-text",
        title: "Accessible images and alt text",
        category: "Design",
        tags: &["accessibility", "images"],
        excerpt: "Describe the purpose of the image, not its pixels.",
        lead: "Good alt text says what the image is for in the context of the post.",
    },
    Post {
        slug: "a-content-calendar-that-works",
        title: "A content calendar that works",
        category: "Content",
        tags: &["planning", "writing"],
        excerpt: "One post a week, planned a month ahead, reviewed every Friday.",
        lead: "Our calendar failed twice before we made it small enough to keep.",
    },
    Post {
        slug: "previewing-drafts-safely",
        title: "Previewing drafts safely",
        category: "Engineering",
        tags: &["drafts", "workflow"],
        excerpt: "Drafts never reach the public API, so previews need their own path.",
        lead: "The public API only ever returns published posts, which keeps drafts out of production builds by construction.",
    },
    Post {
        slug: "unpublishing-without-broken-links",
        title: "Unpublishing without broken links",
        category: "Content",
        tags: &["links", "workflow"],
        excerpt: "Links to a post that goes away turn back into plain text.",
        lead: "When a post is unpublished, links to it from other posts are dropped at the next build, and their text stays.",
    },
    Post {
        slug: "monitoring-the-build-pipeline",
        title: "Monitoring the build pipeline",
        category: "Operations",
        tags: &["operations", "builds"],
        excerpt: "What to alert on when every publish triggers a build.",
        lead: "With a deploy hook every publish starts a build, so a failing build is the first sign that something is off.",
    },
    Post {
        slug: "lessons-from-our-first-year",
        title: "Lessons from our first year of publishing",
        category: "Company",
        tags: &["retrospective"],
        excerpt: "Fifty-two posts, three redesigns and one very long outage.",
        lead: "A year ago we published our first post on the new stack. Here is what we would do again and what we would not.",
    },
    Post {
        slug: "old-pricing-announcement",
        title: "Our old pricing (unpublished)",
        category: "Company",
        tags: &["pricing"],
        excerpt: "Superseded by the current pricing page.",
        lead: "This announcement described plans that no longer exist, so it was taken down.",
    },
    Post {
        slug: "beta-program-recap",
        title: "Beta program recap (unpublished)",
        category: "Company",
        tags: &["beta"],
        excerpt: "Taken down after the launch.",
        lead: "The beta ran for eight weeks with forty teams.",
    },
    Post {
        slug: "upcoming-redesign",
        title: "Our upcoming redesign (draft)",
        category: "Design",
        tags: &["design"],
        excerpt: "A preview of the new look.",
        lead: "The new design is not finished yet; this draft is not visible through the public API.",
    },
    Post {
        slug: "roadmap-next-quarter",
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

fn body(i: usize) -> String {
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
    if i == 2 {
        html.push_str(&format!(
            "<p>We will cover the new look in <a href=\"[INTERNAL:{}]\">our redesign post</a> once it is out.</p>\n",
            POSTS[FIRST_DRAFT].slug
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

/// Seeds the demo project through `service`, acting as the operator.
pub async fn seed(service: &Service) -> blogread_core::Result<DemoProject> {
    let auth = &Caller::operator();
    let project = service
        .create_project(auth, "Demo blog".into(), Some(DEMO_SITE_URL.into()))
        .await?
        .id;
    let key = service.generate_public_key(auth, project).await?.key;
    let now = service.now().unix_seconds();
    let mut published = Vec::new();
    let mut draft = None;
    let mut unpublished = None;
    for (i, post) in POSTS.iter().enumerate() {
        let input = NewBlog {
            title: post.title.into(),
            slug: post.slug.into(),
            content: Some(body(i)),
            excerpt: Some(post.excerpt.into()),
            meta_title: (i % 3 == 0).then(|| format!("{} | Demo blog", post.title)),
            meta_description: (i % 2 == 0).then(|| post.excerpt.to_owned()),
            featured_image_url: (i % 4 != 3)
                .then(|| format!("https://images.example.com/demo/{}.jpg", post.slug)),
            categories: Some(vec![post.category.into()]),
            tags: Some(post.tags.iter().map(|t| (*t).to_owned()).collect()),
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
        if i >= FIRST_UNPUBLISHED {
            service.unpublish_blog(auth, project, id).await?;
            unpublished.get_or_insert((id, post.slug.to_owned()));
        } else {
            published.push(post.slug.to_owned());
        }
    }
    Ok(DemoProject {
        project,
        public_key: key,
        published,
        draft: draft.expect("POSTS has drafts"),
        unpublished: unpublished.expect("POSTS has unpublished posts"),
    })
}

/// What `demo` prints: the key, the operator token and curl commands that work as printed.
pub fn instructions(base: &str, demo: &DemoProject, operator_token: &str) -> String {
    let key = &demo.public_key;
    let public = format!("{base}/blog/api/v1/public");
    let project = format!("{base}/api/v1/projects/{}", demo.project);
    let first = &demo.published[0];
    let (draft_id, draft_slug) = &demo.draft;
    let unpublished_slug = &demo.unpublished.1;
    format!(
        "\
blogread demo
=============

Project id:     {project_id}
Public key:     {key}
Operator token: {operator_token}

Admin pages:    {base}/admin/
  Sign in with the operator token above (the field labelled Token, then Sign in): the
  project's settings (Publishing, API Access, Deploy hook), its posts, admin tokens and
  agent keys.

The public read API (docs/public-api.md):

  # newest 5 published posts, key in the header
  curl -s '{public}/blogs?limit=5' -H 'Authorization: Bearer {key}'

  # the key as a query parameter, one category, with content (links resolved)
  curl -s '{public}/blogs?api_key={key}&category=engineering&include_content=true&limit=2'

  # one post by slug: content, updated_at, word_count
  curl -s '{public}/blogs/{first}' -H 'Authorization: Bearer {key}'

  # the sitemap (the path is never taken for a slug)
  curl -s '{public}/blogs/sitemap' -H 'Authorization: Bearer {key}'

  # ETag round trip: copy the ETag header, send it back, get 304
  curl -si '{public}/blogs/{first}' -H 'Authorization: Bearer {key}' | grep -i etag
  curl -si '{public}/blogs/{first}' -H 'Authorization: Bearer {key}' -H 'If-None-Match: PASTE-ETAG-HERE'

  # a draft and an unpublished post are 404; a wrong key is 401
  curl -s '{public}/blogs/{draft_slug}' -H 'Authorization: Bearer {key}'
  curl -s '{public}/blogs/{unpublished_slug}' -H 'Authorization: Bearer {key}'
  curl -s '{public}/blogs' -H 'Authorization: Bearer pk_live_wrong'

Management (Authorization: Bearer <operator token>):

  curl -s '{project}' -H 'Authorization: Bearer {operator_token}'
  curl -s '{project}/blogs?status=draft' -H 'Authorization: Bearer {operator_token}'
  curl -s -X POST '{project}/blogs/{draft_id}/publish' -H 'Authorization: Bearer {operator_token}'
  curl -s -X POST '{project}/public-key/rotate' -H 'Authorization: Bearer {operator_token}'

API reference: {base}/docs (OpenAPI document: {base}/openapi.json)
",
        project_id = demo.project,
    )
}
