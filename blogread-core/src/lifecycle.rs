//! The blog lifecycle of DECISIONS.md section 2, as pure functions on a [`Blog`].
//!
//! Each move edits the blog in place and returns the visible-content event it is, if any:
//! `published`, `updated` (re-sync), `unpublished`; deletion of a published blog is
//! `deleted`. Draft edits return no event, so they never fire the deploy hook. Stores apply
//! these functions inside their write transaction (see [`crate::store::Store::update_blog`]).

use crate::domain::{
    Blog, BlogFields, BlogId, BlogPatch, BlogState, NewBlog, ProjectId, PublishedSnapshot,
    Timestamp, Trigger,
};
use crate::error::{Error, FieldError, Result};

/// Creates a new draft blog from validated input.
pub fn create(project: ProjectId, input: NewBlog, now: Timestamp) -> Result<Blog> {
    Ok(Blog {
        id: BlogId::generate(),
        project_id: project,
        working: BlogFields::new(input)?,
        state: BlogState::Draft,
        created_at: now,
        updated_at: now,
    })
}

/// Edits the working copy only; allowed from any status; never an event.
pub fn edit(blog: &mut Blog, patch: BlogPatch, now: Timestamp) -> Result<Option<Trigger>> {
    blog.working = blog.working.patched(patch)?;
    blog.updated_at = now;
    Ok(None)
}

/// Publishes (from draft or unpublished) or re-syncs (from published): the working copy
/// becomes the published snapshot; `updated_at` is now.
///
/// `published_at` is set on the first publish (from draft): to `requested` when given
/// (imports), else to now. After that it is kept: publishing again from unpublished, or a
/// re-sync, ignores `requested`, as DECISIONS.md section 2 and the API document say, so a
/// re-publish cannot move a blog in the public list. A `requested` time in the future is
/// invalid (422) from any status, used or not, until scheduled publishing exists.
pub fn publish(
    blog: &mut Blog,
    requested: Option<Timestamp>,
    now: Timestamp,
) -> Result<Option<Trigger>> {
    if requested.is_some_and(|t| t > now) {
        return Err(Error::Invalid(FieldError::new(
            "published_at",
            "must not be in the future (scheduled publishing is not supported)",
        )));
    }
    let (published_at, event) = match &blog.state {
        BlogState::Draft => (requested.unwrap_or(now), Trigger::Published),
        BlogState::Unpublished { published_at } => (*published_at, Trigger::Published),
        BlogState::Published(snapshot) => (snapshot.published_at, Trigger::Updated),
    };
    blog.state = BlogState::Published(Box::new(PublishedSnapshot {
        fields: blog.working.clone(),
        published_at,
        updated_at: now,
    }));
    blog.updated_at = now;
    Ok(Some(event))
}

/// Unpublishes a published blog; any other status is a conflict.
pub fn unpublish(blog: &mut Blog, now: Timestamp) -> Result<Option<Trigger>> {
    match &blog.state {
        BlogState::Published(snapshot) => {
            blog.state = BlogState::Unpublished {
                published_at: snapshot.published_at,
            };
            blog.updated_at = now;
            Ok(Some(Trigger::Unpublished))
        }
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
            NewBlog {
                title: "Hello".into(),
                slug: "hello".into(),
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
            BlogPatch {
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
            BlogPatch {
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
    fn publish_in_the_future_is_invalid_until_scheduling_exists() {
        let mut b = draft();
        let err = publish(
            &mut b,
            Some(t("2030-01-01T00:00:00Z")),
            t("2026-01-02T00:00:00Z"),
        )
        .unwrap_err();
        assert!(matches!(err, Error::Invalid(f) if f.field == "published_at"));
        assert_eq!(b.state.status(), BlogStatus::Draft);
    }

    #[test]
    fn future_published_at_is_invalid_even_when_it_would_be_ignored() {
        let mut b = draft();
        publish(&mut b, None, t("2026-01-02T00:00:00Z")).unwrap();
        let before = b.clone();
        let err = publish(
            &mut b,
            Some(t("2030-01-01T00:00:00Z")),
            t("2026-01-03T00:00:00Z"),
        )
        .unwrap_err();
        assert!(matches!(err, Error::Invalid(f) if f.field == "published_at"));
        assert_eq!(b, before, "a rejected re-sync changes nothing");

        unpublish(&mut b, t("2026-01-04T00:00:00Z")).unwrap();
        let err = publish(
            &mut b,
            Some(t("2030-01-01T00:00:00Z")),
            t("2026-01-05T00:00:00Z"),
        )
        .unwrap_err();
        assert!(matches!(err, Error::Invalid(f) if f.field == "published_at"));
        assert_eq!(b.state.status(), BlogStatus::Unpublished);
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
