// applyAnthropicCacheControl: Anthropic's prompt-cache breakpoints in a Messages request,
// where a compacted conversation's prefix stays the same from one request to the next.
// Anthropic takes at most 4 `cache_control` markers in a request (tools, system and
// messages together) and only on some block types; the cache is read for the longest prefix
// that ends at a marker and was written before.

import { ctxfoldError, invalidArgument, kindOf } from "./values.js";

/** @typedef {import("./types.d.ts").AnthropicRequestLike} AnthropicRequestLike */
/** A JSON object of the request (a block, a message, the request itself). @typedef {Record<string, unknown>} JsonObject */
/** A place in the request, in the order Anthropic reads it: `[part, message, block]` (part 0 tools, 1 system, 2 messages). @typedef {[number, number, number]} At */
/**
 * Where a breakpoint goes: block `block` of the system prompt, or of message `message`.
 * @typedef {{ system: true, message?: undefined, block: number } | { system?: undefined, message: number, block: number }} Place
 */

const MAX = 4;
/**
 * Blocks a breakpoint may go on (not thinking, redacted_thinking, or an empty text).
 * @type {Set<unknown>}
 */
const ALLOWED = new Set(["text", "image", "tool_use", "tool_result", "document"]);
/**
 * A breakpoint: 5 minutes, or 1 hour before a caller's 1-hour one (Anthropic wants those first).
 * @param {boolean} hour
 */
const MARK = (hour) => (hour ? { type: "ephemeral", ttl: "1h" } : { type: "ephemeral" });

/**
 * @param {unknown} v
 * @returns {v is JsonObject}
 */
const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);
/**
 * @param {unknown} block
 * @returns {block is JsonObject & { cache_control: { ttl?: unknown } }} a block with a marker (any value but null)
 */
const marked = (block) => isObject(block) && block.cache_control !== undefined && block.cache_control !== null;
/** @param {unknown} block */
const allowed = (block) => isObject(block) && ALLOWED.has(block.type) && !(block.type === "text" && (typeof block.text !== "string" || block.text === ""));

/**
 * Markers already in the request: on tools, system blocks, message blocks (and inside tool results), and at the top.
 * @param {AnthropicRequestLike} request
 */
function existing(request) {
  let n = marked(request) ? 1 : 0;
  /** @param {unknown} list */
  const blocks = (list) => {
    if (!Array.isArray(list)) return;
    for (const b of list) {
      if (marked(b)) n++;
      if (isObject(b) && b.type === "tool_result") blocks(b.content);
    }
  };
  blocks(request.tools);
  blocks(request.system);
  for (const m of request.messages) if (isObject(m)) blocks(m.content);
  return n;
}

/**
 * Where the caller's last 1-hour marker is, in the order Anthropic reads the request (tools,
 * system, messages) as `[part, message, block]`, or null.
 * @param {AnthropicRequestLike} request
 */
function lastHour(request) {
  /** @param {unknown} b */
  const hour = (b) => marked(b) && b.cache_control.ttl === "1h";
  /** @type {At | null} */
  let last = null;
  /**
   * @param {unknown} list
   * @param {(k: number) => At} at
   */
  const scan = (list, at) => {
    if (!Array.isArray(list)) return;
    list.forEach((b, k) => {
      if (hour(b) || (isObject(b) && b.type === "tool_result" && Array.isArray(b.content) && b.content.some(hour))) last = at(k);
    });
  };
  scan(request.tools, (k) => [0, 0, k]);
  scan(request.system, (k) => [1, 0, k]);
  request.messages.forEach((m, j) => {
    if (isObject(m)) scan(m.content, (k) => [2, j, k]);
  });
  return last;
}

/**
 * @param {At} a
 * @param {At} b
 */
const earlier = (a, b) => (a[0] - b[0] || a[1] - b[1] || a[2] - b[2]) < 0;

/**
 * The index of the block a breakpoint goes on in `content` (a string counts as one text block), or -1.
 * @param {unknown} content
 */
function target(content) {
  if (typeof content === "string") return content === "" ? -1 : 0;
  if (!Array.isArray(content)) return -1;
  for (let k = content.length - 1; k >= 0; k--) if (allowed(content[k])) return k;
  return -1;
}

/**
 * `content` with a breakpoint on block `k` (a string becomes one text block); copies, never changes.
 * @param {string | readonly unknown[]} content
 * @param {number} k
 * @param {boolean} hour
 */
function withMark(content, k, hour) {
  const blocks = typeof content === "string" ? [{ type: "text", text: content }] : [...content];
  // (Block k is one a breakpoint may go on: an object.)
  if (!marked(blocks[k])) blocks[k] = { .../** @type {JsonObject} */ (blocks[k]), cache_control: MARK(hour) };
  return blocks;
}

