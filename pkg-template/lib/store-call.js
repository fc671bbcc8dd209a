// A Compactor's calls of its store, each with its deadline: a rejection becomes a
// STORE_ERROR naming the method and the conversation (a stale write stays the caller's to
// see), and so does no answer within `storeTimeoutMs`.

/** @typedef {"load" | "messages" | "write" | "summaries" | "records" | "list" | "delete"} StoreOperation */
/** A store as this file calls it: by the name of a method. @typedef {Record<string, any>} AnyStore */

/** What a store call's deadline rejects with (never seen outside this file). */
const DEADLINE = Symbol("deadline");

/**
 * A store call, its rejection a STORE_ERROR, and so is no answer within `timeoutMs`: the
 * call goes on without it, its lock released. (A write that lands after its deadline moved
 * the stored version, so the next write is refused as stale and loads again.) The store is
 * called at once, in the caller's task.
 * @param {import("./types.d.ts").Raw} raw
 * @param {object} store
 * @param {number} timeoutMs
 * @param {StoreOperation} operation
 * @param {string} id
 * @param {unknown[]} args
 * @returns {Promise<any>}
 */
export async function callStore(raw, store, timeoutMs, operation, id, args) {
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let timer;
  const methods = /** @type {AnyStore} */ (store);
  try {
    const answer = operation === "list" ? methods.list() : methods[operation](id, ...args);
    const deadline = new Promise((_, reject) => {
      timer = setTimeout(() => reject(DEADLINE), timeoutMs);
    });
    return await Promise.race([answer, deadline]);
  } catch (e) {
    if (e === DEADLINE) {
      throw raw.__ctxfoldStoreError(operation, id, `no answer within ${timeoutMs} ms (options.storeTimeoutMs); the Compactor went on without it`);
    }
    if (operation === "write" && /** @type {{ code?: unknown } | null | undefined} */ (e)?.code === "STALE_WRITE") throw e;
    const err = raw.__ctxfoldStoreError(operation, id, describeError(e));
    err.cause = e;
    throw err;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * What a store's error says, for the STORE_ERROR's message.
 * @param {any} e  a rejection: any value, even one whose getters throw
 * @returns {string}
 */
function describeError(e) {
  try {
    if (typeof e?.message === "string") return `${e.name ?? "Error"}: ${e.message}`;
    if (typeof e === "string") return `it rejected with ${JSON.stringify(e)}`;
    return `it rejected with ${e === null ? "null" : typeof e}`;
  } catch {
    // A getter that throws.
    return "it rejected with a value that cannot be read";
  }
}
