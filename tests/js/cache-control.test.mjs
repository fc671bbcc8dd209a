// applyAnthropicCacheControl: the request it returns has Anthropic's shape (at most 4
// cache_control breakpoints in all, only on blocks that may carry one, the request otherwise
// unchanged and the input untouched) over varied requests; and over a tool-using corpus
// conversation replayed through a Compactor in Anthropic's format, the prefix up to each
// breakpoint of one request is the same in the next whenever that turn did not compact.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Compactor, applyAnthropicCacheControl } from "ctxfold";
import { conversationFiles, readConversation } from "../support/corpus.mjs";

const ALLOWED = new Set(["text", "image", "tool_use", "tool_result", "document"]);
const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);
const marked = (b) => isObject(b) && b.cache_control !== undefined && b.cache_control !== null;

/** Every cache_control marker of a request, where it is: `{ path, block }`. */
function markers(request) {
  const out = [];
  if (marked(request)) out.push({ path: "request", block: request });
  const walk = (list, path) => {
    if (!Array.isArray(list)) return;
    list.forEach((b, k) => {
      if (marked(b)) out.push({ path: `${path}[${k}]`, block: b });
      if (isObject(b) && b.type === "tool_result") walk(b.content, `${path}[${k}].content`);
    });
  };
  walk(request.tools, "tools");
  walk(request.system, "system");
  request.messages.forEach((m, i) => walk(m.content, `messages[${i}].content`));
  return out;
}

/** A string content (or system) as the one text block it stands for. */
const asBlocks = (c) => (typeof c === "string" ? [{ type: "text", text: c }] : c);

/**
 * Anthropic's request shape, checked on `out` against the `input` it was made from: the
 * same request but for cache_control markers added (on blocks that may carry one) and a
 * string turned into its one text block where a marker went; at most 4 markers unless the
 * input had more (then none added).
 */
function checkShape(input, out) {
  const before = markers(input).length;
  const after = markers(out);
  if (before >= 4) assert.equal(after.length, before, "markers added to a request that had 4 or more");
  else assert.ok(after.length <= 4, `${after.length} cache_control markers`);
  for (const { path, block } of after) {
    if (path === "request" || path.startsWith("tools")) continue;
    assert.ok(ALLOWED.has(block.type), `a marker on a ${block.type} block at ${path}`);
    if (block.type === "text") assert.ok(typeof block.text === "string" && block.text !== "", `a marker on an empty text at ${path}`);
  }
  // Everything else is as it was.
  assert.deepEqual(Object.keys(out).sort(), Object.keys(input).sort());
  for (const key of Object.keys(input)) {
    if (key === "system" || key === "messages") continue;
    assert.equal(out[key], input[key], `request.${key} changed`);
  }
  const same = (a, b, where) => {
    if (a === b) return;
    if (typeof a === "string" && Array.isArray(b)) {
      assert.equal(b.length, 1, `${where}: a string became ${b.length} blocks`);
      assert.deepEqual(b[0], { type: "text", text: a, cache_control: { type: "ephemeral" } }, `${where}: a string became another block`);
      return;
    }
    assert.ok(Array.isArray(a) && Array.isArray(b) && a.length === b.length, `${where}: blocks changed`);
    a.forEach((x, k) => {
      if (x === b[k]) return;
      const { cache_control: added, ...rest } = b[k];
      assert.ok(!marked(x), `${where}[${k}]: a block that had a marker was changed`);
      assert.deepEqual(added, { type: "ephemeral" }, `${where}[${k}]`);
      assert.deepEqual(rest, x, `${where}[${k}]: changed besides its marker`);
    });
  };
  same(input.system, out.system, "system");
  assert.equal(out.messages.length, input.messages.length);
  input.messages.forEach((m, i) => {
    if (m === out.messages[i]) return;
    const { content, ...rest } = out.messages[i];
    const { content: was, ...restWas } = m;
    assert.deepEqual(rest, restWas, `messages[${i}] changed besides its content`);
    same(was, content, `messages[${i}].content`);
  });
  return after.length - before;
}

// ------------------------------------------------------------------ varied requests

