// IndexedDBStore's declarations, used as intended; each `@ts-expect-error` proves a misuse
// is rejected.
import { IndexedDBStore, isCtxfoldError, type CompactorStore, type IndexedDBStoreOptions, type StoredSummary } from "ctxfold";
import * as lite from "ctxfold/lite";

export async function indexedDBStore(): Promise<number> {
  const options: IndexedDBStoreOptions = { database: "chats", timeoutMs: 5_000 };
  const store: CompactorStore = new IndexedDBStore(options);
  const idb = new IndexedDBStore();
  const again: lite.IndexedDBStore = new lite.IndexedDBStore();
  const name: string = idb.database + idb.lockName;
  const meta = await store.load("c");
  const history: unknown[] = await store.messages("c", 0);
  if (meta !== null) {
    try {
      await store.write("c", meta.version, { start: meta.length, messages: [], summaries: [], records: [], meta: { ...meta, version: meta.version + 1 } });
    } catch (e) {
      if (isCtxfoldError(e) && e.code === "STALE_WRITE") return -1;
      if (isCtxfoldError(e) && (e.code === "QUOTA_EXCEEDED" || e.code === "STORE_ERROR")) throw e.cause;
    }
  }
  const summaries: StoredSummary[] = await idb.summaries("c");
  const ids: string[] = await store.list();
  await store.delete(ids[0] ?? "c");
  idb.close();
  again.close();
  // @ts-expect-error: the database option is a string
  new IndexedDBStore({ database: 1 });
  // @ts-expect-error: not an option
  new IndexedDBStore({ name: "chats" });
  // @ts-expect-error: a write needs the batch's start, summaries, records and meta
  await idb.write("c", 0, { messages: [] });
  // @ts-expect-error: the database's name is read-only
  idb.database = "other";
  return name.length + history.length + summaries.length + (await store.records("c")).length;
}
