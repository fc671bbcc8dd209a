// The Durable Object of the search bench (run.mjs): one conversation held twice in the object's
// own SQLite storage, once through durableObjectStore (searched by the Compactor's index in the
// core) and once as the rows of an FTS5 table (searched by SQLite, ranked by its bm25()). Each
// request runs a batch of searches and answers what they found; run.mjs times the requests
// from outside, since a Worker's clock stands still while it computes.
import { DurableObject } from "cloudflare:workers";
import * as ctxfold from "../../pkg/workerd.js";

const { Compactor, durableObjectStore } = ctxfold;

/** The text of an OpenAI chat message that SQLite indexes: its content and its tool calls' arguments. */
function textOf(m) {
  const content = typeof m.content === "string" ? m.content : Array.isArray(m.content) ? m.content.map((p) => p?.text ?? "").join("\n") : "";
  const calls = (m.tool_calls ?? []).map((c) => `${c.function?.name ?? ""} ${c.function?.arguments ?? ""}`);
  return [content, ...calls].join("\n");
}

/** A question as an FTS5 query: its words, each quoted, any of them (OR), as the core's index takes it. */
function ftsQuery(q) {
  const words = q.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? [];
  return [...new Set(words)].map((w) => `"${w}"`).join(" OR ");
}

export class Search extends DurableObject {
  compactor = new Compactor({ model: "gpt-4o", contextWindow: 128000, store: durableObjectStore(this.ctx.storage) });

  async fetch(request) {
    const url = new URL(request.url);
    const body = request.method === "POST" ? await request.json() : {};
    try {
      return Response.json(await this.route(url.pathname, body));
    } catch (e) {
      return Response.json({ error: { name: e?.name, code: e?.code, message: e?.message } }, { status: 500 });
    }
  }

  async route(path, body) {
    const sql = this.ctx.storage.sql;
    switch (path) {
      case "/load": {
        // The history through the Compactor (one prepare, then a commit per reply, as a chat
        // stores it), and the same texts in an FTS5 table.
        await this.compactor.prepare("c", body.messages);
        sql.exec("CREATE VIRTUAL TABLE IF NOT EXISTS fts USING fts5(body)");
        body.messages.forEach((m, i) => sql.exec("INSERT INTO fts(rowid, body) VALUES (?, ?)", i, textOf(m)));
        return { length: (await this.compactor.status("c")).length, rows: sql.exec("SELECT count(*) AS n FROM fts").one().n };
      }
      case "/noop":
        return { ok: true };
      case "/core": {
        const found = [];
        for (let r = 0; r < body.rounds; r++) {
          for (const q of body.queries) found.push((await this.compactor.search("c", q, { limit: body.limit })).map((h) => h.index));
        }
        return { found: found.slice(0, body.queries.length) };
      }
      case "/cold": {
        // A Compactor made afresh, as a new request on an evicted object would: its first
        // search reads the history from storage and builds the index.
        const fresh = new Compactor({ model: "gpt-4o", contextWindow: 128000, store: durableObjectStore(this.ctx.storage) });
        return { found: (await fresh.search("c", body.queries[0], { limit: body.limit })).map((h) => h.index) };
      }
      case "/cold-history": {
        // The same fresh Compactor reading the whole history without searching it.
        const fresh = new Compactor({ model: "gpt-4o", contextWindow: 128000, store: durableObjectStore(this.ctx.storage) });
        return { length: (await fresh.history("c")).length };
      }
      case "/cold-prepare": {
        // The same fresh Compactor's first turn (no new message): the history read into the
        // core, which the next turn would pay anyway.
        const fresh = new Compactor({ model: "gpt-4o", contextWindow: 128000, store: durableObjectStore(this.ctx.storage) });
        return { length: (await fresh.prepare("c", [])).messages.length };
      }
      case "/sqlite": {
        const found = [];
        for (let r = 0; r < body.rounds; r++) {
          for (const q of body.queries) {
            const rows = sql.exec("SELECT rowid FROM fts WHERE fts MATCH ? ORDER BY bm25(fts), rowid DESC LIMIT ?", ftsQuery(q), body.limit).toArray();
            found.push(rows.map((row) => row.rowid));
          }
        }
        return { found: found.slice(0, body.queries.length) };
      }
      default:
        return { error: { message: `no route ${path}` } };
    }
  }
}

export default {
  async fetch(request, env) {
    const name = new URL(request.url).searchParams.get("object") ?? "bench";
    return env.SEARCH.get(env.SEARCH.idFromName(name)).fetch(request);
  },
};
