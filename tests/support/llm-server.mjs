// A double for a remote LLM: an HTTP server on 127.0.0.1 (ephemeral port) that speaks
// OpenAI's Chat Completions (POST .../chat/completions) and Anthropic's Messages API
// (POST .../v1/messages), and follows a script per scenario: answer, be slow, fail,
// rate-limit, return junk, or refuse the key. It records every request (headers, body,
// when it came) and whether the client closed the connection before the answer was sent.
// It answers CORS preflights, so a page on another origin can call it. A `chat` step makes it
// a stand-in for the model itself (the examples' tests): a function of the request picks the
// reply, text or tool calls, sent as JSON or, for `stream: true`, as Chat Completions chunks.
//
//   const llm = await startLlmServer();
//   const { openai, anthropic, requests } = llm.scenario([{ status: 429, headers: { "retry-after": "1" } }, { reply: "ok" }]);
//   // openai: a baseURL for openAISummarizer; anthropic: one for anthropicSummarizer
//   await llm.close();
//
//   const { openai, requests } = llm.scenario([{ chat: (body) => (isSummaryRequest(body) ? { content: SUMMARY } : { content: "Paris." }) }]);
import { createServer } from "node:http";

/** The summary every "ok" step answers with: it follows ctxfold's schema. */
export const SUMMARY = [
  "## Conversation Summary",
  "- **Decisions:** Keep the retry budget at two.",
  "- **Entities:** The billing service.",
  "- **Facts:** The user asked about the billing service's retries.",
  "- **Open Items:** None",
].join("\n");

/** The model and usage each API's "ok" answer reports. */
export const REPLY_MODEL = { openai: "fake-gpt-2026-01-01", anthropic: "fake-claude-2026-01-01" };
export const REPLY_USAGE = {
  openai: { prompt_tokens: 1234, completion_tokens: 56, total_tokens: 1290 },
  anthropic: { input_tokens: 1234, output_tokens: 56, cache_read_input_tokens: 0 },
};

const CORS = {
  "access-control-allow-origin": "*",
  "access-control-expose-headers": "retry-after, retry-after-ms, x-should-retry",
};

/**
 * Steps (one per request, in order; the last repeats):
 * - `{ reply: "ok" }` a summary in the API's shape, with REPLY_MODEL and REPLY_USAGE
 *   (`usage: null`: no usage in the answer, as a provider that does not report it);
 * - `{ delayMs }` the same after a delay (a client that gives up first is recorded);
 * - `{ status, headers?, body? }` an error answer;
 * - `{ junk: true }` 200 with an HTML page;
 * - `{ echoKey: true }` 401 whose body repeats the key it was sent (the worst a server can do);
 * - `{ chat(body, record) }` (OpenAI only) the reply the function gives, called when the request
 *   has come (it may return a promise, to hold the answer back): `{ content?, toolCalls?: [{ id?,
 *   name, arguments }], usage? }` (`arguments` an object or its JSON; `usage` in OpenAI's shape,
 *   default none), as a `chat.completion`, or as `chat.completion.chunk` events when the request
 *   asks for `stream` (the usage in a last chunk when `stream_options.include_usage`).
 */
