// Valid conversations in the four formats. A conversation is first drawn in an abstract
// form (turns of user messages, agent steps with parallel tool calls and their results,
// reasoning, media, system prompts), then rendered in one format with that format's own
// shapes. Values JSON cannot carry (binary data, URLs, Dates, benign Proxies and getters)
// are written as `$`-tags that materialize.mjs turns into the real thing.
import { hash32, Random } from "./random.mjs";
import { text, textSize } from "./text.mjs";

export const FORMATS = ["openai", "openai-responses", "anthropic", "ai-sdk"];

const toolNames = ["bash", "read_file", "search", "web.fetch", "calc", "get_weather", "python", "str_replace_editor", "ツール", "db_query"];

/** The per-conversation drawing state: ids must be unique across follow-up turns too. */
export function conversationState(r, ctx) {
  // Provider compaction draws from a stream of its own: the other draws stay as they were.
  const side = new Random(hash32(`compaction/${r.state}`));
  return { nextId: 1, huge: r.chance(0.08), hugeDone: false, ctx, exotic: r.chance(0.1), side };
}

function callId(r, st) {
  return `${r.pick(["call_", "toolu_", "c", "fc-", "ツ"])}${st.nextId++}_${r.id(6)}`;
}

function args(r, st) {
  const ctx = st.ctx;
  const kind = r.weighted([
    [60, "object"],
    [15, "empty"],
    [10, "raw"],
    [10, "big"],
    [st.exotic && !st.deep ? 1 : 0, "deep"],
  ]);
  switch (kind) {
    case "empty":
      return {};
    case "raw":
      return { $raw: text(r, ctx, r.int(0, 80)) }; // a string where JSON is expected
    case "big":
      return { content: text(r, ctx, r.int(1000, 20000)), path: `/tmp/${r.id(5)}.txt` };
    case "deep":
      st.deep = true; // once per conversation is enough
      return { $nest: { depth: r.int(100, 300), leaf: { leaf: text(r, ctx, 10) } } };
    default: {
      const o = {};
      for (let i = r.int(1, 4); i > 0; i--) {
        o[r.pick(["command", "path", "query", "city", "x", "options", "lines", "ключ", "🔑"])] = r.weighted([
          [5, text(r, ctx, r.int(0, 60))],
          [2, r.int(-1e6, 1e6)],
          [1, r.chance(0.5)],
          [1, null],
          [1, [r.int(0, 9), text(r, ctx, 5)]],
        ]);
      }
      return o;
    }
  }
}

function resultText(r, st) {
  if (st.huge && !st.hugeDone && r.chance(0.3)) {
    st.hugeDone = true;
    return text(r, st.ctx, r.int(50000, 300000));
  }
  return text(r, st.ctx, textSize(r, st.ctx.scale * r.pick([0.5, 1, 3])));
}

function media(r) {
  return { t: r.weighted([[5, "image"], [3, "file"], [1, "audio"]]) };
}

/** One user turn and the agent's work on it, in abstract messages. */
function turn(r, st, out, last) {
  const ctx = st.ctx;
  if (r.chance(0.03)) out.push({ role: "system", parts: [{ t: "text", text: text(r, ctx, r.int(5, 200)) }] });
  const userParts = [{ t: "text", text: text(r, ctx) }];
  if (r.chance(0.15)) userParts.push({ t: "text", text: text(r, ctx) });
  if (r.chance(0.12)) userParts.splice(r.int(0, userParts.length), 0, media(r));
  out.push({ role: "user", parts: userParts, name: r.chance(0.05) ? r.pick(["alice", "bob_2", "ユーザー"]) : undefined });
  if (last && r.chance(0.5)) return; // the request: the newest user message awaits a reply
  const steps = r.weighted([
    [40, 0],
    [25, 1],
    [25, r.int(2, 4)],
    [10, r.int(5, 10)],
  ]);
  for (let s = 0; s < steps; s++) {
    const parts = [];
    if (r.chance(0.25)) parts.push({ t: "reasoning", text: text(r, ctx, r.int(0, 600)), opaque: r.chance(0.2) });
    if (r.chance(0.2)) parts.push({ t: "text", text: text(r, ctx, r.int(0, 200)) });
    const calls = [];
    for (let c = r.weighted([[70, 1], [30, r.int(2, 4)]]); c > 0; c--) {
      calls.push({ t: "call", id: callId(r, st), name: r.pick(toolNames), args: args(r, st) });
    }
    parts.push(...calls);
    out.push({ role: "assistant", parts });
    const results = calls.map((c) => ({
      role: "tool",
      parts: [{ t: "result", id: c.id, name: c.name, text: resultText(r, st), isError: r.chance(0.1) }],
    }));
    if (r.chance(0.3)) results.reverse(); // parallel results may come back in any order
    out.push(...results);
  }
  if (last && steps > 0 && r.chance(0.3)) return; // an agent mid-loop: the results are the newest
  const parts = [];
  // Now and then what a provider's own compaction left (kept whole in every output).
  const side = st.side;
  if (side.chance(0.04)) parts.push({ t: "compaction", text: text(side, ctx, side.int(0, 400)), id: side.id(12), blob: side.id(side.int(16, 2000)) });
  if (r.chance(0.2)) parts.push({ t: "reasoning", text: text(r, ctx, r.int(0, 400)), opaque: r.chance(0.2) });
  parts.push(r.chance(0.03) ? { t: "refusal", text: "I can't help with that." } : { t: "text", text: text(r, ctx) });
  out.push({ role: "assistant", parts });
}

