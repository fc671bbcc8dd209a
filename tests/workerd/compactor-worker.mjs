// A Worker with a Durable Object that keeps conversations through durableObjectStore(ctx.storage),
// as the README's Workers example does. The Worker routes each request to the object named
// by `?object=`; the object runs the store conformance cases, the corpus replay suite
// (tests/support/), or single turns of a chat with a Compactor made afresh for each request
// (so every turn reads what the previous one stored).
import { DurableObject } from "cloudflare:workers";
import * as ctxfold from "../../pkg/workerd.js";
import { checkStore } from "../support/store-conformance.mjs";
import { replay } from "../support/compactor-suite.mjs";

const { Compactor, durableObjectStore } = ctxfold;

function failure(e) {
  return { error: { name: e?.name, code: e?.code, message: e?.message, stack: e?.stack } };
}

export class Chat extends DurableObject {
  /** One Compactor for the object's lifetime: concurrent requests on it wait for each other. */
  compactor = new Compactor({ model: "gpt-4o", contextWindow: 16384, store: durableObjectStore(this.ctx.storage) });

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
      case "/shared-turn": {
        const r = await this.compactor.prepare(body.id, body.messages);
        return { record: r.record, last: r.messages.at(-1) };
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
