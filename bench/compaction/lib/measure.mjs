// What is measured on each input a method builds: tokens, provider validity, alternation,
// identifier retention, probe coverage, and the prompt-cache prefix shared with the
// previous request. The same code measures every method.

import { countTokens } from "ctxfold";
import { messageKey, messageText } from "./corpus.mjs";

/**
 * Provider validity of a chat-completions input, as OpenAI and Anthropic check it: the list
 * of problems found (empty when valid):
 * - "undefined-entry": a hole in the array (LangChain's trimMessages returns [undefined] when
 *   includeSystem is set and no message from startOn fits);
 * - "empty": no message to answer (only system messages, or nothing);
 * - "first-not-user": the first non-system message is not a user message (Anthropic and
 *   Gemini reject it);
 * - "orphan-result": a tool result whose call is not earlier in the input;
 * - "missing-result": a tool call whose result does not follow before the next non-tool message.
 */
export function problems(messages) {
  const found = [];
  if (messages.some((m) => !m)) return ["undefined-entry"];
  const rest = messages.filter((m) => m.role !== "system");
  if (rest.length === 0) found.push("empty");
  else if (rest[0].role !== "user") found.push("first-not-user");
  const open = new Set();
  const seen = new Set();
  let orphan = false;
  let missing = false;
  for (const m of messages) {
    if (m.role === "tool") {
      if (!seen.has(m.tool_call_id) || !open.has(m.tool_call_id)) orphan = true;
      open.delete(m.tool_call_id);
      continue;
    }
    if (open.size > 0) missing = true;
    open.clear();
    for (const c of m.tool_calls ?? []) {
      open.add(c.id);
      seen.add(c.id);
    }
  }
  // A call still open at the end: its result never came (no replay ends on a call).
  if (open.size > 0) missing = true;
  if (orphan) found.push("orphan-result");
  if (missing) found.push("missing-result");
  return found;
}

/**
 * The identifiers written as groups in `text` (ctxfold's ledger notation, documented in
 * src/ids/group.rs): `10.0.3.{1,4,7-9}:5432` is 10.0.3.1:5432, 10.0.3.4:5432 and
 * 10.0.3.7:5432 to 10.0.3.9:5432; `part-{0001-0003}.csv` keeps the width of its numbers. That
 * form is lossless: expanding it gives exactly the identifiers it was written for, so an
 * identifier in it is in the input. The lossy form, `10.0.3.{1…250}:5432 (120 values)`,
 * names only its first and last member: only those two are returned for it, and the
 * members it hides are not counted as kept. Paths of one directory are written once as the
 * directory and their names in braces, `src/app/{main.py,util.py}`: each name is read with
 * the directory before it.
 * @param {string} text
 * @returns {string[]}
 */
