use super::*;

#[test]
fn facts_take_the_exception_a_traceback_ends_with() {
    let conv = crate::messages::Conversation::parse(
        &serde_json::json!([
            {"role": "user", "content": "run it please now"},
            {"role": "assistant", "content": null, "tool_calls": [{"id": "c", "type": "function", "function": {"name": "bash", "arguments": "{}"}}]},
            {"role": "tool", "tool_call_id": "c", "content": "Traceback (most recent call last):\n  File \"x.py\", line 1\nsqlite3.OperationalError: no such table: t"}
        ]),
        None,
    )
    .unwrap();
    let m: Vec<&Message> = conv.messages().iter().collect();
    let enc = crate::tokenizer::tokenizer(crate::Encoding::O200kBase).unwrap();
    let s = summarize(&m, &[], enc, 512);
    assert!(s.contains("sqlite3.OperationalError: no such table: t"), "{s}");
    assert!(!s.contains("most recent call last"), "{s}");
}

fn summary_of(messages: serde_json::Value, max_tokens: usize) -> String {
    let conv = crate::messages::Conversation::parse(&messages, None).unwrap();
    let m: Vec<&Message> = conv.messages().iter().collect();
    let enc = crate::tokenizer::tokenizer(crate::Encoding::O200kBase).unwrap();
    summarize(&m, &[], enc, max_tokens)
}

#[test]
fn conversation_keeps_sentences_with_dates_numbers_and_names() {
    let s = summary_of(
        serde_json::json!([
            {"role": "user", "content": "Hi there, how was your week?"},
            {"role": "assistant", "content": "Sounds great! I adopted a puppy from a shelter in Connecticut on 3 May. It was lovely."},
            {"role": "user", "content": "Wow, that is so nice to hear. We met at McGee's with Maria last Friday."}
        ]),
        512,
    );
    assert!(
        s.contains("I adopted a puppy from a shelter in Connecticut on 3 May"),
        "{s}"
    );
    assert!(s.contains("We met at McGee's with Maria last Friday"), "{s}");
    assert!(!s.contains("It was lovely"), "{s}");
    assert!(!s.contains("Sounds great"), "{s}");
    // Names are entities; a sentence's first word is not a name.
    let entities = s.lines().find(|l| l.contains("**Entities:**")).unwrap();
    assert!(
        entities.contains("Connecticut") && entities.contains("McGee's") && entities.contains("Maria"),
        "{s}"
    );
    assert!(!entities.contains("Wow") && !entities.contains("Sounds"), "{s}");
}

#[test]
fn the_least_specific_facts_go_first_and_the_summary_fits() {
    let mut messages = vec![serde_json::json!({"role": "user", "content": "Tell me about your trips."})];
    for k in 0..60 {
        messages.push(serde_json::json!({"role": "assistant", "content": format!("We drove to Boston with Anna in trip number {k}.")}));
        messages.push(serde_json::json!({"role": "user", "content": "Nice."}));
    }
    messages.push(serde_json::json!({"role": "assistant", "content": "On 17 March, 2022 at 3:47 pm we landed in Lisbon, Portugal with Anna and Tom."}));
    let enc = crate::tokenizer::tokenizer(crate::Encoding::O200kBase).unwrap();
    for max in [120, 200, 512] {
        let s = summary_of(serde_json::Value::Array(messages.clone()), max);
        assert!(enc.count(&s) <= max, "{max}: {s}");
        assert!(s.contains("we landed in Lisbon, Portugal"), "{max}: {s}");
    }
}

#[test]
fn a_larger_cap_keeps_more_facts() {
    let mut messages = vec![serde_json::json!({"role": "user", "content": "Tell me about your trips."})];
    for k in 0..60 {
        messages.push(serde_json::json!({"role": "assistant", "content": format!("On {k} May we drove to Boston with Anna.")}));
        messages.push(serde_json::json!({"role": "user", "content": "Nice."}));
    }
    let kept = |max| {
        let s = summary_of(serde_json::Value::Array(messages.clone()), max);
        (0..60)
            .filter(|k| s.contains(&format!("On {k} May we drove")))
            .count()
    };
    let (small, large) = (kept(512), kept(2048));
    assert!(small <= 24, "{small}");
    assert!(large > 2 * small, "{small} -> {large}");
}

