// Usage anchoring, measured: a Compactor for a Claude model (whose tokenizer ctxfold only
// estimates) replays every tool-using corpus conversation turn by turn at a 16k window, and
// after each prepare a provider double reports the input's tokens: ai-tokenizer 1.0.6's
// `count` for anthropic/claude-sonnet-4.5 (its Claude vocabulary, its per-message and base
// overheads, its 1.1 content multiplier), over the input turned into AI SDK messages. Each
// report goes back through commit(reply, { input_tokens }). The trigger decision of the next
// turn (`estimate.tokens`: ctxfold's count times the ratio learned) is compared with what the
// double reports for the input that turn returns, on every turn that did not compact (on a
// compacting turn the decision was about an input that was never sent), beside the plain
// estimate's error on the same turns.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Tokenizer, models } from "ai-tokenizer";
import * as claude from "ai-tokenizer/encoding/claude";
import { count } from "ai-tokenizer/sdk";
import { Compactor } from "ctxfold";
import { modelCalls } from "../support/compactor-suite.mjs";
import { toolConversations } from "../support/corpus.mjs";

const MODEL = models["anthropic/claude-sonnet-4.5"];
const tokenizer = new Tokenizer(claude);

/** OpenAI chat messages as AI SDK model messages (what ai-tokenizer's count takes). */
function toModelMessages(messages) {
  const names = new Map();
  for (const m of messages) for (const c of m.tool_calls ?? []) names.set(c.id, c.function.name);
  return messages.map((m) => {
    if (m.role === "tool")
      return { role: "tool", content: [{ type: "tool-result", toolCallId: m.tool_call_id, toolName: names.get(m.tool_call_id) ?? "tool", output: { type: "text", value: m.content ?? "" } }] };
    if (m.role === "assistant" && m.tool_calls?.length) {
      const content = m.content ? [{ type: "text", text: m.content }] : [];
      for (const c of m.tool_calls) content.push({ type: "tool-call", toolCallId: c.id, toolName: c.function.name, input: c.function.arguments });
      return { role: "assistant", content };
    }
    return { role: m.role, content: m.content ?? "" };
  });
}

/** What the provider double says the input is: its input_tokens. */
const reported = (messages) => count({ tokenizer, model: MODEL, messages: toModelMessages(messages) }).total;

const quantile = (xs, q) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))];
const mean = (xs) => xs.reduce((s, x) => s + x, 0) / xs.length;
const pct = (x) => `${(100 * x).toFixed(2)} %`;

test("after one commit with usage, the next trigger decision is within 2 % of the reported input (Claude, estimated)", async () => {
  const plain = [];
  const corrected = [];
  let compactingTurns = 0;
  let statusChecked = 0;
  for (const c of toolConversations()) {
    const compactor = new Compactor({ model: "claude-sonnet-4-5", contextWindow: 16384 });
    let seen = 0;
    let last = null;
    let usage = null;
    for (const k of modelCalls(c.messages)) {
      if (last !== null) {
        const { anchor, usageIgnored } = await compactor.commit(c.name, c.messages[last], usage);
        assert.equal(usageIgnored, null, `${c.name} at ${k}`);
        assert.ok(anchor && anchor.model === "claude-sonnet-4-5");
        seen = last + 1;
      }
      const r = await compactor.prepare(c.name, c.messages.slice(seen, k));
      const truth = reported(r.messages);
      usage = { input_tokens: truth, output_tokens: 1 };
      if (r.record) compactingTurns++;
      else if (r.estimate.ratio !== null) {
        plain.push(Math.abs(r.estimate.counted - truth) / truth);
        corrected.push(Math.abs(r.estimate.tokens - truth) / truth);
        // The correction is the one the last report gave.
        assert.equal(r.estimate.tokens, Math.round(r.estimate.counted * r.estimate.ratio));
      }
      assert.ok(truth <= r.estimate.input * 1.02, `${c.name} at ${k}: the input (${truth} reported) fits the window's input (${r.estimate.input})`);
      seen = k;
      last = k < c.messages.length ? k : null;
    }
    // status() shows the estimate's error per model, as measured here.
    const s = await compactor.status(c.name);
    if (s.usage.length) {
      assert.equal(s.usage[0].model, "claude-sonnet-4-5");
      assert.ok(s.usage[0].meanAbsError > 0);
      statusChecked++;
    }
  }
  console.log(
    `Claude (claude-sonnet-4-5, estimated) against ai-tokenizer's count, ${corrected.length} turns after a commit with usage (${compactingTurns} compacting turns left out): ` +
      `corrected error mean ${pct(mean(corrected))}, median ${pct(quantile(corrected, 0.5))}, p95 ${pct(quantile(corrected, 0.95))}, max ${pct(Math.max(...corrected))}; ` +
      `uncorrected mean ${pct(mean(plain))}, median ${pct(quantile(plain, 0.5))}, p95 ${pct(quantile(plain, 0.95))}, max ${pct(Math.max(...plain))}`,
  );
  assert.ok(corrected.length > 1000, `${corrected.length} turns measured`);
  assert.ok(statusChecked > 20);
  assert.ok(mean(corrected) < 0.02, `mean corrected error ${pct(mean(corrected))}`);
  assert.ok(quantile(corrected, 0.95) < 0.03, `p95 corrected error ${pct(quantile(corrected, 0.95))}`);
  assert.ok(mean(plain) > 2 * mean(corrected), "the correction makes the estimate better");
});
