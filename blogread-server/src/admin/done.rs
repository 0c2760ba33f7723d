//! What an action did, as the page it redirects to says it (POST, redirect, GET).
//!
//! Every action that changes something answers `303 See Other` to a page (`GET`) whose URL
//! carries a fixed code, `?done=resynced`; the page maps the code to a fixed message written
//! here ([`Done::message`]), so no text of the URL is ever shown, and a code that is not one of
//! these shows nothing. The page may add what it reads from the state it shows (the links of
//! a published post that will not resolve, the go-live time of a scheduled one), never from
//! the URL. A reload of that page repeats the `GET` only: nothing is done again. A code in the
//! URL, rather than a message kept on the server, shows the same on every server instance.
//!
//! What must not be in a URL nor shown twice (a new agent key or admin token, a revealed key,
//! a hook test's outcome) is kept for one `GET` by the session's flash (`flash.rs`).

use poem::Response;

use super::http::see_other;

/// What an action did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Done {
    /// `Sign in`.
    SignedIn,
    /// `Sign out`.
    SignedOut,
    /// `Create` (a project).
    ProjectCreated,
    /// `Save settings`.
    SettingsSaved,
    /// API Access `Reveal`.
    KeyRevealed,
    /// `Generate API Key`.
    KeyGenerated,
    /// `Rotate Key`, confirmed.
    KeyRotated,
    /// API Access `Revoke`, confirmed.
    KeyRevoked,
    /// Deploy hook `Reveal`.
    HookRevealed,
    /// Deploy hook `Save`.
    HookSaved,
    /// Deploy hook `Test`.
    HookTested,
    /// Deploy hook `Remove`, confirmed.
    HookRemoved,
    /// `Create agent key`.
    AgentKeyCreated,
    /// An agent key's `Delete`, confirmed.
    AgentKeyDeleted,
    /// `Create admin token`.
    AdminTokenCreated,
    /// An admin token's `Revoke`, confirmed.
    AdminTokenRevoked,
    /// `Create draft`.
    DraftCreated,
    /// The editor's `Save`.
    Saved,
    /// The editor's `Insert into body` of a stored image.
    ImageInserted,
    /// `Publish` (or `Schedule` for a time already passed).
    Published,
    /// `Re-sync`.
    Resynced,
    /// `Schedule`.
    Scheduled,
    /// `Unschedule`.
    Unscheduled,
    /// `Unpublish`.
    Unpublished,
    /// A post's `Delete`, confirmed.
    PostDeleted,
    /// `Upload` of a new image.
    MediaUploaded,
    /// `Upload` of an image the project already held.
    MediaExisting,
    /// An image's `Save alt text`.
    AltSaved,
    /// An image's `Delete`, confirmed.
    MediaDeleted,
}