/** Turn counts: empty conversations, a few turns, dozens, and hundreds of messages. */
export function turnCount(r) {
  return r.weighted([
    [3, 0],
    [40, r.int(1, 4)],
    [35, r.int(5, 15)],
    [17, r.int(15, 40)],
    [5, r.int(40, 120)],
  ]);
}

/** An abstract conversation: system prompts, then `turns` turns. */
export function abstractConversation(r, st, turns) {
  const out = [];
  for (let s = r.weighted([[30, 0], [60, 1], [10, 2]]); s > 0; s--) {
    out.push({ role: "system", parts: [{ t: "text", text: text(r, st.ctx, r.weighted([[3, r.int(1, 200)], [1, r.int(200, 6000)]])) }] });
  }
  for (let t = 0; t < turns; t++) turn(r, st, out, t === turns - 1);
  return out;
}

/** More turns for a follow-up call (the conversation goes on). */
export function moreTurns(r, st, turns) {
  const out = [];
  for (let t = 0; t < turns; t++) turn(r, st, out, t === turns - 1);
  return out;
}

// ---------------------------------------------------------------- rendering

const png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

/** A JSON value, sometimes with a benign exotic value in it (a Date, undefined, a function). */
function extras(r, st, item) {
  if (!st.exotic || !r.chance(0.15)) return item;
  const k = r.pick(["date", "undefined", "fn", "nan", "proxy", "getter"]);
  switch (k) {
    case "date":
      return { ...item, metadata: { at: { $date: "2026-01-02T03:04:05.000Z" } } };
    case "undefined":
      return { ...item, extra: { $undefined: true } };
    case "fn":
      return { ...item, onClick: { $fn: true } };
    case "nan":
      return { ...item, metadata: { score: { $number: "NaN" } } };
    case "proxy":
      return { $proxy: { target: item, trap: "none" } };
    default:
      return { $getter: { target: item, key: "content", behaviour: "value" } };
  }
}

/** Tool arguments as a JSON string (OpenAI formats); `$raw` stays raw. */
function argsText(a) {
  return typeof a === "object" && a && "$raw" in a ? a.$raw : JSON.stringify(a);
}
function argsValue(a) {
  return typeof a === "object" && a && "$raw" in a ? a.$raw : a;
}

