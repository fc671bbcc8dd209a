// Invalid calls: a small valid conversation or valid options with one thing broken, so
// the call must fail with a typed error whose code is one of `expect`. Message-level
// breaks sometimes carry the case's canary messages (the same objects the checks count
// again afterwards), to catch a failed call that leaves the module unable to read them.
import { textContext } from "./text.mjs";
import { abstractConversation, conversationState, render } from "./conversation.mjs";

const ARG = ["INVALID_ARGUMENT"];
const MSG = ["INVALID_MESSAGE"];
const RANGE = ["OUT_OF_RANGE", "INVALID_ARGUMENT"];

const itemsOf = (m) => (Array.isArray(m) ? m : m.messages);
const tagged = (m) => m === null || typeof m !== "object" || Object.keys(m).some((k) => k.startsWith("$"));

/** An orphan tool result in `format`, answering `id`. */
function orphan(format, id) {
  switch (format) {
    case "openai":
      return { role: "tool", tool_call_id: id, content: "result of nothing" };
    case "openai-responses":
      return { type: "function_call_output", call_id: id, output: "result of nothing" };
    case "anthropic":
      return { role: "user", content: [{ type: "tool_result", tool_use_id: id, content: "result of nothing" }] };
    default:
      return { role: "tool", content: [{ type: "tool-result", toolCallId: id, toolName: "t", output: { type: "text", value: "x" } }] };
  }
}

/** A call in `format` whose arguments hold `value` (a tag). */
function callWith(format, value) {
  switch (format) {
    case "openai":
      return { role: "assistant", content: null, tool_calls: [{ id: "c_bad", type: "function", function: { name: "t", arguments: "{}" } }], metadata: value };
    case "openai-responses":
      return { type: "function_call", call_id: "c_bad", name: "t", arguments: "{}", metadata: value };
    case "anthropic":
      return { role: "assistant", content: [{ type: "tool_use", id: "c_bad", name: "t", input: value }] };
    default:
      return { role: "assistant", content: [{ type: "tool-call", toolCallId: "c_bad", toolName: "t", input: value }] };
  }
}

