// What `ctxfold replay` shows: progress and a line per compaction on stderr while it runs,
// then its figures, as one object (`--json`) or as a table on stdout.
import { basename } from "node:path";
import { notify } from "../node.js";

/** @typedef {import("../node.js").CompactionRecord} CompactionRecord */
/**
 * One prepared turn, measured: its input and the whole history counted again, its budget and
 * window, and the time it took (`storeMs` of it the store's), the commit before it included.
 * @typedef {{ turn: number, messages: number, input: number, history: number, budget: number, window: number, compacted: boolean, status: import("../node.js").ContextStatus, ms: number, storeMs: number }} Turn
 */
/**
 * What a replay ran: its turns, and each compaction with the turn it happened at.
 * @typedef {{ turns: Turn[], records: { turn: number | null, record: CompactionRecord }[], current: number | null }} Run
 */
/**
 * Where the run went on from a conversation the store held, or null.
 * @typedef {{ storedMessages: number, fromTurn: number | null } | null} Resumed
 */
/**
 * What progress() returns: where the run says how it goes.
 * @typedef {{
 *   note(text: string): void,
 *   turn(t: Turn, turns: number, compactions: number): void,
 *   compaction(turn: number | null, turns: number, record: CompactionRecord): void,
 *   done(): void,
 * }} Output
 */
/** @typedef {ReturnType<typeof summary>} Summary */

/** @param {number} n */
const fmt = (n) => n.toLocaleString("en-US");

/**
 * `12400` -> `12.4k`, as the notices write tokens.
 * @param {number} n
 */
function short(n) {
  if (n < 1000) return String(n);
  if (n < 100_000) return `${(n / 1000).toFixed(1).replace(/\.0$/, "")}k`;
  return `${Math.round(n / 1000)}k`;
}

/**
 * `[2, 3, 4, 9]` -> `2-4, 9`.
 * @param {number[]} list
 */
export function ranges(list) {
  /** @type {[number, number][]} */
  const out = [];
  for (const n of list) {
    const last = out.at(-1);
    if (last && n === last[1] + 1) last[1] = n;
    else out.push([n, n]);
  }
  return out.map(([a, b]) => (a === b ? `${a}` : `${a}-${b}`)).join(", ");
}

/**
 * @param {number} n
 * @param {string} one
 */
const plural = (n, one, many = `${one}s`) => `${fmt(n)} ${n === 1 ? one : many}`;

/**
 * The line of one compaction: the turn, the package's notice, what it evicted and kept.
 * @param {number | null} turn
 * @param {number} turns
 * @param {CompactionRecord} record
 */
function compactionLine(turn, turns, record) {
  const evicted = record.evicted.length ? `evicted ${plural(record.evicted.length, "message")} (${ranges(record.evicted)})` : "evicted nothing";
  const fallback = record.fallback ? `; fallback ${record.fallback.kind}: ${record.fallback.reason}` : "";
  const ids = `identifiers ${fmt(record.keptIds.length)} kept, ${fmt(record.lostIds.length)} lost`;
  return `turn ${turn}/${turns}: ${notify(record).split("\n", 1)[0]}, ${evicted}, ${ids}${fallback}`;
}

/**
 * @param {Turn} t
 * @param {number} turns
 * @param {number} compactions
 */
function progressText(t, turns, compactions) {
  const pct = `${Math.floor((100 * t.turn) / turns)} %`.padStart(5);
  return `turn ${t.turn}/${turns} (${pct}) · input ${short(t.input)} of ${short(t.budget)} · history ${short(t.history)} · ${plural(compactions, "compaction")}`;
}

const WIDTH = 24;
/** @param {number} share */
const bar = (share) => `[${"#".repeat(Math.round(share * WIDTH)).padEnd(WIDTH, "-")}]`;

/**
 * Progress on `stream` (stderr): on a terminal a bar redrawn in place, otherwise a plain line
 * at the first turn and each tenth of the way; notes and compaction lines in between. Nothing
 * with `quiet`.
 * @param {{ quiet: boolean, stream?: NodeJS.WriteStream }} how
 * @returns {Output}
 */
