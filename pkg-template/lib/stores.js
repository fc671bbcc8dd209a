// The stores ctxfold ships beside IndexedDBStore (Rust's, stepped by lib/indexeddb.js):
// MemoryStore, the default, and durableObjectStore over a Durable Object's transactional
// storage. The contract they keep, CompactorStore, is declared in src/wasm/compactor/stores.rs.
import { invalidArgument, kindOf, unknownOption } from "./values.js";

/** @typedef {import("./types.d.ts").CompactorStore} CompactorStore */
/** @typedef {import("./types.d.ts").WriteBatch} WriteBatch */
/** @typedef {import("./types.d.ts").StoredMeta} StoredMeta */
/** @typedef {import("./types.d.ts").StoredSummary} StoredSummary */
/** @typedef {import("./types.d.ts").CompactionRecord} CompactionRecord */
/** @typedef {import("./types.d.ts").DurableObjectStorageLike} DurableObjectStorageLike */
/** @typedef {import("./types.d.ts").DurableObjectTransactionLike} DurableObjectTransactionLike */
/** The core's check of a write against what is held (throws STALE_WRITE or INVALID_ARGUMENT). @typedef {import("./types.d.ts").Raw["checkWrite"]} CheckWrite */
/** What MemoryStore holds of one conversation. @typedef {{ meta: StoredMeta, messages: unknown[], summaries: StoredSummary[], records: CompactionRecord[] }} Row */
/** What a Durable Object's storage or one of its transactions can read. @typedef {Pick<DurableObjectStorageLike, "get" | "list">} Readable */