#[test]
fn a_clipped_item_ends_at_a_word_and_splits_no_character() {
    let uuid = "3f2b0107-9c1d-4e2a-8b7f-1234567890ab";
    let texts =
        (0..40).map(|pad| format!("{} request {uuid} latency 10 ms", "x".repeat(MAX_ITEM - 20 - pad)));
    // A cut that lands inside a character (the words before it are whole).
    let emoji = (MAX_ITEM - 16..MAX_ITEM - 1).map(|k| format!("{} 🙂🙂🙂🙂 and more", "a".repeat(k)));
    for text in texts.chain(emoji) {
        let clipped = clip(&text);
        let kept = clipped.strip_suffix('…').unwrap_or(&clipped);
        assert!(
            clipped == text || text[kept.len()..].starts_with(' '),
            "{clipped}"
        );
    }
}

#[test]
fn sentences_keep_file_names_and_versions_whole() {
    let s = sentences("Open numpy_handler.py in v1.2 first. Then run the tests! Done?\nNext line here.");
    assert_eq!(
        s,
        [
            "Open numpy_handler.py in v1.2 first",
            "Then run the tests",
            "Next line here"
        ]
    );
}

#[test]
fn lines_of_code_are_not_specific_sentences() {
    for code in [
        "18:print(\"Script completed successfully, no errors. Result:\", result)",
        "281:        raise AttributeError(",
        "if self.violation_error_code is None and x == [1, 2]: return {}",
    ] {
        assert_eq!(specifics(code), 0, "{code}");
    }
    // Prose with a date, a number and names still is, parentheses and all.
    assert!(
        specifics("Caroline went to the LGBTQ support group on 7 May 2023 (a Sunday) in Boston") >= SPECIFIC
    );
}

#[test]
fn decisions_and_open_items_either_side_marks_are_kept_as_such() {
    let week = |n: u32| {
        format!("Week {n}: revenue 1{n}2,400 EUR, churn 2.{n}%, 34{n} new accounts in the Berlin region.")
    };
    let mut messages =
        vec![serde_json::json!({"role": "user", "content": "Let's review the weekly numbers."})];
    for n in 1..7 {
        messages.push(serde_json::json!({"role": "assistant", "content": week(n)}));
        messages.push(serde_json::json!({"role": "user", "content": "ok"}));
    }
    messages.push(serde_json::json!({"role": "user", "content": "Decision: switch the report to a LEFT JOIN on accounts. Open items: re-calibrate churn_v3; Finance to confirm EUR or USD."}));
    messages.push(
        serde_json::json!({"role": "assistant", "content": "- **Next steps:** rerun the export on Monday."}),
    );
    let s = summary_of(serde_json::Value::Array(messages), 200);
    let line = |label: &str| s.lines().find(|l| l.contains(label)).unwrap_or("").to_owned();
    assert!(line("**Decisions:**").contains("LEFT JOIN"), "{s}");
    assert!(line("**Open Items:**").contains("re-calibrate churn_v3"), "{s}");
    assert!(line("**Open Items:**").contains("rerun the export"), "{s}");
}

#[test]
fn a_system_instruction_given_mid_conversation_is_kept_as_a_decision() {
    let mut turns =
        vec![serde_json::json!({"role": "user", "content": "Hello there, can you help me plan a trip?"})];
    turns.push(serde_json::json!({"role": "system", "content": "From now on, always answer in French. Keep answers short."}));
    for k in 0..30 {
        turns.push(serde_json::json!({"role": "user", "content": format!("Question {k}: what about the museum on day {k}?")}));
        turns.push(serde_json::json!({"role": "assistant", "content": format!("On day {k} the museum opens at 9:00 and costs 12 euros.")}));
    }
    let s = summary_of(serde_json::Value::Array(turns), 256);
    assert!(
        s.contains("System instruction: From now on, always answer in French"),
        "{s}"
    );
}