export function progress({ quiet, stream = process.stderr }) {
  if (quiet) return { note() {}, turn() {}, compaction() {}, done() {} };
  const tty = stream.isTTY === true;
  let shown = "";
  let tenth = -1;
  /** @param {string} text */
  const line = (text) => {
    // A line goes above the bar, which is drawn again under it.
    stream.write(tty && shown ? `\r\x1b[K${text}\n${shown}` : `${text}\n`);
  };
  return {
    note: line,
    compaction(turn, n, record) {
      line(compactionLine(turn, n, record));
    },
    turn(t, n, compactions) {
      const text = progressText(t, n, compactions);
      if (tty) {
        // Cut to the terminal's width: a bar that wraps cannot be drawn again in place.
        shown = `${bar(t.turn / n)} ${text}`.slice(0, Math.max(20, (stream.columns ?? 200) - 1));
        stream.write(`\r\x1b[K${shown}`);
        return;
      }
      const now = Math.floor((10 * t.turn) / n);
      if (now > tenth) {
        tenth = now;
        stream.write(`${text}\n`);
      }
    },
    done() {
      if (tty && shown) stream.write("\n");
      shown = "";
    },
  };
}

/**
 * The median, 95th percentile (nearest rank) and maximum of `values`; nulls for none.
 * @param {number[]} values
 * @returns {{ median: number | null, p95: number | null, max: number | null }}
 */
function spread(values) {
  if (values.length === 0) return { median: null, p95: null, max: null };
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  const median = s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
  /** @param {number} v */
  const round = (v) => Math.round(v * 100) / 100;
  return { median: round(median), p95: round(s[Math.ceil(0.95 * s.length) - 1]), max: round(s[s.length - 1]) };
}

/**
 * The replay's figures, as `--json` prints them and the table shows them.
 * @param {{
 *   file: string, id: string, options: { model: string, contextWindow?: number }, about: string,
 *   store: string | null, turns: number, fileMessages: number, resumed: Resumed, run: Run,
 *   stored: { messages: number, compactions: number, summaries: number, complete: boolean },
 *   until: number | null,
 * }} replay
 */
export function summary({ file, id, options, about, store, turns, fileMessages, resumed, run, stored, until }) {
  const t = run.turns;
  const largest = t.reduce((a, b) => (b.input > (a?.input ?? -1) ? b : a), /** @type {Turn | null} */ (null));
  const over = t.filter((x) => x.input > x.budget).map((x) => ({ turn: x.turn, input: x.input, budget: x.budget }));
  const records = run.records.map(({ turn, record: r }) => ({
    turn,
    seq: r.seq,
    notice: notify(r).split("\n", 1)[0],
    tokensBefore: r.tokensBefore,
    tokensAfter: r.tokensAfter,
    evicted: r.evicted,
    keptIds: r.keptIds.length,
    lostIds: r.lostIds.length,
    fallback: r.fallback,
  }));
  /** @param {(turn: Turn) => number} f */
  const sum = (f) => t.reduce((a, x) => a + f(x), 0);
  return {
    file,
    id,
    model: options.model,
    window: t[0]?.window ?? options.contextWindow ?? null,
    inputBudget: t[0]?.budget ?? null,
    summarizer: about,
    store,
    turns,
    messages: fileMessages,
    replayed: { turns: t.length, from: t[0]?.turn ?? null, to: t.at(-1)?.turn ?? null, until },
    resumed,
    compactions: records.length,
    fallbacks: records.filter((r) => r.fallback !== null).length,
    tokensSent: { withCtxfold: sum((x) => x.input), withoutCtxfold: sum((x) => x.history) },
    largestInput: largest && { turn: largest.turn, tokens: largest.input, budget: largest.budget },
    pass: over.length === 0,
    overBudget: over,
    withoutCtxfold: { largest: Math.max(0, ...t.map((x) => x.history)), turnsOverBudget: t.filter((x) => x.history > x.budget).length },
    identifiers: { kept: records.reduce((a, r) => a + r.keptIds, 0), lost: records.reduce((a, r) => a + r.lostIds, 0) },
    timePerTurnMs: spread(t.map((x) => x.ms)),
    storeTimePerTurnMs: spread(t.map((x) => x.storeMs)),
    stored,
    perTurn: t.map(({ turn, messages, input, history, budget, compacted, status, ms, storeMs }) => ({
      turn,
      messages,
      input,
      history,
      budget,
      compacted,
      status,
      ms: Math.round(ms * 100) / 100,
      storeMs: Math.round(storeMs * 100) / 100,
    })),
    records,
  };
}