/** Breaks the messages of a valid conversation. Returns `{ messages, expect, what }`. */
function breakMessages(r, format, messages) {
  const items = [...itemsOf(messages)];
  const wrap = (list) => (Array.isArray(messages) ? list : { ...messages, messages: list });
  const at = () => r.int(0, items.length);
  const plain = items.map((m, i) => [m, i]).filter(([m]) => !tagged(m));
  const withKey = (k) => plain.filter(([m]) => k in m);
  const kind = r.weighted([
    [6, "arg"],
    [6, "item"],
    [6, "role"],
    [6, "content"],
    [6, "part"],
    [8, "orphan"],
    [4, "duplicate-call"],
    [4, "duplicate-result"],
    [3, "empty-id"],
    [8, "cyclic"],
    [6, "bigint"],
    [6, "proxy"],
    [6, "getter"],
    [3, "array-proxy"],
    [3, "too-deep"],
    [4, "format-mismatch"],
  ]);
  switch (kind) {
    case "arg": {
      const v = r.pick([42, "hello", null, { $undefined: true }, { foo: 1 }, { messages: 5 }, true, { $bigint: "7" }]);
      return { messages: v, expect: ["INVALID_ARGUMENT", "INVALID_MESSAGE"], what: `messages is ${JSON.stringify(v)}` };
    }
    case "item": {
      const v = r.pick([5, "hi", null, [], true]);
      items.splice(at(), 0, v);
      return { messages: wrap(items), expect: MSG, what: `an item is ${JSON.stringify(v)}` };
    }
    case "role": {
      const cands = withKey("role").filter(([m]) => m.type === undefined || m.type === "message");
      if (!cands.length) break;
      const [m, i] = r.pick(cands);
      const v = r.pick(["robot", 5, null, "", format === "anthropic" ? "system" : "Assistant"]);
      items[i] = r.chance(0.2) ? Object.fromEntries(Object.entries(m).filter(([k]) => k !== "role")) : { ...m, role: v };
      return { messages: wrap(items), expect: MSG, what: `messages[${i}].role broken` };
    }
    case "content": {
      const cands = plain.filter(([m]) => m.role === "user" || m.role === "system");
      if (!cands.length) break;
      const [m, i] = r.pick(cands);
      if (r.chance(0.2)) {
        const { content: _, ...rest } = m;
        items[i] = rest;
      } else items[i] = { ...m, content: r.pick([5, true, { text: "x" }]) };
      return { messages: wrap(items), expect: MSG, what: `messages[${i}].content broken` };
    }
    case "part": {
      const cands = plain.filter(([m]) => m.role === "user");
      if (!cands.length) break;
      const [m, i] = r.pick(cands);
      const bad = r.pick([{ type: "bogus", text: "x" }, { text: "no type" }, 5, null, { type: "text", text: 5 }, { type: "text" }]);
      items[i] = { ...m, content: [{ type: "text", text: "fine" }, bad] };
      return { messages: wrap(items), expect: MSG, what: `messages[${i}].content[1] is ${JSON.stringify(bad)}` };
    }
    case "duplicate-call":
    case "duplicate-result": {
      const want = kind === "duplicate-call" ? /tool_calls|"tool_use"|"tool-call"|"function_call"/ : /tool_call_id|"tool_result"|"tool-result"|"function_call_output"/;
      const result = /tool_call_id|"tool_result"|"tool-result"|"function_call_output"/;
      // A call repeated while it is open (right after it, before its result): an id may be
      // used again once its call is answered, so a copy after the result is a valid input.
      const cands = plain.filter(([m]) => want.test(JSON.stringify(m)) && (kind === "duplicate-result" || !result.test(JSON.stringify(m))));
      if (!cands.length) break;
      const [m, i] = r.pick(cands);
      items.splice(kind === "duplicate-call" ? i + 1 : r.int(i + 1, items.length), 0, structuredClone(m));
      return { messages: wrap(items), expect: MSG, what: `messages[${i}] repeated (${kind})` };
    }
    case "cyclic": {
      const v = { $cyclic: { target: { note: "loop" }, key: "self" } };
      items.splice(at(), 0, callWith(format, v));
      return { messages: wrap(items), expect: ARG, what: "a cyclic object in a tool call" };
    }
    case "bigint": {
      items.splice(at(), 0, callWith(format, { n: { $bigint: "12345678901234567890" } }));
      return { messages: wrap(items), expect: ARG, what: "a BigInt in a tool call" };
    }
    case "proxy":
    case "getter": {
      if (!plain.length) break;
      const [m, i] = r.pick(plain);
      const key = m.role !== undefined ? "role" : Object.keys(m)[0];
      items[i] =
        kind === "proxy"
          ? { $proxy: { target: m, trap: r.pick(["get", "ownKeys", "getOwnPropertyDescriptor"]) } }
          : { $getter: { target: m, key: r.pick([key, Object.keys(m).at(-1)]), behaviour: "throw" } };
      return { messages: wrap(items), expect: ARG, what: `messages[${i}] is a ${kind} that throws` };
    }
    case "array-proxy":
      if (!items.length) break;
      return { messages: Array.isArray(messages) ? { $proxy: { target: items, trap: "get" } } : { ...messages, messages: { $proxy: { target: items, trap: "get" } } }, expect: ARG, what: "the messages array is a Proxy whose get throws" };
    case "too-deep":
      items.splice(at(), 0, callWith(format, { $nest: { depth: r.pick([5000, 20000]), leaf: 1 } }));
      return { messages: wrap(items), expect: ARG, what: "a tool call nested thousands of levels deep" };
    case "format-mismatch": {
      const other = { openai: "anthropic", "ai-sdk": "anthropic", "openai-responses": "openai", anthropic: "openai" }[format];
      const telling = { openai: /tool_call_id/, "ai-sdk": /"role":"tool"/, "openai-responses": /"type":"function_call"/, anthropic: /"tool_use"/ }[format];
      if (!items.some((m) => !tagged(m) && telling.test(JSON.stringify(m)))) break;
      return { messages, format: other, expect: MSG, what: `a ${format} conversation read as ${other}` };
    }
    case "empty-id":
      items.push(orphan(format, ""));
      return { messages: wrap(items), expect: MSG, what: "a tool result with an empty id" };
    default:
      break;
  }
  items.splice(at(), 0, orphan(format, `nope_${r.id(4)}`));
  return { messages: wrap(items), expect: MSG, what: "a tool result without its call" };
}

