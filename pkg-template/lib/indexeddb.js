// IndexedDBStore: the store contract (load, messages, write, summaries, records, list,
// delete) over the browser's IndexedDB. Every IndexedDB call is Rust's
// (src/wasm/indexeddb/): this class only keeps the open connection, steps each call as
// compact.js steps a compaction (start it, await the promise Rust wired to the
// transaction's own events, finish it), and gives every call a deadline. A call that misses
// it is aborted, so it writes nothing, and rejects with STORE_ERROR. No wasm object outlives
// a call except the connection being opened, so a store made before the module restarted
// after a trap keeps working.

/** What the deadline rejects with (never seen outside this file). */
const DEADLINE = Symbol("deadline");

/** @typedef {import("./types.d.ts").IdbCall} IdbCall */
/** @typedef {import("./types.d.ts").IdbOpen} IdbOpen */
/** @typedef {import("./types.d.ts").WriteBatch} WriteBatch */
/**
 * An open connection, or one being opened (`ready` once open).
 * @typedef {{ db: Promise<IDBDatabase>, opening: IdbOpen | null, ready: IDBDatabase | null }} Connection
 */

/**
 * @param {import("./types.d.ts").Raw} raw  the wasm-bindgen module
 * @param {import("./types.d.ts").Guard} g
 */
export function indexedDBStoreWith(raw, g) {
  const readOptions = g.wrap(raw.idbOptions);
  const timeoutError = g.wrap(raw.idbTimeout);
  const closeDb = g.wrap(raw.idbClose);
  const startOpen = g.wrap(raw.IdbOpen.start);
  const start = {
    load: g.wrap(raw.IdbCall.load),
    messages: g.wrap(raw.IdbCall.messages),
    write: g.wrap(raw.IdbCall.write),
    summaries: g.wrap(raw.IdbCall.summaries),
    records: g.wrap(raw.IdbCall.records),
    list: g.wrap(raw.IdbCall.list),
    delete: g.wrap(raw.IdbCall.delete),
  };

  /**
   * A connection that another tab asked to close, or that was closed: open it again.
   * @param {any} e  what a call threw
   */
  const closing = (e) => e?.code === "STORE_ERROR" && e.cause?.name === "InvalidStateError";

  /** @param {IdbCall | IdbOpen} object */
  const free = (object) => {
    try {
      object.free();
    } catch {
      // Already released, or it belonged to an instance made afresh since.
    }
  };

  return class IndexedDBStore {
    /** @type {string} */
    #database;
    /** @type {number} */
    #timeoutMs;
    /** @type {Connection | null} null before the first call */
    #connection = null;

    /** @param {import("./types.d.ts").IndexedDBStoreOptions} [options] */
    constructor(options) {
      const { database, timeoutMs } = readOptions(options);
      this.#database = database;
      this.#timeoutMs = timeoutMs;
    }

    get database() {
      return this.#database;
    }

    /** What a Compactor names its Web Locks after, so tabs of one origin take turns per conversation. */
    get lockName() {
      return `indexeddb:${this.#database}`;
    }

    /** @param {string} id */
    load(id) {
      return this.#call("load", id, (db) => start.load(db, id));
    }

    /**
     * @param {string} id
     * @param {number} from
     */
    messages(id, from) {
      return this.#call("messages", id, (db) => start.messages(db, id, from));
    }

    /**
     * @param {string} id
     * @param {number} expect
     * @param {WriteBatch} batch
     */
    write(id, expect, batch) {
      return this.#call("write", id, (db) => start.write(db, id, expect, batch));
    }

    /** @param {string} id */
    summaries(id) {
      return this.#call("summaries", id, (db) => start.summaries(db, id));
    }

    /** @param {string} id */
    records(id) {
      return this.#call("records", id, (db) => start.records(db, id));
    }

    list() {
      return this.#call("list", "", (db) => start.list(db));
    }

    /** @param {string} id */
    delete(id) {
      return this.#call("delete", id, (db) => start.delete(db, id));
    }

    close() {
      const connection = this.#connection;
      this.#connection = null;
      connection?.db.then(closeDb, () => {});
    }

    /** The connection, opening the database if there is none. */
    #open() {
      if (this.#connection !== null) return this.#connection;
      const opening = startOpen(this.#database);
      /** @type {Connection} */
      const connection = { opening, db: /** @type {never} */ (null), ready: null }; // db: just below (it needs connection)
      connection.db = (async () => {
        try {
          const event = await opening.done();
          connection.opening = null; // finish consumes it
          connection.ready = opening.finish(event);
          return connection.ready;
        } catch (e) {
          if (connection.opening !== null) free(opening);
          connection.opening = null;
          throw g.recover(e);
        }
      })();
      // A failed open is forgotten, so the next call tries again.
      connection.db.catch(() => this.#forget(connection));
      this.#connection = connection;
      return connection;
    }

    /** @param {Connection} connection */
    #forget(connection) {
      if (this.#connection === connection) this.#connection = null;
    }

    /**
     * @param {string} operation
     * @param {unknown} id
     * @param {(db: IDBDatabase) => IdbCall} begin
     * @returns {Promise<any>} what the operation's store method returns
     */
    async #call(operation, id, begin) {
      g.check();
      const since = g.restarts();
      /** @type {ReturnType<typeof setTimeout> | undefined} */
      let timer;
      /** @type {Promise<never>} */
      const deadline = new Promise((_, reject) => {
        timer = setTimeout(() => reject(DEADLINE), this.#timeoutMs);
      });
      /** @type {Connection | null} */
      let connection = null;
      /** @type {IdbCall | null} */
      let call = null;
      try {
        for (let attempt = 1; call === null; attempt++) {
          connection = this.#open();
          // An open connection starts the call at once, in the caller's task: awaiting it
          // would let the caller's next work (a Compactor converting its result) run first.
          const db = connection.ready ?? (await Promise.race([connection.db, deadline]));
          try {
            call = begin(db);
          } catch (e) {
            if (attempt > 1 || !closing(e)) throw e;
            this.#forget(connection);
            closeDb(db);
          }
        }
        const event = await Promise.race([call.done(), deadline]);
        const finishing = call;
        call = null; // finish consumes it, whatever happens
        return finishing.finish(event);
      } catch (e) {
        if (e === DEADLINE) {
          let blocked = false;
          try {
            call?.abort();
            blocked = call === null && connection?.opening?.blocked() === true;
          } catch {
            // An object of an instance made afresh meanwhile.
          }
          const opening = call === null && connection?.opening;
          throw timeoutError(opening ? "open" : operation, opening || typeof id !== "string" ? "" : id, this.#timeoutMs, blocked);
        }
        let err = g.recover(e);
        if (g.restarts() !== since) {
          call = null;
          if (err === e) err = g.restartedDuring(e);
        }
        throw err;
      } finally {
        clearTimeout(timer);
        if (call !== null) free(call);
      }
    }
  };
}
