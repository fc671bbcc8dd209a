// One queue per key: the calls on one conversation (a Compactor's, the AI SDK middleware's)
// run one after another. A map holds, per key, the promise the next task waits on; the entry
// goes when the last task of its key settles, so a key used once takes no room after.

/** @typedef {Map<unknown, Promise<unknown>>} Queues */

/**
 * `promise` settled, its value or rejection dropped.
 * @param {Promise<unknown>} promise
 * @returns {Promise<void>}
 */
export const quiet = (promise) =>
  promise.then(
    () => {},
    () => {},
  );

/**
 * Keeps `promise` (one that never rejects) as the latest under `key` in `map`, for the next to
 * wait on, until it settles with none after it.
 * @template K
 * @param {Map<K, Promise<unknown>>} map
 * @param {K} key
 * @param {Promise<unknown>} promise
 */
export function latest(map, key, promise) {
  map.set(key, promise);
  promise.then(() => {
    if (map.get(key) === promise) map.delete(key);
  });
}

/**
 * Runs `task` after every earlier task of `key` has settled (resolved or rejected), and
 * returns what it returns.
 * @template K, T
 * @param {Map<K, Promise<unknown>>} map  the queues (one per key)
 * @param {K} key
 * @param {() => T | PromiseLike<T>} task
 * @returns {Promise<T>}
 */
export function serial(map, key, task) {
  const before = map.get(key) ?? Promise.resolve();
  const run = before.then(task);
  latest(map, key, quiet(run));
  return run;
}
