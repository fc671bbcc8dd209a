// One Compactor call stepped to its end: a CompactorCall (src/wasm/compactor/call.rs) says
// what it needs next, and each step kind has its method here that awaits the store or the
// summarizer and hands the answer back. The core decides everything else: the key of each
// summarizer request, the events to send and when, how much of the cached history to keep
// and which other conversations' histories it dropped.

import { revive } from "./binary.js";
import { ask } from "./compact.js";

/** @typedef {import("./types.d.ts").SummaryRequest} SummaryRequest */
/** @typedef {import("./types.d.ts").CompactorCallHandle} CompactorCallHandle */
/** @typedef {import("./types.d.ts").CompactorCoreHandle} CompactorCoreHandle */
/** @typedef {import("./types.d.ts").CompactorStep} CompactorStep */
/** @typedef {import("./types.d.ts").KeyedRequest} KeyedRequest */
/** @typedef {import("./types.d.ts").CoreEvent} CoreEvent */
/** @typedef {import("./types.d.ts").Asked} Asked */
/**
 * What a call's catch holds: anything, but ctxfold's own errors have a `code` and a `cause`.
 * @typedef {{ code?: unknown, cause?: unknown, found?: unknown } | null | undefined} Caught
 */

/**
 * What a call needs of its Compactor.
 * @typedef {object} Host
 * @property {import("./types.d.ts").Guard} g
 * @property {() => CompactorCoreHandle} core  the core (made afresh after a restart)
 * @property {Map<string, unknown[]>} items  per conversation: the history items the core caches, as JS objects
 * @property {(operation: "load" | "messages" | "write", id: string, ...args: unknown[]) => Promise<any>} store
 * @property {((request: SummaryRequest) => unknown) | null} summarizer  `null`: the extractive summary
 * @property {(id: string, key: string) => Promise<Asked> | null} takeMade  the summary made ahead for the request of `key`, taken
 * @property {(events: readonly CoreEvent[]) => void} emit
 */

const clock = () => (typeof performance === "object" ? performance.now() : Date.now());

/**
 * Steps one core call to its end and gives its result. `make(core)` makes it; `adding`: the
 * history items the call appends, as JSON copies made by the caller (the core's copies have
 * their keys sorted; these keep the caller's order, and are what is stored); `lock`: takes the
 * Web Lock a lazy call has not taken yet.
 * @param {Host} host
 * @param {string} id
 * @param {(core: CompactorCoreHandle) => CompactorCallHandle} make
 * @param {unknown[] | null} adding
 * @param {(() => Promise<void>) | null} lock
 * @returns {Promise<any>}
 */
export async function stepCall(host, id, make, adding, lock) {
  host.g.check();
  const core = host.core();
  const state = new CallState(host, id, adding, lock);
  try {
    state.call = make(core);
    return await state.run();
  } catch (e) {
    throw state.failed(e);
  } finally {
    state.end();
  }
}

/** One call's state while it is stepped, and a method per step kind. */
class CallState {
  /** @type {CompactorCallHandle | null} */
  call = null;
  /** The summarizer's first rejection: the cause of a SUMMARIZER_FAILED. @type {unknown} */
  firstRejection = undefined;
  started = clock();
  /** @type {number | null} */
  planned = null;
  waited = 0;
  /** Requests answered with summaries made ahead. */
  preparedAhead = 0;
  /** The stored history's length, as loaded. */
  metaLength = 0;
  /** What the write that landed appended. @type {unknown[]} */
  appended = [];
  /** The result, made with the batch while the store writes. @type {any} */
  early = null;
  /** The `compactionFailed` a failure sends, as the core said at the last step. @type {CoreEvent | null} */
  owed = null;

  /**
   * @param {Host} host
   * @param {string} id
   * @param {unknown[] | null} adding
   * @param {(() => Promise<void>) | null} lock
   */
  constructor(host, id, adding, lock) {
    this.host = host;
    this.id = id;
    this.adding = adding;
    this.lock = lock;
    this.since = host.g.restarts();
    /** @type {unknown[]} */
    this.items = host.items.get(id) ?? [];
  }

  /** The call, while the module that made it runs. */
  get live() {
    if (this.call === null) throw new Error("a Compactor call was used after it ended");
    return this.call;
  }

  /** After an await: the module was restarted meanwhile, the call with it. */
  resumed() {
    if (this.host.g.restarts() !== this.since) {
      this.call = null;
      throw this.host.g.restartedDuring(new Error("the module was restarted while this call waited"));
    }
  }

  /** @returns {Promise<any>} */
  async run() {
    for (;;) {
      const step = this.live.next();
      if (step.summarize || step.finish) this.planned ??= clock() - this.started;
      this.owed = step.owed ?? null;
      this.host.emit(step.events);
      if (step.load) await this.load();
      else if (step.read !== undefined) await this.read(step.read);
      else if (step.summarize) await this.summarize(step.summarize);
      else if (step.finish) this.finish();
      else if (step.write) await this.write(step.write, step.expect ?? 0);
      else if (step.done) return this.done();
      else throw new Error(`unknown step ${JSON.stringify(step)}`);
    }
  }

