// What a trap leaves behind, handled: a wasm call that ends in a WebAssembly.RuntimeError
// (a panic, or running out of memory or stack) makes a fresh instance of the module and
// becomes a typed INTERNAL error; the next call runs on the fresh instance, which gets its
// loaded vocabularies and registered models back (src/wasm/lifecycle.rs). If even a fresh
// instance cannot be made, every later call fails with MODULE_POISONED.

import { ctxfoldError } from "./values.js";

/** How many times each module was made afresh (shared by every guard of one module). */
const restarts = new WeakMap();

/** @typedef {import("./types.d.ts").Raw} Raw */
/** @typedef {import("./types.d.ts").CtxfoldError} CtxfoldError */

/**
 * @param {Raw} raw  the wasm-bindgen module (built with --experimental-reset-state-function)
 */
export function guard(raw) {
  /** @type {unknown} what the failed restart threw, once it did */
  let poisoned = null;

  /** @returns {CtxfoldError} */
  function poisonedError() {
    const why = /** @type {Error | null} */ (poisoned)?.message ?? poisoned;
    return /** @type {CtxfoldError} */ (
      ctxfoldError("MODULE_POISONED", `the module trapped and could not be restarted (${why}); reload the page or restart the process`, { cause: poisoned })
    );
  }

  /**
   * The error to throw for `e`: a trap restarts the module and becomes INTERNAL.
   * @param {unknown} e
   * @returns {unknown}
   */
  function recover(e) {
    if (!(e instanceof WebAssembly.RuntimeError)) return e;
    try {
      raw.__wbg_reset_state();
    } catch (again) {
      poisoned = again;
      return poisonedError();
    }
    restarts.set(raw, (restarts.get(raw) ?? 0) + 1);
    // The fresh module words the error (the message is declared once, in Rust).
    const err = raw.__ctxfoldInternalError(`the WebAssembly module trapped (${e.message})`);
    err.cause = e;
    return err;
  }

  function check() {
    if (poisoned) throw poisonedError();
  }

  /**
   * `fn`, guarded: a trap inside it restarts the module and throws INTERNAL.
   * @template {(...args: any[]) => any} F
   * @param {F} fn
   * @returns {F}
   */
  function wrap(fn) {
    /**
     * @this {unknown}
     * @param {Parameters<F>} args
     * @returns {ReturnType<F>}
     */
    function guarded(...args) {
      check();
      try {
        return fn.apply(this, args);
      } catch (e) {
        throw recover(e);
      }
    }
    return /** @type {F} */ (guarded);
  }

  /** How many times the module was made afresh so far (objects from before are gone). */
  const count = () => restarts.get(raw) ?? 0;

  /**
   * INTERNAL for a call whose objects belonged to an instance made afresh meanwhile.
   * @param {unknown} e
   */
  function restartedDuring(e) {
    const err = raw.__ctxfoldInternalError("the module was restarted while this call was in progress");
    err.cause = e;
    return err;
  }

  return { wrap, recover, check, restarts: count, restartedDuring };
}
