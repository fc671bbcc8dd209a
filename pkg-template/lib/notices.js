// Notices: the lines a chat UI shows when a Compactor compacts or prunes (notify), and the
// same news as server-sent-event lines for a streaming response (sse). They read what the
// records and the Compactor's events hold (src/session/stored.rs, CompactorEvents) and
// nothing else; no wasm call is involved, so they work before and after a trap alike.

import { invalidArgument, kindOf } from "./values.js";

/** @typedef {import("./types.d.ts").CompactionRecord} CompactionRecord */
/** @typedef {import("./types.d.ts").CompactReport} CompactReport */
/** @typedef {import("./types.d.ts").CompactPlan} CompactPlan */
/** @typedef {import("./types.d.ts").CompactorEvents} CompactorEvents */
/** @typedef {import("./types.d.ts").FallbackUsed} FallbackUsed */
/** @typedef {import("./types.d.ts").PlanTokens} PlanTokens */
/** A guard's event. @typedef {CompactorEvents["suppressed" | "backoff" | "breakerOpen" | "breakerClosed"]} GuardEvent */
/**
 * A Compactor event by its type, or a record read as a compactionEnd (of no conversation known).
 * @typedef {{ [E in keyof CompactorEvents]: { type: E, event: CompactorEvents[E] } }[keyof CompactorEvents] | { type: "compactionEnd", event: { conversationId: null, record: CompactionRecord } }} Classified
 */
/** compact()'s report, or the AI SDK middleware's onReport event's. @typedef {{ type: "report", event: CompactReport }} Reported */

/**
 * `12400` -> `"12.4k"`, `157000` -> `"157k"`, `300` -> `"300"`.
 * @param {unknown} n  a count (anything else is `"?"`)
 */
export function tokens(n) {
  if (typeof n !== "number" || !Number.isFinite(n)) return "?";
  const abs = Math.abs(n);
  if (abs < 1000) return String(Math.round(n));
  if (abs < 100_000) return `${trim((n / 1000).toFixed(1))}k`;
  if (abs < 999_500) return `${Math.round(n / 1000)}k`;
  return `${trim((n / 1_000_000).toFixed(1))}M`;
}

/** @param {string} s */
const trim = (s) => s.replace(/\.0$/, "");

/**
 * `part` of `whole` in whole percent, as `"6 %"`.
 * @param {number} part
 * @param {number} whole
 */
export function percent(part, whole) {
  if (!(whole > 0)) return "? %";
  return `${Math.round((100 * part) / whole)} %`;
}

/**
 * @param {{ argument: string, what: string }} expected
 * @param {unknown} value
 */
const invalid = (expected, value) => invalidArgument(expected.argument, `${expected.what}, got ${kindOf(value)}`);

/**
 * @param {unknown} v
 * @returns {v is Record<string, unknown>}
 */
const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);
/**
 * @param {unknown} v
 * @returns {v is CompactionRecord}
 */
const isRecord = (v) => isObject(v) && typeof v.seq === "number" && typeof v.tokensBefore === "number" && typeof v.tokensAfter === "number";

/**
 * compact()'s report (what the AI SDK middleware's onReport event carries as `report`).
 * @param {unknown} v
 * @returns {v is CompactReport}
 */
const isReport = (v) =>
  isObject(v) && typeof v.tokensBefore === "number" && typeof v.tokensAfter === "number" && isObject(v.budget) && isObject(v.pruned) && v.seq === undefined;

/** @type {readonly unknown[]} */
const EVENT_TYPES = ["compactionStart", "compactionEnd", "compactionFailed", "pruned", "fallback", "suppressed", "backoff", "breakerOpen", "breakerClosed"];

/**
 * @param {unknown} type
 * @returns {type is keyof CompactorEvents}
 */
const isEventType = (type) => EVENT_TYPES.includes(type);

