//! The credentials' part of the store contract (see [`super::contract`]): agent keys and
//! admin tokens share one record type and four store methods, each taking the kind, and a
//! store answers every call with the credentials of that kind only.

use std::sync::Arc;

use crate::domain::{
    CredentialId, CredentialKind, CredentialLabel, ProjectId, SecretHash, StoredCredential,
};
use crate::error::{Error, NotFound};
use crate::store::Store;
use crate::testing::Fixture;

/// A credential is found, listed and deleted under its own kind only: an agent key's hash
/// finds no admin token (nor the reverse), a list holds one kind, and deleting by the id of
/// another kind, or in another project, deletes nothing.
pub async fn each_credential_kind_is_found_listed_and_deleted_on_its_own(store: Arc<dyn Store>) {
    use CredentialKind::{AdminToken, AgentKey};
    let f = Fixture::new(store, None).await;
    let other = f.another(None).await;
    let agent = f
        .service
        .create_agent_key(&f.admin, f.project)
        .await
        .unwrap();
    f.clock.advance(1);
    let token = f
        .service
        .create_admin_token(&f.operator, f.project)
        .await
        .unwrap();
    let store = f.service.store();

    let agent_hash = SecretHash::of(&agent.key);
    let found = store
        .credential_by_hash(AgentKey, &agent_hash)
        .await
        .unwrap()
        .expect("the agent key is found by its hash");
    assert_eq!(
        found,
        StoredCredential {
            id: CredentialId::from(agent.id),
            project_id: f.project,
            hash: agent_hash,
            label: CredentialLabel::AgentKey {
                prefix: agent.key[..12].to_owned()
            },
            created_at: agent.created_at,
        }
    );
    let token_hash = SecretHash::of(&token.token);
    let found_token = store
        .credential_by_hash(AdminToken, &token_hash)
        .await
        .unwrap()
        .expect("the admin token is found by its hash");
    assert_eq!(found_token.id, CredentialId::from(token.id));
    assert_eq!(found_token.label, CredentialLabel::AdminToken);
    assert_eq!(
        store
            .credential_by_hash(AdminToken, &agent_hash)
            .await
            .unwrap(),
        None
    );
    assert_eq!(
        store
            .credential_by_hash(AgentKey, &token_hash)
            .await
            .unwrap(),
        None
    );

    assert_eq!(
        store.credentials(AgentKey, f.project).await.unwrap(),
        vec![found.clone()]
    );
    let tokens = store.credentials(AdminToken, f.project).await.unwrap();
    assert_eq!(tokens.len(), 2, "the fixture's admin token and the new one");
    assert!(tokens.iter().all(|t| t.kind() == AdminToken));
    assert_eq!(tokens[1], found_token, "oldest first");
    assert!(
        store
            .credentials(AgentKey, other.project)
            .await
            .unwrap()
            .is_empty()
    );

    let id = CredentialId::from(agent.id);
    assert!(
        !store
            .delete_credential(AdminToken, f.project, id)
            .await
            .unwrap()
    );
    assert!(
        !store
            .delete_credential(AgentKey, other.project, id)
            .await
            .unwrap()
    );
    assert!(
        store
            .delete_credential(AgentKey, f.project, id)
            .await
            .unwrap()
    );
    assert!(
        store
            .credential_by_hash(AgentKey, &agent_hash)
            .await
            .unwrap()
            .is_none()
    );
    assert_eq!(
        store.credentials(AdminToken, f.project).await.unwrap(),
        tokens,
        "deleting an agent key leaves the admin tokens"
    );

    // A second credential of the kind with a hash already stored is a conflict, never a
    // silent replacement.
    let twin = StoredCredential {
        id: CredentialId::generate(),
        ..found_token.clone()
    };
    assert!(matches!(
        store.insert_credential(&twin).await,
        Err(Error::Conflict(_))
    ));
    assert_eq!(
        store
            .credential_by_hash(AdminToken, &token_hash)
            .await
            .unwrap()
            .map(|c| c.id),
        Some(found_token.id)
    );

    let orphan = StoredCredential {
        id: CredentialId::generate(),
        project_id: ProjectId::generate(),
        ..found
    };
    assert!(matches!(
        store.insert_credential(&orphan).await,
        Err(Error::NotFound(NotFound::Project))
    ));
}
