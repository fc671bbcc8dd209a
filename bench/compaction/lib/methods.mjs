// The four ways of building a model input from a conversation's history, each used the way
// its documentation shows. Each method is created once per conversation and window; build()
// is called at every model call with the history so far (OpenAI chat messages) and returns
// the input it would send, as OpenAI chat messages, with the time its library took.
//
// Only the library's own work is timed: ctxfold's compact() call (its input is OpenAI chat
// messages already), LangChain's trimMessages() call (with its token counter), the AI SDK's
// pruneMessages() plus the drop-oldest loop. Converting the corpus to LangChain messages or
// AI SDK model messages, and the result back, is not timed: a user of those libraries holds
// their messages in that form already.

import { compact, Compactor, MemoryStore } from "ctxfold";
import { coerceMessageLikeToMessage, trimMessages } from "@langchain/core/messages";
import { pruneMessages } from "ai";

/** @typedef {{ role: string, content: string|null, tool_calls?: any[], tool_call_id?: string }} ChatMessage */
/** @typedef {{ messages: (ChatMessage|undefined)[] | null, ms: number, error?: string, report?: any }} Built */

// ------------------------------------------------------------------ ctxfold

export class Ctxfold {
  static label = "ctxfold";
  /** @param {{ window: number, options?: object }} setup */
  constructor({ window, options = {} }) {
    this.options = { model: "gpt-4o", contextWindow: window, ...options };
    this.state = null;
  }
  /** @returns {Promise<Built>} */
  async build(history) {
    const t0 = performance.now();
    let r;
    try {
      r = await compact(history, { ...this.options, state: this.state });
    } catch (e) {
      return { messages: null, ms: performance.now() - t0, error: `${e.code ?? e.name}: ${e.message}` };
    }
    const ms = performance.now() - t0;
    // As a stateless caller keeps it: serialized between turns (KV, a cookie).
    this.state = JSON.parse(JSON.stringify(r.state));
    return { messages: r.messages, ms, report: r.report, contextStatus: r.contextStatus };
  }
}

// ------------------------------------------------------------------ ctxfold's Compactor

/**
 * The same engine, stateful: a Compactor over a MemoryStore, as a chat app drives it. At
 * each model call the reply of the previous one is committed and what came after it (tool
 * results, the next user message) is prepared; the Compactor keeps the history and the
 * state. Its inputs must equal the stateless row's, turn for turn (run.test.mjs checks).
 */
export class CtxfoldCompactor {
  static label = "ctxfold Compactor";
  /** @param {{ window: number, options?: object }} setup */
  constructor({ window, options = {} }) {
    this.compactor = new Compactor({ model: "gpt-4o", contextWindow: window, store: new MemoryStore(), ...options });
    /** History items stored. */
    this.stored = 0;
    /** Whether the previous call returned an input: its reply (history[stored]) is committed now. */
    this.replied = false;
  }
  /** @returns {Promise<Built>} */
  async build(history, k) {
    const t0 = performance.now();
    let r;
    try {
      if (this.replied) {
        await this.compactor.commit("bench", history[this.stored]);
        this.stored++;
      }
      this.replied = false;
      // After a refused turn (CONTEXT_OVERFLOW: nothing stored), its messages come again.
      r = await this.compactor.prepare("bench", history.slice(this.stored, k));
    } catch (e) {
      return { messages: null, ms: performance.now() - t0, error: `${e.code ?? e.name}: ${e.message}` };
    }
    const ms = performance.now() - t0;
    this.stored = k;
    this.replied = true;
    return { messages: r.messages, ms, report: r.report, contextStatus: r.contextStatus };
  }
  /** One `compactor.search` over what is stored now: the hits' history indexes. */
  async search(query, limit) {
    return (await this.compactor.search("bench", query, { limit })).map((h) => h.index);
  }
}

// ------------------------------------------------------------------ LangChain.js

/** OpenAI chat messages -> LangChain messages, with LangChain's own converter. */
export function toLangChain(messages) {
  return messages.map((m) => coerceMessageLikeToMessage(m));
}

/**
 * A LangChain message -> an OpenAI chat message. LangChain stores parsed tool-call
 * arguments; the original argument strings are restored by call id (re-serializing would
 * change bytes that trimming never touched).
 */
export function fromLangChain(m, argsById) {
  switch (m.getType()) {
    case "system":
      return { role: "system", content: m.content };
    case "human":
      return { role: "user", content: m.content };
    case "ai": {
      const out = { role: "assistant", content: m.content };
      if (m.tool_calls?.length)
        out.tool_calls = m.tool_calls.map((c) => ({
          id: c.id,
          type: "function",
          function: { name: c.name, arguments: argsById.get(c.id) ?? JSON.stringify(c.args) },
        }));
      return out;
    }
    case "tool":
      return { role: "tool", tool_call_id: m.tool_call_id, content: m.content };
    default:
      throw new Error(`unexpected LangChain message type ${m.getType()}`);
  }
}

