// The corpus conversation and probe the recall agent-loop tests use (recall.test.mjs and
// recall-runtimes.test.mjs): the first tool-using transcript (in file order) held at an 8k
// window with a probe of one evidence message, summarized away, that a Compactor's recall,
// given the probe's question, brings back with the answer in it (../../support/recall-probe.mjs).
import { Compactor } from "ctxfold";
import { toModelMessage, toolConversations } from "./corpus.mjs";
import { recallProbe } from "../../support/recall-probe.mjs";

export const WINDOW = 8192;

/** A corpus conversation as AI SDK model messages, its system message first (indexes as the corpus's). */
const asModel = (c) => {
  const names = new Map();
  return c.messages.map((m) => (m.role === "system" ? { role: "system", content: m.content } : toModelMessage(m, names)));
};

/** The conversation, its probe, and the index of the probe's one evidence message. */
export const { conversation, probe, evidence } = await recallProbe(Compactor, { window: WINDOW, candidates: toolConversations(), messagesOf: asModel });
export const FILE = conversation.file;

/** The conversation as AI SDK model messages. */
export const modelMessages = () => asModel(conversation);