/** Breaks valid options for `call`. Returns `{ options, expect, what }`. */
function breakOptions(r, call, base) {
  const kind = r.weighted([
    [5, "not-object"],
    [6, "unknown-key"],
    [8, "wrong-type"],
    [8, "range"],
    [3, "both"],
    [3, "encoding"],
    [3, "format"],
    [3, "no-counter"],
    [call === "countMessages" ? 0 : 3, "summarizer"],
    [call === "countMessages" ? 0 : 3, "state"],
    [4, "proxy"],
    [4, "getter"],
    [2, "bigint"],
  ]);
  const knob = call === "countMessages" ? null : r.pick(["thresholdRatio", "bufferTurns", "contextWindow", "summaryMaxTokens", "strategy", "fallback", "toolPolicies", "manual", "alternateRoles"]);
  switch (kind) {
    case "not-object": {
      const v = r.pick([null, 5, "gpt-4o", [], { $undefined: true }]);
      return { options: v, expect: ARG, what: `options is ${JSON.stringify(v)}` };
    }
    case "unknown-key": {
      const key = call === "countMessages" ? r.pick(["contextWindow", "modle", "Format"]) : r.pick(["treshold", "window", "summarise", "__proto__x"]);
      return { options: { ...base, [key]: 1 }, expect: ARG, what: `unknown key ${key}` };
    }
    case "wrong-type":
      if (!knob) return { options: { ...base, format: 5 }, expect: ARG, what: "format is a number" };
      // ({} is a valid toolPolicies: no policies.)
      return { options: { ...base, [knob]: r.pick(["0.5", knob === "toolPolicies" ? 5 : {}, [], knob === "manual" || knob === "alternateRoles" ? "yes" : true]) }, expect: RANGE, what: `${knob} of the wrong type` };
    case "range": {
      if (call === "countMessages") break;
      const [key, v] = r.pick([
        ["thresholdRatio", r.pick([0, 1.5, -1])],
        ["summaryMaxTokens", r.pick([10, 40000])],
        ["summarizerInputTokens", 100],
        ["summarizerTimeoutMs", 0],
        ["contextWindow", r.pick([0, -5, 1.5])],
        ["bufferTurns", r.pick([-1, 2.5])],
        ["toolOutputMaxBytes", 0],
        ["foldRatio", 2],
        ["reservedOutputTokens", (base.contextWindow ?? 8192) + r.int(0, 10)],
      ]);
      return { options: { ...base, contextWindow: base.contextWindow ?? 8192, [key]: v }, expect: RANGE, what: `${key}: ${v}` };
    }
    case "both":
      // A model with an encoding is counted with the encoding: an unknown one is refused.
      return { options: { ...base, model: "gpt-4o", encoding: "p50k_base" }, expect: ["UNKNOWN_ENCODING"], what: "model and an unknown encoding" };
    case "encoding": {
      const { model: _, ...rest } = base;
      const options = { ...rest, encoding: r.pick(["p50k_base", "O200K_BASE", ""]) };
      if (call !== "countMessages") options.contextWindow = 8000;
      return { options, expect: ["UNKNOWN_ENCODING"], what: "an unknown encoding" };
    }
    case "format":
      return { options: { ...base, format: r.pick(["gemini", "OpenAI", ""]) }, expect: ["UNKNOWN_FORMAT"], what: "an unknown format" };
    case "no-counter": {
      // Neither a model nor an encoding, nor a window (a window alone is enough for plan
      // and compact: it counts as an unknown model does).
      const { model: _, encoding: __, contextWindow: ___, ...rest } = base;
      return { options: rest, expect: ARG, what: "neither model nor encoding nor contextWindow" };
    }
    case "summarizer":
      return { options: { ...base, summarizer: r.pick([7, "gpt-4o", {}, null]) }, expect: ARG, what: "summarizer is not a function" };
    case "state":
      return { options: { ...base, state: r.pick([{ version: 1, chunks: "no" }, "x", 5, { chunks: [{ text: 5 }] }]) }, expect: ["INVALID_STATE", "INVALID_ARGUMENT"], what: "state is not a ctxfold state" };
    case "proxy":
      return { options: { $proxy: { target: base, trap: r.pick(["ownKeys", "get", "getOwnPropertyDescriptor"]) } }, expect: ARG, what: "options is a Proxy whose trap throws" };
    case "getter":
      return { options: { $getter: { target: { ...base }, key: Object.keys(base)[0], behaviour: "throw" } }, expect: ARG, what: "an options getter throws" };
    case "bigint":
      if (call === "countMessages") break;
      return { options: { ...base, contextWindow: { $bigint: "8000" } }, expect: ARG, what: "contextWindow is a BigInt" };
    default:
      break;
  }
  return { options: { ...base, bogusOption: true }, expect: ARG, what: "unknown key bogusOption" };
}

