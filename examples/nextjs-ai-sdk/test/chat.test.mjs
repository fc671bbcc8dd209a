// The app as it ships: `next build`, then `next start` on 127.0.0.1 with OPENAI_BASE_URL at a
// stand-in for the model (the repository's LLM double, tests/support/llm-server.mjs). A chat
// far over an 8k window is posted as useChat posts it; the stand-in calls the word_count tool,
// the route runs it and streams the answer; every prompt the model got is recounted within the
// budget, and the summaries were asked of the same model.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { createServer } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { countMessages, plan } from "ctxfold";
import { startLlmServer, isSummaryRequest, SUMMARY } from "../../../tests/support/llm-server.mjs";
import { readConversation } from "../../../tests/support/corpus.mjs";

const here = fileURLToPath(new URL("..", import.meta.url));
const NEXT = join(here, "node_modules/next/dist/bin/next");
const MODEL = "gpt-4o";
const WINDOW = 8192;
const BUDGET = plan([], { model: MODEL, contextWindow: WINDOW }).budget.input;
// An agent transcript (MIT, mini-swe-agent's public SWE-bench runs), as a chat's text.
const CORPUS = "mini-swe-agent-gemini-3-pro__astropy__astropy-13398.json";

let llm;
let scenario;
let server;

function reply(body) {
  const tokens = countMessages(body.messages, { model: MODEL }).total;
  const usage = { prompt_tokens: tokens, completion_tokens: 7, total_tokens: tokens + 7 };
  if (isSummaryRequest(body)) return { content: SUMMARY, usage };
  const last = body.messages.at(-1);
  if (last.role === "tool") return { content: `The text has ${JSON.parse(last.content).words} words.`, usage };
  const text = typeof last.content === "string" ? last.content : last.content.map((p) => p.text ?? "").join("");
  const ask = /^count the words: (.*)$/s.exec(text);
  if (ask) return { toolCalls: [{ id: "call_count", name: "word_count", arguments: { text: ask[1] } }], usage };
  return { content: "You are welcome.", usage };
}

async function freePort() {
  const s = createServer();
  await new Promise((resolve) => s.listen(0, "127.0.0.1", resolve));
  const { port } = s.address();
  await new Promise((resolve) => s.close(resolve));
  return port;
}

/** Runs `next <args>` to its end; its output is the error's if it fails. */
function next(args, env = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [NEXT, ...args], { cwd: here, env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1", ...env } });
    let output = "";
    child.stdout.on("data", (d) => (output += d));
    child.stderr.on("data", (d) => (output += d));
    child.on("error", reject);
    child.on("close", (code) => (code === 0 ? resolve(output) : reject(new Error(`next ${args.join(" ")} exited ${code}:\n${output}`))));
  });
}

before(async () => {
  llm = await startLlmServer();
  scenario = llm.scenario([{ chat: reply }]);
  await next(["build"]);
  const port = await freePort();
  const child = spawn(process.execPath, [NEXT, "start", "-H", "127.0.0.1", "-p", String(port)], {
    cwd: here,
    env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1", OPENAI_BASE_URL: scenario.openai, OPENAI_API_KEY: "test-key", MODEL, CONTEXT_WINDOW: String(WINDOW) },
  });
  let output = "";
  child.stdout.on("data", (d) => (output += d));
  child.stderr.on("data", (d) => (output += d));
  const url = `http://127.0.0.1:${port}`;
  server = { url, child, output: () => output };
  for (const deadline = Date.now() + 60_000; ; ) {
    if (child.exitCode !== null) throw new Error(`next start exited ${child.exitCode}:\n${output}`);
    try {
      await fetch(`${url}/api/chat?id=warm-up`);
      break;
    } catch {
      if (Date.now() > deadline) throw new Error(`next start gave no answer within 60 s:\n${output}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }
});

after(async () => {
  if (server && server.child.exitCode === null) {
    await new Promise((resolve) => {
      server.child.once("exit", resolve);
      server.child.kill();
    });
  }
  await llm?.close();
});

let ids = 0;
const text = (role, t) => ({ id: `m${++ids}`, role, parts: [{ type: "text", text: t }] });

/** The transcript as a chat's UI messages: mini-swe-agent's own shape, command outputs as user turns. */
function history() {
  return readConversation(CORPUS)
    .messages.filter((m) => m.role !== "system")
    .map((m) => {
      if (m.role === "assistant") {
        const commands = (m.tool_calls ?? []).map((c) => `\n\`\`\`bash\n${JSON.parse(c.function.arguments).command ?? c.function.arguments}\n\`\`\``);
        return text("assistant", `${m.content}${commands.join("")}`);
      }
      return text("user", m.role === "tool" ? `Output:\n${m.content}` : m.content);
    });
}

