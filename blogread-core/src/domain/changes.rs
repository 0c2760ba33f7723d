//! The changes feed's shapes (`docs/public-api.md#changes-feed`): where a reader stands in a
//! project's change sequence (a [`ChangePosition`], carried by an opaque [`ChangeCursor`]),
//! and the page the feed answers ([`ChangeFeed`]).

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::ids::{BlogId, ProjectId};
use super::public::BlogDetail;

/// Where an entry stands in a project's feed: entries are ordered by the number of the write
/// that produced them, then deletes before upserts, then by slug (deletes) or id (upserts).
/// `End` stands after every entry of its change.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum ChangePosition {
    /// Before every entry: the initial sync starts here.
    Start,
    /// A delete of `slug` by change `change`.
    Delete {
        /// The change number.
        change: u64,
        /// The slug deleted.
        slug: String,
    },
    /// An upsert of blog `id`, whose answer was last changed by change `change`.
    Upsert {
        /// The change number.
        change: u64,
        /// The blog.
        id: BlogId,
    },
    /// After every entry of change `change`.
    End {
        /// The change number.
        change: u64,
    },
}

impl ChangePosition {
    /// The change number this position is in (0 for `Start`).
    pub fn change(&self) -> u64 {
        match self {
            ChangePosition::Start => 0,
            ChangePosition::Delete { change, .. }
            | ChangePosition::Upsert { change, .. }
            | ChangePosition::End { change } => *change,
        }
    }

    /// The order of positions: (change, rank, key), `Start` first.
    fn key(&self) -> (u64, u8, String) {
        match self {
            ChangePosition::Start => (0, 0, String::new()),
            ChangePosition::Delete { change, slug } => (*change, 1, slug.clone()),
            ChangePosition::Upsert { change, id } => (*change, 2, id.to_string()),
            ChangePosition::End { change } => (*change, 3, String::new()),
        }
    }

    /// Whether this position comes strictly after `other`.
    pub fn is_after(&self, other: &ChangePosition) -> bool {
        self.key() > other.key()
    }
}

/// Why a cursor was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CursorError {
    /// Not a cursor this server wrote.
    #[error(
        "`since` is not a cursor of this feed; pass the `cursor` of a previous answer, or omit `since` to sync from the start"
    )]
    Malformed,
    /// Written for another project (whatever the database).
    #[error(
        "`since` is a cursor of another project's feed: a key reads its own project's feed; omit `since` to sync this project from the start into a copy of its own, never into the other project's"
    )]
    OtherProject,
    /// Written by another database for this project: the database was restored from a
    /// backup, or replaced, since the cursor was given out.
    #[error(
        "`since` is a cursor of another database (this one was restored from a backup or replaced since the cursor was given out): omit `since` to sync from the start, and keep only what that sync returns"
    )]
    OtherDatabase,
    /// A cursor of the first form, which binds project and database together: written for
    /// another project, or by another database.
    #[error(
        "`since` is a cursor of another project or another database; omit `since` to sync from the start"
    )]
    Foreign,
}

/// The cursor a feed answer hands out: a [`ChangePosition`] bound to one project and one
/// database (its ETag epoch), written as an opaque URL-safe string. Every instance on the same
/// database accepts it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChangeCursor {
    position: ChangePosition,
}

/// The prefix of the cursor form this version writes: the project and the database bound
/// apart, so that a refusal can say which of the two differs.
const CURSOR_VERSION: &str = "c2";
/// The first form, still read: one binding of both.
const CURSOR_VERSION_1: &str = "c1";

/// A short digest of `parts` under `label`: what binds a cursor without naming what it binds.
fn digest(label: &[u8], parts: &[&[u8]]) -> String {
    let mut hash = Sha256::new().chain_update(label);
    for part in parts {
        hash.update(part);
        hash.update(b"\0");
    }
    hex::encode(&hash.finalize()[..8])
}

impl ChangeCursor {
    /// The cursor of `position`.
    pub fn new(position: ChangePosition) -> Self {
        Self { position }
    }

    /// Where it stands.
    pub fn position(&self) -> &ChangePosition {
        &self.position
    }

