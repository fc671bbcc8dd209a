// The test fixture of IndexedDBStore's schema version 1 (src/indexeddb.rs describes both
// versions): one object store, `conversations` (key path `id`), one record per conversation,
// `{ id, meta, messages, summaries, records }`. A page imports this module and writes such a
// database with the raw IndexedDB API, as the previous schema version did, so the tests can
// open it with today's IndexedDBStore and check that the upgrade kept everything. Test code
// only: the package never touches IndexedDB from JavaScript.

/** Opens `name` at `version`, creating it with `stores` (name -> key path or null). */
function openRaw(name, version, stores) {
  return new Promise((resolve, reject) => {
    const request = indexedDB.open(name, version);
    request.onupgradeneeded = () => {
      for (const [store, keyPath] of Object.entries(stores)) {
        if (!request.result.objectStoreNames.contains(store)) {
          request.result.createObjectStore(store, keyPath === null ? undefined : { keyPath });
        }
      }
    };
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
    request.onblocked = () => reject(new Error(`opening ${name} at version ${version} was blocked`));
  });
}

function done(tx) {
  return new Promise((resolve, reject) => {
    tx.oncomplete = () => resolve();
    tx.onabort = () => reject(tx.error ?? new Error("aborted"));
  });
}

/**
 * Writes a schema version 1 database: `conversations` is an array of
 * `{ id, meta, messages, summaries, records }` records, as version 1 stored them.
 */
export async function writeV1(name, conversations) {
  const db = await openRaw(name, 1, { conversations: "id" });
  const tx = db.transaction("conversations", "readwrite");
  for (const c of conversations) tx.objectStore("conversations").put(c);
  await done(tx);
  db.close();
}

/** A database of a schema version this ctxfold does not know, with one record in it. */
export async function writeFuture(name, version) {
  const db = await openRaw(name, version, { future: null });
  const tx = db.transaction("future", "readwrite");
  tx.objectStore("future").put({ kept: true }, "k");
  await done(tx);
  db.close();
}

/** What a database holds, read with the raw API: its version, stores, and every record. */
export async function dump(name) {
  const db = await new Promise((resolve, reject) => {
    const request = indexedDB.open(name);
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
  const stores = [...db.objectStoreNames];
  const out = { version: db.version, stores, records: {} };
  if (stores.length > 0) {
    const tx = db.transaction(stores, "readonly");
    await Promise.all(
      stores.map(
        (s) =>
          new Promise((resolve, reject) => {
            const keys = tx.objectStore(s).getAllKeys();
            const values = tx.objectStore(s).getAll();
            values.onsuccess = () => {
              out.records[s] = keys.result.map((k, i) => [k, values.result[i]]);
              resolve();
            };
            values.onerror = () => reject(values.error);
          }),
      ),
    );
  }
  db.close();
  return out;
}

/** Opens `name` with the raw API and keeps the connection open, ignoring `versionchange`
 * (as a tab running an older ctxfold would): an upgrade waits for it. */
export async function holdOpen(name, version) {
  const db = await openRaw(name, version, {});
  db.onversionchange = null;
  return () => db.close();
}
