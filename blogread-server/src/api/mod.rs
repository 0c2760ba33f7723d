//! Every endpoint, declared through poem-openapi so that the document describes it. Each
//! handler is HTTP in, one core call, HTTP out.

pub mod blogs;
mod common;
pub mod deploy_hook;
pub mod health;
pub mod keys;
pub mod projects;
pub mod public;
pub mod schema;

use std::sync::Arc;

use blogread_core::Service;
use poem::http::Method;
use poem_openapi::{OpenApi, OpenApiService};

pub use common::{ApiTags, Created201, NoContent204, Ok200};

/// All operations.
pub type Apis = (
    public::PublicApi,
    projects::ProjectsApi,
    keys::KeysApi,
    blogs::BlogsApi,
    deploy_hook::DeployHookApi,
    health::HealthApi,
);

/// The version string of the document (fixed, so the checked-in copy is stable).
pub const API_VERSION: &str = "1.0.0";

const DESCRIPTION: &str = "\
The blogread API: a read-only JSON API for the published blog posts of one project (for static \
site generators at build time), the deploy hook that triggers a rebuild when visible content \
changes, and the management API for projects, keys and blogs.

Every error answer is `application/json` with the shape `{\"detail\": \"...\"}`.

Public endpoints take the project's public key (`pk_live_...`) as `Authorization: Bearer <key>` \
or as the `api_key` query parameter; when the header is present it is the only key considered. \
Management endpoints take `Authorization: Bearer <token>`.

Every rule is stated in full in the repository's `docs/` folder: `public-api.md` (credentials, \
paging, ETags, errors), `content.md` (internal links, word count), `deploy-hooks.md` and \
`management-api.md`.";

/// The OpenAPI service over `service`.
pub fn openapi_service(service: Service) -> OpenApiService<Apis, ()> {
    OpenApiService::new(
        (
            public::PublicApi {
                service: service.clone(),
            },
            projects::ProjectsApi {
                service: service.clone(),
            },
            keys::KeysApi {
                service: service.clone(),
            },
            blogs::BlogsApi {
                service: service.clone(),
            },
            deploy_hook::DeployHookApi {
                service: service.clone(),
            },
            health::HealthApi { service },
        ),
        "blogread",
        API_VERSION,
    )
    .description(DESCRIPTION)
    .license("MIT OR Apache-2.0")
}

/// Which methods each documented path accepts, to answer 405 with `Allow` and a useful detail.
#[derive(Debug, Clone, Default)]
pub struct RouteTable {
    routes: Arc<Vec<(Vec<String>, Vec<Method>)>>,
}

impl RouteTable {
    /// The table of the documented operations.
    pub fn from_apis() -> Self {
        let mut routes: Vec<(Vec<String>, Vec<Method>)> = Vec::new();
        for api in <Apis as OpenApi>::meta() {
            for path in api.paths {
                let segments = split(&path.path).map(str::to_owned).collect::<Vec<_>>();
                let methods = path.operations.iter().map(|op| op.method.clone());
                match routes.iter_mut().find(|(s, _)| *s == segments) {
                    Some((_, m)) => m.extend(methods),
                    None => routes.push((segments, methods.collect())),
                }
            }
        }
        Self {
            routes: Arc::new(routes),
        }
    }

    /// The methods accepted on `path`, or `None` when no documented path matches it.
    pub fn allowed(&self, path: &str) -> Option<Vec<Method>> {
        let parts: Vec<&str> = split(path).collect();
        let mut found: Option<Vec<Method>> = None;
        for (template, methods) in self.routes.iter() {
            let matches = template.len() == parts.len()
                && template
                    .iter()
                    .zip(&parts)
                    .all(|(t, p)| (t.starts_with('{') && t.ends_with('}')) || t == p);
            if matches {
                let all = found.get_or_insert_with(Vec::new);
                for m in methods {
                    if !all.contains(m) {
                        all.push(m.clone());
                    }
                }
            }
        }
        found
    }
}

fn split(path: &str) -> impl Iterator<Item = &str> {
    path.split('/').filter(|s| !s.is_empty())
}
