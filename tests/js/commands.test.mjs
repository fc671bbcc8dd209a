// Chat commands through the package: parseCommand's reading, and compactor.command for each
// command (/compact, /status, /prune, /undo, /new, /resume), none of which calls the model
// (a summarizer that counts its calls says so, except where a summary is the point).
import { test } from "node:test";
import assert from "node:assert/strict";
import { Compactor, MemoryStore, parseCommand, notify } from "ctxfold";
import { agent } from "../support/compactor-page.mjs";

const WINDOW = 128_000;

test("parseCommand reads commands, and leaves what is not one to the model", () => {
  const cases = [
    ["/compact", { command: "compact", instructions: null }],
    ["/compact keep the API decisions", { command: "compact", instructions: "keep the API decisions" }],
    ["  /COMPACT   keep\n  the paths  ", { command: "compact", instructions: "keep\n  the paths" }],
    ["/status", { command: "status" }],
    ["/status  ", { command: "status" }],
    ["/prune", { command: "prune" }],
    ["/undo", { command: "undo" }],
    ["/new", { command: "new" }],
    ["/resume", { command: "resume", id: null }],
    ["/resume chat-42", { command: "resume", id: "chat-42" }],
    ["/resume my chat", { command: "resume", id: "my chat" }],
    ["/status now", { command: "invalid", name: "status", reason: "/status takes no arguments" }],
    ["/undo 2", { command: "invalid", name: "undo", reason: "/undo takes no arguments" }],
    ["/clear", { command: "unknown", name: "clear" }],
    ["/Foo-bar baz", { command: "unknown", name: "foo-bar" }],
    ["hello", null],
    ["", null],
    ["/", null],
    ["//comment", null],
    ["/etc/hosts is gone", null],
    ["/status.", null],
    ["what does /status do?", null],
  ];
  for (const [text, want] of cases) assert.deepEqual(parseCommand(text), want, JSON.stringify(text));
  for (const bad of [undefined, null, 42, { text: "/status" }]) {
    assert.throws(() => parseCommand(bad), (e) => e instanceof TypeError && e.code === "INVALID_ARGUMENT");
  }
});

/** An agent conversation whose tool outputs (~3 KB) are over `toolOutputMaxBytes`. */
function setup(options = {}) {
  let summaries = 0;
  const compactor = new Compactor({
    model: "gpt-4o",
    contextWindow: WINDOW,
    toolOutputMaxBytes: 1024,
    store: new MemoryStore(),
    summarizer: async (request) => {
      summaries++;
      const paths = request.prompt.match(/\/srv\/\w+\/file_\d+\.py/g) ?? [];
      const lastPath = paths.at(-1) ?? "none";
      return `## Conversation Summary\n- **Decisions:** None\n- **Entities:** ${lastPath}\n- **Facts:** ${request.covers.length} messages; the last file read was ${lastPath}.\n- **Open Items:** None`;
    },
    ...options,
  });
  return { compactor, summaries: () => summaries };
}

