// A Durable Object that runs the recall agent loop (lib/recall-loop.mjs) over a Compactor on
// durableObjectStore(ctx.storage): a request with `messages` stores them first; each request
// makes its Compactor afresh, so the loop reads the conversation from storage.
import { DurableObject } from "cloudflare:workers";
import * as ctxfold from "../../pkg/workerd.js";
import * as ai from "./.bundle/ai.mjs";
import { recallLoop } from "./lib/recall-loop.mjs";

export class Chat extends DurableObject {
  compactor() {
    return new ctxfold.Compactor({ model: "gpt-4o", contextWindow: 8192, store: ctxfold.durableObjectStore(this.ctx.storage), recall: true });
  }

  async fetch(request) {
    const body = await request.json();
    try {
      if (body.messages) await this.compactor().prepare(body.id, body.messages);
      return Response.json(await recallLoop(ai, this.compactor(), body.id, body.question));
    } catch (e) {
      return Response.json({ error: { name: e?.name, code: e?.code, message: e?.message, stack: e?.stack } }, { status: 500 });
    }
  }
}

export default {
  fetch(request, env) {
    return env.CHAT.get(env.CHAT.idFromName("loop")).fetch(request);
  },
};
