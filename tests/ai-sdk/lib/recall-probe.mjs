// The corpus conversation and probe the recall agent-loop tests use (recall.test.mjs and
// recall-runtimes.test.mjs): the first tool-using transcript (in file order) held at an 8k
// window with a probe of one evidence message, summarized away, that a Compactor's recall,
// given the probe's question, brings back with the answer in it. Chosen by running recall, not by hand, so what the loop
// tests check is that recall's result reaches the model in each runtime; how often one search
// finds a probe's evidence is the compaction benchmark's recall column.
import { Compactor } from "ctxfold";
import { toModelMessage, toolConversations } from "./corpus.mjs";

export const WINDOW = 8192;

/** A corpus conversation as AI SDK model messages, its system message first (indexes as the corpus's). */
const asModel = (c) => {
  const names = new Map();
  return c.messages.map((m) => (m.role === "system" ? { role: "system", content: m.content } : toModelMessage(m, names)));
};

async function choose() {
  for (const c of toolConversations()) {
    const compactor = new Compactor({ model: "gpt-4o", contextWindow: WINDOW, recall: true });
    await compactor.prepare("c", asModel(c));
    for (const p of (c.probes ?? []).filter((p) => p.evidence_message_indexes?.length === 1)) {
      const [evidence] = p.evidence_message_indexes;
      const r = await compactor.recall("c", { query: p.question });
      if (r.matches.some((m) => m.index === evidence) && r.text.includes(p.answer)) return { conversation: c, probe: p, evidence };
    }
  }
  throw new Error(`no corpus probe whose evidence recall brings back at ${WINDOW}`);
}

/** The conversation, its probe, and the index of the probe's one evidence message. */
export const { conversation, probe, evidence } = await choose();
export const FILE = conversation.file;

/** The conversation as AI SDK model messages. */
export const modelMessages = () => asModel(conversation);
