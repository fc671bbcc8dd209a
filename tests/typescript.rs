//! The TypeScript declarations the package ships are the ones the Rust types generate
//! (`src/typescript.rs`): a field, an option, a result or an error code changed on one side
//! and not the other fails here. `CTXFOLD_BLESS=1 cargo test --test typescript` rewrites the
//! committed files after a deliberate change.

const GENERATED: &str = "src/wasm/types.generated.d.ts";
const INTERNAL: &str = "pkg-template/lib/core.generated.d.ts";

#[test]
fn committed_declarations_match_the_rust_types() {
    check(GENERATED, ctxfold::typescript::declarations());
}

#[test]
fn the_internal_declarations_match_the_rust_types() {
    check(INTERNAL, ctxfold::typescript::internal_declarations());
}

/// `file` holds `want` (or is rewritten with it, with `CTXFOLD_BLESS=1`).
fn check(file: &str, want: String) {
    let path = format!("{}/{file}", env!("CARGO_MANIFEST_DIR"));
    if std::env::var_os("CTXFOLD_BLESS").is_some() {
        std::fs::write(&path, &want).unwrap();
    }
    let have = std::fs::read_to_string(&path).unwrap_or_default();
    if have != want {
        let line = have
            .lines()
            .zip(want.lines())
            .position(|(a, b)| a != b)
            .unwrap_or(have.lines().count().min(want.lines().count()));
        panic!(
            "{file} differs from the Rust types from line {} on:\n  committed: {:?}\n  generated: {:?}\n\
             regenerate it with `CTXFOLD_BLESS=1 cargo test --test typescript`",
            line + 1,
            have.lines().nth(line),
            want.lines().nth(line)
        );
    }
}

#[test]
fn every_error_code_and_option_is_declared() {
    let ts = ctxfold::typescript::declarations();
    for code in ctxfold::error::Code::ALL {
        assert!(ts.contains(&format!("| \"{}\"", code.as_str())), "{code:?}");
    }
    for key in [
        "thresholdRatio?: number;",
        "state?: CompactState | null;",
        "toolPolicies?:",
    ] {
        assert!(ts.contains(key), "{key}");
    }
}