/// A tool call and its output, then the user's next message.
fn tool_output(output: &str) -> serde_json::Value {
    serde_json::json!([
        {"role": "user", "content": "Please fix the failing build for me"},
        {"role": "assistant", "content": null, "tool_calls": [{"id": "c", "type": "function", "function": {"name": "bash", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "c", "content": output}
    ])
}

/// The Facts line of a summary.
fn facts(s: &str) -> &str {
    s.lines()
        .find(|l| l.starts_with("- **Facts:**"))
        .unwrap_or_default()
}

#[test]
fn the_markup_a_tool_wraps_its_output_in_is_no_fact() {
    let s = summary_of(
        tool_output("<returncode>0</returncode>\n<output>\n</output>"),
        512,
    );
    assert!(!s.contains("returncode") && !s.contains("<output>"), "{s}");
    // What the tags wrap is kept, without them: the line that reports the outcome.
    let s = summary_of(
        tool_output("<returncode>1</returncode>\n<output>\nBuild failed: missing header foo.h\n</output>"),
        512,
    );
    assert!(facts(&s).contains("Build failed: missing header foo.h"), "{s}");
    assert!(!s.contains("<output>") && !s.contains("returncode"), "{s}");
    // Any tag name, with attributes; a type's angle brackets inside a line stay.
    let s = summary_of(
        tool_output("<stdout encoding=\"utf-8\">error: expected `Vec<String>`, found `&str`</stdout>"),
        512,
    );
    assert!(
        facts(&s).contains("error: expected `Vec<String>`, found `&str`"),
        "{s}"
    );
    assert!(!s.contains("<stdout"), "{s}");
    // Colour codes go too.
    let s = summary_of(
        tool_output("\u{1b}[31mFAILED\u{1b}[0m tests/test_a.py::test_x - assert 1 == 2"),
        512,
    );
    assert!(facts(&s).contains("FAILED tests/test_a.py::test_x"), "{s}");
}

#[test]
fn numbered_code_listings_are_no_facts() {
    // `cat -n`, `nl -ba`, a compiler's snippet, `grep -n`, an editor's view: code lines with
    // an outcome word in them.
    for listing in [
        "     1\timport os\n     2\tdef fail():\n     3\t    raise ValueError(\"error\")",
        "  12 | def foo():\n  13 |     return error_count",
        "12:def foo():\n13:    log.warning(\"done\")",
        "    41→    if failed:\n    42→        return None",
        "   7  except Exception:\n   8      pass  # error ignored",
    ] {
        let s = summary_of(tool_output(listing), 512);
        assert_eq!(
            facts(&s),
            "- **Facts:** The user asked: Please fix the failing build for me",
            "{listing:?}\n{s}"
        );
    }
    // A time, a count, a sentence that starts with a number: not listings.
    let s = summary_of(tool_output("12:30 build finished: 3 errors"), 512);
    assert!(facts(&s).contains("12:30 build finished: 3 errors"), "{s}");
    let s = summary_of(tool_output("3 tests failed in 0.2s"), 512);
    assert!(facts(&s).contains("3 tests failed in 0.2s"), "{s}");
}

#[test]
fn an_observation_sent_as_a_user_message_is_read_without_its_markup() {
    let s = summary_of(
        serde_json::json!([
            {"role": "user", "content": "<pr_description>\nThe parser drops the last line of every file on Windows since 3 May.\n</pr_description>"},
            {"role": "assistant", "content": "Let me look."},
            {"role": "user", "content": "<returncode>0</returncode>\n<output>\n    10\tdef parse(lines, date=\"3 May 2024\"):\n</output>"}
        ]),
        512,
    );
    assert!(
        facts(&s).starts_with("- **Facts:** The user asked: The parser drops the last line of every file on Windows since 3 May"),
        "{s}"
    );
    assert!(!s.contains("<returncode>") && !s.contains("def parse"), "{s}");
}

#[test]
fn headings_and_comment_lines_are_no_facts() {
    let s = summary_of(
        serde_json::json!([
            {"role": "user", "content": "# Task Instructions\n## Important Boundaries\nDeploy Apex to Paris on 3 May."}
        ]),
        512,
    );
    assert!(
        !s.contains("Task Instructions") && !s.contains("Important Boundaries"),
        "{s}"
    );
    assert!(s.contains("Deploy Apex to Paris on 3 May"), "{s}");
}
