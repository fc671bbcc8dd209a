// A Worker with a Durable Object that keeps conversations through durableObjectStore(ctx.storage),
// as the README's Workers example does. The Worker routes each request to the object named
// by `?object=`; the object runs the store conformance cases, the corpus replay suite
// (tests/support/), or single turns of a chat with a Compactor made afresh for each request
// (so every turn reads what the previous one stored).
import { DurableObject } from "cloudflare:workers";
import * as ctxfold from "../../pkg/workerd.js";
import { checkStore } from "../../pkg/testing/index.js";
import { replay } from "../support/compactor-suite.mjs";

const { Compactor, durableObjectStore } = ctxfold;

function failure(e) {
  return { error: { name: e?.name, code: e?.code, message: e?.message, stack: e?.stack } };
}

/** A summarizer double for a remote LLM: `ms` of waiting, then a summary of what it was given. */
const slowSummarizer = (ms, calls) => async ({ prompt }) => {
  calls.push(prompt.length);
  await new Promise((r) => setTimeout(r, ms));
  return `## Conversation Summary\n- **Decisions:** None\n- **Entities:** None\n- **Facts:** The span held ${prompt.length} characters.\n- **Open Items:** None`;
};

export class Chat extends DurableObject {
  /** One Compactor for the object's lifetime: concurrent requests on it wait for each other. */
  compactor = new Compactor({ model: "gpt-4o", contextWindow: 16384, store: durableObjectStore(this.ctx.storage) });
  /** prepareAhead, its background work kept alive by the object's waitUntil; and an inline twin. */
  calls = { ahead: [], inline: [] };
  ahead = new Compactor({
    model: "gpt-4o",
    contextWindow: 4096,
    store: durableObjectStore(this.ctx.storage, { prefix: "ahead" }),
    summarizer: slowSummarizer(300, this.calls.ahead),
    prepareAhead: true,
    waitUntil: (p) => this.ctx.waitUntil(p),
  });
  inline = new Compactor({ model: "gpt-4o", contextWindow: 4096, store: durableObjectStore(this.ctx.storage, { prefix: "inline" }), summarizer: slowSummarizer(300, this.calls.inline) });

  async fetch(request) {
    const url = new URL(request.url);
    const body = request.method === "POST" ? await request.json() : {};
    try {
      return Response.json(await this.route(url.pathname, body));
    } catch (e) {
      return Response.json(failure(e), { status: 500 });
    }
  }

  async route(path, body) {
    switch (path) {
      case "/conformance":
        return checkStore(() => durableObjectStore(this.ctx.storage, { prefix: body.prefix ?? "conformance" }));
      case "/replay":
        return replay(ctxfold, { store: durableObjectStore(this.ctx.storage), messages: body.messages, window: body.window, id: body.id });
      case "/turn": {
        // A Compactor made for this request: its cache is empty, so it reads the history stored.
        const compactor = new Compactor({ model: "gpt-4o", contextWindow: 16384, store: durableObjectStore(this.ctx.storage) });
        if (body.reply) await compactor.commit(body.id, body.reply);
        const r = await compactor.prepare(body.id, body.messages);
        return { messages: r.messages, tokensAfter: r.report.tokensAfter, budget: r.report.budget.input, record: r.record, length: (await compactor.status(body.id)).length };
      }
      case "/recall": {
        // A Compactor made for this request (recall: true): it reads the history stored and
        // indexes it, then answers the model's call.
        const compactor = new Compactor({ model: "gpt-4o", contextWindow: 16384, store: durableObjectStore(this.ctx.storage), recall: true });
        if (body.messages) await compactor.prepare(body.id, body.messages);
        return { recalled: await compactor.recall(body.id, body.args), hits: await compactor.search(body.id, body.args.query, { limit: 100 }) };
      }
      case "/shared-turn": {
        const r = await this.compactor.prepare(body.id, body.messages);
        return { record: r.record, last: r.messages.at(-1) };
      }
      case "/ahead-commit": {
        // The reply is stored; the response goes back at once, the summary is made after it.
        for (const c of [this.ahead, this.inline]) await c.commit(body.id, body.reply);
        return { aheadCalls: this.calls.ahead.length };
      }
      case "/ahead-prepare": {
        const out = {};
        for (const [name, c] of [["ahead", this.ahead], ["inline", this.inline]]) {
          const t = Date.now();
          const r = await c.prepare(body.id, body.messages);
          out[name] = { ms: Date.now() - t, messages: JSON.stringify(r.messages), compacted: r.record !== null, preparedAhead: r.preparedAhead, tokensAfter: r.report.tokensAfter };
        }
        return { ...out, calls: { ahead: this.calls.ahead.length, inline: this.calls.inline.length } };
      }
      case "/read": {
        const c = this.compactor;
        return { history: await c.history(body.id), records: await c.records(body.id), summaries: await c.summaries(body.id), list: await c.list(), keys: [...(await this.ctx.storage.list()).keys()].length };
      }
      default:
        throw new Error(`no route ${path}`);
    }
  }
}

export default {
  async fetch(request, env) {
    const url = new URL(request.url);
    const object = env.CHAT.get(env.CHAT.idFromName(url.searchParams.get("object") ?? "default"));
    return object.fetch(request);
  },
};
