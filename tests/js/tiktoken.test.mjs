// ctxfold's counts in Node equal OpenAI's tokenizer's (js-tiktoken, special-token strings
// as ordinary text) on the cross-runtime fixture and on generated varied texts.
import { test } from "node:test";
import assert from "node:assert/strict";
import { getEncoding } from "js-tiktoken";
import { countTokens } from "ctxfold";
import { fixture } from "../support/paths.mjs";

const encodings = ["o200k_base", "cl100k_base"];
const tiktoken = Object.fromEntries(encodings.map((e) => [e, getEncoding(e)]));
const reference = (text, encoding) => tiktoken[encoding].encode(text, [], []).length;

test("the fixture's counts are still js-tiktoken's", () => {
  for (const { name, text, expected } of fixture.cases) {
    for (const encoding of encodings) assert.equal(expected[encoding], reference(text, encoding), `${name} ${encoding}`);
  }
});

test("Node counts the cross-runtime fixture", () => {
  assert.ok(fixture.cases.length >= 10);
  for (const { name, text, expected } of fixture.cases) {
    for (const encoding of encodings) assert.equal(countTokens(text, { encoding }), expected[encoding], `${name} ${encoding}`);
  }
});

/** A small seeded PRNG (mulberry32), so failures reproduce. */
function prng(seed) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const pieces = [
  "the", " The", "quick", "DON'T", "we've", "I'll", "naïve", "café", "straße", "Ωmega", "東京", "自然语言",
  "한국어", "мир", "Привет", "שלום", "مرحبا", "नमस्ते", "👍🏽", "👨‍👩‍👧", "🇯🇵", "✨", "1234567", "3.14", "-42",
  "0x1F", "{", "}", "[]", '":"', "=>", "::", "fn", "if (x) {", "\n", "\n\n", "\r\n", "\t", " ", "   ", "      ",
  ".", ",", "!?", "...", "—", "«", "»", "<|endoftext|>", "<|im_start|>", "\u00a0", "\u200b", "e\u0301", "\u3000",
];

test("equal to js-tiktoken on generated varied texts", () => {
  const random = prng(20260730);
  for (let i = 0; i < 300; i++) {
    const n = 1 + Math.floor(random() * (i < 250 ? 40 : 400));
    let text = "";
    for (let k = 0; k < n; k++) text += pieces[Math.floor(random() * pieces.length)];
    for (const encoding of encodings) {
      assert.equal(countTokens(text, { encoding }), reference(text, encoding), `${encoding} ${JSON.stringify(text)}`);
    }
  }
});

test("equal to js-tiktoken on a long document", () => {
  const paragraph =
    "## Results\n\nThe model answered 1,234 of 1,500 questions (82.3 %) correctly; see `eval/run_42.json`.\n" +
    "```python\ndef score(xs: list[int]) -> float:\n    return sum(xs) / max(len(xs), 1)\n```\n" +
    "Résumé: 東京で会いましょう 🙂 — до встречи!\n\n";
  const text = paragraph.repeat(500);
  for (const encoding of encodings) assert.equal(countTokens(text, { encoding }), reference(text, encoding), encoding);
});
