// Messages are sent into wasm once and remembered by object identity; every call checks
// each object against its snapshot. These tests mutate messages in every way a caller
// might and check that results always equal those for fresh copies (which the cache has
// never seen).
import { test } from "node:test";
import assert from "node:assert/strict";
import { countMessages, compact, plan } from "ctxfold";

const o200k = { encoding: "o200k_base" };
const fresh = (messages) => JSON.parse(JSON.stringify(messages));
const total = (messages) => countMessages(messages, o200k).total;

function history() {
  return [
    { role: "system", content: "You are helpful." },
    { role: "user", content: [{ type: "text", text: "Read /etc/hosts please." }] },
    { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "read", arguments: '{"path":"/etc/hosts"}' } }] },
    { role: "tool", tool_call_id: "c1", content: "127.0.0.1 localhost" },
    { role: "assistant", content: "It maps localhost." },
  ];
}

test("a message changed in place is counted as it is now", () => {
  const h = history();
  const before = total(h);
  h[4].content = "It maps localhost to 127.0.0.1, as usual on every machine.";
  assert.equal(total(h), total(fresh(h)));
  assert.notEqual(total(h), before);
  // Deep changes: a part pushed into a content array, a tool argument rewritten.
  h[1].content.push({ type: "text", text: "And /etc/resolv.conf too." });
  assert.equal(total(h), total(fresh(h)));
  h[2].tool_calls[0].function.arguments = '{"path":"/etc/hosts","lines":[1,2,3,4,5,6,7,8]}';
  assert.equal(total(h), total(fresh(h)));
  // A key added, a key removed.
  h[4].name = "helper_bot";
  assert.equal(total(h), total(fresh(h)));
  delete h[4].name;
  assert.equal(total(h), total(fresh(h)));
});

test("arrays that grow, shrink, or change their last messages", () => {
  const h = history();
  for (let i = 0; i < 20; i++) {
    h.push({ role: i % 2 ? "assistant" : "user", content: `message ${i} `.repeat(i + 1) });
    assert.equal(total(h), total(fresh(h)), `grew to ${h.length}`);
  }
  h.pop();
  h.pop();
  assert.equal(total(h), total(fresh(h)), "shrank");
  h[h.length - 1] = { role: "assistant", content: "A regenerated reply." };
  assert.equal(total(h), total(fresh(h)), "last replaced");
  h.splice(3, 2); // the call is left unanswered: still readable, as a fresh copy is
  assert.equal(total(h), total(fresh(h)), "a result and a reply removed");
  // Put a result where the call was: a result without its call is invalid, cached or not.
  h.splice(2, 1, { role: "tool", tool_call_id: "c1", content: "orphan" });
  assert.throws(() => total(h), (e) => e.code === "INVALID_MESSAGE");
  assert.throws(() => total(fresh(h)), (e) => e.code === "INVALID_MESSAGE");
});

test("the same object twice, and a shared object across conversations", () => {
  const m = { role: "user", content: "same object" };
  const a = [m, { role: "assistant", content: "ok" }, m];
  assert.equal(total(a), total(fresh(a)));
  const b = [{ role: "system", content: "other" }, m];
  assert.equal(total(b), total(fresh(b)));
  m.content = "changed between conversations";
  assert.equal(total(a), total(fresh(a)));
  assert.equal(total(b), total(fresh(b)));
});

test("toJSON values and binary data", () => {
  const d = new Date("2026-01-01T00:00:00Z");
  const h = [{ role: "user", content: "when?", metadata: { at: d } }];
  const first = countMessages(h, o200k);
  d.setUTCFullYear(2027); // serialises differently now
  assert.deepEqual(countMessages(h, o200k).messages, countMessages(fresh(h), o200k).messages);
  assert.ok(first.total > 0);
  // Binary data is kept by reference and not counted byte by byte: a file part is one
  // fixed charge, whatever its bytes.
  const bytes = new Uint8Array(64);
  const sdk = [{ role: "user", content: [{ type: "text", text: "see file" }, { type: "file", data: bytes, mediaType: "application/pdf" }] }];
  const sdkOptions = { encoding: "o200k_base", format: "ai-sdk" };
  const before = countMessages(sdk, sdkOptions).total;
  bytes[0] = 9;
  assert.equal(countMessages(sdk, sdkOptions).total, before);
  sdk[0].content[1].data = new Uint8Array(4096);
  assert.equal(countMessages(sdk, sdkOptions).total, before);
});

test("a cycle is a typed error, not a hang", () => {
  const m = { role: "user", content: "loop" };
  m.self = m;
  assert.throws(() => total([m]), (e) => e.code === "INVALID_ARGUMENT" && e.name === "TypeError");
});

test("compact and plan see the same changes", async () => {
  const long = (i) => `turn ${i} `.repeat(300);
  const h = [{ role: "system", content: "s" }];
  for (let i = 0; i < 30; i++) h.push({ role: i % 2 ? "assistant" : "user", content: long(i) });
  h.push({ role: "user", content: "last question" });
  const options = { model: "gpt-4o", contextWindow: 8000 };
  const a = await compact(h, options);
  h[1].content = "an early message, edited";
  const b = await compact(h, options);
  const c = await compact(fresh(h), options);
  assert.deepEqual(b.report.tokensBefore, c.report.tokensBefore);
  assert.deepEqual(b.messages.map((m) => m.content.slice(0, 40)), c.messages.map((m) => m.content.slice(0, 40)));
  assert.notEqual(a.report.tokensBefore, b.report.tokensBefore);
  assert.deepEqual(plan(h, options), plan(fresh(h), options));
});

test("many random edits: always equal to fresh copies", () => {
  let seed = 7;
  const rand = (n) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
  const h = history();
  for (let step = 0; step < 300; step++) {
    const k = rand(5);
    if (k === 0) h.push({ role: h.length % 2 ? "user" : "assistant", content: `new ${step}` });
    else if (k === 1 && h.length > 6) h.pop();
    else if (k === 2) h[h.length - 1].content = `edited ${step} `.repeat(rand(5) + 1);
    else if (k === 3) h[rand(h.length - 5) + 5 > h.length - 1 ? h.length - 1 : rand(h.length - 5) + 5] = { role: "user", content: `replaced ${step}` };
    if (step % 6 === 0) assert.equal(total(h), total(fresh(h)), `step ${step}`);
  }
});