/** POSTs a turn as useChat does; the UI message stream's chunks. */
async function post(id, messages) {
  const res = await fetch(`${server.url}/api/chat`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ id, messages, trigger: "submit-message" }) });
  const body = await res.text();
  assert.equal(res.status, 200, `${body}\n${server.output()}`);
  return body
    .split("\n")
    .filter((l) => l.startsWith("data: ") && l !== "data: [DONE]")
    .map((l) => JSON.parse(l.slice(6)));
}

const chats = () => scenario.requests.filter((r) => !isSummaryRequest(r.body));
const streamedText = (chunks) => chunks.filter((c) => c.type === "text-delta").map((c) => c.delta).join("");

test("a chat far over the window: the tool runs, the reply streams, every prompt fits", async () => {
  const messages = [...history(), text("user", "count the words: the quick brown fox jumps")];
  const sent = countMessages(
    messages.map((m) => ({ role: m.role, content: m.parts[0].text })),
    { model: MODEL },
  ).total;
  assert.ok(sent > 4 * WINDOW, `${sent} tokens: the chat is far over the window`);
  const chunks = await post("chat-1", messages);
  const error = chunks.find((c) => c.type === "error");
  assert.equal(error, undefined, JSON.stringify(error));
  assert.deepEqual(chunks.find((c) => c.type === "tool-output-available")?.output, { words: 5 });
  assert.equal(streamedText(chunks), "The text has 5 words.");

  const calls = chats();
  assert.equal(calls.length, 2, "one step for the tool call, one for the answer");
  for (const r of calls) {
    const tokens = countMessages(r.body.messages, { model: MODEL }).total;
    assert.ok(tokens <= BUDGET, `${tokens} tokens sent, over the budget of ${BUDGET}`);
    assert.equal(r.headers.authorization, "Bearer test-key");
    assert.equal(r.body.stream, true);
    assert.deepEqual(r.body.tools.map((t) => t.function.name), ["word_count", "current_time"]);
  }
  // The second step ends with the call and its result, the newest user message before them.
  assert.deepEqual(calls[1].body.messages.slice(-2).map((m) => m.role), ["assistant", "tool"]);
  const summaries = scenario.requests.filter((r) => isSummaryRequest(r.body));
  assert.ok(summaries.length > 0, "the same model was asked for the summary");
  for (const s of summaries) assert.equal(s.body.model, MODEL);

  const status = await (await fetch(`${server.url}/api/chat?id=chat-1`)).json();
  assert.equal(status.calls, 2);
  assert.equal(status.contextStatus, "summarized");
  assert.equal(status.usage.inputTokens, countMessages(calls[1].body.messages, { model: MODEL }).total);
});

test("the next turn of the same chat goes on from the kept summaries, within the budget", async () => {
  const before = scenario.requests.length;
  const messages = [
    ...history(),
    text("user", "count the words: the quick brown fox jumps"),
    text("assistant", "The text has 5 words."),
    text("user", "Thanks!"),
  ];
  const chunks = await post("chat-1", messages);
  assert.equal(streamedText(chunks), "You are welcome.");
  const [call] = scenario.requests.slice(before).filter((r) => !isSummaryRequest(r.body));
  assert.ok(countMessages(call.body.messages, { model: MODEL }).total <= BUDGET);
  assert.match(JSON.stringify(call.body.messages), /Conversation Summary/);
  const status = await (await fetch(`${server.url}/api/chat?id=chat-1`)).json();
  assert.equal(status.calls, 3);
  assert.equal((await fetch(`${server.url}/api/chat`, { method: "POST", body: "{}" })).status, 400);
});