/**
 * What `notify` and `sse` were given: `{ type, event }`, a record read as a compactionEnd;
 * for `notify` (`reports`), also compact()'s report, and the AI SDK middleware's onReport
 * event (`{ key, type: "generate" | "stream", report }`), as `{ type: "report", event: report }`.
 * @overload
 * @param {unknown} value
 * @param {string} argument
 * @returns {Classified}
 */
/**
 * @overload
 * @param {unknown} value
 * @param {string} argument
 * @param {true} reports
 * @returns {Classified | Reported}
 */
/**
 * @param {unknown} value
 * @param {string} argument
 * @param {boolean} [reports]
 * @returns {Classified | Reported}
 */
function classify(value, argument, reports = false) {
  const expected = { argument, what: `a CompactionRecord${reports ? ", a CompactReport, an onReport event" : ""} or a Compactor event` };
  if (!isObject(value)) throw invalid(expected, value);
  if (reports && isReport(value)) return { type: "report", event: value };
  if (reports && (value.type === "generate" || value.type === "stream") && isReport(value.report)) return { type: "report", event: value.report };
  if (value.type === undefined && isRecord(value)) return { type: "compactionEnd", event: { conversationId: null, record: value } };
  if (!isEventType(value.type)) throw invalid(expected, value);
  // The event's own fields are the Compactor's: only those each notice needs first are checked.
  if (value.type === "compactionFailed") return /** @type {Classified} */ ({ type: value.type, event: value });
  const needs = {
    compactionStart: "plan",
    compactionEnd: "record",
    pruned: "pruned",
    fallback: "fallback",
    suppressed: "suppressed",
    backoff: "backoff",
    breakerOpen: "breaker",
    breakerClosed: "breaker",
  }[value.type];
  if (!isObject(value[needs])) throw invalid({ argument: `${argument}.${needs}`, what: "an object" }, value[needs]);
  if (value.type === "compactionEnd" && !isRecord(value.record)) throw invalid({ argument: `${argument}.record`, what: "a CompactionRecord" }, value.record);
  return /** @type {Classified} */ ({ type: value.type, event: value });
}

/**
 * The line of a guard's event: `Compaction skipped (backoff): ...`, `Backing off: ...`.
 * @param {GuardEvent} event
 */
function guardLine(event) {
  switch (event.type) {
    case "suppressed": {
      const s = event.suppressed;
      return `Compaction skipped (${s.guard}, ${tokens(s.tokens)}/${tokens(s.input)} fits): ${s.reason}`;
    }
    case "backoff": {
      const b = event.backoff;
      return b.level > 0 ? `Backing off: ${b.reason}` : `Back-off ended: ${b.reason}`;
    }
    case "breakerOpen":
      return `Summarizer circuit open: ${event.breaker.reason}`;
    default:
      return `Summarizer circuit closed: ${event.breaker.reason}`;
  }
}

/**
 * The line of a compaction that did not land.
 * @param {CompactorEvents["compactionFailed"]} event
 */
function failedLine(event) {
  if (event.retried) return "Compaction superseded: another writer compacted first";
  const message = event.error instanceof Error ? event.error.message : String(event.error);
  return `Compaction failed: ${message}`;
}

/**
 * The headline of a compaction: `Compacted (157k -> 9.1k)`.
 * @param {{ tokensBefore: number, tokensAfter: number, undone?: boolean }} record  a record, or compact()'s report (which nothing undid)
 */
function compactedLine(record) {
  return `Compacted (${tokens(record.tokensBefore)} -> ${tokens(record.tokensAfter)})${record.undone ? " (undone)" : ""}`;
}

/**
 * The headline of pruning: `Tool outputs pruned (12.4k -> 2.1k, -83 %)`.
 * @param {CompactorEvents["pruned"]} event
 */
