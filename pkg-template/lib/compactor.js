// The Compactor's JavaScript: the class, which awaits its store and summarizer; each call is
// stepped by compactor-call.js over a CompactorCall (src/wasm/compactor/call.rs), as compact.js
// steps a CompactCall; the per-conversation lock. handlers.js keeps the event handlers,
// store-call.js gives each store call its deadline, and the stores ctxfold ships beside
// IndexedDBStore are in stores.js. Everything the core decides (what to read, what to write,
// what the input is, which events fire, which summary made ahead answers a request, which
// cached histories go) comes from the core; these files only do the awaiting.

import { copies, revive } from "./binary.js";
import { ask, compactWith } from "./compact.js";
import { stepCall } from "./compactor-call.js";
import { Handlers } from "./handlers.js";
import { runCommand } from "./commands.js";
import { lockNotices } from "./locks.js";
import { latest, quiet, serial } from "./serial.js";
import { callStore } from "./store-call.js";
import { refusalsWith } from "./refusal.js";
import { storesWith } from "./stores.js";
import { invalidArgument as typeError, kindOf } from "./values.js";

/** @typedef {import("./types.d.ts").Raw} Raw */
/** @typedef {import("./types.d.ts").Guard} Guard */
/** @typedef {import("./types.d.ts").CompactorCoreHandle} CompactorCoreHandle */
/** @typedef {import("./types.d.ts").CompactorCallHandle} CompactorCallHandle */
/** @typedef {import("./types.d.ts").Asked} Asked */
/** @typedef {import("./types.d.ts").SummaryRequest} SummaryRequest */
/** @typedef {(event: any) => unknown} Handler */
/** @typedef {"read" | "write" | "lazy"} Mode */
/** @typedef {(() => Promise<void>) | null} Lock */
/** A summary made ahead: its request's key (the core's), and the reply. @typedef {{ key: string, failed: boolean, reply: Promise<Asked> }} Made */

const STORE_METHODS = ["load", "messages", "write", "summaries", "records", "list", "delete"];

const now = () => new Date().toISOString();

/**
 * @param {Raw} raw  the wasm-bindgen module
 * @param {Guard} g
 */
