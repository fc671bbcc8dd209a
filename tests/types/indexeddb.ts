// IndexedDBStore's declarations, used as intended; each `@ts-expect-error` proves a misuse
// is rejected.
import { IndexedDBStore, isCtxfoldError, type IndexedDBStoreOptions } from "ctxfold";
import * as lite from "ctxfold/lite";

export async function indexedDBStore(): Promise<number> {
  const options: IndexedDBStoreOptions = { database: "chats", timeoutMs: 5_000 };
  const store = new IndexedDBStore(options);
  const again: lite.IndexedDBStore = new lite.IndexedDBStore();
  const name: string = store.database;
  const meta = await store.load("c");
  const history: unknown[] = await store.messages("c", 0);
  try {
    await store.write("c", 0, { messages: history, summaries: [], records: [], start: 0, meta: { version: 1, length: history.length } });
  } catch (e) {
    if (isCtxfoldError(e) && e.code === "STALE_WRITE") return -1;
    if (isCtxfoldError(e) && (e.code === "QUOTA_EXCEEDED" || e.code === "STORE_FAILED")) throw e.cause;
  }
  const ids: string[] = await store.list();
  await store.delete(ids[0] ?? "c");
  store.close();
  again.close();
  // @ts-expect-error: the database option is a string
  new IndexedDBStore({ database: 1 });
  // @ts-expect-error: not an option
  new IndexedDBStore({ name: "chats" });
  // @ts-expect-error: a write needs the new meta's version and length
  await store.write("c", 0, { messages: [] });
  // @ts-expect-error: the database's name is read-only
  store.database = "other";
  return name.length + (meta === null ? 0 : 1) + (await store.summaries("c")).length + (await store.records("c")).length;
}