function prunedLine(event) {
  const t = event.prunedTokens;
  if (isObject(t) && t.before > 0) {
    return `Tool outputs pruned (${tokens(t.before)} -> ${tokens(t.after)}, -${percent(t.before - t.after, t.before)})`;
  }
  if (event.pruned.tokensSaved > 0) return `Tool outputs pruned (-${tokens(event.pruned.tokensSaved)} tokens)`;
  return "Tool outputs pruned (none was over the size limit)";
}

/** @param {FallbackUsed} fallback */
function fallbackLine(fallback) {
  return `Summary fallback: ${fallback.kind} (${fallback.reason})`;
}

/**
 * The count a compaction starts from: the input as given (`tokens.given`, before this call's
 * pruning), which its record's `tokensBefore` is, so the start and end notices agree.
 * @param {CompactPlan} plan
 */
const startTokens = (plan) => plan.tokens?.given ?? plan.tokens?.total;

/** @param {CompactPlan} plan */
function startLine(plan) {
  const n = Array.isArray(plan.evict) ? plan.evict.length : 0;
  return `Compacting ${tokens(startTokens(plan))} tokens (${n} message${n === 1 ? "" : "s"} to summarize)`;
}

/**
 * The notice for a compaction record or a Compactor event, as coding agents show them:
 *
 *   Compacted (157k -> 9.1k)
 *     System: 1.8k tokens
 *     Summary: 3.2k tokens
 *     Kept context: 2.7k tokens
 *     Tool outputs: 1.4k tokens
 *     Total: 9.1k/150k (6 %)
 *
 *   Tool outputs pruned (12.4k -> 2.1k, -83 %)
 *     Context: 18.5k/150k (12 %)
 * @param {unknown} value  checked: what a caller passes
 * @returns {string}
 */
export function notify(value) {
  const { type, event } = classify(value, "record", true);
  switch (type) {
    case "suppressed":
    case "backoff":
    case "breakerOpen":
    case "breakerClosed":
      return guardLine(event);
    case "report":
      return reportNotice(event);
    case "compactionStart":
      return startLine(event.plan);
    case "compactionFailed":
      return failedLine(event);
    case "fallback":
      return fallbackLine(event.fallback);
    case "pruned": {
      const lines = [prunedLine(event)];
      const window = event.budget?.window;
      if (typeof event.tokensAfter === "number" && window > 0) {
        lines.push(`  Context: ${tokens(event.tokensAfter)}/${tokens(window)} (${percent(event.tokensAfter, window)})`);
      }
      return lines.join("\n");
    }
    default: {
      const r = event.record;
      const lines = [compactedLine(r)];
      const a = /** @type {(PlanTokens & { tools?: number }) | undefined} */ (r.after);
      if (isObject(a)) {
        // The tool definitions are in the head, and the tool outputs among the kept messages:
        // each shown apart, so the lines add up. (Records stored before toolDefinitions and
        // toolResults say `tools` for the outputs.)
        const definitions = Math.max(0, a.toolDefinitions ?? 0);
        const outputs = Math.max(0, a.toolResults ?? a.tools);
        const system = Math.max(0, a.head - definitions);
        if (system > 0 || definitions === 0) lines.push(`  System: ${tokens(system)} tokens`);
        if (definitions > 0) lines.push(`  Tool definitions: ${tokens(definitions)} tokens`);
        lines.push(`  Summary: ${tokens(a.summaries)} tokens`);
        lines.push(`  Kept context: ${tokens(Math.max(0, a.tail + a.middle - outputs))} tokens`);
        if (outputs > 0) lines.push(`  Tool outputs: ${tokens(outputs)} tokens`);
      }
      if (r.fallback) lines.push(`  ${fallbackLine(r.fallback)}`);
      const window = r.budget?.window;
      if (window > 0) lines.push(`  Total: ${tokens(r.tokensAfter)}/${tokens(window)} (${percent(r.tokensAfter, window)})`);
      return lines.join("\n");
    }
  }
}

/**
 * A compact() report's notice: a compaction as a record's (without the breakdown, which
 * only records keep), pruning alone, or else how full the window is.
 * @param {CompactReport} r
 */