/** A small seeded generator (mulberry32). */
function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function randomRequest(r) {
  const pick = (xs) => xs[Math.floor(r() * xs.length)];
  const mark = (b) => (r() < 0.08 ? { ...b, cache_control: { type: "ephemeral" } } : b);
  const block = (role) => {
    const kinds = role === "assistant" ? ["text", "text", "tool_use", "thinking", "redacted_thinking", "emptyText"] : ["text", "text", "image", "tool_result", "document", "emptyText"];
    switch (pick(kinds)) {
      case "text":
        return mark({ type: "text", text: `words ${Math.floor(r() * 1000)}` });
      case "emptyText":
        return { type: "text", text: "" };
      case "tool_use":
        return mark({ type: "tool_use", id: `tu_${Math.floor(r() * 1e6)}`, name: "bash", input: { cmd: "ls" } });
      case "thinking":
        return { type: "thinking", thinking: "hmm", signature: "sig" };
      case "redacted_thinking":
        return { type: "redacted_thinking", data: "xyz" };
      case "image":
        return mark({ type: "image", source: { type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" } });
      case "tool_result":
        return mark({ type: "tool_result", tool_use_id: "tu_1", content: r() < 0.5 ? "ok" : [mark({ type: "text", text: "nested" })] });
      default:
        return mark({ type: "document", source: { type: "text", media_type: "text/plain", data: "doc" } });
    }
  };
  const n = Math.floor(r() * 9);
  const messages = Array.from({ length: n }, (_, i) => {
    const role = i % 2 === 0 ? "user" : "assistant";
    const content = r() < 0.35 ? pick(["", "hello", `turn ${i}`]) : Array.from({ length: 1 + Math.floor(r() * 3) }, () => block(role));
    return { role, content };
  });
  const request = { model: "claude-sonnet-4-5", max_tokens: 1024, messages };
  const s = r();
  if (s < 0.25) request.system = "You are helpful.";
  else if (s < 0.35) request.system = "";
  else if (s < 0.7) request.system = Array.from({ length: 1 + Math.floor(r() * 2) }, () => mark({ type: "text", text: "sys" }));
  if (r() < 0.2) request.tools = [mark({ name: "bash", description: "run", input_schema: { type: "object" } })];
  if (r() < 0.05) request.cache_control = { type: "ephemeral" };
  const report = r() < 0.2 ? undefined : { cacheBreakpoints: [...new Set(Array.from({ length: Math.floor(r() * 4) }, () => Math.floor(r() * n)))].filter((i) => i < n).sort((a, b) => a - b) };
  return { request, report };
}

test("varied requests keep Anthropic's shape: at most 4 breakpoints, on allowed blocks, nothing else changed, the input untouched", () => {
  const r = rng(14);
  let added = 0;
  let full = 0;
  for (let k = 0; k < 3000; k++) {
    const { request, report } = randomRequest(r);
    const copy = structuredClone(request);
    const out = applyAnthropicCacheControl(request, report);
    assert.deepEqual(request, copy, `case ${k}: the input was changed`);
    assert.notEqual(out, request);
    added += checkShape(request, out);
    if (markers(out).length === 4) full++;
    // A last message that can carry a breakpoint gets one whenever a slot is free.
    const last = out.messages.at(-1);
    if (last && markers(request).length < 4 && asBlocks(last.content).some((b) => ALLOWED.has(b.type) && !(b.type === "text" && b.text === ""))) {
      assert.ok(asBlocks(last.content).some(marked), `case ${k}: no breakpoint on the last message`);
    }
  }
  assert.ok(added > 2000 && full > 100, `${added} markers added, ${full} requests at the limit`);
});

test("where the breakpoints go, and what is refused", () => {
  const user = (content) => ({ role: "user", content });
  const assistant = (content) => ({ role: "assistant", content });
  const request = {
    model: "claude-sonnet-4-5",
    max_tokens: 512,
    system: "You are a coding agent.",
    messages: [user("task"), assistant("summary of earlier turns"), user("next"), assistant([{ type: "text", text: "ok" }, { type: "thinking", thinking: "..." }]), user("go on")],
  };
  const out = applyAnthropicCacheControl(request, { cacheBreakpoints: [1, 3] });
  assert.deepEqual(out.system, [{ type: "text", text: "You are a coding agent.", cache_control: { type: "ephemeral" } }]);
  assert.deepEqual(out.messages[1].content, [{ type: "text", text: "summary of earlier turns", cache_control: { type: "ephemeral" } }]);
  // Not on the thinking block: on the text before it.
  assert.deepEqual(out.messages[3].content, [{ type: "text", text: "ok", cache_control: { type: "ephemeral" } }, { type: "thinking", thinking: "..." }]);
  assert.deepEqual(out.messages[4].content, [{ type: "text", text: "go on", cache_control: { type: "ephemeral" } }]);
  assert.equal(out.messages[0], request.messages[0], "untouched messages are shared");
  assert.equal(request.system, "You are a coding agent.");

  // Five places, four slots: the system prompt's goes (the head after it covers it).
  const five = applyAnthropicCacheControl(request, { cacheBreakpoints: [0, 1, 3] });
  assert.equal(markers(five).length, 4);
  assert.equal(typeof five.system, "string");
  // One slot taken by a tool definition: the latest three.
  const tools = [{ name: "bash", input_schema: { type: "object" }, cache_control: { type: "ephemeral" } }];
  const three = applyAnthropicCacheControl({ ...request, tools }, { cacheBreakpoints: [1, 3] });
  assert.deepEqual(markers(three).map((m) => m.path), ["tools[0]", "messages[1].content[0]", "messages[3].content[0]", "messages[4].content[0]"]);
  // Four already: nothing added, and nothing changed.
  const marks = { type: "ephemeral" };
  const busy = { ...request, system: [{ type: "text", text: "a", cache_control: marks }, { type: "text", text: "b", cache_control: marks }, { type: "text", text: "c", cache_control: marks }, { type: "text", text: "d", cache_control: marks }] };
  assert.deepEqual(applyAnthropicCacheControl(busy, { cacheBreakpoints: [1] }), busy);
  // No report: the system prompt and the last message.
  assert.deepEqual(markers(applyAnthropicCacheControl(request)).map((m) => m.path), ["system[0]", "messages[4].content[0]"]);
  // A marker where one would go takes no new slot, and is not doubled.
  const already = { ...request, messages: [...request.messages.slice(0, 4), user([{ type: "text", text: "go on", cache_control: marks }])] };
  assert.equal(markers(applyAnthropicCacheControl(already, { cacheBreakpoints: [1, 3] })).length, 4);

  assert.throws(() => applyAnthropicCacheControl(request, { cacheBreakpoints: [7] }), (e) => e instanceof RangeError && e.code === "OUT_OF_RANGE" && /has 5 messages/.test(e.message));
  assert.throws(() => applyAnthropicCacheControl(request, { cacheBreakpoints: [-1] }), (e) => e instanceof TypeError && e.code === "INVALID_ARGUMENT");
  assert.throws(() => applyAnthropicCacheControl(request, { pruned: {} }), (e) => e instanceof TypeError && /cacheBreakpoints/.test(e.message));
  assert.throws(() => applyAnthropicCacheControl({ system: "x" }), (e) => e instanceof TypeError && /request\.messages/.test(e.message));
  assert.throws(() => applyAnthropicCacheControl([], null), (e) => e instanceof TypeError);
  assert.throws(() => applyAnthropicCacheControl({ messages: [], system: 3 }), (e) => e instanceof TypeError && /request\.system/.test(e.message));
});

// ------------------------------------------------------------------ a corpus replay

/** An OpenAI chat conversation as an Anthropic one: `{ system, messages }`, tool results as user messages of tool_result blocks. */
function toAnthropic(openai) {
  const system = openai.filter((m) => m.role === "system").map((m) => m.content).join("\n\n");
  const messages = [];
  for (const m of openai) {
    if (m.role === "system") continue;
    if (m.role === "tool") {
      const block = { type: "tool_result", tool_use_id: m.tool_call_id, content: m.content === "" ? "(no output)" : m.content };
      const prev = messages.at(-1);
      if (prev?.role === "user" && Array.isArray(prev.content) && prev.content.every((b) => b.type === "tool_result")) prev.content.push(block);
      else messages.push({ role: "user", content: [block] });
      continue;
    }
    if (m.role === "assistant" && m.tool_calls?.length) {
      const content = m.content ? [{ type: "text", text: m.content }] : [];
      for (const c of m.tool_calls) content.push({ type: "tool_use", id: c.id, name: c.function.name, input: JSON.parse(c.function.arguments || "{}") });
      messages.push({ role: "assistant", content });
      continue;
    }
    messages.push({ role: m.role, content: m.content === "" ? "(empty)" : m.content });
  }
  return { system, messages };
}

/** Where each breakpoint is: `[-1, k]` for system block k, `[i, k]` for block k of message i. */
function positions(request) {
  const out = [];
  asBlocks(request.system ?? []).forEach((b, k) => marked(b) && out.push([-1, k]));
  request.messages.forEach((m, i) => asBlocks(m.content).forEach((b, k) => marked(b) && out.push([i, k])));
  return out;
}

/** The request's content up to and including the block at `[i, k]`, markers left out, strings as their text block. */
function prefix(request, [i, k]) {
  const clean = (blocks) => asBlocks(blocks).map((b) => (isObject(b) ? Object.fromEntries(Object.entries(b).filter(([key]) => key !== "cache_control")) : b));
  const system = clean(request.system ?? []);
  if (i === -1) return k < system.length ? JSON.stringify(system.slice(0, k + 1)) : null;
  if (i >= request.messages.length) return null;
  const content = clean(request.messages[i].content);
  if (k >= content.length) return null;
  const before = request.messages.slice(0, i).map((m) => ({ role: m.role, content: clean(m.content) }));
  return JSON.stringify([system, before, { role: request.messages[i].role, content: content.slice(0, k + 1) }]);
}

test("a breakpoint added before a caller's 1-hour marker lasts an hour too (Anthropic wants 1-hour entries first)", () => {
  const ttls = (body) => {
    const order = [];
    const blocks = (list) => Array.isArray(list) && list.forEach((b) => b.cache_control && order.push(b.cache_control.ttl ?? "5m"));
    blocks(body.tools);
    blocks(body.system);
    body.messages.forEach((m) => blocks(m.content));
    return order;
  };
  const hour = { type: "ephemeral", ttl: "1h" };
  const doc = { role: "user", content: [{ type: "text", text: "<long document>", cache_control: hour }] };
  const tail = [{ role: "assistant", content: "ok" }, { role: "user", content: "question" }];
  // The system prompt before it: an hour; the last message after it: 5 minutes.
  const body = applyAnthropicCacheControl({ system: "You are helpful.", messages: [doc, ...tail] });
  assert.deepEqual(ttls(body), ["1h", "1h", "5m"]);
  assert.deepEqual(body.system[0].cache_control, hour);
  // A 1-hour marker on a tool: everything added comes after it, 5 minutes.
  const tools = [{ name: "search", input_schema: { type: "object" }, cache_control: hour }];
  assert.deepEqual(ttls(applyAnthropicCacheControl({ tools, system: "s", messages: tail })), ["1h", "5m", "5m"]);
  // The caller's 1-hour marker inside a tool result, with a summary breakpoint before it.
  const result = { role: "user", content: [{ type: "tool_result", tool_use_id: "t", content: [{ type: "text", text: "log", cache_control: hour }] }] };
  const withResult = applyAnthropicCacheControl({ system: "s", messages: [{ role: "user", content: "go" }, { role: "assistant", content: [{ type: "tool_use", id: "t", name: "f", input: {} }] }, result] }, { cacheBreakpoints: [0] });
  assert.deepEqual(withResult.system[0].cache_control, hour);
  assert.deepEqual(withResult.messages[0].content[0].cache_control, hour);
  // No 1-hour marker: the default, 5 minutes.
  assert.deepEqual(ttls(applyAnthropicCacheControl({ system: "s", messages: tail })), ["5m", "5m"]);
});

test("a tool-using corpus conversation through a Compactor in Anthropic's format: each breakpoint's prefix holds until the next compaction", async () => {
  const name = conversationFiles().find((f) => f.file.startsWith("mini-swe-agent")).file;
  const { system, messages } = toAnthropic(readConversation(name).messages);
  const model = "claude-sonnet-4-5";
  const compactor = new Compactor({ model, contextWindow: 16384, format: "anthropic", summarizer: "extractive" });
  const id = "anthropic-replay";
  const calls = [];
  for (let k = 1; k < messages.length; k++) if (messages[k].role === "assistant") calls.push(k);
  let seen = 0;
  let last = null;
  let previous = null;
  const seenBy = { compared: 0, held: 0, compactions: 0, skipped: 0, summaryHeld: 0 };
  for (const k of calls) {
    if (last !== null) {
      await compactor.commit(id, messages[last]);
      seen = last + 1;
    }
    const fresh = messages.slice(seen, k);
    const r = await compactor.prepare(id, seen === 0 ? { system, messages: fresh } : fresh);
    seen = k;
    last = k;
    const input = { model, max_tokens: 1024, system: r.system, messages: r.messages };
    const request = applyAnthropicCacheControl(input, r.report);
    checkShape(input, request);
    const here = positions(request);
    assert.ok(here.length >= 2, `turn ${k}: ${here.length} breakpoints`);
    if (r.record) seenBy.compactions++;
    if (previous !== null) {
      if (r.record !== null || r.report.pruned.advanced) {
        seenBy.skipped++;
      } else {
        for (const at of previous.at) {
          seenBy.compared++;
          const was = prefix(previous.request, at);
          assert.equal(prefix(request, at), was, `turn ${k}: the prefix up to ${JSON.stringify(at)} changed without a compaction`);
          seenBy.held++;
          if (r.contextStatus === "summarized" && at[0] >= 0 && at[0] === r.report.cacheBreakpoints[0]) seenBy.summaryHeld++;
        }
      }
    }
    previous = { request, at: here };
  }
  assert.ok(seenBy.compactions >= 2, `${seenBy.compactions} compactions`);
  assert.ok(seenBy.compared > 3 * calls.length / 2, JSON.stringify(seenBy));
  assert.ok(seenBy.summaryHeld > 0, `no summary breakpoint compared: ${JSON.stringify(seenBy)}`);
  console.log(`${name}: ${calls.length} turns, ${seenBy.compactions} compactions, ${seenBy.held} breakpoint prefixes held (${seenBy.summaryHeld} after a summary), ${seenBy.skipped} turns compacted or pruned`);
});
