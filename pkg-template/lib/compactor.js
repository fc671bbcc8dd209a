// The Compactor's JavaScript: the class, which awaits its store and summarizer and steps a
// CompactorCall (src/wasm/compactor.rs) between them, as compact.js steps a CompactCall;
// the per-conversation lock; the events; each store call's deadline. The stores ctxfold ships
// beside IndexedDBStore are in stores.js. Everything the core decides (what to read, what to
// write, what the input is) comes from the CompactorCall; this file only does the awaiting.

import { copies, revive } from "./binary.js";
import { ask, compactWith } from "./compact.js";
import { runCommand } from "./commands.js";
import { lockNotices } from "./locks.js";
import { latest, quiet, serial } from "./serial.js";
import { storesWith } from "./stores.js";
import { invalidArgument as typeError, kindOf } from "./values.js";

const EVENTS = ["compactionStart", "compactionEnd", "compactionFailed", "pruned", "fallback", "suppressed", "backoff", "breakerOpen", "breakerClosed"];
const STORE_METHODS = ["load", "messages", "write", "summaries", "records", "list", "delete"];
/** What a store call's deadline rejects with (never seen outside this file). */
const DEADLINE = Symbol("deadline");

const now = () => new Date().toISOString();

/** What makes two summarizer requests the same request: a summary made for one answers the other. */
const requestKey = (r) => JSON.stringify([r.kind, r.maxTokens, r.system, r.prompt]);
const clock = () => (typeof performance === "object" ? performance.now() : Date.now());

/**
 * @param {object} raw  the wasm-bindgen module
 * @param {ReturnType<import("./guard.js").guard>} g
 */
