//! The OpenAPI document checked in under `openapi/` is the one the server serves.

use std::path::PathBuf;

fn checked_in_path() -> PathBuf {
    // When it runs, not where it was built: a shared target folder may hold a binary built
    // from another checkout.
    PathBuf::from(
        std::env::var("CARGO_MANIFEST_DIR")
            .expect("cargo sets CARGO_MANIFEST_DIR when it runs a test"),
    )
    .join("../openapi/openapi.json")
}

#[test]
fn checked_in_document_matches_the_generated_one() {
    let generated = format!("{}\n", blogread_server::spec());
    let path = checked_in_path();
    if std::env::var("BLOGREAD_BLESS").as_deref() == Ok("1") {
        std::fs::write(&path, &generated).expect("write openapi/openapi.json");
        return;
    }
    let checked_in = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        checked_in == generated,
        "openapi/openapi.json differs from what the server generates; rewrite it with:\n\n    \
         BLOGREAD_BLESS=1 cargo test -p blogread-server --test openapi\n\nand review the diff"
    );
}

#[test]
fn document_is_stable_and_has_no_server_entry() {
    let doc: serde_json::Value =
        serde_json::from_str(&blogread_server::spec()).expect("the document is JSON");
    assert_eq!(doc["info"]["version"], blogread_server::api::API_VERSION);
    let servers = doc
        .get("servers")
        .and_then(|s| s.as_array())
        .map_or(0, Vec::len);
    assert_eq!(servers, 0, "no server entry (no localhost)");
    assert_eq!(blogread_server::spec(), blogread_server::spec());
}

/// Parameter descriptions are doc comments, which cannot name a constant: every `limit`
/// parameter's text must state the core's page-size rules, as its schema does.
#[test]
fn limit_descriptions_state_the_core_page_size_rules() {
    use blogread_core::read::{DEFAULT_LIMIT, MAX_LIMIT};
    let doc: serde_json::Value =
        serde_json::from_str(&blogread_server::spec()).expect("the document is JSON");
    let mut seen = 0;
    for (path, operations) in doc["paths"].as_object().expect("paths") {
        // The changes feed pages by 100 unless told otherwise.
        let default = if path.ends_with("/changes") {
            MAX_LIMIT
        } else {
            DEFAULT_LIMIT
        };
        let wanted = format!("integer 1 to {MAX_LIMIT}, default {default};");
        for (method, operation) in operations.as_object().expect("operations") {
            let parameters = operation["parameters"].as_array().into_iter().flatten();
            for parameter in parameters.filter(|p| p["name"] == "limit") {
                seen += 1;
                let description = parameter["description"].as_str().unwrap_or_default();
                assert!(
                    description.contains(&wanted),
                    "{method} {path}: {description:?} does not say {wanted:?}"
                );
                assert_eq!(parameter["schema"]["maximum"], f64::from(MAX_LIMIT));
                assert_eq!(parameter["schema"]["default"], default);
            }
        }
    }
    assert!(seen >= 2, "the public and management lists take a limit");
}

/// Client generators (openapi-python-client among them) refuse `allOf` over a schema that is
/// not an object, and drop the whole model that holds it: an enum field is a plain `$ref`,
/// described by its enum, never `allOf: [{"$ref": ...}, {"description": ...}]`.
#[test]
fn no_all_of_wraps_a_schema_that_is_not_an_object() {
    fn walk(
        value: &serde_json::Value,
        at: &str,
        schemas: &serde_json::Value,
        bad: &mut Vec<String>,
    ) {
        match value {
            serde_json::Value::Object(map) => {
                for part in map
                    .get("allOf")
                    .and_then(|a| a.as_array())
                    .into_iter()
                    .flatten()
                {
                    let target = match part.get("$ref").and_then(|r| r.as_str()) {
                        Some(r) => &schemas[r.trim_start_matches("#/components/schemas/")],
                        None => part,
                    };
                    let is_object =
                        target["type"] == "object" || target.get("properties").is_some();
                    if !is_object {
                        bad.push(format!("{at}: {part}"));
                    }
                }
                for (key, child) in map {
                    walk(child, &format!("{at}/{key}"), schemas, bad);
                }
            }
            serde_json::Value::Array(items) => {
                for (i, child) in items.iter().enumerate() {
                    walk(child, &format!("{at}/{i}"), schemas, bad);
                }
            }
            _ => {}
        }
    }
    let doc: serde_json::Value =
        serde_json::from_str(&blogread_server::spec()).expect("the document is JSON");
    let mut bad = Vec::new();
    walk(&doc, "", &doc["components"]["schemas"], &mut bad);
    assert!(bad.is_empty(), "allOf over a non-object: {bad:#?}");
    assert_eq!(
        doc["components"]["schemas"]["ManagedBlog"]["properties"]["status"],
        serde_json::json!({"$ref": "#/components/schemas/BlogStatus"})
    );
    assert!(
        doc["components"]["schemas"]["BlogStatus"]["description"].is_string(),
        "the enum carries the description"
    );
}
