//! The buttons of a project's settings page, one action type each (see `project.rs` for
//! what an action is and how it is served).

use blogread_core::Error as CoreError;
use blogread_core::domain::{AdminTokenId, AgentKeyId};
use blogread_core::error::NotFound;
use blogread_core::service::ProjectUpdate;
use poem::{Route, post};
use serde::Deserialize;

use super::done::Done;
use super::flash::TestShown;
use super::pages::optional_url;
use super::project::{
    Confirmed, Destructive, OnProject, Outcome, ProjectAction, Section, Shown, no_such_action,
    project_action,
};
use super::projects::ProjectForm;

/// `route` with every button of the settings page.
pub(super) fn routes(route: Route) -> Route {
    fn add<A: ProjectAction>(route: Route) -> Route {
        route.at(
            format!("/projects/:project/{}/{}", A::SECTION.segment(), A::ACTION),
            post(project_action::<A>::default()),
        )
    }
    let route = add::<SaveSettings>(route);
    let route = add::<RevealKey>(route);
    let route = add::<GenerateKey>(route);
    let route = add::<Confirmed<RotateKey>>(route);
    let route = add::<Confirmed<RevokeKey>>(route);
    let route = add::<RevealHook>(route);
    let route = add::<SaveHook>(route);
    let route = add::<TestHook>(route);
    let route = add::<Confirmed<RemoveHook>>(route);
    let route = add::<CreateAgentKey>(route);
    let route = add::<Confirmed<DeleteAgentKey>>(route);
    let route = add::<CreateAdminToken>(route);
    let route = add::<Confirmed<RevokeAdminToken>>(route);
    route.at("/projects/:project/:section/:action", post(no_such_action))
}

/// `Save settings`: the name and the site URL (blank for none).
#[derive(Debug, Deserialize)]
#[serde(transparent)]
pub(super) struct SaveSettings(ProjectForm);

impl ProjectAction for SaveSettings {
    const SECTION: Section = Section::Settings;
    const ACTION: &'static str = "save";

    async fn run(self, on: &OnProject<'_>, shown: &mut Shown) -> Result<Outcome, CoreError> {
        let ProjectForm { name, site_url } = self.0;
        let update = ProjectUpdate {
            name: Some(name.clone()),
            site_url: Some(optional_url(&site_url)),
        };
        match on
            .service
            .update_project(on.caller, on.project, update)
            .await
        {
            Ok(_) => Ok(Outcome::Did(Done::SettingsSaved)),
            Err(err) => {
                shown.settings_typed = Some((name, site_url));
                Err(err)
            }
        }
    }
}

/// API Access `Reveal`: the public key in full.
#[derive(Debug, Deserialize)]
pub(super) struct RevealKey {}

impl ProjectAction for RevealKey {
    const SECTION: Section = Section::Key;
    const ACTION: &'static str = "reveal";

    async fn run(self, on: &OnProject<'_>, shown: &mut Shown) -> Result<Outcome, CoreError> {
        let key = on.service.reveal_public_key(on.caller, on.project).await?;
        shown.one_time.key = Some(key.key);
        Ok(Outcome::Did(Done::KeyRevealed))
    }
}

/// `Generate API Key`, for a project without one.
#[derive(Debug, Deserialize)]
pub(super) struct GenerateKey {}

impl ProjectAction for GenerateKey {
    const SECTION: Section = Section::Key;
    const ACTION: &'static str = "generate";

    async fn run(self, on: &OnProject<'_>, shown: &mut Shown) -> Result<Outcome, CoreError> {
        let key = on
            .service
            .generate_public_key(on.caller, on.project)
            .await?;
        shown.one_time.key = Some(key.key);
        Ok(Outcome::Did(Done::KeyGenerated))
    }
}

/// `Rotate Key`: a new public key; the old one stops working at once.
#[derive(Debug)]
pub(super) struct RotateKey;

impl Destructive for RotateKey {
    const SECTION: Section = Section::Key;
    const ACTION: &'static str = "rotate";
    const QUESTION: &'static str =
        "Rotate the API key? The current key stops working at once; sites must use the new one.";

    async fn confirmed(
        _: String,
        on: &OnProject<'_>,
        shown: &mut Shown,
    ) -> Result<Done, CoreError> {
        let key = on.service.rotate_public_key(on.caller, on.project).await?;
        shown.one_time.key = Some(key.key);
        Ok(Done::KeyRotated)
    }
}

/// API Access `Revoke`: public access stops.
#[derive(Debug)]
pub(super) struct RevokeKey;

impl Destructive for RevokeKey {
    const SECTION: Section = Section::Key;
    const ACTION: &'static str = "revoke";
    const QUESTION: &'static str =
        "Revoke the API key? Public access stops until a key is generated again.";

    async fn confirmed(_: String, on: &OnProject<'_>, _: &mut Shown) -> Result<Done, CoreError> {
        on.service.revoke_public_key(on.caller, on.project).await?;
        Ok(Done::KeyRevoked)
    }
}

/// Deploy hook `Reveal`: the saved URL in full.
#[derive(Debug, Deserialize)]
pub(super) struct RevealHook {}

