// The benchmark's measurements on hand-made inputs whose right answers are known: validity,
// identifier retention, probe coverage, alternation and the cached prefix. A benchmark that
// measured something else would fail here.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

import { countTokens } from "ctxfold";
import { loadConversation, messageKey, TokenCounter } from "../lib/corpus.mjs";
import { cachedPrefix, expandGroups, measure, problems } from "../lib/measure.mjs";

const call = (id, name = "bash") => ({ id, type: "function", function: { name, arguments: "{}" } });

/**
 * A one-conversation corpus in a temporary directory (removed after the test), loaded as the
 * benchmark loads it, with a token counter seeded from its messages.
 */
function corpusOf(t, { messages, probes = [], ids = {} }) {
  const dir = mkdtempSync(join(tmpdir(), "ctxfold-bench-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(join(dir, "conversations", "t"), { recursive: true });
  writeFileSync(join(dir, "conversations", "t", "t.json"), JSON.stringify({ id: "t", messages, probes }));
  const conv = loadConversation(dir, "t.json", ids);
  const counter = new TokenCounter();
  counter.seed(conv.messages, conv.keys);
  return { conv, counter };
}

test("problems: a valid agent input has none", () => {
  const input = [
    { role: "system", content: "s" },
    { role: "user", content: "fix it" },
    { role: "assistant", content: null, tool_calls: [call("a"), call("b")] },
    { role: "tool", tool_call_id: "a", content: "ok" },
    { role: "tool", tool_call_id: "b", content: "ok" },
    { role: "assistant", content: "done" },
  ];
  assert.deepEqual(problems(input), []);
});

test("problems: each kind of invalid input is named", () => {
  const user = { role: "user", content: "u" };
  assert.deepEqual(problems([{ role: "system", content: "s" }, undefined]), ["undefined-entry"]);
  assert.deepEqual(problems([{ role: "system", content: "s" }]), ["empty"]);
  assert.deepEqual(problems([{ role: "assistant", content: "a" }, user]), ["first-not-user"]);
  assert.deepEqual(problems([user, { role: "tool", tool_call_id: "x", content: "r" }]), ["orphan-result"]);
  assert.deepEqual(problems([user, { role: "assistant", content: null, tool_calls: [call("x")] }, user]), ["missing-result"]);
  // A result answered twice is an orphan the second time.
  const twice = [user, { role: "assistant", content: null, tool_calls: [call("x")] }, { role: "tool", tool_call_id: "x", content: "r" }];
  assert.deepEqual(problems([...twice, { role: "tool", tool_call_id: "x", content: "r" }]), ["orphan-result"]);
});

test("cachedPrefix: whole identical messages, then the common start of the first that differs", () => {
  const counter = new TokenCounter();
  const sys = { role: "system", content: "You are a helpful assistant." };
  const u1 = { role: "user", content: "The quick brown fox jumps over the lazy dog." };
  const u2 = { role: "user", content: "The quick brown fox sleeps." };
  const req = (input) => ({ input, keys: input.map(messageKey) });
  const prev = req([sys, u1]);
  assert.equal(cachedPrefix(null, prev, counter), 0);
  assert.equal(cachedPrefix(prev, req([sys, u1, { role: "assistant", content: "ok" }]), counter), counter.tokens(sys) + counter.tokens(u1));
  const common = countTokens("The quick brown fox ", { encoding: "o200k_base" });
  assert.equal(cachedPrefix(prev, req([sys, u2]), counter), counter.tokens(sys) + common);
  // A different role at the first difference shares nothing more.
  assert.equal(cachedPrefix(prev, req([sys, { role: "assistant", content: u1.content }]), counter), counter.tokens(sys));
});

test("measure: identifiers and probe answers kept by a summary, lost by a plain drop", (t) => {
  const messages = [
    { role: "system", content: "You are helpful." },
    { role: "user", content: "Please fix src/app.py, it crashes on start." },
    { role: "assistant", content: "I will look at it. The review meeting is on 7 May." },
    { role: "user", content: "Thanks. What comes next?" },
    { role: "assistant", content: "Run the tests." },
  ];
  const probes = [{ question: "When is the review meeting?", answer: "7 May", evidence_message_indexes: [2], origin: "dataset" }];
  const ids = { t: { path: { "src/app.py": { first: 1, count: 1 } } } };
  const { conv, counter } = corpusOf(t, { messages, probes, ids });
  const [sys, , , u3] = conv.messages;
  const k = 4; // the model call before the last assistant message

  const summary = { role: "user", content: "## Conversation Summary\nFixing src/app.py; the review meeting is on 7 May." };
  const kept = measure(conv, k, [sys, summary, u3], counter, new Map(), []);
  assert.equal(kept.evicted, 2);
  assert.deepEqual([kept.idsAtRisk, kept.idsKept, kept.idsOnlyAtRisk, kept.idsOnlyKept], [1, 1, 1, 1]);
  assert.deepEqual([kept.probesAtRisk, kept.probesCovered, kept.probesAsked, kept.probesAnswered], [1, 1, 1, 1]);
  assert.deepEqual(kept.probeBy.locomo, [1, 1]);
  assert.equal(kept.invalid, null);
  assert.equal(kept.altBreak, "made", "the summary (user) next to a user message it was not next to");
  assert.equal(kept.tokens, 3 + counter.tokens(sys) + counter.tokens(summary) + counter.tokens(u3));

  const dropped = measure(conv, k, [sys, u3], counter, new Map(), []);
  assert.deepEqual([dropped.idsAtRisk, dropped.idsKept], [1, 0]);
  assert.deepEqual([dropped.probesAtRisk, dropped.probesCovered, dropped.probesAnswered], [1, 0, 0]);
  assert.equal(dropped.altBreak, null);

  // Everything verbatim: nothing at risk, every answer present.
  const full = measure(conv, k, conv.messages.slice(0, k), counter, new Map(), []);
  assert.deepEqual([full.evicted, full.idsAtRisk, full.probesAtRisk, full.probesAnswered], [0, 0, 0, 1]);

  // A problem the method made counts; one the history already had does not.
  const bad = [sys, conv.messages[2], u3];
  assert.equal(measure(conv, k, bad, counter, new Map(), []).invalid, "first-not-user");
  assert.equal(measure(conv, k, bad, counter, new Map(), ["first-not-user"]).invalid, null);
});

test("measure: two messages of one side that the conversation already had in a row are not the method's", (t) => {
  const messages = [
    { role: "system", content: "Two friends chat." },
    { role: "user", content: "We went to Lisbon on 7 May." },
    { role: "assistant", content: "Lovely!" },
    { role: "user", content: "Anna came too." },
    { role: "user", content: "And Tom joined us later." },
    { role: "assistant", content: "Sounds fun." },
  ];
  const { conv, counter } = corpusOf(t, { messages });
  const [sys, , , u3, u4] = conv.messages;
  const summary = { role: "user", content: "## Conversation Summary\nLisbon on 7 May." };
  // The summary before u4, whose neighbour in the conversation (u3) is a user message too.
  assert.equal(measure(conv, 5, [sys, summary, u4], counter, new Map(), []).altBreak, null);
  // Before u3, whose neighbour (the assistant's "Lovely!") alternated: the summary made it.
  assert.equal(measure(conv, 5, [sys, summary, u3, u4], counter, new Map(), []).altBreak, "made");
});

test("expandGroups: the lossless notation gives exactly its identifiers; the lossy one only its ends", () => {
  assert.deepEqual(expandGroups("Identifiers: 10.0.3.{1,4,7-9}:5432, db:5432"), [
    "10.0.3.1:5432",
    "10.0.3.4:5432",
    "10.0.3.7:5432",
    "10.0.3.8:5432",
    "10.0.3.9:5432",
  ]);
  assert.deepEqual(expandGroups("see (data/part-{0009-0011}.csv)."), ["data/part-0009.csv", "data/part-0010.csv", "data/part-0011.csv"]);
  assert.deepEqual(expandGroups("10.0.3.{1…250}:5432 (120 values)"), ["10.0.3.1:5432", "10.0.3.250:5432"]);
  // Not the notation: braces of code, of a template, of a range that is not one.
  assert.deepEqual(expandGroups("fn main() { x } ${HOME} {a,b} {01-123} {5-3}"), []);
  // Paths of one directory, read with it; not braces after a word, before a suffix, of one name.
  assert.deepEqual(expandGroups("Identifiers: src/app/{main.py,config/init.py}, ./doc/{a,b}."), [
    "src/app/main.py",
    "src/app/config/init.py",
    "./doc/a",
    "./doc/b",
  ]);
  assert.deepEqual(expandGroups("x{a,b} /{a,b} src/{a,b}.py src/{a} src/{a,'b'} src/{a,/b}"), []);
});

test("measure: a lossless group keeps its members; a lossy one only the two it names", (t) => {
  const hosts = Array.from({ length: 5 }, (_, i) => `10.0.3.${i + 1}:5432`);
  const messages = [
    { role: "system", content: "You are helpful." },
    { role: "user", content: `Replicas: ${hosts.join(" ")}` },
    { role: "assistant", content: "Noted." },
    { role: "user", content: "Next?" },
    { role: "assistant", content: "Done." },
  ];
  const ids = { t: { host_port: Object.fromEntries(hosts.map((h) => [h, { first: 1, count: 1 }])) } };
  const { conv, counter } = corpusOf(t, { messages, ids });
  const [sys, , , u3] = conv.messages;
  const summary = (line) => ({ role: "user", content: `## Conversation Summary\n- **Facts:** replicas.\n${line}` });
  const lossless = measure(conv, 4, [sys, summary("Identifiers: 10.0.3.{1-5}:5432"), u3], counter, new Map(), []);
  assert.deepEqual([lossless.idsAtRisk, lossless.idsKept], [5, 5]);
  assert.equal(lossless.summaries, 1);
  assert.equal(lossless.ledgerTokens, countTokens("Identifiers: 10.0.3.{1-5}:5432", { encoding: "o200k_base" }));
  const lossy = measure(conv, 4, [sys, summary("Identifiers: 10.0.3.{1…5}:5432 (5 values)"), u3], counter, new Map(), []);
  assert.deepEqual([lossy.idsAtRisk, lossy.idsKept], [5, 2]);
});
