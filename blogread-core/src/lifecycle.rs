//! The blog lifecycle (draft, published, unpublished, scheduled, and the moves between them),
//! as pure functions on a [`Blog`].
//!
//! Each move edits the blog in place and returns the visible-content event it is, if any:
//! `published` (also at a scheduled go-live), `updated` (re-sync), `unpublished`; deletion of
//! a published blog is `deleted`. Draft edits, scheduling and unscheduling return no event,
//! so they never fire the deploy hook. Stores apply
//! these functions inside their write transaction (see [`crate::store::PostStore::update_blog`]).

use crate::domain::{
    Blog, BlogFields, BlogId, BlogInput, BlogState, ProjectId, PublishedSnapshot, Timestamp,
    Trigger,
};
use crate::error::{Error, Result};

/// Creates a new draft blog from validated input.
pub fn create(project: ProjectId, input: BlogInput, now: Timestamp) -> Result<Blog> {
    Ok(Blog {
        id: BlogId::generate(),
        project_id: project,
        working: BlogFields::new(input)?,
        state: BlogState::Draft,
        created_at: now,
        updated_at: now,
    })
}

/// Records the go-live of a blog whose scheduled time has come (see [`BlogState::is_due`]):
/// it becomes published with the snapshot it was scheduled with, and the event is
/// `published`. Any other blog is left as it is, with no event, so applying it twice (two
/// instances noticing the same go-live) fires once.
pub fn go_live(blog: &mut Blog, now: Timestamp) -> Result<Option<Trigger>> {
    if !blog.state.is_due(now) {
        return Ok(None);
    }
    let state = std::mem::replace(&mut blog.state, BlogState::Draft);
    if let BlogState::Scheduled(snapshot) = state {
        blog.state = BlogState::Published(snapshot);
    }
    Ok(Some(Trigger::Published))
}

/// Publishes (from draft, unpublished or scheduled), schedules (the same, with a
/// `requested` time after `now`), or re-syncs (from published): the working copy becomes the
/// published snapshot; `updated_at` is now.
///
/// `published_at` is set on the first publish (from draft): to `requested` when given
/// (imports), else to now. After that it is kept: publishing again from unpublished, or a
/// re-sync, ignores a past `requested`, so a re-publish cannot move a blog in the public
/// list. A `requested` time after `now` schedules instead: the snapshot is taken now, the
/// status becomes `scheduled` with `published_at` the go-live time, and nothing public
/// changes (no event). A re-sync of a published blog ignores `requested`, future or not.
/// A scheduled blog whose time has come is published (see [`go_live`]) before the move.
pub fn publish(
    blog: &mut Blog,
    requested: Option<Timestamp>,
    now: Timestamp,
) -> Result<Option<Trigger>> {
    let went_live = go_live(blog, now)?;
    let future = requested.filter(|t| *t > now);
    if let (Some(go_live_at), false) = (future, matches!(blog.state, BlogState::Published(_))) {
        blog.state = BlogState::Scheduled(Box::new(PublishedSnapshot {
            fields: blog.working.clone(),
            published_at: go_live_at,
            updated_at: go_live_at,
        }));
        blog.updated_at = now;
        return Ok(None);
    }
    let (published_at, event) = match &blog.state {
        BlogState::Draft | BlogState::Scheduled(_) => {
            (requested.unwrap_or(now), Trigger::Published)
        }
        BlogState::Unpublished { published_at } => (*published_at, Trigger::Published),
        BlogState::Published(snapshot) => (
            snapshot.published_at,
            // Published by this very call's go-live: the site has not rebuilt for it yet.
            if went_live.is_some() {
                Trigger::Published
            } else {
                Trigger::Updated
            },
        ),
    };
    blog.state = BlogState::Published(Box::new(PublishedSnapshot {
        fields: blog.working.clone(),
        published_at,
        updated_at: now,
    }));
    blog.updated_at = now;
    Ok(Some(event))
}

/// Returns a scheduled blog to draft, dropping the snapshot it was scheduled with; nothing
/// public changes. A blog whose go-live has come is published, and so a conflict, like any
/// other status.
pub fn unschedule(blog: &mut Blog, now: Timestamp) -> Result<Option<Trigger>> {
    match &blog.state {
        BlogState::Scheduled(s) if s.published_at > now => {
            blog.state = BlogState::Draft;
            blog.updated_at = now;
            Ok(None)
        }
        BlogState::Scheduled(s) => Err(Error::Conflict(format!(
            "this blog went live at {} and is published now; unpublish it instead",
            s.published_at
        ))),
        other => Err(Error::Conflict(format!(
            "only a scheduled blog can be unscheduled; this blog is {}",
            other.status()
        ))),
    }
}

