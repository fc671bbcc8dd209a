use super::*;

#[test]
fn a_span_is_the_evicted_messages_as_ranges() {
    assert_eq!(span(&[9, 2, 3, 4, 8], 1, false), vec![[2, 5], [8, 10]]);
    assert!(span(&[], 1, true).is_empty());
    // Re-summarizing the summaries in force: from the head's end on.
    assert_eq!(span(&[1, 8, 9], 1, true), vec![[1, 10]]);
    assert_eq!(widen(&[[1, 2], [8, 12]], 2), vec![[1, 2], [2, 12]]);
    let old = vec![[2, 8]];
    assert_eq!(
        coverage(&[[1, 2], [8, 12]], &old),
        0.0,
        "the next additive compaction repeats nothing"
    );
    assert_eq!(coverage(&[[2, 12]], &old), 1.0);
    assert!((coverage(&[[5, 12]], &old) - 0.5).abs() < 1e-9);
    assert_eq!(coverage(&[[0, 3]], &[]), 0.0);
}

fn recent(seq: u32, turn: u32, freed: usize, enough: bool) -> RecentCompaction {
    RecentCompaction {
        seq,
        turn,
        at: None,
        span: vec![[2, 8]],
        freed,
        enough,
        refilled: false,
        automatic: true,
        undone: false,
    }
}

#[test]
fn the_back_off_doubles_up_to_its_cap_and_ends_when_a_compaction_holds() {
    let t = Tuning::new(&GuardOptions {
        backoff_max_turns: Some(Int(5)),
        ..GuardOptions::default()
    });
    let mut s = GuardState::default();
    let mut skipped = Vec::new();
    for seq in 0..4 {
        // A compaction on the first turn the back-off allows; the next turn refills.
        s.turn = s.backoff.until.max(s.turn);
        s.begin_turn(&t);
        s.recent.push(recent(seq, s.turn, 5000, true));
        s.begin_turn(&t);
        let note = s.refilled(&t).expect("a refill");
        assert!(s.skipping());
        skipped.push(note.turns);
    }
    assert_eq!(skipped, vec![2, 4, 5, 5]);
    // A compaction that frees enough and holds past the refill window ends it.
    s.turn = s.backoff.until;
    s.recent.push(recent(9, s.turn, 5000, true));
    assert!(s.begin_turn(&t).is_none() && s.begin_turn(&t).is_none());
    let end = s.begin_turn(&t).expect("ended");
    assert_eq!((end.level, s.backoff.level), (0, 0));
}

#[test]
fn the_breaker_opens_after_the_failures_and_half_opens_after_the_cool_down() {
    let t = Tuning::new(&GuardOptions {
        breaker_cooldown_turns: Some(Int(3)),
        ..GuardOptions::default()
    });
    let mut s = GuardState::default();
    let c = |seq, failure: Option<&str>| Compacted {
        seq,
        automatic: true,
        span: vec![[seq as usize, seq as usize + 1]],
        freed: 5000,
        optional: true,
        window: 10_000,
        at: None,
        asked: true,
        failure: failure.map(String::from),
    };
    assert!(s.compacted(&t, &c(0, Some("x"))).1.is_none());
    assert!(s.compacted(&t, &c(1, Some("x"))).1.is_none());
    let open = s.compacted(&t, &c(2, Some("x"))).1.unwrap();
    assert_eq!(
        (open.change, open.failures, open.until_turn),
        (BreakerChange::Opened, 3, Some(3))
    );
    assert!(s.breaker_open(&t).is_some());
    s.turn = 3;
    assert!(
        s.breaker_open(&t).is_none(),
        "half-open: the next compaction calls the summarizer"
    );
    let again = s.compacted(&t, &c(3, Some("x"))).1.unwrap();
    assert_eq!((again.change, again.until_turn), (BreakerChange::Opened, Some(6)));
    s.turn = 6;
    let closed = s.compacted(&t, &c(4, None)).1.unwrap();
    assert_eq!(closed.change, BreakerChange::Closed);
    assert_eq!(s.breaker, BreakerState::default());
    // Off: never opens.
    let off = Tuning::new(&GuardOptions {
        breaker_failures: Some(Int(0)),
        ..GuardOptions::default()
    });
    let mut s = GuardState::default();
    for seq in 0..5 {
        assert!(s.compacted(&off, &c(seq, Some("x"))).1.is_none());
    }
}

#[test]
fn a_compaction_that_frees_too_little_starts_the_back_off() {
    // (A conversation whose compactions freed nothing was an engine defect, fixed: a
    // compaction now lands below its threshold; the rule is checked here.)
    let t = Tuning::new(&GuardOptions::default());
    let c = |seq, freed, optional| Compacted {
        seq,
        automatic: true,
        span: vec![[1, 5]],
        freed,
        optional,
        window: 10_000,
        at: None,
        asked: false,
        failure: None,
    };
    let mut s = GuardState::default();
    // A tenth of the window is enough.
    assert!(s.compacted(&t, &c(1, 1_000, true)).0.is_none());
    let b = s.compacted(&t, &c(2, 999, true)).0.expect("a back-off");
    assert!(b.level >= 1 && b.turns >= 2, "{b:?}");
    assert!(
        b.reason.contains("freed 999 tokens") && b.reason.contains("less than 10 %"),
        "{}",
        b.reason
    );
    // At the default threshold (the input budget) no compaction is optional: none to skip.
    let mut s = GuardState::default();
    assert!(s.compacted(&t, &c(1, 0, false)).0.is_none());
}