/**
 * The report's message indexes, each checked against the request's `count` messages.
 * @param {unknown} report
 * @param {number} count
 * @returns {number[]}
 */
function checkBreakpoints(report, count) {
  if (report === undefined || report === null) return [];
  if (!isObject(report)) throw invalidArgument(`report`, `a compaction report (with cacheBreakpoints), got ${kindOf(report)}`);
  const list = report.cacheBreakpoints;
  if (!Array.isArray(list)) throw invalidArgument(`report.cacheBreakpoints`, `an array of message indexes, got ${kindOf(list)}`);
  return list.map((i, k) => {
    if (!Number.isInteger(i) || i < 0) throw invalidArgument(`report.cacheBreakpoints[${k}]`, `a message index, got ${JSON.stringify(i)}`);
    if (i >= count) {
      throw ctxfoldError(
        "OUT_OF_RANGE",
        `report.cacheBreakpoints[${k}] out of range: ${i}, but the request has ${count} messages (is the report this request's?)`,
        { argument: `report.cacheBreakpoints[${k}]` },
      );
    }
    return i;
  });
}

/**
 * The request with up to 4 `cache_control: { type: "ephemeral" }` breakpoints, counting the
 * ones it holds already (one added before a caller's `ttl: "1h"` marker gets that ttl too:
 * Anthropic wants 1-hour entries before 5-minute ones): at the end of the system prompt, where the report says the prefix
 * is stable (after the head, after the summary, at the prune boundary), and on the last
 * message. When fewer are free, the later ones win (a breakpoint caches the whole prefix
 * before it). A breakpoint goes on the last block of its message that may carry one (text,
 * image, tool_use, tool_result, document); a message without one passes it to the nearest
 * such block before it. A new request: the input is not changed, and the parts not changed
 * are shared with it.
 * @param {AnthropicRequestLike} request  checked: what a caller passes
 * @param {unknown} [report]
 * @returns {JsonObject}
 */
export function applyAnthropicCacheControl(request, report) {
  if (!isObject(request)) throw invalidArgument(`request`, `an Anthropic Messages request ({ system?, messages, ... }), got ${kindOf(request)}`);
  if (!Array.isArray(request.messages)) throw invalidArgument(`request.messages`, `an array of messages, got ${kindOf(request.messages)}`);
  const { system } = request;
  if (system !== undefined && system !== null && typeof system !== "string" && !Array.isArray(system)) {
    throw invalidArgument(`request.system`, `a string or an array of blocks, got ${kindOf(system)}`);
  }
  const messages = request.messages;
  const stable = checkBreakpoints(report, messages.length);
  const free = MAX - existing(request);
  const out = { ...request };
  if (free <= 0) return out;

  // Candidates in request order: the system prompt (-1), then message indexes.
  const wanted = new Set(stable);
  if (messages.length > 0) wanted.add(messages.length - 1);
  /** @type {Place[]} */
  const places = [];
  const systemAt = typeof system === "string" ? (system === "" ? -1 : 0) : Array.isArray(system) ? target(system) : -1;
  if (systemAt >= 0) places.push({ system: true, block: systemAt });
  let floor = -1;
  for (const i of [...wanted].sort((a, b) => a - b)) {
    // The nearest block at or before message i that may carry a breakpoint, after the one before.
    for (let j = i; j > floor; j--) {
      const k = isObject(messages[j]) ? target(messages[j].content) : -1;
      if (k >= 0) {
        places.push({ message: j, block: k });
        floor = j;
        break;
      }
    }
  }
  // Markers already where one would go take no slot.
  const fresh = places.filter((p) => {
    const content = p.system ? system : messages[p.message].content;
    return typeof content === "string" || !marked(content[p.block]);
  });
  const chosen = fresh.slice(Math.max(0, fresh.length - free));
  if (chosen.length === 0) return out;
  // Anthropic reads 1-hour entries before 5-minute ones: a breakpoint added before a
  // caller's 1-hour marker lasts an hour too.
  const hourAt = lastHour(request);
  /** @param {Place} p */
  const hour = (p) => hourAt !== null && earlier(p.system ? [1, 0, p.block] : [2, p.message, p.block], hourAt);
  /** @type {unknown[] | null} */
  let copied = null;
  for (const p of chosen) {
    if (p.system) {
      // (A place in the system prompt: it is a string or blocks.)
      out.system = withMark(/** @type {string | unknown[]} */ (system), p.block, hour(p));
      continue;
    }
    copied ??= [...messages];
    copied[p.message] = { ...messages[p.message], content: withMark(messages[p.message].content, p.block, hour(p)) };
  }
  if (copied) out.messages = copied;
  return out;
}