/// Edits the working copy only; allowed from any status; never an event of its own (a
/// scheduled blog whose go-live has come is published first, which is one).
pub fn edit(blog: &mut Blog, patch: BlogInput, now: Timestamp) -> Result<Option<Trigger>> {
    let working = blog.working.patched(patch)?;
    let event = go_live(blog, now)?;
    blog.working = working;
    blog.updated_at = now;
    Ok(event)
}

/// Unpublishes a published blog (or a scheduled one whose go-live has come); any other status
/// is a conflict.
pub fn unpublish(blog: &mut Blog, now: Timestamp) -> Result<Option<Trigger>> {
    if blog.state.is_due(now) {
        go_live(blog, now)?;
    }
    match &blog.state {
        BlogState::Published(snapshot) => {
            blog.state = BlogState::Unpublished {
                published_at: snapshot.published_at,
            };
            blog.updated_at = now;
            Ok(Some(Trigger::Unpublished))
        }
        BlogState::Scheduled(_) => Err(Error::Conflict(
            "this blog is scheduled, not published: unschedule it instead".into(),
        )),
        other => Err(Error::Conflict(format!(
            "only a published blog can be unpublished; this blog is {}",
            other.status()
        ))),
    }
}

/// The event of deleting `blog`: `deleted` when it was published, none otherwise.
pub fn deletion_event(blog: &Blog) -> Option<Trigger> {
    matches!(blog.state, BlogState::Published(_)).then_some(Trigger::Deleted)
}

