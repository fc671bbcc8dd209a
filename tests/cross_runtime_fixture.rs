//! The shared fixture of the cross-runtime tests (`tests/fixtures/cross-runtime.json`, counted
//! by js-tiktoken) agrees with tiktoken-rs, and natively with ctxfold. The JS layers then hold
//! Node, Chromium and workerd to the same numbers.

use ctxfold::tokenizer::{tokenizer, Encoding};

fn fixture() -> serde_json::Value {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/cross-runtime.json");
    serde_json::from_slice(&std::fs::read(path).expect("read the fixture")).expect("parse the fixture")
}

fn reference(encoding: Encoding) -> &'static tiktoken_rs::CoreBPE {
    match encoding {
        Encoding::O200kBase => tiktoken_rs::o200k_base_singleton(),
        Encoding::Cl100kBase => tiktoken_rs::cl100k_base_singleton(),
    }
}

#[test]
fn fixture_counts_are_tiktoken_counts_and_ctxfold_counts() {
    let fixture = fixture();
    let cases = fixture["cases"].as_array().expect("cases");
    assert!(cases.len() >= 10, "the fixture has {} cases", cases.len());
    for case in cases {
        let name = case["name"].as_str().unwrap();
        let text = case["text"].as_str().unwrap();
        for encoding in Encoding::ALL {
            let expected = case["expected"][encoding.name()]
                .as_u64()
                .unwrap_or_else(|| panic!("{name}: no {encoding} count")) as usize;
            assert_eq!(
                reference(encoding).encode_ordinary(text).len(),
                expected,
                "{name}: tiktoken-rs {encoding}"
            );
            assert_eq!(
                tokenizer(encoding).unwrap().count(text),
                expected,
                "{name}: ctxfold {encoding}"
            );
        }
    }
}
