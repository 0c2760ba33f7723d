//! Route templates: which methods each documented path accepts (for 405 answers with
//! `Allow`), and which template a request path matches (so that logs and metrics name
//! requests by route, never by their concrete path). The API builds the table of its
//! documented operations ([`crate::api::route_table`]); the middleware and the request log
//! take it as a value, so neither depends on the API.

use poem::http::Method;

/// Which methods each documented path accepts, to answer 405 with `Allow` and a useful detail,
/// and the route template a request path matches, to name requests in logs and metrics.
#[derive(Debug, Clone, Copy, Default)]
pub struct RouteTable {
    routes: &'static [RouteEntry],
}

/// One documented path.
#[derive(Debug)]
pub struct RouteEntry {
    /// As the document writes it: `/blog/api/v1/public/blogs/{slug}`.
    template: String,
    segments: Vec<String>,
    methods: Vec<Method>,
}

impl RouteEntry {
    /// A path as the document writes it (`/blog/api/v1/public/blogs/{slug}`) and its methods.
    pub fn new(template: String, methods: Vec<Method>) -> Self {
        Self {
            segments: split(&template).map(str::to_owned).collect(),
            template,
            methods,
        }
    }

    /// The path as the document writes it.
    pub fn template(&self) -> &str {
        &self.template
    }

    /// Adds methods the path accepts (another operation on the same path).
    pub fn add_methods(&mut self, methods: impl IntoIterator<Item = Method>) {
        self.methods.extend(methods);
    }

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

/// The label of the served images' requests (`/media/...`).
pub const MEDIA_ROUTE: &str = "/media";

/// The label of a request path that matches no route (logs and metrics never carry an
/// arbitrary path).
pub const UNMATCHED_ROUTE: &str = "unmatched";

impl RouteTable {
    /// A table of `routes` (the API builds the documented ones: `api::route_table`).
    pub fn new(routes: &'static [RouteEntry]) -> Self {
        Self { routes }
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
    /// routes outside the document (`/openapi.json`, `/docs`, `/metrics`, the admin pages under
    /// `/admin`, the images under `/media`) by their own path;
    /// [`UNMATCHED_ROUTE`] otherwise.
    pub fn template(&self, path: &str) -> &'static str {
        // The served images first, without splitting the path: no documented route starts
        // with `media`, and they are the most frequent requests of a server without a CDN.
        if path.starts_with("/media/") {
            return MEDIA_ROUTE;
        }
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
            ["admin", ..] => "/admin",
            ["media", ..] => MEDIA_ROUTE,
            _ => UNMATCHED_ROUTE,
        }
    }
}

fn is_parameter(segment: &str) -> bool {
    segment.starts_with('{') && segment.ends_with('}')
}

fn split(path: &str) -> impl Iterator<Item = &str> {
    path.split('/').filter(|s| !s.is_empty())
}
