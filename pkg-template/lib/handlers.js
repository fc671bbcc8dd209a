// A Compactor's event handlers, by event name: the names are the core's, and so is every
// event sent (which, when, with what in it); this keeps the handlers and calls them.

import { invalidArgument as typeError, kindOf } from "./values.js";

/** @typedef {import("./types.d.ts").CoreEvent} CoreEvent */
/** @typedef {(event: any) => unknown} Handler */

export class Handlers {
  /** @type {readonly string[]} */
  #names;
  /** @type {Map<string, Set<Handler>>} */
  #sets;

  /** @param {readonly string[]} names  the events' names, as the core declares them */
  constructor(names) {
    this.#names = names;
    this.#sets = new Map(names.map((e) => [e, new Set()]));
  }

  /** @param {string} name */
  has(name) {
    return this.#sets.has(name);
  }

  /**
   * Adds `handler` for `name`: a function, for an event the core declares.
   * @param {string} name
   * @param {unknown} handler
   */
  add(name, handler) {
    const set = this.#set(name);
    if (typeof handler !== "function") {
      throw typeError("handler", `a function for ${JSON.stringify(name)}, got ${kindOf(handler)}`);
    }
    set.add(/** @type {Handler} */ (handler));
  }

  /**
   * @param {string} name
   * @param {unknown} handler
   */
  remove(name, handler) {
    this.#set(name).delete(/** @type {Handler} */ (handler));
  }

  /** @param {string} name */
  #set(name) {
    const set = this.#sets.get(name);
    if (!set) throw typeError("name", `one of ${this.#names.map((e) => JSON.stringify(e)).join(", ")}, got ${JSON.stringify(String(name))}`);
    return set;
  }

  /**
   * Sends each of `events` (as the core made them) to the handlers of its name. A handler's
   * error is reported, never the call's: what the call did is stored already.
   * @param {readonly CoreEvent[]} events
   */
  emit(events) {
    for (const event of events) {
      for (const handler of [...(this.#sets.get(event.type) ?? [])]) {
        try {
          const returned = handler(event);
          // An async handler's rejection too (unhandled, it would end a Node process).
          if (isThenable(returned)) returned.then(undefined, reportHandlerError);
        } catch (e) {
          reportHandlerError(e);
        }
      }
    }
  }
}

/**
 * Whether `value` is a promise (or promise-like).
 * @param {unknown} value
 * @returns {value is PromiseLike<unknown>}
 */
function isThenable(value) {
  return typeof (/** @type {{ then?: unknown } | null | undefined} */ (value)?.then) === "function";
}

/** @param {unknown} e */
function reportHandlerError(e) {
  if (typeof globalThis.reportError === "function") globalThis.reportError(e);
  else console.error(e);
}
