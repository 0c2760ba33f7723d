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

/// Which methods each documented path accepts, to answer 405 with `Allow` and a useful detail,
/// and the route template a request path matches, to name requests in logs and metrics.
#[derive(Debug, Clone, Copy, Default)]
pub struct RouteTable {
    routes: &'static [RouteEntry],
}

/// One documented path.
#[derive(Debug)]
struct RouteEntry {
    /// As the document writes it: `/blog/api/v1/public/blogs/{slug}`.
    template: String,
    segments: Vec<String>,
    methods: Vec<Method>,
}

impl RouteEntry {
    fn matches(&self, parts: &[&str]) -> bool {
        self.segments.len() == parts.len()
            && self
                .segments
                .iter()
                .zip(parts)
                .all(|(t, p)| is_parameter(t) || t == p)
    }

    /// Segments that are not parameters: the more, the more specific the template.
    fn literals(&self) -> usize {
        self.segments.iter().filter(|s| !is_parameter(s)).count()
    }
}

/// The label of a request path that matches no route (logs and metrics never carry an
/// arbitrary path).
pub const UNMATCHED_ROUTE: &str = "unmatched";

impl RouteTable {
    /// The table of the documented operations (built once per process).
    pub fn from_apis() -> Self {
        static ROUTES: std::sync::OnceLock<Vec<RouteEntry>> = std::sync::OnceLock::new();
        Self {
            routes: ROUTES.get_or_init(build_routes),
        }
    }

    /// The methods accepted on `path`, or `None` when no documented path matches it.
    pub fn allowed(&self, path: &str) -> Option<Vec<Method>> {
        let parts: Vec<&str> = split(path).collect();
        let mut found: Option<Vec<Method>> = None;
        for route in self.routes.iter().filter(|r| r.matches(&parts)) {
            let all = found.get_or_insert_with(Vec::new);
            for m in &route.methods {
                if !all.contains(m) {
                    all.push(m.clone());
                }
            }
        }
        found
    }

    /// The route template `path` matches, the most specific one when several do
    /// (`/blog/api/v1/public/blogs/sitemap` before `/blog/api/v1/public/blogs/{slug}`); the
    /// routes outside the document (`/openapi.json`, `/docs`, `/metrics`) by their own path;
    /// [`UNMATCHED_ROUTE`] otherwise.
    pub fn template(&self, path: &str) -> &'static str {
        let parts: Vec<&str> = split(path).collect();
        let documented = self
            .routes
            .iter()
            .filter(|r| r.matches(&parts))
            .max_by_key(|r| r.literals());
        if let Some(route) = documented {
            return route.template.as_str();
        }
        match parts.as_slice() {
            ["openapi.json"] => "/openapi.json",
            ["metrics"] => "/metrics",
            ["docs", ..] => "/docs",
            _ => UNMATCHED_ROUTE,
        }
    }
}

fn build_routes() -> Vec<RouteEntry> {
    let mut routes: Vec<RouteEntry> = Vec::new();
    for api in <Apis as OpenApi>::meta() {
        for path in api.paths {
            let methods = path.operations.iter().map(|op| op.method.clone());
            match routes.iter_mut().find(|r| r.template == path.path) {
                Some(route) => route.methods.extend(methods),
                None => routes.push(RouteEntry {
                    segments: split(&path.path).map(str::to_owned).collect(),
                    template: path.path,
                    methods: methods.collect(),
                }),
            }
        }
    }
    routes
}

fn is_parameter(segment: &str) -> bool {
    segment.starts_with('{') && segment.ends_with('}')
}

fn split(path: &str) -> impl Iterator<Item = &str> {
    path.split('/').filter(|s| !s.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_request_is_named_by_its_most_specific_route_template() {
        let table = RouteTable::from_apis();
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
        assert_eq!(table.template("/wp-login.php"), UNMATCHED_ROUTE);
    }
}