export function compactorWith(raw, g) {
  const compact = compactWith(raw, g);
  /** The events' names, as the core declares them. */
  const EVENTS = raw.CompactorCore.events();
  const notices = lockNotices();
  const staleWriteError = g.wrap(raw.staleWriteError);
  const refusals = refusalsWith(raw, g);
  const { MemoryStore, durableObjectStore } = storesWith(g.wrap(raw.checkWrite));
  // The reading calls' core functions (src/session/views.rs): JS passes the store's answers in.
  const views = {
    history: g.wrap((id, meta, messages, records) => raw.CompactorCore.history(id, meta, messages, records)),
    records: g.wrap((id, meta, records) => raw.CompactorCore.records(id, meta, records)),
    summaries: g.wrap((id, summaries) => raw.CompactorCore.summaries(id, summaries)),
    list: g.wrap((ids) => raw.CompactorCore.list(ids)),
    export: g.wrap((id, meta, messages, summaries, records) => raw.CompactorCore.export(id, meta, messages, summaries, records)),
    importOver: g.wrap((id, existing, overwrite) => raw.CompactorCore.importOver(id, existing, overwrite)),
  };

  class Compactor {
    /** The user's options object, as given: the core reads it again after a trap. @type {Record<string, unknown>} */
    #given;
    /** compact()'s options (what `/new` compacts with): the given ones less the core's `ownKeys`. @type {Record<string, unknown>} */
    #options;
    /** @type {((request: SummaryRequest) => unknown) | null} */
    #summarizer;
    /** @type {number} */
    #storeTimeoutMs;
    /** @type {CompactorCoreHandle | null} */
    #core = null;
    #since = -1;
    /** Per conversation: the history items the core caches, as JS objects (what `prepare` returns). @type {Map<string, unknown[]>} */
    #items = new Map();
    /** Per conversation: the tail of its chain of calls. @type {Map<string, Promise<void>>} */
    #chains = new Map();
    #handlers = new Handlers(EVENTS);
    /** `true` when the core says `prepareAhead` is on (undefined: off), and `waitUntil`. @type {true | undefined} */
    #ahead;
    /** @type {((promise: Promise<unknown>) => void) | undefined} */
    #waitUntil;
    /** Per conversation: summaries made ahead, `{ key, reply }` (the key is the request's). @type {Map<string, Made[]>} */
    #made = new Map();
    /** Per conversation: the background work in flight. @type {Map<string, Promise<number>>} */
    #pending = new Map();
    /** Per conversation: the latest `prepareAhead` planning (the next one starts after it, not after its summaries). @type {Map<string, Promise<void>>} */
    #planning = new Map();

    /** @param {any} options */
    constructor(options) {
      g.check();
      if (options === null || typeof options !== "object" || Array.isArray(options)) {
        throw typeError("options", `an options object, got ${kindOf(options)}`);
      }
      const { store = new MemoryStore(), on, waitUntil } = options;
      if (store === null || typeof store !== "object") throw typeError("options.store", `a CompactorStore, got ${kindOf(store)}`);
      for (const m of STORE_METHODS) {
        if (typeof store[m] !== "function") throw typeError(`options.store.${m}`, `a function (the CompactorStore interface), got ${kindOf(store[m])}`);
      }
      if (waitUntil !== undefined && typeof waitUntil !== "function")
        throw typeError("options.waitUntil", `a function (ctx.waitUntil.bind(ctx)), got ${kindOf(waitUntil)}`);
      this.#given = { ...options };
      this.#waitUntil = waitUntil;
      this.store = store;
      // The core reads and checks the options now (a bad one throws here, not at the first
      // call) and gives what the calls await by, its defaults applied.
      const { storeTimeoutMs, prepareAhead, ownKeys } = this.#ensureCore().settings;
      this.#storeTimeoutMs = storeTimeoutMs;
      this.#ahead = prepareAhead ? true : undefined;
      this.#options = Object.fromEntries(Object.entries(options).filter(([k]) => !ownKeys.includes(k)));
      this.#summarizer = typeof options.summarizer === "function" ? options.summarizer : null;
      if (on !== undefined) {
        if (on === null || typeof on !== "object" || Array.isArray(on)) throw typeError("options.on", `an object of event handlers, got ${kindOf(on)}`);
        for (const [name, handler] of Object.entries(on)) {
          if (!this.#handlers.has(name)) throw typeError(`options.on.${name}`, `no such event (known: ${EVENTS.join(", ")})`);
          if (typeof handler !== "function") throw typeError(`options.on.${name}`, `a function, got ${kindOf(handler)}`);
          this.on(name, /** @type {Handler} */ (handler));
        }
      }
    }

    /**
     * The core, made afresh after a trap restarted the module (its caches went with it).
     * @returns {CompactorCoreHandle}
     */
    #ensureCore() {
      if (this.#core === null || this.#since !== g.restarts()) {
        this.#items.clear();
        this.#since = g.restarts();
        try {
          this.#core = new raw.CompactorCore(this.#given, Math.floor(Math.random() * 2 ** 52));
        } catch (e) {
          throw g.recover(e);
        }
      }
      return this.#core;
    }

    /**
     * @param {string} name
     * @param {Handler} handler
     */
    on(name, handler) {
      this.#handlers.add(name, handler);
      return () => this.off(name, handler);
    }

    /**
     * @param {string} name
     * @param {Handler} handler
     */
    off(name, handler) {
      this.#handlers.remove(name, handler);
    }

    /**
     * Runs `fn(lock)` after every earlier call on `id` (see #shared for `lock` and `mode`).
     * @template T
     * @param {string} id
     * @param {(lock: Lock) => Promise<T>} fn
     * @param {Mode} mode
     * @returns {Promise<T>}
     */
    #locked(id, fn, mode) {
      return serial(this.#chains, id, () => this.#shared(id, fn, mode));
    }

    /**
     * Runs `fn(lock)`, for a shared store (a `lockName`, where `navigator.locks` exists) under
     * the conversation's Web Lock, so tabs take turns. `mode`: "read" (a call that writes
     * nothing), "write", or "lazy" (`prepare`, `commit`): a lazy call starts without the lock,
     * and `lock()` takes it before the call reads the store, which it does unless it goes on
     * from its cache (cold, after a stale write, and always before the summarizer is asked).
     * So a warm turn that does not compact is one version-checked write with no lock to wait
     * for, and a compaction holds the lock from its load to its write. Taking the lock for a
     * call that writes is said to the other Compactors of the origin (`lockNotices`): while it
     * is held, their lazy calls on the conversation take it from the start, so an append does
     * not make a compaction's write stale (and, after a stale write, the tabs take turns
     * until they stop racing: a Compactor's own notices do not count for itself).
     * @template T
     * @param {string} id
     * @param {(lock: Lock) => Promise<T>} fn
     * @param {Mode} mode
     * @returns {Promise<T>}
     */
    async #shared(id, fn, mode) {
      const lockName = typeof this.store.lockName === "string" ? this.store.lockName : null;
      const locks = lockName !== null ? globalThis.navigator?.locks : undefined;
      if (!locks) return fn(null);
      const name = `ctxfold:${lockName}:${id}`;
      /**
       * @template R
       * @param {() => Promise<R>} work
       */
      const held = async (work) => {
        const stop = mode === "read" ? null : notices.hold(name, this);
        try {
          return await work();
        } finally {
          stop?.();
        }
      };
      if (mode !== "lazy" || notices.busy(name, this)) return locks.request(name, () => held(() => fn(null)));
      let ended = false;
      // (Typed by an assertion: a declared type would be narrowed to null, the closure's assignment unseen.)
      let release = /** @type {((value?: unknown) => void) | null} */ (null);
      /** @type {Promise<void> | null} */
      let taking = null;
      const lock = () =>
        (taking ??= new Promise((granted, failed) => {
          locks
            .request(name, () => {
              // A call that ended meanwhile (a restart) lets go at once.
              if (ended) return undefined;
              const holding = held(() => new Promise((resolve) => (release = resolve)));
              granted();
              return holding;
            })
            .catch(failed);
        }));
      try {
        return await fn(lock);
      } finally {
        ended = true;
        release?.();
      }
    }

    /**
     * A store call with its deadline (store-call.js).
     * @param {import("./store-call.js").StoreOperation} operation
     * @param {string} id
     * @param {...unknown} args
     * @returns {Promise<any>}
     */
    #store(operation, id, ...args) {
      return callStore(raw, this.store, this.#storeTimeoutMs, operation, id, args);
    }

    /**
     * Steps one core call to its end (compactor-call.js). `make(core)` makes it; `adding`: the
     * history items the call appends, as JSON copies made here (the core's copies have their
     * keys sorted; these keep the caller's order, and are what is stored); `lock`: takes the
     * Web Lock a lazy call has not taken yet (see #shared).
     * @param {string} id
     * @param {(core: CompactorCoreHandle) => CompactorCallHandle} make
     * @param {unknown[] | null} [adding]
     * @param {Lock} [lock]
     * @returns {Promise<any>}
     */
    #step(id, make, adding = null, lock = null) {
      /** @type {import("./compactor-call.js").Host} */
      const host = {
        g,
        core: () => this.#ensureCore(),
        items: this.#items,
        store: (operation, id, ...args) => this.#store(operation, id, ...args),
        summarizer: this.#summarizer,
        takeMade: (id, key) => this.#takeMade(id, key),
        emit: (events) => this.#handlers.emit(events),
      };
      return stepCall(host, id, make, adding, lock);
    }

    /**
     * The input of a prepared result, as messages: stored items where kept.
     * @param {string} id
     * @param {{ pieces: (number | { item: unknown, of?: number })[], [rest: string]: unknown }} result
     * @returns {{ messages: unknown[], [rest: string]: any }}
     */
    #input(id, result) {
      const items = this.#items.get(id) ?? [];
      const { pieces, ...rest } = result;
      const messages = pieces.map((p) => {
        if (typeof p === "number") return items[p];
        // A changed copy of a stored message: the parts not changed are the stored ones.
        return p.of === undefined ? p.item : raw.__ctxfoldRestoreOriginal(p.item, items[p.of]);
      });
      return { messages, ...rest };
    }

    /**
     * A prepared result as the caller gets it, once the events the core gave with it are sent.
     * @param {string} id
     * @param {any} result
     */
    #prepared(id, result) {
      const { events, madeAheadSpent, ...rest } = result;
      const out = this.#input(id, rest);
      out.preparedAhead ??= 0;
      if (madeAheadSpent) this.#made.delete(id);
      this.#handlers.emit(events);
      return out;
    }

    /**
     * @param {unknown} id
     * @returns {string}
     */
    #id(id) {
      try {
        return raw.CompactorCore.checkId(id);
      } catch (e) {
        throw g.recover(e);
      }
    }

    /**
     * @param {unknown} conversationId
     * @param {unknown} newMessages
     */
    prepare(conversationId, newMessages) {
      return this.#call(
        conversationId,
        async (id, lock) => {
          const { core: copy, stored } = copies(newMessages);
          const held = /** @type {any} */ (stored);
          const adding = Array.isArray(held) ? held : Array.isArray(held?.messages) ? held.messages : null;
          const result = await this.#step(id, (core) => core.prepare(id, copy, now()), adding, lock);
          return this.#prepared(id, result);
        },
        "lazy",
      );
    }

    /**
     * @param {unknown} conversationId
     * @param {unknown} reply
     * @param {unknown} usage
     */
    commit(conversationId, reply, usage) {
      return this.#call(
        conversationId,
        async (id, lock) => {
          const { core: copy, stored } = copies(reply);
          const adding = Array.isArray(stored) ? stored : stored !== null && typeof stored === "object" ? [stored] : null;
          const committed = await this.#step(id, (core) => core.commit(id, copy, usage, now()), adding, lock);
          if (this.#ahead !== undefined && this.#summarizer !== null) this.#planAhead(id);
          return committed;
        },
        "lazy",
      );
    }

    /**
     * Resolves when the summaries `prepareAhead` is making for `conversationId` are made (at
     * once when none are), with how many it made.
     * @param {unknown} conversationId
     * @returns {Promise<number>}
     */
    whenPrepared(conversationId) {
      try {
        g.check();
        return this.#pending.get(this.#id(conversationId)) ?? Promise.resolve(0);
      } catch (e) {
        return Promise.reject(e);
      }
    }

    /**
     * Starts making, in the background, the summaries the next turn's compaction will ask
     * for (the core says which: none below the soft threshold). A request already made or
     * in flight is not asked again. Queued behind the commit that started it (it runs after
     * the commit's lock is released) and the planning before it, not its summaries: a commit
     * that comes while they are asked for plans at once. Only the planning takes the lock.
     * @param {string} id
     */
    #planAhead(id) {
      const summarizer = this.#summarizer;
      if (summarizer === null) return;
      const previous = this.#planning.get(id) ?? Promise.resolve();
      const planned = previous
        // Writes nothing: the lock only when it must load (a cold cache), as a warm turn.
        .then(() => this.#locked(id, (lock) => this.#step(id, (core) => core.ahead(id, now()), null, lock), "lazy"))
        .then((/** @type {import("./types.d.ts").KeyedRequest[]} */ requests) => {
          if (requests.length === 0) return [];
          // What is made or in flight for the same request is kept; one that failed is asked again.
          const old = new Map((this.#made.get(id) ?? []).filter((e) => !e.failed).map((e) => [e.key, e]));
          const entries = requests.map(({ key, request }) => {
            const kept = old.get(key);
            if (kept) return kept;
            /** @type {Made} */
            const entry = { key, failed: false, reply: ask(summarizer, request) };
            entry.reply.then((reply) => (entry.failed = reply.failed !== undefined));
            return entry;
          });
          this.#made.set(id, entries);
          return entries;
        });
      latest(this.#planning, id, quiet(planned));
      const work = planned
        .then((entries) => Promise.all(entries.map((e) => e.reply)).then((replies) => replies.filter((r) => r.failed === undefined).length))
        .catch((e) => {
          // Background work reports and ends: the turn that needs the summary makes it.
          if (typeof globalThis.reportError === "function") globalThis.reportError(e);
          return 0;
        });
      latest(this.#pending, id, work);
      if (this.#waitUntil !== undefined) this.#waitUntil(work);
    }

    /**
     * The summary made ahead for the request whose key (the core's) is `key`, taken (`null`: none).
     * @param {string} id
     * @param {string} key
     * @returns {Promise<Asked> | null}
     */
    #takeMade(id, key) {
      const entries = this.#made.get(id);
      if (entries === undefined) return null;
      const k = entries.findIndex((e) => e.key === key);
      if (k < 0) return null;
      const [entry] = entries.splice(k, 1);
      if (entries.length === 0) this.#made.delete(id);
      return entry.reply;
    }

    /**
     * @param {unknown} conversationId
     * @param {unknown} [options]
     */
    compact(conversationId, options) {
      return this.#call(conversationId, async (id) => {
        const result = await this.#step(id, (core) => core.compact(id, options, now()));
        return this.#prepared(id, result);
      });
    }

    /** @param {unknown} conversationId */
    prune(conversationId) {
      return this.#call(conversationId, async (id) => {
        const result = await this.#step(id, (core) => core.prune(id, now()));
        return this.#prepared(id, result);
      });
    }

    /**
     * The provider refused the input the last prepare returned as too long: that input planned
     * again below its limit. Any other error rejects as it was.
     * @param {unknown} conversationId
     * @param {unknown} error
     */
    async overflowed(conversationId, error) {
      const refusal = refusals.read(error);
      if (refusal === null) throw error;
      return this.#call(conversationId, async (id) => {
        const result = await this.#step(id, (core) => core.overflowed(id, refusal, now()));
        return this.#prepared(id, result);
      });
    }

    /**
     * @param {unknown} conversationId
     * @param {unknown} text
     */
    async command(conversationId, text) {
      g.check();
      const id = this.#id(conversationId);
      return runCommand(/** @type {any} */ (this), id, /** @type {string} */ (text), {
        options: /** @type {any} */ (this.#options),
        compact: /** @type {any} */ (compact),
      });
    }

    /** @param {unknown} conversationId */
    undo(conversationId) {
      return this.#call(conversationId, (id) => this.#step(id, (core) => core.undo(id, now())));
    }

    /** @param {unknown} conversationId */
    status(conversationId) {
      return this.#call(conversationId, (id) => this.#step(id, (core) => core.status(id)), "read");
    }

    /**
     * @param {unknown} conversationId
     * @param {unknown} query
     * @param {unknown} [options]
     */
    search(conversationId, query, options) {
      return this.#call(conversationId, (id) => this.#step(id, (core) => core.search(id, query, options)), "read");
    }

    /**
     * @param {unknown} conversationId
     * @param {unknown} args
     */
    recall(conversationId, args) {
      return this.#call(conversationId, (id) => this.#step(id, (core) => core.recall(id, args)), "read");
    }

    /**
     * @param {unknown} conversationId
     * @param {unknown} options
     */
    recallTool(conversationId, options) {
      g.check();
      const id = this.#id(conversationId);
      let definition;
      try {
        definition = raw.CompactorCore.recallTool(options);
      } catch (e) {
        throw g.recover(e);
      }
      // The AI SDK's shape (the only one with an input schema) runs the tool itself.
      if ("inputSchema" in definition) definition.execute = (/** @type {unknown} */ args) => this.recall(id, args).then((r) => r.text);
      return definition;
    }

    /** @param {unknown} conversationId */
    history(conversationId) {
      return this.#call(
        conversationId,
        async (id) => {
          const meta = await this.#store("load", id);
          // The rest is read only for a conversation the store holds (`load` gave a meta).
          const [messages, records] = meta == null ? [] : await Promise.all([this.#store("messages", id, 0), this.#store("records", id)]);
          const entries = views.history(id, meta, messages, records);
          for (const entry of entries) entry.message = revive(entry.message);
          return entries;
        },
        "read",
      );
    }

    /** @param {unknown} conversationId */
    summaries(conversationId) {
      return this.#call(conversationId, async (id) => views.summaries(id, await this.#store("summaries", id)), "read");
    }

    /** @param {unknown} conversationId */
    records(conversationId) {
      return this.#call(
        conversationId,
        async (id) => {
          const [meta, records] = await Promise.all([this.#store("load", id), this.#store("records", id)]);
          return views.records(id, meta, records);
        },
        "read",
      );
    }

    async list() {
      g.check();
      return views.list(await this.#store("list", ""));
    }

    /** @param {unknown} conversationId */
    delete(conversationId) {
      return this.#call(conversationId, async (id) => {
        await this.#store("delete", id);
        this.#forget(id);
      });
    }

    /** @param {unknown} conversationId */
    export(conversationId) {
      return this.#call(
        conversationId,
        async (id) => {
          const meta = await this.#store("load", id);
          // The rest is read only for a conversation the store holds (`load` gave a meta).
          const [messages, summaries, records] =
            meta == null ? [] : await Promise.all([this.#store("messages", id, 0), this.#store("summaries", id), this.#store("records", id)]);
          return views.export(id, meta, messages, summaries, records);
        },
        "read",
      );
    }

    /**
     * @param {unknown} data  an export, as the user hands it (the core checks it)
     * @param {unknown} options
     */
    async import(data, options) {
      g.check();
      let made;
      try {
        // (Options are read as JSON, where a lone surrogate is U+FFFD: the id is checked first.)
        const given = options !== null && typeof options === "object" ? /** @type {{ id?: unknown }} */ (options).id : undefined;
        // (A lone surrogate is a \p{Cs} code point; String.prototype.isWellFormed is newer
        // than the browsers the package supports.)
        if (typeof given === "string" && /\p{Cs}/u.test(given)) throw typeError("options.id", "a non-empty string without lone surrogates (half of an emoji)");
        const { id, overwrite } = raw.CompactorCore.importOptions(options);
        // Checked, and its id decided, before anything is stored.
        made = { ...this.#ensureCore().import(data, id, now()), overwrite };
        // The history as it came (the core's copy has its keys sorted).
        const messages = copies(/** @type {{ messages?: unknown }} */ (data).messages).stored;
        if (Array.isArray(messages) && messages.length === made.batch.messages.length) made.batch.messages = messages;
      } catch (e) {
        throw g.recover(e);
      }
      return this.#call(made.id, async (id) => {
        if (views.importOver(id, await this.#store("load", id), made.overwrite)) await this.#store("delete", id);
        this.#forget(id);
        try {
          await this.#store("write", id, 0, made.batch);
        } catch (e) {
          if (/** @type {{ code?: unknown } | null} */ (e)?.code === "STALE_WRITE") throw raw.__ctxfoldConversationError(true, id);
          throw e;
        }
        return id;
      });
    }

    /** @param {string} id */
    #forget(id) {
      this.#items.delete(id);
      this.#made.delete(id);
      if (this.#core !== null && this.#since === g.restarts()) {
        try {
          this.#core.forget(id);
        } catch (e) {
          throw g.recover(e);
        }
      }
    }

    /**
     * A call on one conversation: its id checked at once, its work queued behind the others (`mode`: see #shared).
     * @template T
     * @param {unknown} conversationId
     * @param {(id: string, lock: Lock) => Promise<T>} work
     * @param {Mode} [mode]
     * @returns {Promise<T>}
     */
    #call(conversationId, work, mode = "write") {
      try {
        g.check();
        const id = this.#id(conversationId);
        return this.#locked(id, (lock) => work(id, lock), mode);
      } catch (e) {
        return Promise.reject(e);
      }
    }
  }

  return { Compactor, MemoryStore, durableObjectStore, staleWriteError };
}

// ------------------------------------------------------------------ helpers
