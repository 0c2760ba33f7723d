//! The OpenAPI document checked in under `openapi/` is the one the server serves.

use std::path::PathBuf;

fn checked_in_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../openapi/openapi.json")
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
    let wanted = format!("integer 1 to {MAX_LIMIT}, default {DEFAULT_LIMIT};");
    let mut seen = 0;
    for (path, operations) in doc["paths"].as_object().expect("paths") {
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
                assert_eq!(parameter["schema"]["default"], DEFAULT_LIMIT);
            }
        }
    }
    assert!(seen >= 2, "the public and management lists take a limit");
}