/** @param {number | null} v */
const ms = (v) => (v === null ? "-" : `${v < 10 ? v.toFixed(2) : v.toFixed(1)} ms`);

/**
 * The closing table.
 * @param {Summary} s
 */
export function table(s) {
  /** @type {string[]} */
  const rows = [];
  /**
   * @param {string} label
   * @param {string} text
   */
  const row = (label, text) => rows.push(`  ${label.padEnd(15)}${text}`);
  const r = s.replayed;
  const part = r.turns === s.turns ? "" : r.turns === 0 ? " (none replayed in this run)" : ` (turns ${r.from}-${r.to} in this run)`;
  row("turns", `${fmt(r.turns)} of ${fmt(s.turns)} model calls${part}, ${fmt(s.messages)} messages in FILE`);
  if (s.resumed) {
    const { storedMessages: held, fromTurn } = s.resumed;
    row(
      "resumed",
      `the store held ${plural(held, "message")}${fromTurn === null ? `, all of FILE's: nothing to replay` : `: replayed from turn ${fromTurn}, only what it did not hold`}`,
    );
  }
  row("compactions", `${fmt(s.compactions)} (${plural(s.fallbacks, "fallback")})${s.store ? `; ${fmt(s.stored.compactions)} in the store` : ""}`);
  if (r.turns > 0) {
    const { withCtxfold: a, withoutCtxfold: b } = s.tokensSent;
    const saved = b > 0 ? `, ${Math.round((100 * (b - a)) / b)} % fewer` : "";
    row("tokens sent", `${fmt(a)} with ctxfold, ${fmt(b)} without (the whole history every turn)${saved}`);
    const L = /** @type {NonNullable<Summary["largestInput"]>} */ (s.largestInput); // (a turn was replayed)
    row(
      "largest input",
      `${fmt(L.tokens)} of ${fmt(L.budget)} input budget (turn ${L.turn}): ${s.pass ? "PASS, never over" : `FAIL, ${plural(s.overBudget.length, "turn")} over`}`,
    );
    const w = s.withoutCtxfold;
    row("without", `the largest would have been ${fmt(w.largest)}; ${fmt(w.turnsOverBudget)} of ${plural(r.turns, "turn")} over the budget`);
    row("identifiers", `${fmt(s.identifiers.kept)} kept, ${fmt(s.identifiers.lost)} lost (the compactions' records)`);
    const p = s.timePerTurnMs;
    const st = s.storeTimePerTurnMs;
    row("time per turn", `median ${ms(p.median)} · p95 ${ms(p.p95)} · max ${ms(p.max)} (prepare and commit; the store's part: median ${ms(st.median)})`);
  }
  if (s.store)
    row(
      "store",
      `${s.store}: ${plural(s.stored.messages, "message")}${s.stored.complete ? " (all of FILE's)" : ""}, ${plural(s.stored.compactions, "compaction")}, ${plural(s.stored.summaries, "summary", "summaries")}`,
    );
  const head = `${s.file === "-" ? "stdin" : basename(s.file)}: ${s.model}, window ${s.window === null ? "the model's" : fmt(s.window)}${s.inputBudget === null ? "" : ` (input budget ${fmt(s.inputBudget)})`}, ${s.summarizer}`;
  return `${head}\n${rows.join("\n")}`;
}