    /// What bound a first-form cursor to `project` in the database of `epoch`.
    fn binding_v1(epoch: &str, project: ProjectId) -> String {
        let digest = Sha256::new()
            .chain_update(b"blogread changes cursor\0")
            .chain_update(epoch.as_bytes())
            .chain_update(b"\0")
            .chain_update(project.to_string().as_bytes())
            .finalize();
        hex::encode(&digest[..8])
    }

    /// What binds a cursor to `project`.
    fn project_binding(project: ProjectId) -> String {
        digest(
            b"blogread changes cursor project\0",
            &[project.to_string().as_bytes()],
        )
    }

    /// What binds a cursor of `project` to the database of `epoch`.
    fn database_binding(epoch: &str, project: ProjectId) -> String {
        digest(
            b"blogread changes cursor database\0",
            &[epoch.as_bytes(), project.to_string().as_bytes()],
        )
    }

    /// The cursor's text for `project` in the database of `epoch`.
    pub fn encode(&self, epoch: &str, project: ProjectId) -> String {
        let binding = format!(
            "{}|{}",
            Self::project_binding(project),
            Self::database_binding(epoch, project)
        );
        let body = match &self.position {
            ChangePosition::Start => format!("{CURSOR_VERSION}|{binding}|0|s|"),
            ChangePosition::Delete { change, slug } => {
                format!("{CURSOR_VERSION}|{binding}|{change}|d|{slug}")
            }
            ChangePosition::Upsert { change, id } => {
                format!("{CURSOR_VERSION}|{binding}|{change}|u|{id}")
            }
            ChangePosition::End { change } => format!("{CURSOR_VERSION}|{binding}|{change}|e|"),
        };
        URL_SAFE_NO_PAD.encode(body)
    }

    /// Reads a cursor `encode` wrote for `project` in the database of `epoch` (or one of the
    /// first form).
    pub fn decode(text: &str, epoch: &str, project: ProjectId) -> Result<Self, CursorError> {
        // A cursor is short; a long `since` is not one (and is not decoded).
        if text.len() > 256 {
            return Err(CursorError::Malformed);
        }
        let bytes = URL_SAFE_NO_PAD
            .decode(text)
            .map_err(|_| CursorError::Malformed)?;
        let body = String::from_utf8(bytes).map_err(|_| CursorError::Malformed)?;
        let (version, rest) = body.split_once('|').ok_or(CursorError::Malformed)?;
        let (bound, rest) = match version {
            CURSOR_VERSION => {
                let mut parts = rest.splitn(3, '|');
                let (Some(of_project), Some(of_database), Some(rest)) =
                    (parts.next(), parts.next(), parts.next())
                else {
                    return Err(CursorError::Malformed);
                };
                let bound = if of_project != Self::project_binding(project) {
                    Err(CursorError::OtherProject)
                } else if of_database != Self::database_binding(epoch, project) {
                    Err(CursorError::OtherDatabase)
                } else {
                    Ok(())
                };
                (bound, rest)
            }
            CURSOR_VERSION_1 => {
                let (binding, rest) = rest.split_once('|').ok_or(CursorError::Malformed)?;
                let bound = if binding == Self::binding_v1(epoch, project) {
                    Ok(())
                } else {
                    Err(CursorError::Foreign)
                };
                (bound, rest)
            }
            _ => return Err(CursorError::Malformed),
        };
        let mut parts = rest.splitn(3, '|');
        let (Some(change), Some(kind), Some(key)) = (parts.next(), parts.next(), parts.next())
        else {
            return Err(CursorError::Malformed);
        };
        let change: u64 = change.parse().map_err(|_| CursorError::Malformed)?;
        if change > i64::MAX as u64 {
            return Err(CursorError::Malformed);
        }
        let position = match (kind, key) {
            ("s", "") if change == 0 => ChangePosition::Start,
            ("d", slug) if !slug.is_empty() => ChangePosition::Delete {
                change,
                slug: slug.to_owned(),
            },
            ("u", id) => ChangePosition::Upsert {
                change,
                id: id.parse().map_err(|_| CursorError::Malformed)?,
            },
            ("e", "") => ChangePosition::End { change },
            _ => return Err(CursorError::Malformed),
        };
        bound?;
        Ok(Self { position })
    }
}

/// One entry of the feed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "change", rename_all = "lowercase")]
pub enum ChangeEntry {
    /// A published post whose answer or aliases changed: its answer now.
    Upsert {
        /// Exactly what the single-blog endpoint returns for it now.
        blog: Box<BlogDetail>,
        /// Its old slugs (they resolve to it), newest rename first.
        aliases: Vec<String>,
    },
    /// A slug that was a published post's and is not now.
    Delete {
        /// The slug.
        slug: String,
    },
}