/** countTokens with a bad text or bad options. */
function countTokensCase(r) {
  if (r.chance(0.5)) {
    const v = r.pick([5, null, { $undefined: true }, {}, [], { $symbol: "s" }, { $bigint: "1" }, { $fn: true }]);
    return { call: "countTokens", text: v, options: { encoding: "o200k_base" }, expect: ARG, what: `text is ${JSON.stringify(v)}` };
  }
  const [options, expect] = r.pick([
    [{ encoding: "p50k_base" }, ["UNKNOWN_ENCODING"]],
    [{}, ARG],
    [null, ARG],
    [{ model: 5 }, ARG],
    [{ encoding: "o200k_base", format: "openai" }, ARG],
    [{ encoding: "p50k_base", model: "gpt-4o" }, ["UNKNOWN_ENCODING"]],
    [{ $proxy: { target: { encoding: "o200k_base" }, trap: "get" } }, ARG],
    [{ $proxy: { target: { model: "gpt-4o" }, trap: "ownKeys" } }, ARG],
  ]);
  return { call: "countTokens", text: "hello", options, expect, what: `countTokens options ${JSON.stringify(options)}` };
}

export function invalidCase(r, format) {
  const st = conversationState(r, { ...textContext(r), lone: 0 });
  st.exotic = false;
  st.huge = false;
  const { messages } = render(r, st, format, abstractConversation(r, st, r.int(0, 3)));
  const call = r.weighted([[30, "countMessages"], [30, "plan"], [30, "compact"], [10, "countTokens"]]);
  const canary = { embed: r.chance(0.5), precount: r.chance(0.5) };
  if (call === "countTokens") return { kind: "invalid", format, canary, ...countTokensCase(r) };
  const base = call === "countMessages" ? r.pick([{ model: "gpt-4o" }, { model: "claude-sonnet-4-5" }, { encoding: "cl100k_base" }]) : r.pick([{ model: "gpt-4o" }, { model: "gemini-2.5-pro" }, { encoding: "o200k_base", contextWindow: 16000 }]);
  if (r.chance(0.6)) {
    const broken = breakMessages(r, format, messages);
    let m = broken.messages;
    if (canary.embed && m && typeof m === "object" && !("$proxy" in m)) {
      const tags = [{ $canary: 0 }, { $canary: 1 }, { $canary: 2 }].slice(0, r.int(1, 3));
      if (Array.isArray(m)) m = [...tags, ...m];
      else if (Array.isArray(m.messages)) m = { ...m, messages: [...tags, ...m.messages] };
    }
    const options = broken.format ? { ...base, format: broken.format } : base;
    return { kind: "invalid", format, canary, call, messages: m, options, expect: broken.expect, what: broken.what };
  }
  const broken = breakOptions(r, call, base);
  return { kind: "invalid", format, canary, call, messages, ...broken };
}
