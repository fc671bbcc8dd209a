// The keys used last, as the core keeps them (src/session/recent.rs, through the module's
// RecentKeys): the one least-recently-used rule of the package, which bounds the AI SDK
// middleware's conversations as it bounds the Compactor's cache of histories. The caller
// keeps its values in a map of its own and deletes the keys `use` says were dropped.

/** @typedef {import("./types.d.ts").Raw} Raw */
/** @typedef {import("./types.d.ts").Guard} Guard */
/** @typedef {import("./types.d.ts").RecentKeysHandle} RecentKeysHandle */

/**
 * At most `limit` keys. The module's object is made when first used, and made again after
 * the module restarts (a trap elsewhere frees every object of the old instance): the keys
 * `held` says the caller holds are put back first, in the order it gives them.
 * @param {Raw} raw
 * @param {Guard} g
 * @param {number} limit
 * @param {() => Iterable<string>} held
 */
export function recentKeys(raw, g, limit, held) {
  /** @type {RecentKeysHandle | null} */
  let keys = null;
  let since = -1;

  /** @returns {RecentKeysHandle} */
  function current() {
    if (keys !== null && since === g.restarts()) return keys;
    since = g.restarts();
    // (A bound past 2^32 - 1 keys is no bound: the module's count is 32 bits.)
    const fresh = new raw.RecentKeys(Math.min(limit, 2 ** 32 - 1));
    for (const key of held()) fresh.put(key);
    keys = fresh;
    return fresh;
  }

  return {
    /**
     * Puts `key` as the one used last: the keys dropped to keep the bound (never `key`).
     * @param {string} key
     * @returns {string[]}
     */
    use: g.wrap((key) => current().put(key)),
    /**
     * Forgets `key`.
     * @param {string} key
     */
    forget: g.wrap((key) => void current().forget(key)),
  };
}