function reportNotice(r) {
  const window = r.budget.window;
  const use = window > 0 ? `${tokens(r.tokensAfter)}/${tokens(window)} (${percent(r.tokensAfter, window)})` : tokens(r.tokensAfter);
  if (r.trigger === null || r.trigger === undefined) {
    const saved = r.pruned.tokensSaved;
    return saved > 0 ? `Tool outputs pruned (-${tokens(saved)} tokens)\n  Context: ${use}` : `Context: ${use}`;
  }
  const lines = [compactedLine(r)];
  if (r.fallback) lines.push(`  ${fallbackLine(r.fallback)}`);
  lines.push(`  Total: ${use}`);
  return lines.join("\n");
}

/**
 * The first line of `notify`'s notice.
 * @param {unknown} value
 */
export function headline(value) {
  return notify(value).split("\n", 1)[0];
}

/**
 * One server-sent event for a streaming response: `data: {"event":"compaction",...}\n\n`.
 * `compactionStart`, `compactionEnd` (or a record) and `compactionFailed` are
 * `event: "compaction"` with `phase` `start`, `end` or `failed`; `pruned` and `fallback` are
 * events of their own. Each carries `text`, the notice's first line.
 * @param {unknown} value  checked: what a caller passes
 * @returns {string}
 */
export function sse(value) {
  const { type, event } = classify(value, "event");
  const conversationId = typeof event.conversationId === "string" ? event.conversationId : null;
  let data;
  switch (type) {
    case "suppressed":
    case "backoff":
    case "breakerOpen":
    case "breakerClosed": {
      // (A suppression carries no record.)
      const { type: _, conversationId: __, record: ___, ...rest } = /** @type {GuardEvent & { record?: unknown }} */ (event);
      data = { event: type, conversationId, ...rest, text: guardLine(event) };
      break;
    }
    case "compactionStart": {
      const p = event.plan;
      data = {
        event: "compaction",
        phase: "start",
        conversationId,
        tokens: startTokens(p) ?? null,
        window: p.budget?.window ?? null,
        evict: Array.isArray(p.evict) ? p.evict.length : 0,
        text: startLine(p),
      };
      break;
    }
    case "compactionFailed": {
      const code = /** @type {{ code?: unknown } | null | undefined} */ (event.error)?.code;
      data = {
        event: "compaction",
        phase: "failed",
        conversationId,
        retried: event.retried === true,
        code: typeof code === "string" ? code : null,
        text: failedLine(event),
      };
      break;
    }
    case "compactionEnd": {
      const r = event.record;
      data = {
        event: "compaction",
        phase: "end",
        conversationId,
        seq: r.seq,
        trigger: r.trigger ?? null,
        tokensBefore: r.tokensBefore,
        tokensAfter: r.tokensAfter,
        window: r.budget?.window ?? null,
        evicted: Array.isArray(r.evicted) ? r.evicted.length : 0,
        fallback: r.fallback?.kind ?? null,
        text: compactedLine(r),
      };
      break;
    }
    case "pruned": {
      const t = isObject(event.prunedTokens) ? event.prunedTokens : null;
      data = {
        event: "pruned",
        conversationId,
        before: t?.before ?? null,
        after: t?.after ?? null,
        tokensSaved: event.pruned.tokensSaved,
        messages: Array.isArray(event.pruned.messages) ? event.pruned.messages.length : 0,
        tokensAfter: typeof event.tokensAfter === "number" ? event.tokensAfter : null,
        window: event.budget?.window ?? null,
        text: prunedLine(event),
      };
      break;
    }
    default:
      data = { event: "fallback", conversationId, kind: event.fallback.kind, reason: event.fallback.reason, text: fallbackLine(event.fallback) };
  }
  // JSON has no raw line breaks, so the event is one data line.
  return `data: ${JSON.stringify(data)}\n\n`;
}