function renderOpenAI(r, st, msgs) {
  const out = [];
  for (const m of msgs) {
    const texts = m.parts.filter((p) => p.t === "text" || p.t === "refusal");
    if (m.role === "system") {
      const content = r.chance(0.8) ? texts.map((p) => p.text).join("") : texts.map((p) => ({ type: "text", text: p.text }));
      out.push({ role: r.pick(["system", "system", "developer"]), content, ...(r.chance(0.05) ? { name: "ops" } : {}) });
    } else if (m.role === "user") {
      const simple = m.parts.length === 1 && m.parts[0].t === "text" && r.chance(0.7);
      const content = simple
        ? m.parts[0].text
        : m.parts.map((p) => {
            if (p.t === "text") return { type: "text", text: p.text };
            if (p.t === "image") return { type: "image_url", image_url: { url: r.pick([`data:image/png;base64,${png}`, "https://example.com/cat.png"]), detail: r.pick(["auto", "low", "high"]) } };
            if (p.t === "audio") return { type: "input_audio", input_audio: { data: "UklGRiQAAABXQVZF", format: "wav" } };
            return { type: "file", file: r.pick([{ file_id: `file-${r.id(10)}` }, { file_data: `data:application/pdf;base64,${png}`, filename: "a.pdf" }]) };
          });
      out.push({ role: "user", content, ...(m.name ? { name: m.name } : {}) });
    } else if (m.role === "assistant") {
      const calls = m.parts.filter((p) => p.t === "call");
      const item = { role: "assistant" };
      if (texts.length === 0) item.content = calls.length ? r.pick([null, null, undefined, ""]) : "";
      else if (texts.length === 1 && texts[0].t === "text" && r.chance(0.8)) item.content = texts[0].text;
      else item.content = texts.map((p) => (p.t === "refusal" ? { type: "refusal", refusal: p.text } : { type: "text", text: p.text }));
      if (item.content === undefined) delete item.content;
      if (calls.length) {
        item.tool_calls = calls.map((c) => ({ id: c.id, type: "function", function: { name: c.name, arguments: argsText(c.args) } }));
      }
      const reasoning = m.parts.find((p) => p.t === "reasoning");
      if (reasoning && r.chance(0.5)) item.reasoning_content = reasoning.text; // a provider extension, kept verbatim
      out.push(item);
    } else {
      const p = m.parts[0];
      out.push({ role: "tool", tool_call_id: p.id, content: r.chance(0.85) ? p.text : [{ type: "text", text: p.text }] });
    }
  }
  return { messages: out.map((m) => extras(r, st, m)) };
}

function renderResponses(r, st, msgs) {
  const out = [];
  const msgItem = (role, content) => (r.chance(0.5) ? { type: "message", role, content } : { role, content });
  for (const m of msgs) {
    if (m.role === "system") {
      const t = m.parts.map((p) => p.text).join("");
      out.push(msgItem(r.pick(["system", "developer"]), r.chance(0.7) ? t : [{ type: "input_text", text: t }]));
    } else if (m.role === "user") {
      const simple = m.parts.length === 1 && m.parts[0].t === "text" && r.chance(0.6);
      const content = simple
        ? m.parts[0].text
        : m.parts.map((p) => {
            if (p.t === "text") return { type: "input_text", text: p.text };
            if (p.t === "image") return { type: "input_image", detail: "auto", ...r.pick([{ image_url: `data:image/png;base64,${png}` }, { file_id: `file-${r.id(8)}` }]) };
            if (p.t === "audio") return { type: "input_audio", input_audio: { data: "UklGRiQAAABXQVZF", format: "wav" } };
            return { type: "input_file", ...r.pick([{ file_id: `file-${r.id(8)}` }, { filename: "a.pdf", file_data: `data:application/pdf;base64,${png}` }]) };
          });
      out.push(msgItem("user", content));
    } else if (m.role === "assistant") {
      for (const p of m.parts) {
        if (p.t === "compaction") {
          out.push({ type: "compaction", id: `cmp_${p.id}`, encrypted_content: `gAAAAB${p.blob}` });
        } else if (p.t === "reasoning") {
          const item = { type: "reasoning", id: `rs_${r.id(10)}`, summary: p.text ? [{ type: "summary_text", text: p.text }] : [] };
          if (p.opaque) item.encrypted_content = `gAAAA${r.id(40)}`;
          out.push(item);
        } else if (p.t === "text" || p.t === "refusal") {
          const part = p.t === "text" ? { type: "output_text", text: p.text, annotations: [] } : { type: "refusal", refusal: p.text };
          out.push(r.chance(0.8) ? { type: "message", id: `msg_${r.id(10)}`, role: "assistant", status: "completed", content: [part] } : { role: "assistant", content: p.t === "text" ? p.text : [part] });
        } else if (p.t === "call") {
          if (r.chance(0.85)) out.push({ type: "function_call", id: `fc_${r.id(10)}`, call_id: p.id, name: p.name, arguments: argsText(p.args), status: "completed" });
          else out.push({ type: "custom_tool_call", call_id: p.id, name: p.name, input: argsText(p.args) });
        }
      }
      if (r.chance(0.03)) out.push({ type: "web_search_call", id: `ws_${r.id(10)}`, status: "completed", action: { type: "search", query: "weather" } });
    } else {
      const p = m.parts[0];
      const callItem = out.findLast((i) => i.call_id === p.id && (i.type === "function_call" || i.type === "custom_tool_call"));
      const type = callItem?.type === "custom_tool_call" ? "custom_tool_call_output" : "function_call_output";
      out.push({ type, call_id: p.id, output: r.chance(0.85) || type !== "function_call_output" ? p.text : [{ type: "input_text", text: p.text }] });
    }
  }
  return { messages: out.map((m) => extras(r, st, m)) };
}