  async load() {
    const call = this.live;
    // A turn after this Compactor's own write goes on from what it wrote (the write checks
    // the version, so another writer's turn makes it load and redo the call).
    if (call.assumeCached(this.items.length)) return;
    if (this.lock !== null) {
      const t = clock();
      await this.lock();
      this.resumed();
      // The wait for the lock is no part of the call's timings.
      this.started += clock() - t;
    }
    const meta = await this.host.store("load", this.id);
    this.resumed();
    this.metaLength = meta?.length ?? 0;
    // The core keeps as much of its cache as it trusts; this copy keeps as much.
    this.items.length = Math.min(this.items.length, this.live.loaded(meta ?? null, this.items.length));
  }

  /** @param {number} from */
  async read(from) {
    const got = await this.host.store("messages", this.id, from);
    this.resumed();
    this.live.read(got);
    // The core took `metaLength - from` of them; so does this copy.
    this.items = this.items.slice(0, from);
    for (let k = 0; k < this.metaLength - from; k++) this.items.push(revive(got[k]));
  }

  /** @param {KeyedRequest[]} requests */
  async summarize(requests) {
    const { summarizer, takeMade } = this.host;
    if (summarizer === null) {
      this.live.submitExtractive();
      return;
    }
    const t = clock();
    const replies = await Promise.all(
      requests.map(({ key, request }) => {
        const made = takeMade(this.id, key);
        if (made === null) return ask(summarizer, request);
        this.preparedAhead++;
        // A summary that failed ahead is asked for again, now.
        return made.then((reply) => (reply.failed === undefined ? reply : ask(summarizer, request)));
      }),
    );
    this.waited += clock() - t;
    this.resumed();
    this.firstRejection ??= replies.find((r) => r.rejection !== undefined)?.rejection;
    this.live.submit(replies.map(({ value, failed }) => (failed === undefined ? { value } : { failed })));
  }

  finish() {
    const planned = this.planned ?? clock() - this.started;
    this.live.finish(planned, this.waited, clock() - this.started);
  }

  /**
   * @param {{ messages: unknown[] }} batch
   * @param {number} expect
   */
  async write(batch, expect) {
    if (this.adding !== null && this.adding.length === batch.messages.length) batch.messages = this.adding;
    const writing = this.host.store("write", this.id, expect, batch);
    writing.catch(() => {});
    // The core made its result with the batch: it crosses to JS while the store writes (a
    // stale write drops it, and the next attempt makes another).
    this.early = this.live.result();
    try {
      await writing;
    } catch (e) {
      const caught = /** @type {Caught} */ (e);
      if (caught?.code !== "STALE_WRITE") throw e;
      this.resumed();
      // Another writer got there first: the core loads again, or gives up.
      this.early = null;
      const stale = this.live.stale(typeof caught?.found === "number" ? caught.found : null, e);
      this.host.emit(stale.events);
      if (stale.error !== undefined) throw stale.error;
      await jitter();
      this.resumed();
      return;
    }
    this.resumed();
    this.live.written();
    this.appended = batch.messages;
  }

  done() {
    const result = this.early ?? this.live.result();
    for (const m of this.appended) this.items.push(revive(m));
    if (this.preparedAhead > 0) result.preparedAhead = this.preparedAhead;
    return result;
  }

  /**
   * The call failed with `e`: the error to throw, once the events the core says a failure
   * sends are sent (a call the module's restart took sends what the core said it owed).
   * @param {unknown} e
   * @returns {unknown}
   */
  failed(e) {
    const { g } = this.host;
    let err = /** @type {Caught} */ (g.recover(e));
    if (g.restarts() !== this.since) {
      this.call = null;
      if (err === e) err = /** @type {Caught} */ (g.restartedDuring(e));
    }
    if (err?.code === "SUMMARIZER_FAILED" && this.firstRejection !== undefined && err.cause === undefined) err.cause = this.firstRejection;
    /** @type {CoreEvent[]} */
    let events = this.owed === null ? [] : [/** @type {CoreEvent} */ ({ ...this.owed, error: err })];
    if (this.call !== null) {
      try {
        events = this.call.fail(err);
      } catch {
        // The module trapped meanwhile: what the core said it owed is sent.
      }
    }
    this.host.emit(events);
    return err;
  }

  /** Ends the call: this copy of the history keeps what the core keeps, and drops what it dropped. */
  end() {
    const { items: cache } = this.host;
    const call = this.call;
    cache.delete(this.id);
    if (call === null) return;
    try {
      const { kept, dropped } = call.end();
      for (const other of dropped) cache.delete(other);
      if (kept !== null) {
        this.items.length = Math.min(this.items.length, kept);
        cache.set(this.id, this.items);
      }
      call.free();
    } catch {
      // The module trapped meanwhile: the next call starts afresh.
      cache.delete(this.id);
    }
  }
}

/** A short random wait before trying again after a stale write, so two writers part. */
function jitter() {
  return new Promise((resolve) => setTimeout(resolve, Math.random() * 20));
}
