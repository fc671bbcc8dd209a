// Search in a Durable Object, side by side: the Compactor's index (in the core, over
// durableObjectStore) against the object's own SQLite FTS5 (bm25() ranking), on the longest
// conversation of the corpus, with its probes' questions as the queries, in real workerd
// (Miniflare). Prints each one's time per search (median of the batches; a batch is one
// request of every question, its no-op request's time taken off), the first search of a
// Compactor made afresh (reading the history and building the index), how often one search
// (limit 5) returns a probe's evidence, and the ratios.
//
//   bash scripts/build.sh && node bench/recall/run.mjs [--rounds N] [--batches N]
import { parseArgs } from "node:util";
import { fileURLToPath } from "node:url";
import { Miniflare } from "miniflare";
import { conversationFiles, readConversation, fromRepo } from "../../tests/support/corpus.mjs";

const { values } = parseArgs({ options: { rounds: { type: "string", default: "5" }, batches: { type: "string", default: "9" } } });
const rounds = Number(values.rounds);
const batches = Number(values.batches);
const LIMIT = 5;
const TARGET_MS = 2;

const longest = conversationFiles()
  .map((f) => ({ ...f, data: readConversation(f.file) }))
  .sort((a, b) => b.data.messages.length - a.data.messages.length)[0];
const { messages, probes = [] } = longest.data;
const queries = probes.map((p) => p.question);

const repoRoot = fileURLToPath(new URL("../../", import.meta.url));
const mf = new Miniflare({
  modules: true,
  scriptPath: fileURLToPath(new URL("./worker.mjs", import.meta.url)),
  modulesRoot: repoRoot,
  modulesRules: [
    { type: "ESModule", include: ["**/*.js", "**/*.mjs"] },
    { type: "CompiledWasm", include: ["**/*.wasm"] },
  ],
  durableObjects: { SEARCH: { className: "Search", useSQLite: true } },
  compatibilityDate: "2026-07-01",
});

async function call(path, body = {}) {
  const t0 = performance.now();
  const res = await mf.dispatchFetch(`http://localhost${path}?object=bench`, { method: "POST", body: JSON.stringify(body) });
  const json = await res.json();
  const ms = performance.now() - t0;
  if (res.status !== 200 || json.error) throw new Error(`${path}: ${JSON.stringify(json.error ?? json).slice(0, 500)}`);
  return { json, ms };
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

try {
  await mf.ready;
  const loaded = (await call("/load", { messages })).json;
  console.log(`search in a Durable Object (workerd, SQLite storage): ${fromRepo(longest.path)}, ${loaded.length} messages, ${queries.length} questions, limit ${LIMIT}`);
  const perSearch = {};
  const found = {};
  for (const engine of ["core", "sqlite"]) {
    found[engine] = (await call(`/${engine}`, { queries, rounds: 1, limit: LIMIT })).json.found; // warm-up, and what it finds
    const times = [];
    for (let b = 0; b < batches; b++) {
      const noop = (await call("/noop")).ms;
      const { ms } = await call(`/${engine}`, { queries, rounds, limit: LIMIT });
      times.push(Math.max(0, ms - noop) / (rounds * queries.length));
    }
    perSearch[engine] = median(times);
  }
  const colds = [];
  const reads = [];
  const turns = [];
  for (let b = 0; b < batches; b++) {
    const noop = (await call("/noop")).ms;
    colds.push(Math.max(0, (await call("/cold", { queries, limit: LIMIT })).ms - noop));
    reads.push(Math.max(0, (await call("/cold-history")).ms - noop));
    turns.push(Math.max(0, (await call("/cold-prepare")).ms - noop));
  }
  const hit = (engine) => probes.filter((p, i) => (p.evidence_message_indexes ?? []).some((e) => found[engine][i].includes(e))).length;
  const pct = (n) => `${((100 * n) / Math.max(1, probes.length)).toFixed(1)}%`;
  const row = (name, ms, n) => console.log(`  ${name.padEnd(30)} ${ms.toFixed(3).padStart(9)} ms   ${pct(n).padStart(6)}`);
  console.log(`  ${"".padEnd(30)} ${"a search".padStart(12)}   evidence in the top ${LIMIT}`);
  row("ctxfold's index (the core)", perSearch.core, hit("core"));
  row("SQLite FTS5 bm25()", perSearch.sqlite, hit("sqlite"));
  console.log(`  first search, a fresh Compactor: ${median(colds).toFixed(1)} ms (reads ${loaded.length} messages and builds the index); history() alike: ${median(reads).toFixed(1)} ms, its first prepare(): ${median(turns).toFixed(1)} ms`);
  const ratio = perSearch.sqlite / Math.max(perSearch.core, 1e-6);
  console.log(`SQLite FTS5 / ctxfold time per search: ${ratio.toFixed(2)}x (${ratio > 1 ? "the core's index is faster" : "SQLite is faster"})`);
  console.log(`${perSearch.core <= TARGET_MS ? "PASS" : "FAIL"}  a search in workerd at most ${TARGET_MS} ms (median ${perSearch.core.toFixed(3)} ms)`);
} finally {
  await mf.dispose();
}