/// Every code with its value and its message.
const ALL: [(Done, &str, &str); 29] = [
    (Done::SignedIn, "signed-in", "Signed in."),
    (Done::SignedOut, "signed-out", "Signed out."),
    (Done::ProjectCreated, "project-created", "Project created."),
    (Done::SettingsSaved, "settings-saved", "Settings saved."),
    (Done::KeyRevealed, "key-revealed", "API key revealed."),
    (Done::KeyGenerated, "key-generated", "API key generated."),
    (
        Done::KeyRotated,
        "key-rotated",
        "API key rotated: the old key no longer works.",
    ),
    (
        Done::KeyRevoked,
        "key-revoked",
        "API key revoked: public access is off.",
    ),
    (
        Done::HookRevealed,
        "hook-revealed",
        "Deploy hook URL revealed.",
    ),
    (Done::HookSaved, "hook-saved", "Deploy hook saved."),
    (
        Done::HookTested,
        "hook-tested",
        "Deploy hook tested: the delivery log below has the attempt.",
    ),
    (Done::HookRemoved, "hook-removed", "Deploy hook removed."),
    (
        Done::AgentKeyCreated,
        "agent-key-created",
        "Agent key created.",
    ),
    (
        Done::AgentKeyDeleted,
        "agent-key-deleted",
        "Agent key deleted.",
    ),
    (
        Done::AdminTokenCreated,
        "admin-token-created",
        "Admin token created.",
    ),
    (
        Done::AdminTokenRevoked,
        "admin-token-revoked",
        "Admin token revoked.",
    ),
    (Done::DraftCreated, "draft-created", "Draft created."),
    (Done::Saved, "saved", "Working copy saved."),
    (
        Done::ImageInserted,
        "image-inserted",
        "Image added at the end of the body and the working copy saved.",
    ),
    (
        Done::Published,
        "published",
        "Published: the public API shows it now.",
    ),
    (
        Done::Resynced,
        "resynced",
        "Re-synced: the public API shows the working copy now.",
    ),
    (Done::Scheduled, "scheduled", "Scheduled."),
    (
        Done::Unscheduled,
        "unscheduled",
        "Unscheduled: back to draft.",
    ),
    (Done::Unpublished, "unpublished", "Unpublished."),
    (Done::PostDeleted, "post-deleted", "Post deleted."),
    (Done::MediaUploaded, "media-uploaded", "Image uploaded."),
    (
        Done::MediaExisting,
        "media-existing",
        "This image was already there: nothing new was stored, and its alt text is unchanged (edit it below).",
    ),
    (Done::AltSaved, "alt-saved", "Alt text saved."),
    (
        Done::MediaDeleted,
        "media-deleted",
        "Image deleted: its addresses no longer answer.",
    ),
];

impl Done {
    /// The code in the URL.
    pub(super) fn code(self) -> &'static str {
        ALL.iter()
            .find(|(done, _, _)| *done == self)
            .map_or("", |(_, code, _)| code)
    }

    /// What the page says.
    pub(super) fn message(self) -> &'static str {
        ALL.iter()
            .find(|(done, _, _)| *done == self)
            .map_or("", |(_, _, message)| message)
    }

    /// The action a code names, if it is one.
    pub(super) fn from_code(code: Option<&str>) -> Option<Self> {
        let code = code?;
        ALL.iter()
            .find(|(_, known, _)| *known == code)
            .map(|(done, _, _)| *done)
    }

    /// What the page says when the value shown once with this action is gone (a reload, or
    /// another session), for the actions that show one.
    pub(super) fn once_gone(self) -> Option<&'static str> {
        Some(match self {
            Done::KeyRevealed | Done::HookRevealed => {
                "It was shown once and is hidden again: Reveal shows it."
            }
            Done::KeyGenerated | Done::KeyRotated => "Reveal shows the key.",
            Done::HookTested => "Its outcome was shown once.",
            Done::AgentKeyCreated => {
                "It was shown once and is not shown again: if it was not copied, delete it and \
                 create another."
            }
            Done::AdminTokenCreated => {
                "It was shown once and is not shown again: if it was not copied, revoke it and \
                 create another."
            }
            _ => return None,
        })
    }

    /// The answer that sends the browser to the page at `path` (no query) saying this.
    pub(super) fn see(self, path: &str) -> Response {
        see_other(&format!("{path}?done={}", self.code()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_names_one_action_and_reads_back() {
        for (done, code, message) in ALL {
            assert_eq!(Done::from_code(Some(code)), Some(done), "{code}");
            assert_eq!(done.code(), code);
            assert_eq!(done.message(), message);
            assert!(
                code.bytes().all(|b| b.is_ascii_lowercase() || b == b'-'),
                "{code} needs no escaping in a URL"
            );
        }
        let mut codes: Vec<_> = ALL.iter().map(|(_, code, _)| code).collect();
        codes.sort();
        codes.dedup();
        assert_eq!(codes.len(), ALL.len(), "codes are unique");
    }

    #[test]
    fn a_code_that_is_not_one_shows_nothing() {
        for code in ["", "Resynced", "resynced ", "<script>", "done"] {
            assert_eq!(Done::from_code(Some(code)), None, "{code}");
        }
        assert_eq!(Done::from_code(None), None);
    }
}
