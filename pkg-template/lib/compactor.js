// The Compactor's JavaScript: for now, the store ctxfold ships for memory. (The class and
// durableObjectStore follow.)

/**
 * @param {object} raw  the wasm-bindgen module
 * @param {ReturnType<import("./guard.js").guard>} g
 */
export function compactorWith(raw, g) {
  const staleWriteError = g.wrap(raw.staleWriteError);

  /** The default store: conversations in this process's memory, copied in and out. */
  class MemoryStore {
    #rows = new Map();

    async load(id) {
      const row = this.#rows.get(id);
      return row ? structuredClone(row.meta) : null;
    }

    async messages(id, from) {
      const row = this.#rows.get(id);
      return row ? structuredClone(row.messages.slice(from)) : [];
    }

    async write(id, expect, batch) {
      const row = this.#rows.get(id);
      const found = row ? row.meta.version : null;
      if ((found ?? 0) !== expect) throw staleWriteError(id, expect, found);
      // Copied before anything changes: a batch that cannot be cloned writes nothing.
      const { messages, summaries, records, meta } = structuredClone(batch);
      const next = row ?? { meta, messages: [], summaries: [], records: [] };
      next.messages.length = batch.start;
      // (Not push(...x): an imported history can be longer than the stack allows arguments.)
      for (const m of messages) next.messages.push(m);
      for (const s of summaries) next.summaries.push(s);
      for (const r of records) next.records.push(r);
      next.meta = meta;
      this.#rows.set(id, next);
    }

    async summaries(id) {
      return structuredClone(this.#rows.get(id)?.summaries ?? []);
    }

    async records(id) {
      return structuredClone(this.#rows.get(id)?.records ?? []);
    }

    async list() {
      return [...this.#rows.keys()];
    }

    async delete(id) {
      this.#rows.delete(id);
    }
  }

  return { MemoryStore, staleWriteError };
}
