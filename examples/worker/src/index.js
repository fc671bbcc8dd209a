// A chat API on Cloudflare Workers: one Durable Object per conversation, each keeping its
// conversation inside the model's window with ctxfold's Compactor over durableObjectStore.
//
//   POST /conversations/:id/messages     { content } (a user message) or { messages, tools? }
//                                        (what is new: a user message, tool results); the
//                                        model's reply comes back as JSON, or as server-sent
//                                        events with ?stream=1 or Accept: text/event-stream
//   GET  /conversations/:id              the status and the full history
//   GET  /conversations/:id/compactions  one record per compaction
//   POST /conversations/:id/compact      { instructions? }: compact now
//   POST /conversations/:id/undo         undo the latest compaction
import { DurableObject } from "cloudflare:workers";
import { Compactor, durableObjectStore, openAISummarizer, sse } from "ctxfold";

const ROUTE = /^\/conversations\/([^/]+)(?:\/(messages|compactions|compact|undo))?\/?$/;

export default {
  async fetch(request, env) {
    const m = new URL(request.url).pathname.match(ROUTE);
    if (!m) return error(404, "NOT_FOUND", "no such route");
    // One object per conversation: its turns run one after another, on one machine.
    const id = decodeURIComponent(m[1]);
    return env.CONVERSATION.get(env.CONVERSATION.idFromName(id)).fetch(request);
  },
};

/** The SSE event name each Compactor event goes out as (sse() writes the data line). */
const NOTICES = { compactionStart: "compaction", compactionEnd: "compaction", compactionFailed: "compaction", pruned: "pruned", fallback: "fallback" };

export class Conversation extends DurableObject {
  /** The turn running now, or resolved: each turn (prepare, the model, commit) waits for the one before. */
  #tail = Promise.resolve();
  /** What the running turn's summarizer waits for: its `compaction` event on its way to the client. */
  #notified = async () => {};

  constructor(ctx, env) {
    super(ctx, env);
    this.api = (env.OPENAI_BASE_URL || "https://api.openai.com/v1").replace(/\/+$/, "");
    this.model = env.MODEL || "gpt-4o";
    this.key = env.OPENAI_API_KEY;
    const summarize = openAISummarizer({ baseURL: this.api, apiKey: this.key, model: env.SUMMARY_MODEL || this.model });
    this.compactor = new Compactor({
      model: this.model,
      ...(env.CONTEXT_WINDOW ? { contextWindow: Number(env.CONTEXT_WINDOW) } : {}),
      store: durableObjectStore(ctx.storage),
      summarizer: async (request) => {
        await this.#notified();
        return summarize(request);
      },
      // The summary the next compaction needs is made after the reply is sent, while the user
      // reads it; waitUntil keeps the object alive for it.
      prepareAhead: true,
      waitUntil: ctx.waitUntil.bind(ctx),
    });
  }

  async fetch(request) {
    const url = new URL(request.url);
    const [, raw, action] = url.pathname.match(ROUTE);
    const id = decodeURIComponent(raw);
    const c = this.compactor;
    try {
      if (request.method === "GET" && !action) {
        const status = await c.status(id);
        if (!status) return error(404, "NO_SUCH_CONVERSATION", `no conversation ${id}`);
        return Response.json({ id, status, history: await c.history(id) });
      }
      if (request.method === "GET" && action === "compactions") return Response.json(await c.records(id));
      if (request.method !== "POST") return error(405, "METHOD_NOT_ALLOWED", `${request.method} ${url.pathname}`);
      const body = await readJson(request);
      if (action === "compact") {
        const instructions = typeof body.instructions === "string" ? body.instructions : undefined;
        const { contextStatus, record } = await this.#serial(() => c.compact(id, { instructions }));
        return Response.json({ contextStatus, record });
      }
      if (action === "undo") {
        const undone = await this.#serial(() => c.undo(id));
        return undone ? Response.json(undone) : error(409, "NOTHING_TO_UNDO", "no compaction to undo");
      }
      if (action === "messages") {
        const input = newInput(body);
        const streaming = url.searchParams.get("stream") === "1" || (request.headers.get("accept") ?? "").includes("text/event-stream");
        return streaming ? this.#streamed(id, input) : Response.json(await this.#serial(() => this.#turn(id, input)));
      }
      return error(404, "NOT_FOUND", "no such route");
    } catch (e) {
      return failure(e);
    }
  }

