//! The AI SDK middleware's bound on the conversations it keeps: the core's [`Recent`], the
//! one least-recently-used rule in the package (the `Compactor`'s cache of histories is the
//! other user), for JavaScript. The middleware keeps each conversation's record in a map and
//! drops exactly the keys `put` says were dropped.

use wasm_bindgen::prelude::*;

use crate::session::recent::Recent;

/// At most `limit` keys, the one used least recently dropped first.
#[wasm_bindgen(js_name = RecentKeys, skip_typescript)]
pub struct RecentKeys(Recent<()>);

#[wasm_bindgen(js_class = RecentKeys)]
impl RecentKeys {
    /// Keeps at most `limit` keys (at least one).
    #[wasm_bindgen(constructor)]
    pub fn new(limit: u32) -> RecentKeys {
        RecentKeys(Recent::new(limit as usize))
    }

    /// Puts `key` as the one used last: the keys dropped to keep the bound, least recently
    /// used first (never `key`).
    pub fn put(&mut self, key: String) -> Vec<String> {
        self.0.put(key, ())
    }

    /// Forgets `key`: whether it was kept.
    pub fn forget(&mut self, key: &str) -> bool {
        self.0.take(key).is_some()
    }
}
