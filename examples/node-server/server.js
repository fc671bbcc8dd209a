// A chat server on node:http with tools: each conversation is kept by ctxfold's Compactor in a
// SQLite file (store.js), so a restart keeps every history, summary and record. Each turn is an
// agent loop: the model's tool calls are run here and their results sent back, until it answers.
//
//   POST /conversations/:id/messages     { content }: one turn; answers { reply, steps, ... }
//   GET  /conversations/:id              the status and the full history
//   GET  /conversations/:id/compactions  one record per compaction
//   POST /conversations/:id/compact      { instructions? }: compact now
//   POST /conversations/:id/undo         undo the latest compaction
//
// Environment: OPENAI_BASE_URL, OPENAI_API_KEY, MODEL, SUMMARY_MODEL, CONTEXT_WINDOW, DB_PATH,
// HOST, PORT (see README.md).
import { createServer } from "node:http";
import { Compactor, openAISummarizer } from "ctxfold";
import { SqliteStore } from "./store.js";

const env = process.env;
const API = (env.OPENAI_BASE_URL || "https://api.openai.com/v1").replace(/\/+$/, "");
const KEY = env.OPENAI_API_KEY;
const MODEL = env.MODEL || "gpt-4o";
/** Model calls one turn may make (each tool round is one). */
const MAX_STEPS = 8;

/** The tools the model may call, and what runs each. */
const TOOLS = {
  word_count: {
    description: "Counts the words of a text.",
    parameters: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
    run: ({ text }) => String(String(text ?? "").split(/\s+/).filter(Boolean).length),
  },
  current_time: {
    description: "The current date and time, in UTC (ISO 8601).",
    parameters: { type: "object", properties: {} },
    run: () => new Date().toISOString(),
  },
};
const DEFINITIONS = Object.entries(TOOLS).map(([name, t]) => ({ type: "function", function: { name, description: t.description, parameters: t.parameters } }));

const store = new SqliteStore(env.DB_PATH || "conversations.db");
const compactor = new Compactor({
  model: MODEL,
  ...(env.CONTEXT_WINDOW ? { contextWindow: Number(env.CONTEXT_WINDOW) } : {}),
  store,
  summarizer: openAISummarizer({ baseURL: API, apiKey: KEY, model: env.SUMMARY_MODEL || MODEL }),
  prepareAhead: true,
});

/** Turns of one conversation, one after another: a turn is several Compactor calls. */
const turns = new Map();
/** The conversations this process has served (their summaries made ahead are awaited on a stop). */
const served = new Set();
function serial(id, fn) {
  served.add(id);
  const run = (turns.get(id) ?? Promise.resolve()).then(fn);
  const tail = run.catch(() => {});
  turns.set(id, tail);
  tail.then(() => turns.get(id) === tail && turns.delete(id));
  return run;
}

async function chat(messages, tools) {
  const res = await fetch(`${API}/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(KEY ? { authorization: `Bearer ${KEY}` } : {}) },
    body: JSON.stringify({ model: MODEL, messages, ...(tools?.length ? { tools } : {}) }),
  });
  if (!res.ok) throw httpError(502, "UPSTREAM_ERROR", `the model answered HTTP ${res.status}: ${(await res.text()).slice(0, 300)}`);
  const { choices, usage } = await res.json();
  return { message: choices[0].message, usage };
}

/** One turn: the user's message, then model calls and tool runs until the model answers. */
async function turn(id, content) {
  // The tool definitions are kept with the conversation (and counted with its input); passing
  // them each turn is harmless, and picks up a change.
  let input = { messages: [{ role: "user", content }], tools: DEFINITIONS };
  const compactions = [];
  for (let step = 1; ; step++) {
    const prepared = await compactor.prepare(id, input);
    if (prepared.record) compactions.push(prepared.record.seq);
    const { message, usage } = await chat(prepared.messages, prepared.tools);
    await compactor.commit(id, message, usage);
    const calls = message.tool_calls ?? [];
    if (calls.length === 0 || step === MAX_STEPS) {
      return { reply: message.content ?? "", steps: step, contextStatus: prepared.contextStatus, compactions };
    }
    // The results go in with the next prepare: ctxfold keeps each with its call.
    input = calls.map((call) => ({ role: "tool", tool_call_id: call.id, content: runTool(call) }));
  }
}

function runTool(call) {
  const tool = TOOLS[call.function?.name];
  if (!tool) return `error: no tool named ${call.function?.name}`;
  try {
    return tool.run(JSON.parse(call.function.arguments || "{}"));
  } catch (e) {
    return `error: ${e.message}`;
  }
}

const ROUTE = /^\/conversations\/([^/]+)(?:\/(messages|compactions|compact|undo))?\/?$/;

async function handle(req) {
  const url = new URL(req.url, "http://localhost");
  const m = url.pathname.match(ROUTE);
  if (!m) throw httpError(404, "NOT_FOUND", "no such route");
  const id = decodeURIComponent(m[1]);
  const action = m[2];
  if (req.method === "GET" && !action) {
    const status = await compactor.status(id);
    if (!status) throw httpError(404, "NO_SUCH_CONVERSATION", `no conversation ${id}`);
    return { id, status, history: await compactor.history(id) };
  }
  if (req.method === "GET" && action === "compactions") return compactor.records(id);
  if (req.method !== "POST" || !action || action === "compactions") throw httpError(405, "METHOD_NOT_ALLOWED", `${req.method} ${url.pathname}`);
  const body = await readJson(req);
  if (action === "messages") {
    if (typeof body.content !== "string" || body.content === "") throw httpError(400, "BAD_REQUEST", 'the body needs "content", a non-empty string');
    return serial(id, () => turn(id, body.content));
  }
  if (action === "compact") {
    const { contextStatus, record } = await serial(id, () => compactor.compact(id, { instructions: typeof body.instructions === "string" ? body.instructions : undefined }));
    return { contextStatus, record };
  }
  const undone = await serial(id, () => compactor.undo(id));
  if (!undone) throw httpError(409, "NOTHING_TO_UNDO", "no compaction to undo");
  return undone;
}

async function readJson(req) {
  let text = "";
  for await (const chunk of req) text += chunk;
  if (!text) return {};
  try {
    const body = JSON.parse(text);
    if (body !== null && typeof body === "object" && !Array.isArray(body)) return body;
  } catch {}
  throw httpError(400, "BAD_REQUEST", "the body is not a JSON object");
}

function httpError(status, code, message) {
  return Object.assign(new Error(message), { status, code });
}

const server = createServer((req, res) => {
  handle(req).then(
    (body) => send(res, 200, body),
    (e) => {
      // ctxfold's argument errors are TypeError / RangeError: the caller's to fix.
      const status = e.status ?? (e instanceof TypeError || e instanceof RangeError ? 400 : 500);
      if (status === 500) console.error(e);
      send(res, status, { error: { code: typeof e.code === "string" ? e.code : "ERROR", message: e.message } });
    },
  );
});

function send(res, status, body) {
  res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
}

server.listen(Number(env.PORT ?? 3000), env.HOST || "127.0.0.1", () => {
  const { address, port } = server.address();
  console.log(`listening on http://${address}:${port}`);
});

// On a stop: no new requests, the turns and the summaries made ahead finished, the file closed.
async function shutdown() {
  server.close();
  await Promise.all([...turns.values()]);
  await Promise.all([...served].map((id) => compactor.whenPrepared(id)));
  store.close();
  process.exit(0);
}
process.once("SIGTERM", shutdown);
process.once("SIGINT", shutdown);
