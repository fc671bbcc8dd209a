// What the checks need to know about a message in each format, read from the formats'
// own documentation rather than from ctxfold's parser: who it is from, which tool calls it
// makes and answers, whether it starts a turn, and whether its shape tells the format
// apart from the others.

const arr = (v) => (Array.isArray(v) ? v : []);

function openai(m) {
  const role = m.role === "developer" ? "system" : m.role === "function" ? "tool" : m.role;
  const calls = arr(m.tool_calls).map((c) => c.id);
  const results = m.role === "tool" ? [m.tool_call_id] : [];
  const tells =
    "tool_calls" in m || "tool_call_id" in m || arr(m.content).some((p) => p?.type === "image_url" || (p?.type === "file" && "file" in p));
  return { role, calls, results, tells };
}

const RESPONSES_ITEMS = ["message", "function_call", "function_call_output", "custom_tool_call", "custom_tool_call_output", "reasoning", "compaction", "web_search_call"];

function responses(m) {
  const type = m.type ?? "message";
  if (type === "message") {
    const role = m.role === "developer" ? "system" : m.role;
    // input_audio parts have one shape in both OpenAI formats: they tell nothing.
    const tells = m.type === "message" || arr(m.content).some((p) => /^(input_(text|image|file)|output_text)$/.test(p?.type ?? ""));
    return { role, calls: [], results: [], tells };
  }
  if (type.endsWith("_output")) return { role: "tool", calls: [], results: [m.call_id], tells: true };
  if (m.call_id) return { role: "assistant", calls: [m.call_id], results: [], tells: true };
  return { role: "assistant", calls: [], results: [], tells: RESPONSES_ITEMS.includes(type) || type.endsWith("_call") };
}

function anthropic(m) {
  const blocks = arr(m.content);
  const calls = blocks.filter((b) => b?.type === "tool_use").map((b) => b.id);
  const results = blocks.filter((b) => b?.type === "tool_result").map((b) => b.tool_use_id);
  const onlyResults = blocks.length > 0 && results.length === blocks.length;
  const role = m.role === "user" && onlyResults ? "tool" : m.role;
  const tells = blocks.some((b) => ["tool_use", "tool_result", "thinking", "redacted_thinking", "compaction", "document", "server_tool_use"].includes(b?.type) || (b?.type === "image" && "source" in b));
  return { role, calls, results, tells };
}

function aiSdk(m) {
  const parts = arr(m.content);
  const calls = parts.filter((p) => p?.type === "tool-call").map((p) => p.toolCallId);
  const results = parts.filter((p) => p?.type === "tool-result").map((p) => p.toolCallId);
  const tells = parts.some(
    (p) =>
      ["tool-call", "tool-result", "reasoning", "redacted-reasoning", "reasoning-file", "tool-approval-request", "tool-approval-response"].includes(p?.type) ||
      (p?.type === "custom" && "kind" in p) ||
      (p?.type === "image" && "image" in p) ||
      (p?.type === "file" && "data" in p),
  );
  return { role: m.role, calls, results, tells };
}

const readers = { openai, "openai-responses": responses, anthropic, "ai-sdk": aiSdk };

/**
 * Whether a caller's item holds what a provider's own compaction left (a Responses
 * `compaction` item, an Anthropic `compaction` block, an AI SDK `custom` part of a
 * `*.compaction` kind); OpenAI Chat has none.
 */
export function holdsCompaction(format, m) {
  if (format === "openai-responses") return m?.type === "compaction";
  if (format === "anthropic") return arr(m?.content).some((b) => b?.type === "compaction");
  if (format === "ai-sdk") return arr(m?.content).some((p) => p?.type === "custom" && String(p.kind).endsWith(".compaction"));
  return false;
}

/**
 * `{ role, calls, results, startsTurn, tells }` for one message (a caller's item or an
 * output item) in `format`. `role` is system, user, assistant or tool (a user message of
 * only tool results is a tool message, as ctxfold documents for Anthropic).
 */
export function inspect(format, m) {
  const info = readers[format](m);
  // A turn starts with a user message that holds something other than tool results (a
  // user message with an empty array of parts holds nothing).
  info.startsTurn = info.role === "user" && !(Array.isArray(m.content) && m.content.length === 0);
  return info;
}

/** The items of an input or output: the array, or the envelope's `messages`. */
export function itemsOf(messages) {
  return Array.isArray(messages) ? messages : messages.messages;
}

/**
 * The format a caller's conversation unambiguously is, or null when nothing in it tells
 * (plain `{ role, content: string }` messages read the same in every format).
 */
export function toldFormat(format, messages) {
  return itemsOf(messages).some((m) => inspect(format, m).tells) ? format : null;
}

/** Calls without their results and results without their calls, in order, as messages. */
export function pairingProblems(format, items) {
  const open = new Map();
  const problems = [];
  items.forEach((m, i) => {
    const info = inspect(format, m);
    const answer = () => {
      for (const id of info.results) {
        if (!open.has(id)) problems.push(`output[${i}] answers ${JSON.stringify(id)}, which no earlier output message calls`);
        open.delete(id);
      }
    };
    // An assistant message may answer its own (provider-executed) calls; a user message
    // answers before it says anything new.
    if (info.role !== "assistant") answer();
    for (const id of info.calls) open.set(id, i);
    if (info.role === "assistant") answer();
  });
  for (const [id, i] of open) problems.push(`output[${i}] calls ${JSON.stringify(id)}, which no later output message answers`);
  return problems;
}