/** @param {CheckWrite} checkWrite  the core's check of a write against what is held (throws STALE_WRITE or INVALID_ARGUMENT) */
export function storesWith(checkWrite) {
  /**
   * The default store: conversations in this process's memory, copied in and out.
   * @implements {CompactorStore}
   */
  class MemoryStore {
    /** @type {Map<string, Row>} */
    #rows = new Map();

    /** @param {string} id */
    async load(id) {
      const row = this.#rows.get(id);
      return row ? structuredClone(row.meta) : null;
    }

    /**
     * @param {string} id
     * @param {number} from
     */
    async messages(id, from) {
      const row = this.#rows.get(id);
      return row ? structuredClone(row.messages.slice(from)) : [];
    }

    /**
     * @param {string} id
     * @param {number} expect
     * @param {WriteBatch} batch
     */
    async write(id, expect, batch) {
      const row = this.#rows.get(id);
      checkWrite(id, expect, batch, row?.meta ?? null, row && { summaries: seqs(row.summaries), records: seqs(row.records) });
      // Copied before anything changes: a batch that cannot be cloned writes nothing.
      const { messages, summaries, records, meta } = structuredClone(batch);
      const next = row ?? { meta, messages: [], summaries: [], records: [] };
      // (Not push(...x): an imported history can be longer than the stack allows arguments.)
      for (const m of messages) next.messages.push(m);
      for (const s of summaries) next.summaries.push(s);
      for (const r of records) next.records.push(r);
      next.meta = meta;
      this.#rows.set(id, next);
    }

    /** @param {string} id */
    async summaries(id) {
      return structuredClone(this.#rows.get(id)?.summaries ?? []);
    }

    /** @param {string} id */
    async records(id) {
      return structuredClone(this.#rows.get(id)?.records ?? []);
    }

    async list() {
      return [...this.#rows.keys()];
    }

    /** @param {string} id */
    async delete(id) {
      this.#rows.delete(id);
    }
  }

  /**
   * @param {DurableObjectStorageLike} storage
   * @param {{ prefix?: string }} [options]
   * @returns {CompactorStore}
   */
  function durableObjectStore(storage, options = {}) {
    if (storage === null || typeof storage !== "object") throw invalidArgument("storage", `a Durable Object's ctx.storage, got ${kindOf(storage)}`);
    for (const m of /** @type {const} */ (["get", "list", "transaction"])) {
      if (typeof storage?.[m] !== "function") throw invalidArgument(`storage.${m}`, `a function (a Durable Object's ctx.storage), got ${kindOf(storage?.[m])}`);
    }
    if (options === null || typeof options !== "object") throw invalidArgument("options", `an options object, got ${kindOf(options)}`);
    for (const k of Object.keys(options)) if (k !== "prefix") throw unknownOption(`options.${k}`, ["prefix"]);
    const prefix = options.prefix ?? "ctxfold";
    if (typeof prefix !== "string") throw invalidArgument("options.prefix", `a string, got ${kindOf(prefix)}`);
    return new DurableObjectStore(storage, prefix, checkWrite);
  }

  return { MemoryStore, durableObjectStore };
}

/** @param {{ seq: number }[]} values */
const seqs = (values) => values.map((v) => v.seq);

/** Characters of a value's JSON above which it is stored in parts (Durable Object storage takes 128 KiB a value). */
const PART = 32 * 1024;
/** @param {number} n */
const pad = (n) => String(n).padStart(12, "0");

/**
 * A CompactorStore over a Durable Object's storage. Keys, under `prefix`:
 * `meta:<id>`, `m:<id>:<index>`, `s:<id>:<seq>`, `r:<id>:<seq>` (ids URI-encoded, numbers
 * zero-padded so keys sort in order). A value whose JSON is longer than PART characters is
 * stored as `{ $ctxfoldParts: n }` at its key and its JSON text in n parts at `<key>:<k>`.
 * One write is one `storage.transaction`.
 * @implements {CompactorStore}
 */
class DurableObjectStore {
  /** @type {DurableObjectStorageLike} */
  #storage;
  /** @type {string} */
  #prefix;
  /** @type {CheckWrite} */
  #check;

  /**
   * @param {DurableObjectStorageLike} storage
   * @param {string} prefix
   * @param {CheckWrite} check
   */
  constructor(storage, prefix, check) {
    this.#storage = storage;
    this.#prefix = prefix;
    this.#check = check;
  }

  /**
   * @param {"meta" | "m" | "s" | "r"} kind
   * @param {string} id
   * @param {number} [n]
   */
  #key(kind, id, n) {
    const base = `${this.#prefix}:${kind}:${encodeURIComponent(id)}`;
    return n === undefined ? base : `${base}:${pad(n)}`;
  }

  /** @param {string} id */
  async load(id) {
    return /** @type {StoredMeta | undefined} */ (await readValue(this.#storage, this.#key("meta", id))) ?? null;
  }

  /**
   * @param {string} id
   * @param {number} from
   */
  async messages(id, from) {
    return listValues(this.#storage, `${this.#key("m", id)}:`, this.#key("m", id, from));
  }

  /** @param {string} id */
  async summaries(id) {
    return /** @type {Promise<StoredSummary[]>} */ (listValues(this.#storage, `${this.#key("s", id)}:`));
  }

  /** @param {string} id */
  async records(id) {
    return /** @type {Promise<CompactionRecord[]>} */ (listValues(this.#storage, `${this.#key("r", id)}:`));
  }

  /**
   * @param {string} id
   * @param {number} expect
   * @param {WriteBatch} batch
   */
  async write(id, expect, batch) {
    await this.#storage.transaction(async (txn) => {
      const meta = /** @type {StoredMeta | undefined} */ (await readValue(txn, this.#key("meta", id)));
      this.#check(id, expect, batch, meta ?? null, await this.#held(txn, id, batch));
      /** @type {Record<string, unknown>} */
      const entries = {};
      for (const [k, m] of batch.messages.entries()) split(entries, this.#key("m", id, batch.start + k), m);
      for (const s of batch.summaries) split(entries, this.#key("s", id, s.seq), s);
      for (const r of batch.records) split(entries, this.#key("r", id, r.seq), r);
      // A meta stored in parts before may have had more parts than now: they are left, unread.
      split(entries, this.#key("meta", id), batch.meta);
      const keys = Object.keys(entries);
      // Durable Object storage takes at most 128 keys a put.
      for (let k = 0; k < keys.length; k += 128) {
        await txn.put(Object.fromEntries(keys.slice(k, k + 128).map((key) => [key, entries[key]])));
      }
    });
  }

  /**
   * Of the seqs `batch` names, those stored already (looked up by key, 128 a get).
   * @param {DurableObjectTransactionLike} txn
   * @param {string} id
   * @param {WriteBatch} batch
   */
  async #held(txn, id, batch) {
    /** @type {{ summaries: number[], records: number[] }} */
    const held = { summaries: [], records: [] };
    for (const [kind, name] of /** @type {const} */ ([
      ["s", "summaries"],
      ["r", "records"],
    ])) {
      /** @type {[number, string][]} */
      const keys = (Array.isArray(batch?.[name]) ? batch[name] : []).map((v) => [v?.seq, this.#key(kind, id, v?.seq)]);
      for (let k = 0; k < keys.length; k += 128) {
        const found = await txn.get(keys.slice(k, k + 128).map(([, key]) => key));
        for (const [seq, key] of keys.slice(k, k + 128)) if (found.has(key)) held[name].push(seq);
      }
    }
    return held;
  }

  async list() {
    const start = `${this.#prefix}:meta:`;
    const keys = [...(await this.#storage.list({ prefix: start })).keys()];
    return keys.filter((k) => !k.slice(start.length).includes(":")).map((k) => decodeURIComponent(k.slice(start.length)));
  }

  /** @param {string} id */
  async delete(id) {
    await this.#storage.transaction(async (txn) => {
      const keys = [this.#key("meta", id)];
      for (const kind of /** @type {const} */ (["meta", "m", "s", "r"])) keys.push(...(await txn.list({ prefix: `${this.#key(kind, id)}:` })).keys());
      for (let k = 0; k < keys.length; k += 128) await txn.delete(keys.slice(k, k + 128));
    });
  }
}

/**
 * Puts `value` at `key` in `entries`, in parts when its JSON is long.
 * @param {Record<string, unknown>} entries
 * @param {string} key
 * @param {unknown} value
 */
function split(entries, key, value) {
  const json = JSON.stringify(value);
  if (json.length <= PART) {
    entries[key] = JSON.parse(json);
    return;
  }
  const n = Math.ceil(json.length / PART);
  entries[key] = { $ctxfoldParts: n };
  for (let k = 0; k < n; k++) entries[`${key}:${pad(k)}`] = json.slice(k * PART, (k + 1) * PART);
}

/**
 * @param {unknown} v
 * @returns {v is { $ctxfoldParts: number }}
 */
const isParts = (v) =>
  v !== null && typeof v === "object" && typeof (/** @type {{ $ctxfoldParts?: unknown }} */ (v).$ctxfoldParts) === "number" && Object.keys(v).length === 1;

/**
 * The value at `key`, put together from its parts.
 * @param {Readable} storage
 * @param {string} key
 * @returns {Promise<unknown>}
 */
async function readValue(storage, key) {
  const v = await storage.get(key);
  if (!isParts(v)) return v;
  const keys = Array.from({ length: v.$ctxfoldParts }, (_, k) => `${key}:${pad(k)}`);
  let json = "";
  for (let k = 0; k < keys.length; k += 128) {
    const got = await storage.get(keys.slice(k, k + 128));
    for (const part of keys.slice(k, k + 128)) json += got.get(part);
  }
  return JSON.parse(json);
}

/**
 * Every value under `prefix` from `start` on, in key order, parts put together.
 * @param {Readable} storage
 * @param {string} prefix
 * @param {string} [start]
 * @returns {Promise<unknown[]>}
 */
async function listValues(storage, prefix, start) {
  const map = await storage.list(start === undefined ? { prefix } : { prefix, start });
  const out = [];
  /** @type {{ json: string } | null} */
  let parts = null;
  for (const [key, v] of map) {
    const rest = key.slice(prefix.length);
    if (rest.includes(":")) {
      // A part of the value before it.
      if (parts) parts.json += v;
      continue;
    }
    if (parts) out.push(JSON.parse(parts.json));
    parts = null;
    if (isParts(v)) parts = { json: "" };
    else out.push(v);
  }
  if (parts) out.push(JSON.parse(parts.json));
  return out;
}