function renderAnthropic(r, st, msgs) {
  const out = [];
  let system = null;
  let i = 0;
  for (; i < msgs.length && msgs[i].role === "system"; i++) {
    const t = msgs[i].parts.map((p) => p.text).join("");
    system = system === null ? t : `${system}\n${t}`;
  }
  for (; i < msgs.length; i++) {
    const m = msgs[i];
    if (m.role === "system") continue; // no system role inside Anthropic's messages
    if (m.role === "user") {
      const simple = m.parts.length === 1 && m.parts[0].t === "text" && r.chance(0.7);
      out.push({
        role: "user",
        content: simple
          ? m.parts[0].text
          : m.parts.map((p) => {
              if (p.t === "text") return { type: "text", text: p.text, ...(r.chance(0.05) ? { cache_control: { type: "ephemeral" } } : {}) };
              if (p.t === "image") return { type: "image", source: r.pick([{ type: "base64", media_type: "image/png", data: png }, { type: "url", url: "https://example.com/cat.png" }]) };
              return { type: "document", source: r.pick([{ type: "text", media_type: "text/plain", data: "plain document" }, { type: "base64", media_type: "application/pdf", data: png }]) };
            }),
      });
    } else if (m.role === "assistant") {
      const blocks = [];
      for (const p of m.parts) {
        if (p.t === "compaction") blocks.push({ type: "compaction", content: p.text });
        else if (p.t === "reasoning") blocks.push(p.opaque ? { type: "redacted_thinking", data: `EuYB${r.id(30)}` } : { type: "thinking", thinking: p.text, signature: `sig_${r.id(12)}` });
        else if (p.t === "text" || p.t === "refusal") blocks.push({ type: "text", text: p.text });
        else if (p.t === "call") blocks.push({ type: "tool_use", id: p.id, name: p.name, input: typeof argsValue(p.args) === "string" ? { raw: argsValue(p.args) } : p.args });
      }
      if (r.chance(0.02)) {
        const sid = `srvtoolu_${r.id(8)}`;
        blocks.push({ type: "server_tool_use", id: sid, name: "web_search", input: { query: "weather" } }, { type: "web_search_tool_result", tool_use_id: sid, content: [] });
      }
      const onlyText = blocks.length === 1 && blocks[0].type === "text";
      out.push({ role: "assistant", content: onlyText && r.chance(0.7) ? blocks[0].text : blocks });
    } else {
      // Consecutive results (parallel calls) go in one user message, as the API wants.
      const blocks = [];
      for (; i < msgs.length && msgs[i].role === "tool"; i++) {
        const p = msgs[i].parts[0];
        const b = { type: "tool_result", tool_use_id: p.id };
        const shape = r.weighted([[7, "string"], [2, "blocks"], [1, "none"]]);
        if (shape === "string") b.content = p.text;
        else if (shape === "blocks") b.content = [{ type: "text", text: p.text }];
        if (p.isError) b.is_error = true;
        blocks.push(b);
      }
      i--;
      if (r.chance(0.05)) blocks.push({ type: "text", text: "(results above)" });
      out.push({ role: "user", content: blocks });
    }
  }
  const messages = out.map((m) => extras(r, st, m));
  if (r.chance(0.15) && system === null) return { messages }; // the bare array
  const envelope = { messages };
  if (system !== null) envelope.system = r.chance(0.7) ? system : [{ type: "text", text: system, ...(r.chance(0.3) ? { cache_control: { type: "ephemeral" } } : {}) }];
  if (r.chance(0.3)) Object.assign(envelope, { model: "claude-sonnet-4-5", max_tokens: 1024 });
  return { messages: envelope };
}