test("/status, /prune, /compact, /undo and /resume, each through the Compactor's own calls", async () => {
  const { compactor, summaries } = setup();
  const m = agent(24);
  await compactor.prepare("chat", m);
  const events = [];
  compactor.on("pruned", (e) => events.push(e));

  const status = await compactor.command("chat", "/status");
  assert.equal(status.command, "status");
  assert.equal(status.ok, true);
  assert.deepEqual(status.status, await compactor.status("chat"));
  assert.match(status.text, /^Context: \d+(\.\d)?k\/128k tokens \(\d+ %\), 97 messages, 0 compactions$/);

  const pruned = await compactor.command("chat", "/prune");
  assert.equal(pruned.ok, true, pruned.text);
  const { report, prunedTokens, record } = pruned.result;
  assert.equal(record, null, "/prune summarizes nothing");
  assert.ok(report.pruned.advanced && report.pruned.messages.length > 10);
  assert.equal(prunedTokens.before - prunedTokens.after, report.pruned.tokensSaved);
  const pct = Math.round((100 * report.pruned.tokensSaved) / prunedTokens.before);
  assert.match(pruned.text, new RegExp(`^Tool outputs pruned \\(\\d+(\\.\\d)?k -> \\d+(\\.\\d)?k, -${pct} %\\)$`));
  assert.equal(events.length, 1);
  assert.equal(pruned.text, notify(events[0]).split("\n")[0]);
  assert.equal((await compactor.records("chat")).length, 0);
  assert.ok((await compactor.status("chat")).estimate.counted < status.status.estimate.counted);
  const again = await compactor.command("chat", "/prune");
  assert.equal(again.ok, false);
  assert.match(again.text, /^Nothing to prune/);
  // The next input keeps the pruning.
  const next = await compactor.prepare("chat", [{ role: "user", content: "What now?" }]);
  assert.deepEqual(next.report.pruned.messages.slice(0, report.pruned.messages.length), report.pruned.messages);
  assert.equal(summaries(), 0, "no command so far called the model");

  const compacted = await compactor.command("chat", "/compact keep the file paths");
  assert.equal(compacted.ok, true);
  assert.equal(compacted.result.record.trigger, "manual");
  assert.equal(compacted.result.record.instructions, "keep the file paths");
  assert.equal(compacted.text, notify(compacted.result.record).split("\n")[0]);
  assert.match(compacted.text, /^Compacted \(\d+(\.\d)?k -> \d+(\.\d)?k\)$/);
  assert.ok(summaries() > 0, "/compact summarizes");

  const undone = await compactor.command("chat", "/undo");
  assert.deepEqual([undone.ok, undone.undone.compaction], [true, 0]);
  assert.equal(undone.text, "Undid compaction #0 (0 summary chunks in force now)");
  const nothing = await compactor.command("chat", "/undo");
  assert.deepEqual([nothing.ok, nothing.undone, nothing.text], [false, null, "Nothing to undo"]);

  await compactor.prepare("other", [{ role: "user", content: "hi" }]);
  const list = await compactor.command("chat", "/resume");
  assert.deepEqual([list.ok, list.conversations.sort(), list.text], [true, ["chat", "other"], "2 conversations: chat, other"]);
  const resumed = await compactor.command("chat", "/resume other");
  assert.deepEqual([resumed.ok, resumed.conversationId, resumed.status.length], [true, "other", 1]);
  assert.match(resumed.text, /^Resumed other: \d+\/128k tokens \(0 %\), 1 message, 0 compactions$/);
  const missing = await compactor.command("chat", "/resume nobody");
  assert.deepEqual([missing.ok, missing.status, missing.text], [false, null, 'No conversation "nobody"']);
});

test("unknown conversations, unknown commands and text that is no command", async () => {
  const { compactor, summaries } = setup();
  for (const [text, command, re] of [
    ["/compact", "compact", /^No conversation "ghost" to compact$/],
    ["/prune", "prune", /^No conversation "ghost" to prune$/],
    ["/status", "status", /^No conversation "ghost"$/],
    ["/undo", "undo", /^Nothing to undo$/],
    ["/clear", "unknown", /^Unknown command \/clear \(commands: \/compact \[instructions\], \/status, \/prune, \/undo, \/new, \/resume \[id\]\)$/],
    ["/status please", "invalid", /^\/status takes no arguments/],
  ]) {
    const r = await compactor.command("ghost", text);
    assert.deepEqual([r.command, r.ok], [command, false], text);
    assert.match(r.text, re);
  }
  assert.equal(await compactor.command("ghost", "just chatting"), null);
  assert.deepEqual(await compactor.list(), [], "nothing was stored");
  await assert.rejects(compactor.command("ghost", 42), (e) => e instanceof TypeError && e.code === "INVALID_ARGUMENT");
  await assert.rejects(compactor.command("", "/status"), (e) => e instanceof TypeError && /conversationId/.test(e.message));
  assert.equal(summaries(), 0);
  // A nothing-to-compact /compact: one turn, kept verbatim.
  await compactor.prepare("short", [{ role: "user", content: "hi" }]);
  const r = await compactor.command("short", "/compact");
  assert.deepEqual([r.ok, r.result.record], [false, null]);
  assert.match(r.text, /^Nothing to compact/);
});