export function expandGroups(text) {
  const out = [];
  const number = /^[0-9]{1,18}$/;
  const width = (d) => (d.length > 1 && d.startsWith("0") ? d.length : 0);
  const write = (n, w) => String(n).padStart(w, "0");
  for (const m of text.matchAll(/[^\s{}]*\{([^{}\s]*)\}[^\s{}]*/g)) {
    const word = m[0].replace(/^[(\[`"']+/, "").replace(/[.,;:)\]`"']+$/, "");
    const open = word.indexOf("{");
    const close = word.indexOf("}");
    if (open === -1 || close < open) continue;
    const [prefix, body, suffix] = [word.slice(0, open), word.slice(open + 1, close), word.slice(close + 1)];
    let numbers = [];
    const lossy = body.split("…");
    // Not numbers: paths of one directory, `src/app/{main.py,util.py}`, or not the notation.
    const names = () => {
      const list = body.split(",");
      const inDirectory = /[/\\]$/.test(prefix) && /[^/\\]/.test(prefix) && suffix === "";
      const name = (n) => n !== "" && !/^[/\\]/.test(n) && !/[\s{}()[\]<>"'`]/.test(n);
      if (inDirectory && list.length >= 2 && list.every(name)) for (const n of list) out.push(prefix + n);
    };
    if (lossy.length === 2) {
      if (!lossy.every((d) => number.test(d))) {
        names();
        continue;
      }
      numbers = lossy;
    } else {
      let ok = true;
      for (const item of body.split(",")) {
        const [a, z, ...more] = item.split("-");
        if (more.length || !number.test(a) || (z !== undefined && !number.test(z))) {
          ok = false;
          break;
        }
        if (z === undefined) {
          numbers.push(a);
          continue;
        }
        const w = width(a);
        const [x, y] = [Number(a), Number(z)];
        if ((w !== 0 && z.length !== w) || (w === 0 && width(z) !== 0) || y <= x || y - x >= 100_000) {
          ok = false;
          break;
        }
        for (let n = x; n <= y; n++) numbers.push(write(n, w));
      }
      if (!ok) {
        names();
        continue;
      }
    }
    for (const n of numbers) out.push(prefix + n + suffix);
  }
  return out;
}

/** The ledger lines of a summary (`Identifiers: ...`, bold or not). */
export function ledgerLines(text) {
  return text.split("\n").filter((l) => /^\s*[-*]*\s*\**Identifiers\**:/.test(l));
}

const side = (role) => (role === "assistant" ? "assistant" : role === "system" ? null : "user");

/** Common prefix length of two strings. */
function commonPrefix(a, b) {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  // Never split a surrogate pair.
  if (i > 0 && i < n && a.charCodeAt(i - 1) >= 0xd800 && a.charCodeAt(i - 1) <= 0xdbff) i--;
  return i;
}

/**
 * Measures everything about one input of one conversation.
 * @param {any} conv  from loadConversation
 * @param {number} k  the history is conv.messages[0..k)
 * @param {any[]} input  the built input (OpenAI chat messages)
 * @param {import("./corpus.mjs").TokenCounter} counter
 * @param {Map<string, any>} scanCache  per conversation: key of a non-verbatim message -> what it holds
 */
export function measure(conv, k, input, counter, scanCache, baseProblems) {
  const verbatim = new Uint8Array(k);
  const keys = [];
  const origin = []; // original index of each input message, or -1
  const novel = []; // input messages that are not verbatim messages of the history
  let tokens = 3;
  for (const m of input) {
    if (!m) {
      keys.push(null);
      origin.push(-1);
      continue;
    }
    let i = conv.indexByObject.get(m);
    let key;
    if (i !== undefined && i < k) {
      key = conv.keys[i];
      verbatim[i] = 1;
    } else {
      key = messageKey(m);
      const list = conv.indexesByKey.get(key);
      // Identical messages (a repeated "bye!") are all present; as this one's position,
      // take the one right after the previous message's, else the first after it.
      const last = origin.findLast((o) => o !== -1) ?? -1;
      i = -1;
      if (list)
        for (const j of list)
          if (j < k) {
            verbatim[j] = 1;
            if (i === -1 || (i !== last + 1 && (j === last + 1 || (i <= last && j > last)))) i = j;
          }
      if (i === -1) novel.push({ m, key });
    }
    keys.push(key);
    origin.push(i);
    tokens += counter.tokens(m, key);
  }

  // What the non-verbatim messages (summaries, pruned outputs, stripped messages) hold.
  // The tokens of the ledger lines of the summaries it holds.
  let ledgerTokens = 0;
  let summaries = 0;
  let summaryTokens = 0;
  const novelIds = new Set();
  const novelItems = new Set();
  for (const { m, key } of novel) {
    let found = scanCache.get(key);
    if (!found) {
      // Groups in the ledger's notation are read as the identifiers they stand for.
      const written = messageText(m);
      const groups = expandGroups(written);
      const text = groups.length ? `${written}\n${groups.join("\n")}` : written;
      const lower = text.toLowerCase();
      const ledger = ledgerLines(written).reduce((n, l) => n + countTokens(l, { encoding: "o200k_base" }), 0);
      found = { ids: [], items: [], ledger, summary: written.includes("## Conversation Summary") };
      conv.ids.forEach((r, j) => {
        if (text.includes(r.id)) found.ids.push(j);
      });
      conv.probes.forEach((p, pi) =>
        p.items.forEach((it, ti) => {
          if (lower.includes(it.text)) found.items.push(pi * 64 + ti);
        }),
      );
      scanCache.set(key, found);
    }
    ledgerTokens += found.ledger;
    if (found.summary) {
      summaries++;
      summaryTokens += counter.tokens(m, key);
    }
    found.ids.forEach((j) => novelIds.add(j));
    found.items.forEach((x) => novelItems.add(x));
  }

  // Identifiers that occurred in messages no longer present verbatim: retained when they
  // are anywhere in the input. "Evicted-only": those whose every occurrence so far is gone.
  let idsAtRisk = 0;
  let idsKept = 0;
  let idsOnlyAtRisk = 0;
  let idsOnlyKept = 0;
  let idsSeen = 0;
  let idsPresent = 0;
  conv.ids.forEach((r, j) => {
    if (r.occ.length === 0 || r.occ[0] >= k) return;
    let inEvicted = false;
    let inKept = false;
    for (const i of r.occ) {
      if (i >= k) break;
      if (verbatim[i]) inKept = true;
      else inEvicted = true;
    }
    const present = inKept || novelIds.has(j);
    idsSeen++;
    if (present) idsPresent++;
    if (!inEvicted) return;
    idsAtRisk++;
    if (present) idsKept++;
    if (!inKept) {
      idsOnlyAtRisk++;
      if (novelIds.has(j)) idsOnlyKept++;
    }
  });

  // Probes asked after their evidence was evicted: covered when every item of the answer
  // is still in the input.
  let probesAtRisk = 0;
  let probesCovered = 0;
  const probeBy = { locomo: [0, 0], derived: [0, 0], unique: [0, 0] };
  let probesAsked = 0;
  let probesAnswered = 0;
  // The probes asked whose answer is not in the input (their evidence was evicted): what a
  // recall would have to find.
  const unanswered = [];
  conv.probes.forEach((p, pi) => {
    if (p.lastEvidence >= k) return;
    const covered = p.items.every((it, ti) => novelItems.has(pi * 64 + ti) || it.occ.some((i) => i < k && verbatim[i]));
    probesAsked++;
    if (covered) probesAnswered++;
    else unanswered.push(pi);
    if (p.evidence.every((i) => verbatim[i])) return;
    probesAtRisk++;
    if (covered) probesCovered++;
    probeBy[p.origin][0]++;
    if (covered) probeBy[p.origin][1]++;
    if (p.unique) {
      probeBy.unique[0]++;
      if (covered) probeBy.unique[1]++;
    }
  });

  // Alternation: adjacent non-system messages on the same side (tool results count as the
  // user's side, as in Anthropic's format) that were not adjacent in the conversation, where
  // the conversation itself alternated (a kept message whose neighbour in the conversation,
  // on the side of the pair, is on its own side too was already part of such a pair);
  // "made" when one of the two is a message the method made (a summary), else "kept".
  // A tool result followed by more tool results or by a user message forms one user turn
  // in Anthropic's format and is not counted.
  const breaks = (a, b) => side(a.role) === side(b.role) && !(a.role === "tool" && (b.role === "tool" || b.role === "user"));
  const msgs = conv.messages;
  let altBreak = null; // "made" when a message the method made (a summary) is one of the pair
  let prev = -1;
  for (let x = 0; x < input.length; x++) {
    const m = input[x];
    if (!m || m.role === "system") continue;
    if (prev !== -1) {
      const a = input[prev];
      const adjacentBefore = origin[prev] !== -1 && origin[x] === origin[prev] + 1;
      const already =
        (origin[x] > 0 && breaks(msgs[origin[x] - 1], msgs[origin[x]])) ||
        (origin[prev] !== -1 && origin[prev] + 1 < k && breaks(msgs[origin[prev]], msgs[origin[prev] + 1]));
      if (breaks(a, m) && !adjacentBefore && !already) {
        const made = (y) => origin[y] === -1 && input[y].role !== "tool";
        altBreak = made(prev) || made(x) ? "made" : (altBreak ?? "kept");
      }
    }
    prev = x;
  }

  // Invalid: a problem the input has and the history it was built from has not (a few
  // LoCoMo conversations open with the second speaker, mapped to "assistant").
  const invalid = problems(input).filter(
    (p) => !baseProblems.includes(p) && !(p === "undefined-entry" && baseProblems.includes("empty")),
  );
  return {
    tokens,
    keys,
    invalid: invalid.length ? invalid.join("+") : null,
    altBreak,
    evicted: k - verbatim.reduce((s, v) => s + v, 0),
    idsAtRisk,
    idsKept,
    idsOnlyAtRisk,
    idsOnlyKept,
    probesAtRisk,
    probesCovered,
    idsSeen,
    idsPresent,
    probesAsked,
    probesAnswered,
    unanswered,
    probeBy,
    ledgerTokens,
    summaries,
    summaryTokens,
  };
}

/**
 * Tokens of the longest common prefix of two requests: identical leading messages count
 * whole; in the first message that differs, if it has the same role, the tokens of the
 * common start of its content (countTokens of that string) count too.
 */
export function cachedPrefix(prev, cur, counter) {
  if (!prev) return 0;
  let cached = 0;
  const n = Math.min(prev.input.length, cur.input.length);
  for (let i = 0; i < n; i++) {
    const a = prev.input[i];
    const b = cur.input[i];
    if (!a || !b) break;
    if (prev.keys[i] === cur.keys[i]) {
      cached += counter.tokens(b, cur.keys[i]);
      continue;
    }
    if (a.role === b.role && typeof a.content === "string" && typeof b.content === "string") {
      const p = commonPrefix(a.content, b.content);
      if (p > 0) cached += countTokens(b.content.slice(0, p), { encoding: "o200k_base" });
    }
    break;
  }
  return cached;
}
