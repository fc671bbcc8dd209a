
/**
 * Where a `Compactor` keeps its conversations. Implement it over anything that can hold JSON
 * and make one change atomic (KV with transactions, SQLite, IndexedDB, your server): every
 * method is async, and `write` is one transaction checked against a version. The meta,
 * summaries and records are ctxfold's (read only `meta.version`, `batch.start` and the `seq`
 * of summaries and records); messages are yours, stored as JSON (binary data in them as
 * `{ $bytes, $base64 }`, which the `Compactor` turns back into a `Uint8Array`). Copy values in and out, so
 * a caller changing an object later changes nothing stored. A call that gives no answer within
 * the `Compactor`'s `storeTimeoutMs` fails the `Compactor`'s call with `STORE_ERROR` (the call
 * itself is not cancelled: a `write` that lands later is caught by the version check).
 * `assertStore` from `ctxfold/testing` checks a store against this contract in your own tests.
 *
 * ```ts
 * const rows = new Map<string, { meta: StoredMeta; messages: unknown[]; summaries: StoredSummary[]; records: CompactionRecord[] }>();
 * const copy = <T>(v: T): T => structuredClone(v);
 * const seqs = (xs: { seq: number }[]) => xs.map((x) => x.seq);
 * const store: CompactorStore = {
 *   async load(id) { return copy(rows.get(id)?.meta ?? null); },
 *   async messages(id, from) { return copy(rows.get(id)?.messages.slice(from) ?? []); },
 *   async write(id, expect, batch) {
 *     const row = rows.get(id);
 *     checkWrite(id, expect, batch, row?.meta ?? null, row && { summaries: seqs(row.summaries), records: seqs(row.records) });
 *     const next = row ?? { meta: batch.meta, messages: [], summaries: [], records: [] };
 *     next.messages.push(...copy(batch.messages));
 *     next.summaries.push(...copy(batch.summaries));
 *     next.records.push(...copy(batch.records));
 *     next.meta = copy(batch.meta);
 *     rows.set(id, next);
 *   },
 *   async summaries(id) { return copy(rows.get(id)?.summaries ?? []); },
 *   async records(id) { return copy(rows.get(id)?.records ?? []); },
 *   async list() { return [...rows.keys()]; },
 *   async delete(id) { rows.delete(id); },
 * };
 * ```
 */
export interface CompactorStore {
  /** The conversation's meta (small, read on every call), or `null` if there is none. */
  load(id: string): Promise<StoredMeta | null>;
  /** History items from index `from` on, in order (`[]` past the end, or for an unknown id). */
  messages(id: string, from: number): Promise<unknown[]>;
  /**
   * One transaction. Rejects with a `STALE_WRITE` error (see `staleWriteError`), writing
   * nothing, unless the stored meta's version is `expect` (0: no meta yet); else appends
   * `batch.messages` at `batch.start` (the stored meta's `length`), adds `batch.summaries` and
   * `batch.records`, and puts `batch.meta` (whose version is `expect + 1`; a new conversation's
   * first is any above 0, so one made again under a deleted one's id does not repeat its versions).
   * Nothing stored is ever replaced or cut: a batch whose `start` is not the stored length, or
   * with a summary's or record's `seq` that is stored already, is refused (rejects, writing
   * nothing). `checkWrite` makes every one of these checks.
   */
  write(id: string, expect: number, batch: WriteBatch): Promise<void>;
  /** Every summary written, in `seq` order (undone and folded ones too). */
  summaries(id: string): Promise<StoredSummary[]>;
  /** Every compaction record written, in `seq` order. */
  records(id: string): Promise<CompactionRecord[]>;
  /** The ids of the conversations stored. */
  list(): Promise<string[]>;
  /** Removes the conversation: meta, messages, summaries and records. */
  delete(id: string): Promise<void>;
  /**
   * For a store that several tabs of one origin share (IndexedDB): a name for it, so that
   * calls on one conversation also wait for each other across tabs through the Web Locks
   * API (`navigator.locks`, where present). A `prepare` or `commit` that goes on from what
   * this `Compactor` wrote last and does not compact is one version-checked `write` and
   * takes no lock, unless another tab said lately that it holds it (a `BroadcastChannel`
   * notice; a compaction holds the lock from its load to its write). Without a `lockName`,
   * only calls through one `Compactor` wait for each other. Either way `write`'s version
   * check keeps a writer that another got ahead of from losing anything: it loads and tries
   * again.
   */
  readonly lockName?: string;
}

/**
 * The default store: conversations in this process's memory (gone when it ends), every value
 * copied in and out with `structuredClone`.
 *
 * ```ts
 * const store = new MemoryStore();
 * const compactor = new Compactor({ model: "gpt-4o", store });
 * await store.list(); // the conversations' ids
 * ```
 */
export class MemoryStore implements CompactorStore {
  constructor();
  load(id: string): Promise<StoredMeta | null>;
  messages(id: string, from: number): Promise<unknown[]>;
  write(id: string, expect: number, batch: WriteBatch): Promise<void>;
  summaries(id: string): Promise<StoredSummary[]>;
  records(id: string): Promise<CompactionRecord[]>;
  list(): Promise<string[]>;
  delete(id: string): Promise<void>;
}

/**
 * The error a store rejects a stale `write` with: a `CtxfoldError` whose `code` is
 * `"STALE_WRITE"`. `found` is the stored version (`null`: no conversation).
 *
 * ```ts
 * if (stored !== expect) throw staleWriteError(id, expect, stored ?? null);
 * ```
 */
export function staleWriteError(id: string, expected: number, found: number | null): CtxfoldError;

/**
 * The check a store makes of a write, inside its transaction, against what it holds (`stored`:
 * the stored meta, or `null` when there is none; `held`: the `seq` of the summaries and records
 * it holds, or at least of those the batch names). Throws the `STALE_WRITE` error unless the
 * stored version is `expect`, and `INVALID_ARGUMENT` for a batch that does not go on from what
 * is held: its meta's version is not `expect + 1`, its `start` is not the stored length, its
 * meta's `length` is not that plus its messages, or a summary's or record's `seq` is held
 * already or named twice. The stores ctxfold ships make their writes' checks with it.
 *
 * ```ts
 * checkWrite(id, expect, batch, row?.meta ?? null, { summaries: row?.summaries.map((s) => s.seq) });
 * ```
 */
export function checkWrite(
  id: string,
  expect: number,
  batch: WriteBatch,
  stored: { readonly version: number; readonly length: number } | null,
  held?: { readonly summaries?: readonly number[]; readonly records?: readonly number[] } | null,
): void;