test("/new starts a conversation whose head carries a summary of the old one, up to its newest message", async () => {
  const { compactor, summaries } = setup();
  const m = agent(10);
  await compactor.prepare("old", m);
  const before = await compactor.export("old");
  const r = await compactor.command("old", "/new");
  assert.equal(r.command, "new");
  assert.ok(r.ok && r.summarized);
  assert.equal(r.previous, "old");
  assert.notEqual(r.conversationId, "old");
  assert.ok(r.conversationId.startsWith("old/"));
  assert.match(r.text, new RegExp(`^New conversation ${r.conversationId.replace(/[/-]/g, "\\$&")} \\(\\d+ tokens, with the summary of old\\)$`));
  assert.equal(summaries(), 1, "the old history is summarized once");
  // The old system prompt, then the summary in a message of its own, framed as data: never
  // merged into the system prompt, and in the role compact() gives it (a user message here).
  const history = (await compactor.history(r.conversationId)).map((e) => e.message);
  assert.equal(history.length, 2);
  assert.deepEqual(history[0], m[0]);
  assert.equal(history[1].role, "user");
  assert.match(history[1].content, /^## Conversation Summary\n\(A record of earlier messages of this conversation/);
  // Everything up to the newest message was summarized: the last call covered it.
  assert.match(history[1].content, /file_9\.py/);
  assert.equal(r.result.messages.length, 2);
  // The old conversation is as it was.
  assert.deepEqual(await compactor.export("old"), before);
  assert.deepEqual((await compactor.list()).sort(), ["old", r.conversationId].sort());
  // The new one goes on like any other.
  const next = await compactor.prepare(r.conversationId, [{ role: "user", content: "Where were we?" }]);
  assert.equal(next.messages.length, 3);

  // /new of a conversation the store does not hold: an empty one.
  const blank = await compactor.command("nothing-yet", "/new");
  assert.deepEqual([blank.ok, blank.summarized, blank.text], [true, false, `New conversation ${blank.conversationId}`]);
  assert.equal((await compactor.status(blank.conversationId)).length, 0);
});

test("/new carries the conversation's tools, counted in both", async () => {
  const { compactor } = setup();
  const tools = [{ type: "function", function: { name: "read_file", description: "Reads a file.", parameters: { type: "object", properties: { path: { type: "string" } } } } }];
  await compactor.prepare("old", { tools, messages: agent(10) });
  const r = await compactor.command("old", "/new");
  assert.ok(r.ok && r.summarized, r.text);
  assert.deepEqual(r.result.tools, tools);
  assert.deepEqual((await compactor.export(r.conversationId)).meta.tools, tools);
});

test("/new in Anthropic's format: the system prompt as it was, the summary the first message", async () => {
  const { compactor } = setup({ model: "claude-sonnet-4-5", format: "anthropic" });
  const messages = [];
  for (let t = 0; t < 6; t++) {
    messages.push({ role: "user", content: `Task ${t}: read /srv/b/file_${t}.py` });
    messages.push({ role: "assistant", content: [{ type: "text", text: "Reading." }, { type: "tool_use", id: `tu_${t}`, name: "read", input: { path: `/srv/b/file_${t}.py` } }] });
    messages.push({ role: "user", content: [{ type: "tool_result", tool_use_id: `tu_${t}`, content: `contents of file_${t}.py: x = ${t}` }] });
    messages.push({ role: "assistant", content: `file_${t}.py sets x to ${t}.` });
  }
  await compactor.prepare("a", { system: "You are careful.", messages });
  const r = await compactor.command("a", "/new");
  assert.ok(r.ok && r.summarized, r.text);
  assert.equal(r.result.system, "You are careful.");
  assert.equal(r.result.messages.length, 1);
  assert.equal(r.result.messages[0].role, "user");
  assert.match(r.result.messages[0].content, /^## Conversation Summary/);
  // The new conversation goes on: a user message after the summary is a valid input.
  const next = await compactor.prepare(r.conversationId, [{ role: "user", content: "Where were we?" }]);
  assert.equal(next.messages.length, 2);
  assert.equal((await compactor.status(r.conversationId)).format, "anthropic");
});

test("/new in the Responses format: the instructions as they were, the summary a user message item", async () => {
  const { compactor } = setup({ format: "openai-responses" });
  const input = [{ type: "message", role: "developer", content: "You are careful." }];
  for (let t = 0; t < 6; t++) {
    input.push({ type: "message", role: "user", content: `Task ${t}: read /srv/r/file_${t}.py` });
    input.push({ type: "function_call", call_id: `fc_${t}`, name: "read", arguments: JSON.stringify({ path: `/srv/r/file_${t}.py` }) });
    input.push({ type: "function_call_output", call_id: `fc_${t}`, output: `contents of file_${t}.py: x = ${t}` });
    input.push({ type: "message", role: "assistant", content: [{ type: "output_text", text: `file_${t}.py sets x to ${t}.` }] });
  }
  await compactor.prepare("r", input);
  const r = await compactor.command("r", "/new");
  assert.ok(r.ok && r.summarized, r.text);
  const items = r.result.messages;
  assert.equal(items.length, 2);
  // The developer message as it was; the summary an item of its own, never merged into it.
  assert.deepEqual(items[0], input[0]);
  assert.deepEqual([items[1].type, items[1].role], ["message", "user"]);
  const text = typeof items[1].content === "string" ? items[1].content : items[1].content.map((p) => p.text).join("");
  assert.match(text, /^## Conversation Summary\n\(A record of earlier messages of this conversation/);
  assert.match(text, /file_5\.py/);
  const next = await compactor.prepare(r.conversationId, [{ type: "message", role: "user", content: "Where were we?" }]);
  assert.equal(next.messages.length, 3);
  assert.equal((await compactor.status(r.conversationId)).format, "openai-responses");
});
