//! The conversations used last: a map of at most `limit` entries that drops the one used
//! least recently when a new one comes, and says which it dropped (the face mirrors the
//! core's cache of histories with it, so the two never disagree on what is cached).

use std::collections::HashMap;

/// At most `limit` values by key, each with when it was last put back.
#[derive(Debug)]
pub struct Recent<V> {
    entries: HashMap<String, (V, u64)>,
    limit: usize,
    /// Counts puts: a later put is a more recent use, so no two entries tie.
    clock: u64,
}

impl<V> Recent<V> {
    /// An empty map that keeps at most `limit` entries (at least one).
    pub fn new(limit: usize) -> Self {
        Recent {
            entries: HashMap::new(),
            limit: limit.max(1),
            clock: 0,
        }
    }

    /// Keeps at most `limit` entries from the next put on (at least one).
    pub fn set_limit(&mut self, limit: usize) {
        self.limit = limit.max(1);
    }

    /// Puts `value` under `key` as the one used last, and drops the ones used least recently
    /// while there are more than the limit (never `key`): returns the keys it dropped.
    pub fn put(&mut self, key: String, value: V) -> Vec<String> {
        self.clock += 1;
        self.entries.insert(key.clone(), (value, self.clock));
        let mut dropped = Vec::new();
        while self.entries.len() > self.limit {
            let oldest = (self.entries.iter())
                .filter(|(k, _)| **k != key)
                .min_by_key(|(_, (_, used))| *used)
                .map(|(k, _)| k.clone());
            let Some(k) = oldest else { break };
            self.entries.remove(&k);
            dropped.push(k);
        }
        dropped
    }

    /// Takes the value under `key` out (a call holds it while it runs).
    pub fn take(&mut self, key: &str) -> Option<V> {
        self.entries.remove(key).map(|(v, _)| v)
    }

    /// The value under `key`, its use not counted.
    pub fn get(&self, key: &str) -> Option<&V> {
        self.entries.get(key).map(|(v, _)| v)
    }

    /// How many entries are kept.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether none is kept.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::Recent;

    #[test]
    fn drops_the_least_recently_used_and_says_so() {
        let mut r = Recent::new(2);
        assert!(r.put("a".into(), 1).is_empty());
        assert!(r.put("b".into(), 2).is_empty());
        // "a" used again: "b" is now the least recent.
        let a = r.take("a").unwrap();
        assert!(r.put("a".into(), a).is_empty());
        assert_eq!(r.put("c".into(), 3), vec!["b".to_owned()]);
        assert_eq!(r.len(), 2);
        assert_eq!(r.get("a"), Some(&1));
        assert_eq!(r.get("b"), None);
        assert_eq!(r.get("c"), Some(&3));
    }

    #[test]
    fn a_put_under_a_kept_key_replaces_it_and_drops_nothing() {
        let mut r = Recent::new(2);
        r.put("a".into(), 1);
        r.put("b".into(), 2);
        assert!(r.put("a".into(), 10).is_empty());
        assert_eq!(r.get("a"), Some(&10));
        assert_eq!(r.put("c".into(), 3), vec!["b".to_owned()]);
    }

    #[test]
    fn a_lower_limit_drops_as_many_as_it_must_oldest_first() {
        let mut r = Recent::new(5);
        for (k, v) in [("a", 1), ("b", 2), ("c", 3), ("d", 4)] {
            r.put(k.into(), v);
        }
        r.set_limit(2);
        assert_eq!(
            r.put("e".into(), 5),
            vec!["a".to_owned(), "b".to_owned(), "c".to_owned()]
        );
        assert_eq!(r.len(), 2);
        // The key put is never the one dropped, even at a limit of one.
        r.set_limit(0);
        assert_eq!(r.put("f".into(), 6), vec!["d".to_owned(), "e".to_owned()]);
        assert_eq!(r.get("f"), Some(&6));
        assert!(!r.is_empty());
    }
}
