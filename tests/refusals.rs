//! The refusal reader over real providers' error bodies (`tests/refusals/fixtures.json`, each
//! with where it was seen): every refusal read with its counts, every near miss (a rate
//! limit, an output cap, a body too large in bytes) not taken for one, and the templates the
//! JS tests' servers answer with read back with the counts put in.

use ctxfold::refusal::{read, Refusal};
use serde_json::Value;

fn fixtures() -> Vec<Value> {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/refusals/fixtures.json"
    ))
    .unwrap();
    let all: Value = serde_json::from_str(&text).unwrap();
    all["fixtures"].as_array().unwrap().clone()
}

fn expected(f: &Value) -> Option<Refusal> {
    let e = f.get("expect").filter(|e| !e.is_null())?;
    Some(Refusal {
        tokens: e["tokens"].as_u64(),
        limit: e["limit"].as_u64(),
    })
}

#[test]
fn every_body_reads_as_it_says() {
    let all = fixtures();
    assert!(all.len() >= 20, "{} fixtures", all.len());
    let (mut refusals, mut misses) = (0, 0);
    for f in &all {
        let name = f["name"].as_str().unwrap();
        let body = f["body"].as_str().unwrap();
        let want = expected(f);
        // As the body came (text), and as an SDK error holds it.
        assert_eq!(read(&Value::String(body.into())), want, "{name}");
        let sdk = serde_json::json!({
            "name": "AI_APICallError",
            "message": "Bad Request",
            "statusCode": f["status"],
            "responseBody": body,
            "cause": null,
        });
        assert_eq!(read(&sdk), want, "{name} in an APICallError");
        let wrapped = serde_json::json!({ "message": "request failed", "cause": sdk });
        assert_eq!(read(&wrapped), want, "{name} as a cause");
        if want.is_some() {
            refusals += 1;
        } else {
            misses += 1;
        }
    }
    assert!(
        refusals >= 12 && misses >= 6,
        "{refusals} refusals, {misses} near misses"
    );
}

#[test]
fn the_ai_sdk_s_parsed_data_is_read_too() {
    // APICallError.data: the body parsed by the provider's error schema.
    for f in fixtures().iter().filter(|f| expected(f).is_some()) {
        let body: Value = match serde_json::from_str(f["body"].as_str().unwrap()) {
            Ok(v) => v,
            Err(_) => continue,
        };
        let sdk = serde_json::json!({ "message": "x", "statusCode": 400, "data": body });
        assert_eq!(read(&sdk), expected(f), "{}", f["name"]);
    }
}

#[test]
fn templates_read_back_with_the_counts_put_in() {
    let mut seen = 0;
    for f in fixtures() {
        let Some(t) = f["template"].as_str() else { continue };
        let body = t
            .replace("\"{N}\"", "4321")
            .replace("\"{M}\"", "4000")
            .replace("{N}", "4321")
            .replace("{M}", "4000")
            .replace("{T}", "4353");
        let want = Some(Refusal {
            tokens: Some(4321),
            limit: Some(4000),
        });
        assert_eq!(read(&Value::String(body)), want, "{}", f["name"]);
        seen += 1;
    }
    assert!(seen >= 5, "{seen} templates");
}

#[test]
fn what_is_not_an_error_body_is_no_refusal() {
    for v in [
        serde_json::json!(null),
        serde_json::json!(400),
        serde_json::json!("fetch failed"),
        serde_json::json!({"message": "ECONNREFUSED 127.0.0.1:1"}),
        serde_json::json!({"error": {"code": "context_length", "message": "nope"}}),
    ] {
        assert_eq!(read(&v), None, "{v}");
    }
}