export async function startLlmServer() {
  const scenarios = new Map();
  const preflights = [];
  let next = 1;

  const server = createServer((req, res) => {
    for (const [k, v] of Object.entries(CORS)) res.setHeader(k, v);
    if (req.method === "OPTIONS") {
      preflights.push({ url: req.url, headers: req.headers["access-control-request-headers"] });
      res.writeHead(204, {
        "access-control-allow-methods": "POST",
        "access-control-allow-headers":
          "authorization, content-type, x-api-key, anthropic-version, anthropic-dangerous-direct-browser-access",
        "access-control-max-age": "0",
      });
      res.end();
      return;
    }
    const m = req.url.match(/^\/s\/(\d+)(\/.*)$/);
    const scenario = m && scenarios.get(m[1]);
    const api = m?.[2] === "/v1/chat/completions" ? "openai" : m?.[2] === "/v1/messages" ? "anthropic" : null;
    if (!scenario || !api || req.method !== "POST") {
      res.writeHead(404, { "content-type": "text/plain" }).end(`no such endpoint: ${req.method} ${req.url}`);
      return;
    }
    let raw = "";
    req.setEncoding("utf8");
    req.on("data", (c) => (raw += c));
    req.on("end", () => {
      const record = { api, at: Date.now(), headers: req.headers, body: parse(raw), closedByClient: false, answered: false };
      scenario.requests.push(record);
      const step = scenario.steps[Math.min(scenario.requests.length - 1, scenario.steps.length - 1)];
      let timer = null;
      res.on("close", () => {
        clearTimeout(timer);
        if (!record.answered) {
          record.closedByClient = true;
          record.closedAt = Date.now();
        }
      });
      const answer = () => {
        record.answered = true;
        respond(res, api, step, record);
      };
      if (step.chat) {
        Promise.resolve()
          .then(() => step.chat(record.body, record))
          .then((reply) => {
            if (record.closedByClient) return;
            record.answered = true;
            record.reply = reply;
            chat(res, record.body, reply);
          })
          .catch((e) => {
            record.answered = true;
            res.writeHead(500, { "content-type": "text/plain" }).end(`the chat step threw: ${e?.stack ?? e}`);
          });
      } else if (step.delayMs) timer = setTimeout(answer, step.delayMs);
      else answer();
    });
  });
  await new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", resolve);
  });
  const url = `http://127.0.0.1:${server.address().port}`;

  return {
    url,
    preflights,
    /** Registers a script; returns its base URLs and the list its requests are recorded in. */
    scenario(steps) {
      const id = String(next++);
      const requests = [];
      scenarios.set(id, { steps, requests });
      return { openai: `${url}/s/${id}/v1`, anthropic: `${url}/s/${id}`, requests };
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * Whether a Chat Completions body is one of ctxfold's summarizer requests (its system prompt
 * asks for the summary schema) rather than a chat turn.
 */
export function isSummaryRequest(body) {
  const first = body?.messages?.[0];
  return first?.role === "system" && typeof first.content === "string" && first.content.includes("## Conversation Summary");
}

/** A `chat` step's reply, as a completion or as its stream of chunks. */
function chat(res, body, reply) {
  const id = `chatcmpl-${Math.random().toString(36).slice(2, 10)}`;
  const model = typeof body?.model === "string" ? body.model : "stand-in";
  const toolCalls = (reply.toolCalls ?? []).map((c, k) => ({
    id: c.id ?? `call_${k}`,
    type: "function",
    function: { name: c.name, arguments: typeof c.arguments === "string" ? c.arguments : JSON.stringify(c.arguments ?? {}) },
  }));
  const content = reply.content ?? (toolCalls.length ? null : "");
  const finish = toolCalls.length ? "tool_calls" : "stop";
  if (body?.stream !== true) {
    const message = { role: "assistant", content, ...(toolCalls.length ? { tool_calls: toolCalls } : {}) };
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ id, object: "chat.completion", created: 0, model, choices: [{ index: 0, message, finish_reason: finish }], ...(reply.usage ? { usage: reply.usage } : {}) }));
    return;
  }
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  const send = (choices, extra = {}) => res.write(`data: ${JSON.stringify({ id, object: "chat.completion.chunk", created: 0, model, choices, ...extra })}\n\n`);
  send([{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null }]);
  // The text in a few pieces, as a model streams it.
  for (const piece of (content ?? "").match(/[\s\S]{1,16}/g) ?? []) send([{ index: 0, delta: { content: piece }, finish_reason: null }]);
  toolCalls.forEach((c, index) => send([{ index: 0, delta: { tool_calls: [{ index, ...c }] }, finish_reason: null }]));
  send([{ index: 0, delta: {}, finish_reason: finish }]);
  if (reply.usage && body.stream_options?.include_usage) send([], { usage: reply.usage });
  res.end("data: [DONE]\n\n");
}

function parse(raw) {
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}

function respond(res, api, step, record) {
  const json = (status, body, headers = {}) =>
    res.writeHead(status, { "content-type": "application/json", ...headers }).end(JSON.stringify(body));
  if (step.status) {
    res.writeHead(step.status, { "content-type": "application/json", ...step.headers });
    res.end(step.body ?? JSON.stringify({ error: { message: `scripted ${step.status}` } }));
  } else if (step.junk) {
    res.writeHead(200, { "content-type": "text/html" }).end("<html>\n  <body>Welcome to nginx! The gateway ate your request.</body>\n</html>\n");
  } else if (step.echoKey) {
    const key = api === "openai" ? String(record.headers.authorization ?? "").replace(/^Bearer /, "") : record.headers["x-api-key"];
    json(401, {
      type: "error",
      error: { type: "authentication_error", message: `Incorrect API key provided: ${key}. You can find your API key at https://example.test/keys.` },
    }, { "www-authenticate": "Bearer" });
  } else if (api === "openai") {
    json(200, {
      id: "chatcmpl-1",
      object: "chat.completion",
      model: REPLY_MODEL.openai,
      choices: [{ index: 0, message: { role: "assistant", content: SUMMARY }, finish_reason: "stop" }],
      ...(step.usage === null ? {} : { usage: REPLY_USAGE.openai }),
    });
  } else {
    json(200, {
      id: "msg_1",
      type: "message",
      role: "assistant",
      model: REPLY_MODEL.anthropic,
      content: [{ type: "text", text: SUMMARY }],
      stop_reason: "end_turn",
      ...(step.usage === null ? {} : { usage: REPLY_USAGE.anthropic }),
    });
  }
}