export function compactorWith(raw, g) {
  const compact = compactWith(raw, g);
  const notices = lockNotices();
  const staleWriteError = g.wrap(raw.staleWriteError);
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
  const storeError = (operation, id, cause) => {
    const err = raw.__ctxfoldStoreError(operation, id, describeError(cause));
    err.cause = cause;
    return err;
  };

  class Compactor {
    /** The user's options object, as given: the core reads it again after a trap. */
    #given;
    /** compact()'s options (what `/new` compacts with): the given ones less the core's `ownKeys`. */
    #options;
    #summarizer;
    #cached;
    #storeTimeoutMs;
    #core = null;
    #since = -1;
    /** Per conversation: the history items the core caches, as JS objects (what `prepare` returns). */
    #items = new Map();
    /** Per conversation: the tail of its chain of calls. */
    #chains = new Map();
    #handlers = new Map(EVENTS.map((e) => [e, new Set()]));
    /** `true` when the core says `prepareAhead` is on (undefined: off), and `waitUntil`. */
    #ahead;
    #waitUntil;
    /** Per conversation: summaries made ahead, `{ key, reply }` (the key is the request's). */
    #made = new Map();
    /** Per conversation: the background work in flight. */
    #pending = new Map();
    /** Per conversation: the latest `prepareAhead` planning (the next one starts after it, not after its summaries). */
    #planning = new Map();

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
      const { maxCachedConversations, storeTimeoutMs, prepareAhead, ownKeys } = this.#ensureCore().settings;
      this.#cached = maxCachedConversations;
      this.#storeTimeoutMs = storeTimeoutMs;
      this.#ahead = prepareAhead ? true : undefined;
      this.#options = Object.fromEntries(Object.entries(options).filter(([k]) => !ownKeys.includes(k)));
      this.#summarizer = typeof options.summarizer === "function" ? options.summarizer : null;
      if (on !== undefined) {
        if (on === null || typeof on !== "object" || Array.isArray(on)) throw typeError("options.on", `an object of event handlers, got ${kindOf(on)}`);
        for (const [name, handler] of Object.entries(on)) {
          if (!this.#handlers.has(name)) throw typeError(`options.on.${name}`, `no such event (known: ${EVENTS.join(", ")})`);
          if (typeof handler !== "function") throw typeError(`options.on.${name}`, `a function, got ${kindOf(handler)}`);
          this.on(name, handler);
        }
      }
    }

    /** The core, made afresh after a trap restarted the module (its caches went with it). */
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

    on(name, handler) {
      this.#listeners(name).add(checkHandler(name, handler));
      return () => this.off(name, handler);
    }

    off(name, handler) {
      this.#listeners(name).delete(handler);
    }

    #listeners(name) {
      const set = this.#handlers.get(name);
      if (!set) throw typeError("name", `one of ${EVENTS.map((e) => JSON.stringify(e)).join(", ")}, got ${JSON.stringify(String(name))}`);
      return set;
    }

    #emit(name, event) {
      for (const handler of [...this.#handlers.get(name)]) {
        try {
          const returned = handler(event);
          // An async handler's rejection too (unhandled, it would end a Node process).
          if (typeof returned?.then === "function") returned.then(undefined, reportHandlerError);
        } catch (e) {
          reportHandlerError(e);
        }
      }
    }

    /** Runs `fn(lock)` after every earlier call on `id` (see #shared for `lock` and `mode`). */
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
     */
    async #shared(id, fn, mode) {
      const lockName = typeof this.store.lockName === "string" ? this.store.lockName : null;
      const locks = lockName !== null ? globalThis.navigator?.locks : undefined;
      if (!locks) return fn(null);
      const name = `ctxfold:${lockName}:${id}`;
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
      let release = null;
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
     * A store call, its rejection a STORE_ERROR (a stale write is the caller's to see), and
     * so is no answer within `storeTimeoutMs`: the call goes on without it, its lock released.
     * (A write that lands after its deadline moved the stored version, so the next write
     * is refused as stale and loads again.) The store is called at once, in the caller's task.
     */
    async #store(operation, id, ...args) {
      let timer;
      try {
        const answer = operation === "list" ? this.store.list() : this.store[operation](id, ...args);
        const deadline = new Promise((_, reject) => {
          timer = setTimeout(() => reject(DEADLINE), this.#storeTimeoutMs);
        });
        return await Promise.race([answer, deadline]);
      } catch (e) {
        if (e === DEADLINE) {
          throw raw.__ctxfoldStoreError(
            operation,
            id,
            `no answer within ${this.#storeTimeoutMs} ms (options.storeTimeoutMs); the Compactor went on without it`,
          );
        }
        if (operation === "write" && e?.code === "STALE_WRITE") throw e;
        throw storeError(operation, id, e);
      } finally {
        clearTimeout(timer);
      }
    }

    /**
     * Steps one core call to its end. `make(core)` makes it; `events`: emit this call's;
     * `adding`: the history items the call appends, as JSON copies made here (the core's
     * copies have their keys sorted; these keep the caller's order, and are what is stored);
     * `lock`: takes the Web Lock a lazy call has not taken yet (see #shared).
     */
    async #step(id, make, events, adding = null, lock = null) {
      g.check();
      const core = this.#ensureCore();
      const since = g.restarts();
      let call = null;
      let items = this.#items.get(id) ?? [];
      let firstRejection;
      let started = clock();
      let planned = null;
      let waited = 0;
      let preparedAhead = 0;
      // A compactionStart sent, not closed yet: its compactionEnd (after the result) or a
      // compactionFailed (the write went stale, or the call fails) closes it.
      let opened = false;
      const start = (plan) => {
        opened = true;
        this.#emit("compactionStart", { type: "compactionStart", conversationId: id, plan });
      };
      const failed = (error, retried) => {
        if (!opened) return;
        opened = false;
        this.#emit("compactionFailed", { type: "compactionFailed", conversationId: id, error, retried });
      };
      const resumed = () => {
        if (g.restarts() !== since) {
          call = null;
          throw g.restartedDuring(new Error("the module was restarted while this call waited"));
        }
      };
      try {
        call = make(core);
        let metaLength = 0;
        let appended = [];
        let early = null;
        for (;;) {
          const step = call.next();
          if (step.load) {
            // A turn after this Compactor's own write goes on from what it wrote (the write
            // checks the version, so another writer's turn makes it load and redo the call).
            if (call.assumeCached(items.length)) continue;
            if (lock !== null) {
              const t = clock();
              await lock();
              resumed();
              // The wait for the lock is no part of the call's timings.
              started += clock() - t;
            }
            const meta = await this.#store("load", id);
            resumed();
            metaLength = meta?.length ?? 0;
            // The core keeps as much of its cache as it trusts; this copy keeps as much.
            items.length = Math.min(items.length, call.loaded(meta ?? null, items.length));
          } else if (step.read !== undefined) {
            const got = await this.#store("messages", id, step.read);
            resumed();
            call.read(got);
            // The core took `metaLength - from` of them; so does this copy.
            items = items.slice(0, step.read);
            for (let k = 0; k < metaLength - step.read; k++) items.push(revive(got[k]));
          } else if (step.summarize) {
            planned ??= clock() - started;
            if (step.first && events) start(step.plan);
            if (this.#summarizer === null) {
              call.submitExtractive();
              continue;
            }
            const t = clock();
            const replies = await Promise.all(
              step.summarize.map((r) => {
                const made = this.#takeMade(id, r);
                if (made === null) return ask(this.#summarizer, r);
                preparedAhead++;
                // A summary that failed ahead is asked for again, now.
                return made.then((reply) => (reply.failed === undefined ? reply : ask(this.#summarizer, r)));
              }),
            );
            waited += clock() - t;
            resumed();
            firstRejection ??= replies.find((r) => r.rejection !== undefined)?.rejection;
            call.submit(replies.map(({ value, failed }) => (failed === undefined ? { value } : { failed })));
          } else if (step.finish) {
            // A compaction made without asking the summarizer (the breaker is open).
            if (events && !opened && step.plan) start(step.plan);
            planned ??= clock() - started;
            call.finish(planned, waited, clock() - started);
          } else if (step.write) {
            if (adding !== null && adding.length === step.write.messages.length) step.write.messages = adding;
            const writing = this.#store("write", id, step.expect, step.write);
            writing.catch(() => {});
            // The core made its result with the batch: it crosses to JS while the store writes
            // (a stale write drops it, and the next attempt makes another).
            early = call.result();
            try {
              await writing;
            } catch (e) {
              if (e?.code !== "STALE_WRITE") throw e;
              failed(e, true);
              resumed();
              // Another writer got there first: the core loads again, or gives up.
              early = null;
              call.stale(typeof e?.found === "number" ? e.found : null);
              await jitter();
              resumed();
              continue;
            }
            resumed();
            call.written();
            appended = step.write.messages;
          } else if (step.done) {
            const result = early ?? call.result();
            for (const m of appended) items.push(revive(m));
            if (preparedAhead > 0) result.preparedAhead = preparedAhead;
            return result;
          } else {
            throw new Error(`unknown step ${JSON.stringify(step)}`);
          }
        }
      } catch (e) {
        let err = g.recover(e);
        if (g.restarts() !== since) {
          call = null;
          if (err === e) err = g.restartedDuring(e);
        }
        if (err?.code === "SUMMARIZER_FAILED" && firstRejection !== undefined && err.cause === undefined) err.cause = firstRejection;
        failed(err, false);
        throw err;
      } finally {
        if (call !== null) {
          try {
            // The core's cache after the call (cut back if it did not finish): this copy follows,
            // and, as the core, keeps the conversations used last.
            items.length = Math.min(items.length, call.end());
            this.#items.delete(id);
            this.#items.set(id, items);
            while (this.#items.size > this.#cached) this.#items.delete(this.#items.keys().next().value);
            call.free();
          } catch {
            // The module trapped meanwhile: the next call starts afresh.
            this.#items.delete(id);
          }
        } else {
          this.#items.delete(id);
        }
      }
    }

    /** The input of a prepared result, as messages: stored items where kept. */
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

    #prepared(id, result) {
      const out = this.#input(id, result);
      out.preparedAhead ??= 0;
      const { report, record, prunedTokens } = out;
      // What was made ahead for the state before this compaction answers nothing after it.
      if (record) this.#made.delete(id);
      if (report.pruned.advanced) {
        this.#emit("pruned", {
          type: "pruned",
          conversationId: id,
          pruned: report.pruned,
          prunedTokens,
          tokensAfter: report.tokensAfter,
          budget: report.budget,
        });
      }
      if (report.fallback) this.#emit("fallback", { type: "fallback", conversationId: id, fallback: report.fallback, record });
      const { guards } = out;
      if (guards.suppressed) this.#emit("suppressed", { type: "suppressed", conversationId: id, suppressed: guards.suppressed });
      if (guards.backoff) this.#emit("backoff", { type: "backoff", conversationId: id, backoff: guards.backoff, record });
      const change = guards.breaker?.change;
      if (change === "opened" || change === "closed") {
        const type = change === "opened" ? "breakerOpen" : "breakerClosed";
        this.#emit(type, { type, conversationId: id, breaker: guards.breaker, record });
      }
      if (record) this.#emit("compactionEnd", { type: "compactionEnd", conversationId: id, record });
      return out;
    }

    #id(id) {
      try {
        return raw.CompactorCore.checkId(id);
      } catch (e) {
        throw g.recover(e);
      }
    }

    prepare(conversationId, newMessages) {
      return this.#call(
        conversationId,
        async (id, lock) => {
          const { core: copy, stored } = copies(newMessages);
          const adding = Array.isArray(stored) ? stored : Array.isArray(stored?.messages) ? stored.messages : null;
          const result = await this.#step(id, (core) => core.prepare(id, copy, now()), true, adding, lock);
          return this.#prepared(id, result);
        },
        "lazy",
      );
    }

    commit(conversationId, reply, usage) {
      return this.#call(
        conversationId,
        async (id, lock) => {
          const { core: copy, stored } = copies(reply);
          const adding = Array.isArray(stored) ? stored : stored !== null && typeof stored === "object" ? [stored] : null;
          const committed = await this.#step(id, (core) => core.commit(id, copy, usage, now()), false, adding, lock);
          if (this.#ahead !== undefined && this.#summarizer !== null) this.#planAhead(id);
          return committed;
        },
        "lazy",
      );
    }

    /**
     * Resolves when the summaries `prepareAhead` is making for `conversationId` are made (at
     * once when none are), with how many it made.
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
     */
    #planAhead(id) {
      const previous = this.#planning.get(id) ?? Promise.resolve();
      const planned = previous
        // Writes nothing: the lock only when it must load (a cold cache), as a warm turn.
        .then(() => this.#locked(id, (lock) => this.#step(id, (core) => core.ahead(id, now()), false, null, lock), "lazy"))
        .then((requests) => {
          if (requests.length === 0) return [];
          // What is made or in flight for the same request is kept; one that failed is asked again.
          const old = new Map((this.#made.get(id) ?? []).filter((e) => !e.failed).map((e) => [e.key, e]));
          const entries = requests.map((r) => {
            const key = requestKey(r);
            const kept = old.get(key);
            if (kept) return kept;
            const entry = { key, failed: false, reply: ask(this.#summarizer, r) };
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

    /** The summary made ahead for exactly `request`, taken (`null`: none). */
    #takeMade(id, request) {
      const entries = this.#made.get(id);
      if (entries === undefined) return null;
      const key = requestKey(request);
      const k = entries.findIndex((e) => e.key === key);
      if (k < 0) return null;
      const [entry] = entries.splice(k, 1);
      if (entries.length === 0) this.#made.delete(id);
      return entry.reply;
    }

    compact(conversationId, options) {
      return this.#call(conversationId, async (id) => {
        const result = await this.#step(id, (core) => core.compact(id, options, now()), true);
        return this.#prepared(id, result);
      });
    }

    prune(conversationId) {
      return this.#call(conversationId, async (id) => {
        const result = await this.#step(id, (core) => core.prune(id, now()), true);
        return this.#prepared(id, result);
      });
    }

    async command(conversationId, text) {
      g.check();
      const id = this.#id(conversationId);
      return runCommand(this, id, text, { options: this.#options, compact });
    }

    undo(conversationId) {
      return this.#call(conversationId, (id) => this.#step(id, (core) => core.undo(id, now()), false));
    }

    status(conversationId) {
      return this.#call(conversationId, (id) => this.#step(id, (core) => core.status(id), false), "read");
    }

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

    summaries(conversationId) {
      return this.#call(conversationId, async (id) => views.summaries(id, await this.#store("summaries", id)), "read");
    }

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

    delete(conversationId) {
      return this.#call(conversationId, async (id) => {
        await this.#store("delete", id);
        this.#forget(id);
      });
    }

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

    async import(data, options) {
      g.check();
      let made;
      try {
        // (Options are read as JSON, where a lone surrogate is U+FFFD: the id is checked first.)
        const given = options !== null && typeof options === "object" ? options.id : undefined;
        // (A lone surrogate is a \p{Cs} code point; String.prototype.isWellFormed is newer
        // than the browsers the package supports.)
        if (typeof given === "string" && /\p{Cs}/u.test(given)) throw typeError("options.id", "a non-empty string without lone surrogates (half of an emoji)");
        const { id, overwrite } = raw.CompactorCore.importOptions(options);
        // Checked, and its id decided, before anything is stored.
        made = { ...this.#ensureCore().import(data, id, now()), overwrite };
        // The history as it came (the core's copy has its keys sorted).
        const messages = copies(data.messages).stored;
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
          if (e?.code === "STALE_WRITE") throw raw.__ctxfoldConversationError(true, id);
          throw e;
        }
        return id;
      });
    }

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

    /** A call on one conversation: its id checked at once, its work queued behind the others (`mode`: see #shared). */
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

function checkHandler(name, handler) {
  if (typeof handler !== "function") {
    throw typeError("handler", `a function for ${JSON.stringify(name)}, got ${kindOf(handler)}`);
  }
  return handler;
}

/** A handler's error is reported, never the call's: what the call did is stored already. */
function reportHandlerError(e) {
  if (typeof globalThis.reportError === "function") globalThis.reportError(e);
  else console.error(e);
}

/** What a store's error says, for the STORE_ERROR's message. */
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

/** A short random wait before trying again after a stale write, so two writers part. */
function jitter() {
  return new Promise((resolve) => setTimeout(resolve, Math.random() * 20));
}
