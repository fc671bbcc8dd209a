// Synthetic agent conversations of any length, in each of the four message formats, for
// benchmarks that need sizes the corpus does not have. Deterministic: the same arguments give
// the same conversation. Each turn is a user request, an assistant tool call, the tool's
// output (a log with paths, hosts, error names and hashes in it) and the assistant's reply:
// four messages, about 4.5 KB with the default output size.

export const FORMATS = ["openai", "openai-responses", "anthropic", "ai-sdk"];

const SERVICES = ["payments-api", "auth-gateway", "ledger-worker", "search-indexer", "mailer"];
const ERRORS = ["ConnectionRefusedError", "TimeoutError", "ECONNRESET", "PermissionDenied", "OOMKilled"];

/** A tool output of about `bytes` bytes that mentions identifiers of turn `k`. */
function log(k, bytes) {
  const service = SERVICES[k % SERVICES.length];
  const lines = [];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const line =
      i % 7 === 3
        ? `2026-11-${String((k % 28) + 1).padStart(2, "0")}T10:${String(i % 60).padStart(2, "0")}:00Z ERROR ${service} ${ERRORS[(k + i) % ERRORS.length]} at /srv/${service}/src/handler_${k}.py:${40 + i} (db-prod-${k % 3}.internal:5432)`
        : `2026-11-${String((k % 28) + 1).padStart(2, "0")}T10:${String(i % 60).padStart(2, "0")}:00Z INFO  ${service} request ${(k * 7919 + i * 104729).toString(16)} ok in ${(i * 37) % 900} ms`;
    lines.push(line);
    size += line.length + 1;
  }
  return lines.join("\n");
}

function turn(k, outputBytes) {
  const service = SERVICES[k % SERVICES.length];
  return {
    user: `Step ${k}: check why ${service} failed on deploy ${k} (ticket OPS-${1000 + k}) and tell me what to fix.`,
    call: { id: `call_${k}`, name: "bash", args: { command: `kubectl logs deployment/${service} --since=1h | tail -n 200` } },
    output: log(k, outputBytes),
    reply: `The ${service} pods fail with ${ERRORS[k % ERRORS.length]} while connecting to db-prod-${k % 3}.internal:5432; the fix is in /srv/${service}/config/database.yaml (pool size ${10 + (k % 20)}).`,
  };
}

/**
 * A conversation of about `messages` messages (a system prompt, then turns of four) in
 * `format`; tool outputs of about `outputBytes` bytes. Returns what the caller passes to
 * ctxfold: an array, or for Anthropic `{ system, messages }`.
 */
export function conversation(format, messages, outputBytes = 4000) {
  const system = "You are an SRE assistant. Use the tools; cite paths, hosts and ticket ids exactly.";
  const turns = Array.from({ length: Math.max(1, Math.floor((messages - 1) / 4)) }, (_, k) => turn(k, outputBytes));
  switch (format) {
    case "openai":
      return [
        { role: "system", content: system },
        ...turns.flatMap((t) => [
          { role: "user", content: t.user },
          {
            role: "assistant",
            content: null,
            tool_calls: [{ id: t.call.id, type: "function", function: { name: t.call.name, arguments: JSON.stringify(t.call.args) } }],
          },
          { role: "tool", tool_call_id: t.call.id, content: t.output },
          { role: "assistant", content: t.reply },
        ]),
      ];
    case "openai-responses":
      return [
        { role: "developer", content: system },
        ...turns.flatMap((t) => [
          { role: "user", content: t.user },
          { type: "function_call", call_id: t.call.id, name: t.call.name, arguments: JSON.stringify(t.call.args) },
          { type: "function_call_output", call_id: t.call.id, output: t.output },
          { type: "message", role: "assistant", content: [{ type: "output_text", text: t.reply }] },
        ]),
      ];
    case "anthropic":
      return {
        system,
        messages: turns.flatMap((t) => [
          { role: "user", content: t.user },
          { role: "assistant", content: [{ type: "tool_use", id: t.call.id, name: t.call.name, input: t.call.args }] },
          { role: "user", content: [{ type: "tool_result", tool_use_id: t.call.id, content: t.output }] },
          { role: "assistant", content: [{ type: "text", text: t.reply }] },
        ]),
      };
    case "ai-sdk":
      return [
        { role: "system", content: system },
        ...turns.flatMap((t) => [
          { role: "user", content: [{ type: "text", text: t.user }] },
          { role: "assistant", content: [{ type: "tool-call", toolCallId: t.call.id, toolName: t.call.name, input: t.call.args }] },
          {
            role: "tool",
            content: [{ type: "tool-result", toolCallId: t.call.id, toolName: t.call.name, output: { type: "text", value: t.output } }],
          },
          { role: "assistant", content: [{ type: "text", text: t.reply }] },
        ]),
      ];
    default:
      throw new Error(`unknown format ${format}`);
  }
}

/** The number of messages in what `conversation` returned. */
export const length = (c) => (Array.isArray(c) ? c.length : c.messages.length);