/// One page of the changes feed (`docs/public-api.md#changes-feed`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ChangeFeed {
    /// The entries, in the order to apply them.
    pub changes: Vec<ChangeEntry>,
    /// Where the next request starts (`since`).
    pub cursor: String,
    /// Whether to ask again at once.
    pub has_more: bool,
}

impl ChangeFeed {
    /// A page.
    pub fn new(changes: Vec<ChangeEntry>, cursor: String, has_more: bool) -> Self {
        Self {
            changes,
            cursor,
            has_more,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn project() -> ProjectId {
        "0190a4d2-0000-7000-8000-000000000001".parse().unwrap()
    }

    #[test]
    fn a_cursor_reads_back_as_the_position_it_was_written_from() {
        let id: BlogId = "0190a4d2-0000-7000-8000-0000000000aa".parse().unwrap();
        for position in [
            ChangePosition::Start,
            ChangePosition::Delete {
                change: 7,
                slug: "gone-post".into(),
            },
            ChangePosition::Upsert { change: 9, id },
            ChangePosition::End { change: 12 },
        ] {
            let text = ChangeCursor::new(position.clone()).encode("epoch", project());
            assert!(
                text.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_'),
                "{text}"
            );
            let back = ChangeCursor::decode(&text, "epoch", project()).unwrap();
            assert_eq!(back.position(), &position);
        }
    }

    #[test]
    fn a_cursor_of_another_project_or_database_is_refused_saying_which() {
        let text = ChangeCursor::new(ChangePosition::End { change: 3 }).encode("epoch", project());
        assert_eq!(
            ChangeCursor::decode(&text, "other-epoch", project()),
            Err(CursorError::OtherDatabase)
        );
        let other: ProjectId = "0190a4d2-0000-7000-8000-000000000002".parse().unwrap();
        assert_eq!(
            ChangeCursor::decode(&text, "epoch", other),
            Err(CursorError::OtherProject)
        );
        assert_eq!(
            ChangeCursor::decode(&text, "other-epoch", other),
            Err(CursorError::OtherProject),
            "another project's, whatever the database"
        );
        assert!(
            CursorError::OtherDatabase
                .to_string()
                .contains("another database")
        );
        assert!(
            CursorError::OtherProject
                .to_string()
                .contains("another project")
        );
        for junk in ["", "x", "%%%", &"a".repeat(300), "YzF8eHw"] {
            assert_eq!(
                ChangeCursor::decode(junk, "epoch", project()),
                Err(CursorError::Malformed),
                "{junk}"
            );
        }
    }

    /// A cursor of the first form, as a version before this one wrote it.
    fn first_form(epoch: &str, project: ProjectId, rest: &str) -> String {
        let binding = ChangeCursor::binding_v1(epoch, project);
        URL_SAFE_NO_PAD.encode(format!("c1|{binding}|{rest}"))
    }

    #[test]
    fn a_cursor_of_the_first_form_is_still_read_and_refused_as_foreign() {
        let text = first_form("epoch", project(), "12|e|");
        let back = ChangeCursor::decode(&text, "epoch", project()).unwrap();
        assert_eq!(back.position(), &ChangePosition::End { change: 12 });
        assert_eq!(
            ChangeCursor::decode(&text, "other-epoch", project()),
            Err(CursorError::Foreign)
        );
    }

    #[test]
    fn positions_order_by_change_then_deletes_then_upserts() {
        let id: BlogId = "0190a4d2-0000-7000-8000-0000000000aa".parse().unwrap();
        let order = [
            ChangePosition::Start,
            ChangePosition::End { change: 0 },
            ChangePosition::Delete {
                change: 1,
                slug: "a".into(),
            },
            ChangePosition::Delete {
                change: 1,
                slug: "b".into(),
            },
            ChangePosition::Upsert { change: 1, id },
            ChangePosition::End { change: 1 },
            ChangePosition::Delete {
                change: 2,
                slug: "a".into(),
            },
        ];
        for pair in order.windows(2) {
            assert!(pair[1].is_after(&pair[0]), "{pair:?}");
        }
    }
}
