//! Random writes for the contract cases that check a read path against another after any
//! sequence of writes (the changes feed, the fragment cache): publishes, re-syncs (new
//! titles, slugs, bodies with links), unpublishes, deletes, schedules and site URL changes,
//! over a few slugs that the bodies link to, so that links resolve, break and move.

use crate::domain::{BlogInput, ManagedBlog};
use crate::error::Error;
use crate::service::ProjectUpdate;
use crate::testing::Fixture;

/// A small deterministic generator (xorshift) for random sequences of test and benchmark
/// operations: the same seed gives the same rolls, so that a failure replays.
#[derive(Debug, Clone)]
pub struct Dice(pub u64);

impl Dice {
    /// A number below `n` (which must not be 0).
    pub fn roll(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
}

/// The categories the posts take (one each).
pub(crate) const CATEGORIES: [&str; 2] = ["News", "Tips"];

/// The slugs the posts take and their bodies link to.
pub(crate) const SLUGS: [&str; 8] = [
    "alpha", "beta", "gamma", "delta", "eps", "zeta", "eta", "theta",
];

fn body(dice: &mut Dice) -> String {
    let mut body = String::from("<p>Words here.");
    for _ in 0..dice.roll(3) {
        let slug = SLUGS[dice.roll(SLUGS.len())];
        body.push_str(&format!(
            " See [INTERNAL:{slug}] and <a href=\"[INTERNAL:{slug}]\">this</a>."
        ));
    }
    body.push_str("</p>");
    body
}

/// One random write; conflicts (a slug taken, a move not allowed from the status) are part
/// of the game and change nothing.
pub(crate) async fn random_write(f: &Fixture, dice: &mut Dice, posts: &mut Vec<ManagedBlog>) {
    f.clock.advance(1);
    let admin = &f.admin;
    let pick = |dice: &mut Dice, posts: &[ManagedBlog]| posts[dice.roll(posts.len())].clone();
    let result: crate::error::Result<()> = match dice.roll(12) {
        0..=2 if posts.len() < 6 => {
            let slug = SLUGS[dice.roll(SLUGS.len())];
            let created = f
                .service
                .create_blog(
                    admin,
                    f.project,
                    BlogInput {
                        title: Some(format!("Post {}", dice.roll(1000))),
                        slug: Some(slug.into()),
                        categories: Some(vec![CATEGORIES[dice.roll(2)].into()]),
                        content: Some(body(dice)),
                        ..Default::default()
                    },
                )
                .await;
            match created {
                Ok(blog) => {
                    let _ = f
                        .service
                        .publish_blog(admin, f.project, blog.id, None)
                        .await;
                    posts.push(blog);
                    Ok(())
                }
                Err(e) => Err(e),
            }
        }
        0..=5 if !posts.is_empty() => {
            // A re-sync with a new title, slug or body.
            let post = pick(dice, posts);
            let mut input = BlogInput::default();
            match dice.roll(4) {
                0 => input.title = Some(format!("Retitled {}", dice.roll(1000))),
                3 => input.categories = Some(vec![CATEGORIES[dice.roll(2)].into()]),
                1 => input.slug = Some(SLUGS[dice.roll(SLUGS.len())].into()),
                _ => input.content = Some(body(dice)),
            }
            match f.service.edit_blog(admin, f.project, post.id, input).await {
                Ok(_) => f
                    .service
                    .publish_blog(admin, f.project, post.id, None)
                    .await
                    .map(drop),
                Err(e) => Err(e),
            }
        }
        6 if !posts.is_empty() => {
            let post = pick(dice, posts);
            f.service
                .unpublish_blog(admin, f.project, post.id)
                .await
                .map(drop)
        }
        7 if posts.len() > 3 => {
            let post = pick(dice, posts);
            posts.retain(|p| p.id != post.id);
            f.service
                .delete_blog(admin, f.project, post.id)
                .await
                .map(drop)
        }
        8 if !posts.is_empty() => {
            // Scheduled a few seconds ahead: it goes live as the clock moves on.
            let post = pick(dice, posts);
            let at = crate::domain::Timestamp::from_unix_seconds(
                f.service.now().unix_seconds() + 1 + dice.roll(3) as i64,
            );
            f.service
                .publish_blog(admin, f.project, post.id, at)
                .await
                .map(drop)
        }
        9 => {
            let site = ["https://a.example", "https://b.example/sub"][dice.roll(2)];
            f.service
                .update_project(
                    &f.admin,
                    f.project,
                    ProjectUpdate {
                        name: None,
                        site_url: Some(Some(site.into())),
                    },
                )
                .await
                .map(drop)
        }
        _ if !posts.is_empty() => {
            // Back to published, from whatever status.
            let post = pick(dice, posts);
            f.service
                .publish_blog(admin, f.project, post.id, None)
                .await
                .map(drop)
        }
        _ => Ok(()),
    };
    match result {
        Ok(()) | Err(Error::Conflict(_) | Error::Invalid(_) | Error::NotFound(_)) => {}
        Err(other) => panic!("unexpected error: {other:?}"),
    }
}