  /** Runs `fn` after every turn before it. */
  #serial(fn) {
    const run = this.#tail.then(fn);
    this.#tail = run.catch(() => {});
    return run;
  }

  /**
   * One turn: what is new in, the input that fits out to the model, its reply committed.
   * `send(event, data)`, when streaming, gets the Compactor's notices and the reply's pieces.
   */
  async #turn(id, input, send = null) {
    const c = this.compactor;
    const offs = [];
    if (send) {
      for (const [name, event] of Object.entries(NOTICES)) {
        offs.push(
          c.on(name, (e) => {
            // The summarizer waits for this write, so the client hears "Summarizing..." before
            // the wait, not after it.
            const written = send(event, null, sse(e));
            // Then a task's turn, so the runtime sends it on before the summarizer's request
            // starts (the response and the request leave from the same thread).
            if (name === "compactionStart") this.#notified = () => written.then(() => new Promise((r) => setTimeout(r, 0)));
          }),
        );
      }
    }
    try {
      const prepared = await c.prepare(id, input);
      const request = { model: this.model, messages: prepared.messages, ...(prepared.tools ? { tools: prepared.tools } : {}) };
      const { message, usage } = send ? await this.#callStreaming(request, send) : await this.#call(request);
      const committed = await c.commit(id, message, usage);
      return {
        message,
        usage: usage ?? null,
        contextStatus: prepared.contextStatus,
        // The compaction this turn made (its record), and how many summaries were made ahead for it.
        compaction: prepared.record ?? null,
        preparedAhead: prepared.preparedAhead,
        usageIgnored: committed?.usageIgnored ?? null,
      };
    } finally {
      for (const off of offs) off();
      this.#notified = async () => {};
    }
  }

  /** The turn as server-sent events: notices, `delta`s of the reply, then `done` (or `error`). */
  #streamed(id, input) {
    const { readable, writable } = new TransformStream();
    const writer = writable.getWriter();
    const encoder = new TextEncoder();
    // A write resolves once the client's side of the stream has taken it.
    const send = (event, data, line = `data: ${JSON.stringify(data)}\n\n`) => writer.write(encoder.encode(`event: ${event}\n${line}`)).catch(() => {});
    this.#serial(() => this.#turn(id, input, send))
      .then((result) => send("done", result))
      .catch((e) => send("error", errorBody(e)))
      .finally(() => writer.close().catch(() => {}));
    return new Response(readable, { headers: { "content-type": "text/event-stream", "cache-control": "no-cache" } });
  }

  async #call(request) {
    const res = await this.#post({ ...request, stream: false });
    const { choices, usage } = await res.json();
    return { message: choices[0].message, usage };
  }

  /** The reply streamed: each text piece sent on as it comes, the whole message put together. */
  async #callStreaming(request, send) {
    const res = await this.#post({ ...request, stream: true, stream_options: { include_usage: true } });
    const message = { role: "assistant", content: "" };
    const calls = [];
    let usage = null;
    for await (const data of events(res.body)) {
      if (data.usage) usage = data.usage;
      const delta = data.choices?.[0]?.delta;
      if (!delta) continue;
      if (delta.content) {
        message.content += delta.content;
        await send("delta", { content: delta.content });
      }
      for (const t of delta.tool_calls ?? []) {
        const call = (calls[t.index] ??= { id: "", type: "function", function: { name: "", arguments: "" } });
        if (t.id) call.id = t.id;
        if (t.function?.name) call.function.name += t.function.name;
        if (t.function?.arguments) call.function.arguments += t.function.arguments;
      }
    }
    if (calls.length) {
      message.tool_calls = calls;
      if (!message.content) message.content = null;
    }
    return { message, usage };
  }

  async #post(body) {
    const res = await fetch(`${this.api}/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", ...(this.key ? { authorization: `Bearer ${this.key}` } : {}) },
      body: JSON.stringify(body),
    });
    if (!res.ok) throw Object.assign(new Error(`the model answered HTTP ${res.status}: ${(await res.text()).slice(0, 300)}`), { code: "UPSTREAM_ERROR", status: 502 });
    return res;
  }
}

/** The body's new messages: `{ content }` is one user message; `{ messages, tools? }` as given. */
function newInput(body) {
  if (typeof body.content === "string") return [{ role: "user", content: body.content }];
  if (!Array.isArray(body.messages) || body.messages.length === 0) {
    throw Object.assign(new Error('the body needs "content" (a string) or "messages" (a non-empty array)'), { code: "BAD_REQUEST", status: 400 });
  }
  return body.tools === undefined ? body.messages : { messages: body.messages, tools: body.tools };
}

async function readJson(request) {
  const text = await request.text();
  if (!text) return {};
  try {
    const body = JSON.parse(text);
    if (body !== null && typeof body === "object" && !Array.isArray(body)) return body;
  } catch {}
  throw Object.assign(new Error("the body is not a JSON object"), { code: "BAD_REQUEST", status: 400 });
}

/** The data of each event of an SSE stream (Chat Completions chunks), up to `[DONE]`. */
async function* events(body) {
  const decoder = new TextDecoder();
  let buffer = "";
  for await (const chunk of body) {
    buffer += decoder.decode(chunk, { stream: true });
    let end;
    while ((end = buffer.indexOf("\n\n")) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      for (const line of block.split("\n")) {
        if (!line.startsWith("data:")) continue;
        const data = line.slice(5).trim();
        if (data === "[DONE]") return;
        yield JSON.parse(data);
      }
    }
  }
}

const errorBody = (e) => ({ error: { code: typeof e?.code === "string" ? e.code : "ERROR", message: String(e?.message ?? e) } });

function failure(e) {
  // ctxfold's argument errors are TypeError / RangeError: the caller's to fix.
  const status = e?.status ?? (e instanceof TypeError || e instanceof RangeError ? 400 : 500);
  return Response.json(errorBody(e), { status });
}

const error = (status, code, message) => Response.json({ error: { code, message } }, { status });