export class LangChain {
  static label = "LangChain trimMessages";
  /** @param {{ budget: number, conv: any, counter: import("./corpus.mjs").TokenCounter }} setup */
  constructor({ budget, conv, counter }) {
    this.budget = budget;
    this.counter = counter;
    this.lc = toLangChain(conv.messages);
    this.argsById = new Map();
    for (const m of conv.messages) for (const c of m.tool_calls ?? []) this.argsById.set(c.id, c.function.arguments);
    // The same exact counts as everyone: ctxfold's per-message o200k counts with framing,
    // plus the reply priming. Cached per message object.
    const memo = new WeakMap();
    const one = (m) => {
      let t = memo.get(m);
      if (t === undefined) {
        t = counter.tokens(fromLangChain(m, this.argsById));
        memo.set(m, t);
      }
      return t;
    };
    this.tokenCounter = (msgs) => msgs.reduce((s, m) => s + one(m), 3);
  }
  /** @returns {Promise<Built>} */
  async build(history, k) {
    const input = this.lc.slice(0, k);
    const t0 = performance.now();
    const out = await trimMessages(input, {
      maxTokens: this.budget,
      strategy: "last",
      tokenCounter: this.tokenCounter,
      startOn: "human",
      includeSystem: true,
      allowPartial: false,
    });
    const ms = performance.now() - t0;
    return { messages: out.map((m) => (m ? fromLangChain(m, this.argsById) : undefined)), ms };
  }
}

// ------------------------------------------------------------------ Vercel AI SDK

/** An OpenAI chat message -> an AI SDK ModelMessage (AI SDK 5+ parts: `input`, `output`). */
export function toModelMessage(m, toolNames) {
  switch (m.role) {
    case "system":
      return { role: "system", content: m.content ?? "" };
    case "user":
      return { role: "user", content: m.content ?? "" };
    case "assistant": {
      if (!m.tool_calls?.length) return { role: "assistant", content: m.content ?? "" };
      const content = [];
      if (m.content) content.push({ type: "text", text: m.content });
      for (const c of m.tool_calls) {
        let input;
        try {
          input = JSON.parse(c.function.arguments);
        } catch {
          input = c.function.arguments;
        }
        content.push({ type: "tool-call", toolCallId: c.id, toolName: c.function.name, input });
      }
      return { role: "assistant", content };
    }
    case "tool":
      return {
        role: "tool",
        content: [
          {
            type: "tool-result",
            toolCallId: m.tool_call_id,
            toolName: toolNames.get(m.tool_call_id) ?? "tool",
            output: { type: "text", value: m.content ?? "" },
          },
        ],
      };
    default:
      throw new Error(`unexpected role ${m.role}`);
  }
}

/** An AI SDK ModelMessage -> OpenAI chat message(s) (a tool message may hold several results). */
export function fromModelMessage(m, argsById) {
  if (typeof m.content === "string") return [{ role: m.role, content: m.content }];
  if (m.role === "tool")
    return m.content.map((p) => ({ role: "tool", tool_call_id: p.toolCallId, content: p.output.value }));
  const text = m.content
    .filter((p) => p.type === "text")
    .map((p) => p.text)
    .join("");
  const calls = m.content.filter((p) => p.type === "tool-call");
  const out = { role: m.role, content: text };
  if (calls.length)
    out.tool_calls = calls.map((c) => ({
      id: c.toolCallId,
      type: "function",
      function: { name: c.toolName, arguments: argsById.get(c.toolCallId) ?? JSON.stringify(c.input) },
    }));
  return [out];
}

export const PRUNE_OPTIONS = { reasoning: "before-last-message", toolCalls: "before-last-2-messages", emptyMessages: "remove" };

export class AiSdk {
  static label = "AI SDK pruneMessages+drop";
  /** @param {{ budget: number, conv: any, counter: import("./corpus.mjs").TokenCounter }} setup */
  constructor({ budget, conv, counter }) {
    this.budget = budget;
    this.counter = counter;
    const toolNames = new Map();
    this.argsById = new Map();
    for (const m of conv.messages)
      for (const c of m.tool_calls ?? []) {
        toolNames.set(c.id, c.function.name);
        this.argsById.set(c.id, c.function.arguments);
      }
    this.model = conv.messages.map((m) => toModelMessage(m, toolNames));
    this.memo = new WeakMap();
  }
  tokens(m) {
    let t = this.memo.get(m);
    if (t === undefined) {
      t = fromModelMessage(m, this.argsById).reduce((s, x) => s + this.counter.tokens(x), 0);
      this.memo.set(m, t);
    }
    return t;
  }
  /** @returns {Promise<Built>} */
  async build(history, k) {
    const input = this.model.slice(0, k);
    const t0 = performance.now();
    // As the AI SDK's documentation shows it: old tool calls and reasoning pruned.
    let msgs = pruneMessages({ messages: input, ...PRUNE_OPTIONS });
    // Then the drop-oldest trim a user adds to fit the window: drop the oldest non-system
    // message (with the tool results of its calls), and any tool result left leading.
    let total = msgs.reduce((s, m) => s + this.tokens(m), 3);
    const first = () => msgs.findIndex((m) => m.role !== "system");
    while (total > this.budget) {
      const i = first();
      if (i === -1) break;
      const [dropped] = msgs.splice(i, 1);
      total -= this.tokens(dropped);
      const ids = new Set(
        dropped.role === "assistant" && Array.isArray(dropped.content)
          ? dropped.content.filter((p) => p.type === "tool-call").map((p) => p.toolCallId)
          : [],
      );
      while (i < msgs.length && msgs[i].role === "tool" && (ids.size > 0 ? msgs[i].content.every((p) => ids.has(p.toolCallId)) : true)) {
        total -= this.tokens(msgs[i]);
        msgs.splice(i, 1);
      }
    }
    const ms = performance.now() - t0;
    return { messages: msgs.flatMap((m) => fromModelMessage(m, this.argsById)), ms };
  }
}

// ------------------------------------------------------------------ no compaction

export class NoCompaction {
  static label = "no compaction";
  async build(history) {
    return { messages: history, ms: 0 };
  }
}

export const METHODS = [Ctxfold, CtxfoldCompactor, LangChain, AiSdk, NoCompaction];
