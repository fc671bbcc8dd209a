//! The injection check on a labelled set (`tests/fixtures/summary-lines.json`): every
//! injection line is flagged, and at most 1 in 30 ordinary summary lines is. Prints what it
//! missed and what it dropped wrongly.

use ctxfold::compact::injection::is_instruction;
use serde_json::Value;

#[test]
fn injection_lines_are_flagged_and_ordinary_lines_kept() {
    let set: Value = serde_json::from_str(include_str!("fixtures/summary-lines.json")).unwrap();
    let lines = |k: &str| -> Vec<String> {
        set[k]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap().to_owned())
            .collect()
    };
    let (injection, ordinary) = (lines("injection"), lines("ordinary"));
    assert!(injection.len() >= 30 && ordinary.len() >= 30);
    let missed: Vec<&String> = injection.iter().filter(|l| !is_instruction(l)).collect();
    let dropped: Vec<&String> = ordinary.iter().filter(|l| is_instruction(l)).collect();
    println!(
        "injection lines flagged: {}/{}; ordinary lines dropped: {}/{}",
        injection.len() - missed.len(),
        injection.len(),
        dropped.len(),
        ordinary.len()
    );
    for l in &missed {
        println!("  missed:  {l}");
    }
    for l in &dropped {
        println!("  dropped: {l}");
    }
    assert!(missed.is_empty(), "injection lines not flagged: {missed:#?}");
    assert!(
        dropped.len() * 30 <= ordinary.len(),
        "ordinary lines dropped: {dropped:#?}"
    );
}
