//! The client keeps its own wire types (so that a site generator does not compile the core's
//! stores and HTML parsing): this test proves they decode exactly what the server's OpenAPI
//! document describes. For each public answer it builds, from the checked-in document, an
//! answer with every property the schema names (optional ones included, nullable ones both set
//! and null, each variant of a union), decodes it with the client's type, and serialises it
//! back: the same JSON must come out, so the client neither refuses nor drops anything the
//! document allows.

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};

fn document() -> Value {
    let path = blogread_tests::package_dir().join("../openapi/openapi.json");
    serde_json::from_str(&std::fs::read_to_string(path).expect("the checked-in document"))
        .expect("JSON")
}

/// A value for property `name` of `schema`: strings that fit the rules the client checks
/// (slugs, ids, times), every property of an object, one item of an array; `null` for a
/// nullable value when `nulls`; the union's variant `variant`.
fn example(schema: &Value, name: &str, doc: &Value, nulls: bool, variant: usize) -> Value {
    if let Some(reference) = schema["$ref"].as_str() {
        let target = reference.trim_start_matches("#/components/schemas/");
        return example(
            &doc["components"]["schemas"][target],
            name,
            doc,
            nulls,
            variant,
        );
    }
    if let Some(parts) = schema["allOf"].as_array() {
        let mut merged = Map::new();
        for part in parts {
            if let Value::Object(fields) = example(part, name, doc, nulls, variant) {
                merged.extend(fields);
            }
        }
        return Value::Object(merged);
    }
    if let Some(options) = schema["anyOf"].as_array().or(schema["oneOf"].as_array()) {
        let chosen = &options[variant % options.len()];
        let mut value = example(chosen, name, doc, nulls, variant);
        if let (Some(property), Some(mapping)) = (
            schema["discriminator"]["propertyName"].as_str(),
            schema["discriminator"]["mapping"].as_object(),
        ) {
            let target = chosen["$ref"].as_str().expect("a union of references");
            let tag = mapping
                .iter()
                .find(|(_, r)| r.as_str() == Some(target))
                .map(|(tag, _)| tag.clone())
                .expect("mapped");
            value[property] = json!(tag);
        }
        return value;
    }
    if nulls && schema["nullable"] == true {
        return Value::Null;
    }
    match schema["type"].as_str() {
        Some("object") => {
            let mut fields = Map::new();
            for (property, inner) in schema["properties"].as_object().into_iter().flatten() {
                fields.insert(
                    property.clone(),
                    example(inner, property, doc, nulls, variant),
                );
            }
            Value::Object(fields)
        }
        Some("array") => json!([example(&schema["items"], name, doc, nulls, variant)]),
        Some("integer") => json!(7),
        Some("boolean") => json!(true),
        Some("string") if schema["format"] == "date-time" => json!("2026-11-21T09:30:00Z"),
        Some("string") => match name {
            "id" => json!("0192d1a4-7b1c-7cc3-9f7e-2b6a0c1d2e3f"),
            "slug" | "from" | "to" | "aliases" => json!("a-slug"),
            "cursor" => json!("YzF8YWJjfDF8ZXw"),
            other => json!(format!("the {other}")),
        },
        other => panic!("no example for {name}: {other:?} in {schema}"),
    }
}

/// The answers `schema` describes decode into `T` and serialise back unchanged.
fn round_trips<T: DeserializeOwned + Serialize>(schema: &str) {
    let doc = document();
    let described = &doc["components"]["schemas"][schema];
    assert!(described.is_object(), "{schema} is in the document");
    for nulls in [false, true] {
        for variant in 0..2 {
            let answer = example(described, schema, &doc, nulls, variant);
            let decoded: T = serde_json::from_value(answer.clone())
                .unwrap_or_else(|e| panic!("{schema} does not decode: {e}\n{answer:#}"));
            let back = serde_json::to_value(&decoded).expect("serialises");
            assert_eq!(
                back, answer,
                "{schema}: the client drops or changes something"
            );
        }
    }
}

#[test]
fn the_clients_types_decode_every_public_answer_the_document_describes() {
    use blogread_client::{BlogDetail, BlogList, BlogListItem, Redirects, Sitemap};
    round_trips::<BlogListItem>("BlogListItem");
    round_trips::<BlogDetail>("BlogDetail");
    round_trips::<BlogList>("BlogList");
    round_trips::<Sitemap>("Sitemap");
    round_trips::<Redirects>("Redirects");
    round_trips::<blogread_client::ChangePage>("ChangeFeed");
}