function renderAiSdk(r, st, msgs) {
  const out = [];
  const v4 = r.chance(0.1); // AI SDK 4's args / result
  for (let i = 0; i < msgs.length; i++) {
    const m = msgs[i];
    if (m.role === "system") {
      out.push({ role: "system", content: m.parts.map((p) => p.text).join("") });
    } else if (m.role === "user") {
      const simple = m.parts.length === 1 && m.parts[0].t === "text" && r.chance(0.6);
      out.push({
        role: "user",
        content: simple
          ? m.parts[0].text
          : m.parts.map((p) => {
              if (p.t === "text") return { type: "text", text: p.text };
              if (p.t === "image") return { type: "image", image: r.pick([png, { $url: "https://example.com/cat.png" }, { $bytes: r.int(0, 64) }]), mediaType: "image/png" };
              return { type: "file", data: r.pick([png, { $bytes: r.int(0, 256) }, { $url: "https://example.com/a.pdf" }]), mediaType: r.pick(["application/pdf", "audio/wav"]), ...(r.chance(0.5) ? { filename: "a.pdf" } : {}) };
            }),
      });
    } else if (m.role === "assistant") {
      const parts = m.parts.flatMap((p) => {
        if (p.t === "compaction") return { type: "custom", kind: "openai.compaction", providerOptions: { openai: { itemId: `cmp_${p.id}`, encryptedContent: `gAAAAB${p.blob}` } } };
        if (p.t === "reasoning") return p.opaque ? { type: "redacted-reasoning", data: r.id(20) } : { type: "reasoning", text: p.text };
        if (p.t === "text" || p.t === "refusal") return { type: "text", text: p.text };
        if (v4) return { type: "tool-call", toolCallId: p.id, toolName: p.name, args: argsValue(p.args) };
        const call = { type: "tool-call", toolCallId: p.id, toolName: p.name, input: argsValue(p.args) };
        // AI SDK 6+: a call that waited for the user's approval (read as nothing).
        return r.chance(0.05) ? [call, { type: "tool-approval-request", approvalId: `ap-${p.id}`, toolCallId: p.id }] : call;
      });
      const onlyText = parts.length === 1 && parts[0].type === "text";
      out.push({ role: "assistant", content: onlyText && r.chance(0.6) ? parts[0].text : parts, ...(r.chance(0.05) ? { providerOptions: { openai: { store: false } } } : {}) });
    } else {
      const grouped = r.chance(0.7);
      const parts = [];
      for (; i < msgs.length && msgs[i].role === "tool"; i++) {
        const p = msgs[i].parts[0];
        const output = r.weighted([
          [6, { type: p.isError ? "error-text" : "text", value: p.text }],
          [2, { type: p.isError ? "error-json" : "json", value: { text: p.text, n: p.text.length } }],
          [1, { type: "content", value: [{ type: "text", text: p.text }] }],
          // AI SDK 6+: a call the user denied, its reason what the model reads.
          [p.isError ? 0 : 0.3, { type: "execution-denied", reason: p.text }],
        ]);
        if (!v4 && r.chance(0.05)) parts.push({ type: "tool-approval-response", approvalId: `ap-${p.id}`, approved: output.type !== "execution-denied" });
        parts.push(v4 ? { type: "tool-result", toolCallId: p.id, toolName: p.name, result: p.text, ...(p.isError ? { isError: true } : {}) } : { type: "tool-result", toolCallId: p.id, toolName: p.name, output });
        if (!grouped) {
          i++;
          break;
        }
      }
      i--;
      out.push({ role: "tool", content: parts });
    }
  }
  return { messages: out.map((m) => extras(r, st, m)) };
}

const renderers = { openai: renderOpenAI, "openai-responses": renderResponses, anthropic: renderAnthropic, "ai-sdk": renderAiSdk };

/** Renders abstract messages in `format`: `{ messages }`, an array or Anthropic's envelope. */
export function render(r, st, format, msgs) {
  return renderers[format](r, st, msgs);
}
