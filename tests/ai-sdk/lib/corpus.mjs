// The corpus's OpenAI-format conversations as AI SDK model messages (the corpus is found as
// every test finds it: tests/support/corpus.mjs).
import { readFileSync } from "node:fs";
import { conversationFiles } from "../../support/corpus.mjs";

/** Every conversation, parsed, sorted by file name. */
export function conversations() {
  return conversationFiles().map(({ file, path }) => ({ file, ...JSON.parse(readFileSync(path, "utf8")) }));
}

const objectArguments = (c) => {
  try {
    const v = JSON.parse(c.function.arguments);
    return v !== null && typeof v === "object" && !Array.isArray(v);
  } catch {
    return false;
  }
};

/** Conversations with tool calls, every call's arguments a JSON object (so a tool schema reads them). */
export function toolConversations() {
  return conversations().filter((c) => {
    const calls = c.messages.flatMap((m) => m.tool_calls ?? []);
    return calls.length > 0 && calls.every(objectArguments);
  });
}

/**
 * One corpus message as an AI SDK model message (tool names looked up from the calls). The
 * system message is not one of them: it goes in the call's `system` / `instructions`.
 */
export function toModelMessage(m, names) {
  switch (m.role) {
    case "user":
      return { role: "user", content: m.content };
    case "assistant": {
      if (!m.tool_calls?.length) return { role: "assistant", content: m.content };
      const content = m.content ? [{ type: "text", text: m.content }] : [];
      for (const c of m.tool_calls) {
        names.set(c.id, c.function.name);
        content.push({ type: "tool-call", toolCallId: c.id, toolName: c.function.name, input: JSON.parse(c.function.arguments) });
      }
      return { role: "assistant", content };
    }
    case "tool":
      return {
        role: "tool",
        content: [{ type: "tool-result", toolCallId: m.tool_call_id, toolName: names.get(m.tool_call_id), output: { type: "text", value: m.content } }],
      };
    default:
      throw new Error(`unexpected role ${m.role}`);
  }
}
