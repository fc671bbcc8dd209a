// A ctxfold CompactorStore over SQLite (better-sqlite3): each conversation's meta, messages,
// summaries and records in four tables; one `write` is one SQLite transaction that checks,
// with ctxfold's checkWrite, the stored version and that the batch only appends.
// ctxfold/testing's assertStore checks it against the contract (test/store.test.mjs).
import Database from "better-sqlite3";
import { checkWrite } from "ctxfold";

const SCHEMA = `
  CREATE TABLE IF NOT EXISTS conversations (id TEXT PRIMARY KEY, version INTEGER NOT NULL, meta TEXT NOT NULL);
  CREATE TABLE IF NOT EXISTS messages (id TEXT NOT NULL, idx INTEGER NOT NULL, body TEXT NOT NULL, PRIMARY KEY (id, idx));
  CREATE TABLE IF NOT EXISTS summaries (id TEXT NOT NULL, seq INTEGER NOT NULL, body TEXT NOT NULL, PRIMARY KEY (id, seq));
  CREATE TABLE IF NOT EXISTS records (id TEXT NOT NULL, seq INTEGER NOT NULL, body TEXT NOT NULL, PRIMARY KEY (id, seq));
`;

export class SqliteStore {
  #db;
  #q;
  #write;

  /** `path`: the database file (created if missing), or ":memory:". */
  constructor(path) {
    const db = new Database(path);
    // WAL: readers do not wait for the writer, and a crash mid-write leaves the last commit.
    db.pragma("journal_mode = WAL");
    db.exec(SCHEMA);
    this.#db = db;
    this.#q = {
      meta: db.prepare("SELECT meta FROM conversations WHERE id = ?").pluck(),
      stored: db.prepare("SELECT version, json_extract(meta, '$.length') AS length FROM conversations WHERE id = ?"),
      hasSummary: db.prepare("SELECT 1 FROM summaries WHERE id = ? AND seq = ?").pluck(),
      hasRecord: db.prepare("SELECT 1 FROM records WHERE id = ? AND seq = ?").pluck(),
      messages: db.prepare("SELECT body FROM messages WHERE id = ? AND idx >= ? ORDER BY idx").pluck(),
      summaries: db.prepare("SELECT body FROM summaries WHERE id = ? ORDER BY seq").pluck(),
      records: db.prepare("SELECT body FROM records WHERE id = ? ORDER BY seq").pluck(),
      list: db.prepare("SELECT id FROM conversations ORDER BY id").pluck(),
      message: db.prepare("INSERT INTO messages (id, idx, body) VALUES (?, ?, ?)"),
      summary: db.prepare("INSERT INTO summaries (id, seq, body) VALUES (?, ?, ?)"),
      record: db.prepare("INSERT INTO records (id, seq, body) VALUES (?, ?, ?)"),
      putMeta: db.prepare(
        "INSERT INTO conversations (id, version, meta) VALUES (?, ?, ?) ON CONFLICT (id) DO UPDATE SET version = excluded.version, meta = excluded.meta",
      ),
    };
    const remove = ["conversations", "messages", "summaries", "records"].map((t) => db.prepare(`DELETE FROM ${t} WHERE id = ?`));
    this.#delete = db.transaction((id) => remove.forEach((s) => s.run(id)));
    // Everything a write does happens in one transaction, after the check: a stale writer, or
    // a batch that would cut or replace what is stored, changes nothing.
    this.#write = db.transaction((id, expect, batch, json) => {
      const stored = this.#q.stored.get(id) ?? null;
      const held = {
        summaries: batch.summaries.map((s) => s.seq).filter((seq) => this.#q.hasSummary.get(id, seq) !== undefined),
        records: batch.records.map((r) => r.seq).filter((seq) => this.#q.hasRecord.get(id, seq) !== undefined),
      };
      checkWrite(id, expect, batch, stored, held);
      json.messages.forEach((body, k) => this.#q.message.run(id, batch.start + k, body));
      json.summaries.forEach((body, k) => this.#q.summary.run(id, batch.summaries[k].seq, body));
      json.records.forEach((body, k) => this.#q.record.run(id, batch.records[k].seq, body));
      this.#q.putMeta.run(id, batch.meta.version, json.meta);
    });
  }

  #delete;

  // Values go in and come out as JSON text: copies, as the contract asks.
  async load(id) {
    const meta = this.#q.meta.get(id);
    return meta === undefined ? null : JSON.parse(meta);
  }

  async messages(id, from) {
    return this.#q.messages.all(id, from).map((m) => JSON.parse(m));
  }

  async write(id, expect, batch) {
    // Serialized before the transaction, so a value JSON cannot hold writes nothing.
    const json = {
      messages: batch.messages.map((m) => JSON.stringify(m)),
      summaries: batch.summaries.map((s) => JSON.stringify(s)),
      records: batch.records.map((r) => JSON.stringify(r)),
      meta: JSON.stringify(batch.meta),
    };
    this.#write(id, expect, batch, json);
  }

  async summaries(id) {
    return this.#q.summaries.all(id).map((s) => JSON.parse(s));
  }

  async records(id) {
    return this.#q.records.all(id).map((r) => JSON.parse(r));
  }

  async list() {
    return this.#q.list.all();
  }

  async delete(id) {
    this.#delete(id);
  }

  close() {
    this.#db.close();
  }
}