/// The slug a firing names: the published slug after the change, else the one the change took
/// down (`before`, the published slug before it), else the working slug.
pub(crate) fn firing_slug(before: Option<String>, after: &Blog) -> String {
    after
        .state
        .snapshot()
        .map(|s| s.fields.slug().to_string())
        .or(before)
        .unwrap_or_else(|| after.working.slug().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::BlogStatus;

    fn t(s: &str) -> Timestamp {
        Timestamp::parse(s).unwrap()
    }

    fn draft() -> Blog {
        create(
            ProjectId::generate(),
            BlogInput {
                title: Some("Hello".into()),
                slug: Some("hello".into()),
                content: Some("<p>v1</p>".into()),
                ..Default::default()
            },
            t("2026-01-01T00:00:00Z"),
        )
        .unwrap()
    }

    #[test]
    fn create_makes_a_draft_without_event() {
        let b = draft();
        assert_eq!(b.state.status(), BlogStatus::Draft);
        assert_eq!(b.state.published_at(), None);
    }

    #[test]
    fn publish_from_draft_sets_published_at_and_fires_published() {
        let mut b = draft();
        let ev = publish(&mut b, None, t("2026-01-02T00:00:00Z")).unwrap();
        assert_eq!(ev, Some(Trigger::Published));
        let s = b.state.snapshot().unwrap();
        assert_eq!(s.published_at, t("2026-01-02T00:00:00Z"));
        assert_eq!(s.updated_at, t("2026-01-02T00:00:00Z"));
        assert_eq!(s.fields.content(), "<p>v1</p>");
    }

    #[test]
    fn edit_changes_working_copy_only_and_fires_nothing() {
        let mut b = draft();
        publish(&mut b, None, t("2026-01-02T00:00:00Z")).unwrap();
        let ev = edit(
            &mut b,
            BlogInput {
                content: Some("<p>v2</p>".into()),
                ..Default::default()
            },
            t("2026-01-03T00:00:00Z"),
        )
        .unwrap();
        assert_eq!(ev, None);
        assert_eq!(b.working.content(), "<p>v2</p>");
        assert_eq!(b.state.snapshot().unwrap().fields.content(), "<p>v1</p>");
    }

    #[test]
    fn resync_replaces_snapshot_keeps_published_at_and_fires_updated() {
        let mut b = draft();
        publish(&mut b, None, t("2026-01-02T00:00:00Z")).unwrap();
        edit(
            &mut b,
            BlogInput {
                content: Some("<p>v2</p>".into()),
                ..Default::default()
            },
            t("2026-01-03T00:00:00Z"),
        )
        .unwrap();
        let ev = publish(&mut b, None, t("2026-01-04T00:00:00Z")).unwrap();
        assert_eq!(ev, Some(Trigger::Updated));
        let s = b.state.snapshot().unwrap();
        assert_eq!(s.published_at, t("2026-01-02T00:00:00Z"));
        assert_eq!(s.updated_at, t("2026-01-04T00:00:00Z"));
        assert_eq!(s.fields.content(), "<p>v2</p>");
    }

    #[test]
    fn unpublish_then_publish_keeps_first_published_at() {
        let mut b = draft();
        publish(&mut b, None, t("2026-01-02T00:00:00Z")).unwrap();
        assert_eq!(
            unpublish(&mut b, t("2026-01-03T00:00:00Z")).unwrap(),
            Some(Trigger::Unpublished)
        );
        assert_eq!(b.state.status(), BlogStatus::Unpublished);
        assert_eq!(
            publish(&mut b, None, t("2026-01-04T00:00:00Z")).unwrap(),
            Some(Trigger::Published)
        );
        assert_eq!(
            b.state.snapshot().unwrap().published_at,
            t("2026-01-02T00:00:00Z")
        );
    }

    #[test]
    fn unpublish_of_a_draft_is_a_conflict() {
        let mut b = draft();
        assert!(matches!(
            unpublish(&mut b, t("2026-01-02T00:00:00Z")),
            Err(Error::Conflict(_))
        ));
        assert_eq!(b.state.status(), BlogStatus::Draft);
    }

    #[test]
    fn publish_with_requested_time_imports_it() {
        let mut b = draft();
        publish(
            &mut b,
            Some(t("2020-05-05T05:05:05Z")),
            t("2026-01-02T00:00:00Z"),
        )
        .unwrap();
        assert_eq!(
            b.state.snapshot().unwrap().published_at,
            t("2020-05-05T05:05:05Z")
        );
    }

    #[test]
    fn requested_published_at_is_ignored_after_first_publish() {
        let mut b = draft();
        publish(&mut b, None, t("2026-01-02T00:00:00Z")).unwrap();
        let ev = publish(
            &mut b,
            Some(t("2020-05-05T05:05:05Z")),
            t("2026-01-03T00:00:00Z"),
        )
        .unwrap();
        assert_eq!(ev, Some(Trigger::Updated));
        let s = b.state.snapshot().unwrap();
        assert_eq!(
            s.published_at,
            t("2026-01-02T00:00:00Z"),
            "a re-sync keeps the first publication time"
        );
        assert_eq!(s.updated_at, t("2026-01-03T00:00:00Z"));

        unpublish(&mut b, t("2026-01-04T00:00:00Z")).unwrap();
        let ev = publish(
            &mut b,
            Some(t("2020-05-05T05:05:05Z")),
            t("2026-01-05T00:00:00Z"),
        )
        .unwrap();
        assert_eq!(ev, Some(Trigger::Published));
        assert_eq!(
            b.state.snapshot().unwrap().published_at,
            t("2026-01-02T00:00:00Z"),
            "publishing again after unpublishing keeps it too"
        );
    }

    #[test]
    fn publish_with_a_future_time_schedules_without_an_event() {
        let mut b = draft();
        let ev = publish(
            &mut b,
            Some(t("2026-02-01T00:00:00Z")),
            t("2026-01-02T00:00:00Z"),
        )
        .unwrap();
        assert_eq!(ev, None, "nothing public changes when a post is scheduled");
        assert_eq!(b.state.status(), BlogStatus::Scheduled);
        assert_eq!(b.state.snapshot(), None);
        let s = b.state.held_snapshot().unwrap();
        assert_eq!(s.published_at, t("2026-02-01T00:00:00Z"));
        assert_eq!(s.fields.content(), "<p>v1</p>", "the snapshot is taken now");
        assert!(!b.state.is_due(t("2026-01-31T23:59:59Z")));
        assert!(b.state.is_due(t("2026-02-01T00:00:00Z")));
    }

    #[test]
    fn edits_of_a_scheduled_post_change_the_working_copy_only() {
        let mut b = draft();
        publish(
            &mut b,
            Some(t("2026-02-01T00:00:00Z")),
            t("2026-01-02T00:00:00Z"),
        )
        .unwrap();
        let ev = edit(
            &mut b,
            BlogInput {
                content: Some("<p>v2</p>".into()),
                ..Default::default()
            },
            t("2026-01-03T00:00:00Z"),
        )
        .unwrap();
        assert_eq!(ev, None);
        assert_eq!(b.working.content(), "<p>v2</p>");
        assert_eq!(
            b.state.held_snapshot().unwrap().fields.content(),
            "<p>v1</p>"
        );
    }

    #[test]
    fn go_live_publishes_once_at_the_scheduled_time() {
        let mut b = draft();
        publish(
            &mut b,
            Some(t("2026-02-01T00:00:00Z")),
            t("2026-01-02T00:00:00Z"),
        )
        .unwrap();
        assert_eq!(go_live(&mut b, t("2026-01-31T00:00:00Z")).unwrap(), None);
        assert_eq!(b.state.status(), BlogStatus::Scheduled);
        assert_eq!(
            go_live(&mut b, t("2026-02-01T00:00:01Z")).unwrap(),
            Some(Trigger::Published)
        );
        let s = b.state.snapshot().unwrap();
        assert_eq!(s.published_at, t("2026-02-01T00:00:00Z"));
        assert_eq!(
            go_live(&mut b, t("2026-02-01T00:00:02Z")).unwrap(),
            None,
            "a second go-live of the same post is nothing"
        );
    }

    #[test]
    fn unschedule_returns_to_draft_and_only_from_scheduled() {
        let mut b = draft();
        assert!(matches!(
            unschedule(&mut b, t("2026-01-02T00:00:00Z")),
            Err(Error::Conflict(_))
        ));
        publish(
            &mut b,
            Some(t("2026-02-01T00:00:00Z")),
            t("2026-01-02T00:00:00Z"),
        )
        .unwrap();
        assert_eq!(unschedule(&mut b, t("2026-01-03T00:00:00Z")).unwrap(), None);
        assert_eq!(b.state, BlogState::Draft);

        publish(
            &mut b,
            Some(t("2026-02-01T00:00:00Z")),
            t("2026-01-04T00:00:00Z"),
        )
        .unwrap();
        let err = unschedule(&mut b, t("2026-02-01T00:00:00Z")).unwrap_err();
        assert!(
            matches!(&err, Error::Conflict(m) if m.contains("went live")),
            "{err:?}"
        );
    }

    #[test]
    fn publishing_a_scheduled_post_again_reschedules_or_publishes_now() {
        let mut b = draft();
        publish(
            &mut b,
            Some(t("2026-02-01T00:00:00Z")),
            t("2026-01-02T00:00:00Z"),
        )
        .unwrap();
        publish(
            &mut b,
            Some(t("2026-03-01T00:00:00Z")),
            t("2026-01-03T00:00:00Z"),
        )
        .unwrap();
        assert_eq!(b.state.published_at(), Some(t("2026-03-01T00:00:00Z")));
        assert_eq!(b.state.status(), BlogStatus::Scheduled);
        let ev = publish(&mut b, None, t("2026-01-04T00:00:00Z")).unwrap();
        assert_eq!(ev, Some(Trigger::Published));
        assert_eq!(
            b.state.snapshot().unwrap().published_at,
            t("2026-01-04T00:00:00Z")
        );
    }

    #[test]
    fn a_due_scheduled_post_is_published_before_any_other_move() {
        let mut b = draft();
        publish(
            &mut b,
            Some(t("2026-02-01T00:00:00Z")),
            t("2026-01-02T00:00:00Z"),
        )
        .unwrap();
        let after = t("2026-02-02T00:00:00Z");
        let mut edited = b.clone();
        assert_eq!(
            edit(&mut edited, BlogInput::default(), after).unwrap(),
            Some(Trigger::Published),
            "the go-live is the edit's event"
        );
        let mut unpublished = b.clone();
        assert_eq!(
            unpublish(&mut unpublished, after).unwrap(),
            Some(Trigger::Unpublished)
        );
        let mut resynced = b.clone();
        assert_eq!(
            publish(&mut resynced, Some(t("2027-01-01T00:00:00Z")), after).unwrap(),
            Some(Trigger::Published),
            "a re-sync in the go-live's own write is still the publication, and ignores a future time"
        );
        assert_eq!(resynced.state.status(), BlogStatus::Published);
        let mut early = b.clone();
        assert!(matches!(
            unpublish(&mut early, t("2026-01-03T00:00:00Z")),
            Err(Error::Conflict(m)) if m.contains("unschedule")
        ));
    }

    #[test]
    fn a_future_time_is_ignored_by_a_resync() {
        let mut b = draft();
        publish(&mut b, None, t("2026-01-02T00:00:00Z")).unwrap();
        let ev = publish(
            &mut b,
            Some(t("2030-01-01T00:00:00Z")),
            t("2026-01-03T00:00:00Z"),
        )
        .unwrap();
        assert_eq!(ev, Some(Trigger::Updated));
        assert_eq!(
            b.state.snapshot().unwrap().published_at,
            t("2026-01-02T00:00:00Z")
        );
    }

    #[test]
    fn delete_fires_only_when_published() {
        let mut b = draft();
        assert_eq!(deletion_event(&b), None);
        publish(&mut b, None, t("2026-01-02T00:00:00Z")).unwrap();
        assert_eq!(deletion_event(&b), Some(Trigger::Deleted));
        unpublish(&mut b, t("2026-01-03T00:00:00Z")).unwrap();
        assert_eq!(deletion_event(&b), None);
    }
}
