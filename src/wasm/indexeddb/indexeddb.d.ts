
/**
 * A store that keeps conversations in the browser's IndexedDB (pages, Web Workers and
 * SharedWorkers: wherever a global `indexedDB` exists and the module loads; not Service
 * Workers, which refuse a module with a top-level `await`). One database holds every
 * conversation; each `write` is one transaction, refused with `STALE_WRITE` when the
 * conversation moved on since it was read (another tab wrote), so nothing is ever
 * overwritten. A database written by an older ctxfold is upgraded when opened, keeping its
 * data. Errors are typed: `STALE_WRITE`, `QUOTA_EXCEEDED` (the browser's
 * `QuotaExceededError` as `cause`), `STORE_ERROR` (the DOM error as `cause`; also a call that
 * missed its deadline). After any error the stored data is as it was before the call.
 *
 * ```ts
 * const store = new IndexedDBStore({ database: "my-chats" });
 * const meta = await store.load("conversation-1"); // null until something was written
 * ```
 */
export class IndexedDBStore implements CompactorStore {
  constructor(options?: IndexedDBStoreOptions);
  /** The IndexedDB database's name. */
  readonly database: string;
  /** `"indexeddb:" + database`: a `Compactor` takes a Web Lock (`navigator.locks`) of this name and the conversation's id around each call that reads the store or may compact, so the tabs of one origin take turns on a conversation (see `CompactorStore.lockName`). */
  readonly lockName: string;
  load(id: string): Promise<StoredMeta | null>;
  messages(id: string, from: number): Promise<unknown[]>;
  /** One IndexedDB transaction; see `CompactorStore.write`. Also refuses (`INVALID_ARGUMENT`, nothing written) a batch whose `start` or `meta.length` does not fit the stored length, or whose summaries or records lack a whole `seq`. */
  write(id: string, expect: number, batch: WriteBatch): Promise<void>;
  summaries(id: string): Promise<StoredSummary[]>;
  records(id: string): Promise<CompactionRecord[]>;
  list(): Promise<string[]>;
  delete(id: string): Promise<void>;
  /** Closes the database connection; the next call opens it again. */
  close(): void;
}