impl ProjectAction for RevealHook {
    const SECTION: Section = Section::Hook;
    const ACTION: &'static str = "reveal";

    async fn run(self, _: &OnProject<'_>, shown: &mut Shown) -> Result<Outcome, CoreError> {
        shown.one_time.hook_revealed = true;
        Ok(Outcome::Did(Done::HookRevealed))
    }
}

/// Deploy hook `Save`.
#[derive(Debug, Deserialize)]
pub(super) struct SaveHook {
    /// The URL typed.
    #[serde(default)]
    deploy_hook_url: String,
}

impl ProjectAction for SaveHook {
    const SECTION: Section = Section::Hook;
    const ACTION: &'static str = "save";

    async fn run(self, on: &OnProject<'_>, shown: &mut Shown) -> Result<Outcome, CoreError> {
        let url = self.deploy_hook_url;
        match on
            .service
            .save_deploy_hook(on.caller, on.project, url.clone())
            .await
        {
            Ok(_) => Ok(Outcome::Did(Done::HookSaved)),
            Err(err) => {
                shown.hook_typed = Some(url);
                Err(err)
            }
        }
    }
}

/// Deploy hook `Test`: one POST to the hook, its outcome shown (and logged as a delivery).
#[derive(Debug, Deserialize)]
pub(super) struct TestHook {}

impl ProjectAction for TestHook {
    const SECTION: Section = Section::Hook;
    const ACTION: &'static str = "test";

    async fn run(self, on: &OnProject<'_>, shown: &mut Shown) -> Result<Outcome, CoreError> {
        let result = on.service.test_deploy_hook(on.caller, on.project).await?;
        shown.one_time.test = Some(TestShown {
            success: result.success,
            status_code: result.status_code,
            message: result.message,
        });
        Ok(Outcome::Did(Done::HookTested))
    }
}

/// Deploy hook `Remove`.
#[derive(Debug)]
pub(super) struct RemoveHook;

impl Destructive for RemoveHook {
    const SECTION: Section = Section::Hook;
    const ACTION: &'static str = "remove";
    const QUESTION: &'static str =
        "Remove the deploy hook? Content changes will no longer trigger a site rebuild.";

    async fn confirmed(_: String, on: &OnProject<'_>, _: &mut Shown) -> Result<Done, CoreError> {
        on.service.remove_deploy_hook(on.caller, on.project).await?;
        Ok(Done::HookRemoved)
    }
}

/// `Create agent key`: the key, shown once.
#[derive(Debug, Deserialize)]
pub(super) struct CreateAgentKey {}

impl ProjectAction for CreateAgentKey {
    const SECTION: Section = Section::AgentKey;
    const ACTION: &'static str = "create";

    async fn run(self, on: &OnProject<'_>, shown: &mut Shown) -> Result<Outcome, CoreError> {
        let key = on.service.create_agent_key(on.caller, on.project).await?;
        shown.one_time.once = Some(("New agent key".into(), key.key));
        Ok(Outcome::Did(Done::AgentKeyCreated))
    }
}

/// An agent key's `Delete`.
#[derive(Debug)]
pub(super) struct DeleteAgentKey;

impl Destructive for DeleteAgentKey {
    const SECTION: Section = Section::AgentKey;
    const ACTION: &'static str = "delete";
    const QUESTION: &'static str = "Delete this agent key? Agents using it are refused at once.";

    async fn confirmed(id: String, on: &OnProject<'_>, _: &mut Shown) -> Result<Done, CoreError> {
        let id: AgentKeyId = id
            .parse()
            .map_err(|_| CoreError::NotFound(NotFound::AgentKey))?;
        on.service
            .delete_agent_key(on.caller, on.project, id)
            .await?;
        Ok(Done::AgentKeyDeleted)
    }
}

/// `Create admin token` (operator): the token, shown once.
#[derive(Debug, Deserialize)]
pub(super) struct CreateAdminToken {}

impl ProjectAction for CreateAdminToken {
    const SECTION: Section = Section::AdminToken;
    const ACTION: &'static str = "create";

    async fn run(self, on: &OnProject<'_>, shown: &mut Shown) -> Result<Outcome, CoreError> {
        let token = on.service.create_admin_token(on.caller, on.project).await?;
        shown.one_time.once = Some(("New project admin token".into(), token.token));
        Ok(Outcome::Did(Done::AdminTokenCreated))
    }
}

/// An admin token's `Revoke` (operator): its holder is refused and signed out at once.
#[derive(Debug)]
pub(super) struct RevokeAdminToken;

impl Destructive for RevokeAdminToken {
    const SECTION: Section = Section::AdminToken;
    const ACTION: &'static str = "revoke";
    const QUESTION: &'static str =
        "Revoke this admin token? Its holder is refused at once and signed out of these pages.";

    async fn confirmed(id: String, on: &OnProject<'_>, _: &mut Shown) -> Result<Done, CoreError> {
        let id: AdminTokenId = id
            .parse()
            .map_err(|_| CoreError::NotFound(NotFound::AdminToken))?;
        on.service
            .delete_admin_token(on.caller, on.project, id)
            .await?;
        Ok(Done::AdminTokenRevoked)
    }
}
