//! Every endpoint, declared through poem-openapi so that the document describes it. Each
//! handler is HTTP in, one core call, HTTP out.

pub mod auth;
pub mod blog_shapes;
pub mod blogs;
mod common;
pub mod deploy_hook;
pub mod health;
pub mod keys;
pub mod links;
pub mod media;
mod media_form;
pub mod projects;
pub mod public;
pub mod schema;

use blogread_core::Service;
use poem_openapi::{OpenApi, OpenApiService};

pub use common::{ApiTags, Created201, NoContent204, Ok200};

use crate::routes::{RouteEntry, RouteTable};

/// All operations.
pub type Apis = (
    public::PublicApi,
    projects::ProjectsApi,
    keys::KeysApi,
    blogs::BlogsApi,
    deploy_hook::DeployHookApi,
    health::HealthApi,
    links::LinksApi,
    media::MediaApi,
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

Every `GET` operation also answers `HEAD`, with the status and headers the `GET` would \
have (its `ETag` included) and no body; any other method a path does not list is 405, with \
an `Allow` header naming those it does.

Every rule is stated in full in the repository's `docs/` folder: `public-api.md` (credentials, \
paging, ETags, errors), `content.md` (internal links, word count), `deploy-hooks.md`, \
`management-api.md` and `media.md` (images: upload, limits, serving).";

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
            health::HealthApi {
                service: service.clone(),
            },
            links::LinksApi {
                service: service.clone(),
            },
            media::MediaApi { service },
        ),
        "blogread",
        API_VERSION,
    )
    .description(DESCRIPTION)
    .license("MIT OR Apache-2.0")
}

/// The route table of the documented operations (built once per process): which methods each
/// path accepts, and the template a request path matches.
pub fn route_table() -> RouteTable {
    static ROUTES: std::sync::OnceLock<Vec<RouteEntry>> = std::sync::OnceLock::new();
    RouteTable::new(ROUTES.get_or_init(build_routes))
}

fn build_routes() -> Vec<RouteEntry> {
    use poem::http::Method;
    let mut routes: Vec<RouteEntry> = Vec::new();
    for api in <Apis as OpenApi>::meta() {
        for path in api.paths {
            // Every GET answers HEAD too (the status and headers of the GET, no body).
            let methods = path.operations.iter().flat_map(|op| {
                let head = (op.method == Method::GET).then_some(Method::HEAD);
                std::iter::once(op.method.clone()).chain(head)
            });
            match routes.iter_mut().find(|r| r.template() == path.path) {
                Some(route) => route.add_methods(methods),
                None => routes.push(RouteEntry::new(path.path, methods.collect())),
            }
        }
    }
    routes
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_request_is_named_by_its_most_specific_route_template() {
        let table = route_table();
        assert_eq!(
            table.template("/blog/api/v1/public/blogs/my-first-post"),
            "/blog/api/v1/public/blogs/{slug}"
        );
        assert_eq!(
            table.template("/blog/api/v1/public/blogs/sitemap"),
            "/blog/api/v1/public/blogs/sitemap"
        );
        assert_eq!(
            table.template("/api/v1/projects/0192d1a4-7b1c-7cc3-9f7e-2b6a0c1d2e3f/blogs/x/publish"),
            "/api/v1/projects/{project_id}/blogs/{blog_id}/publish"
        );
        assert_eq!(table.template("/metrics"), "/metrics");
        assert_eq!(table.template("/docs/index.css"), "/docs");
        assert_eq!(table.template("/admin/projects"), "/admin");
        assert_eq!(
            table.template("/wp-login.php"),
            crate::routes::UNMATCHED_ROUTE
        );
    }
}
