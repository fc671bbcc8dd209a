// The corpus probe a recall test runs: the first conversation of `candidates` (in their
// order) with a probe of one evidence message that a Compactor at `window`, holding the
// conversation, brings back with `recall(question)`, the probe's answer in the text. Chosen
// by running recall, not by hand, so what those tests check is that recall's result reaches
// the model (or another runtime gives the same); how often one search finds a probe's
// evidence is the compaction benchmark's recall column.

/**
 * @param {any} Compactor  the package's Compactor (the tests' own import of it)
 * @param {{ window: number, candidates: { messages: unknown[], probes?: any[] }[], messagesOf?: (c: any) => unknown[] }} options
 *   `messagesOf`: the conversation as the Compactor is given it (default: its messages)
 * @returns {Promise<{ conversation: any, probe: any, evidence: number, recalled: any }>}
 */
export async function recallProbe(Compactor, { window, candidates, messagesOf = (c) => c.messages }) {
  for (const conversation of candidates) {
    const compactor = new Compactor({ model: "gpt-4o", contextWindow: window, recall: true });
    await compactor.prepare("c", messagesOf(conversation));
    for (const probe of (conversation.probes ?? []).filter((p) => p.evidence_message_indexes?.length === 1)) {
      const [evidence] = probe.evidence_message_indexes;
      const recalled = await compactor.recall("c", { query: probe.question });
      if (recalled.matches.some((m) => m.index === evidence) && recalled.text.includes(probe.answer)) return { conversation, probe, evidence, recalled };
    }
  }
  throw new Error(`no corpus probe whose evidence recall brings back at a ${window}-token window`);
}
