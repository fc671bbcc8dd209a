// The Compactor's conversation suite: a corpus conversation replayed turn by turn through
// prepare/commit, as a chat app or an agent loop drives it, each input checked. It imports
// nothing, so Node, a page and a Worker (a Durable Object) run it as it is, with the store
// under test; the caller asserts on what it returns.
//
//   const r = await replay(ctxfold, { store, messages, window: 16384 });
//   r.overBudget.length === 0; r.historyEqual; r.prefix.broken.length === 0
//
// Model calls come before each assistant message (and once at the end), as the compaction
// benchmark has them: at each, the previous call's reply is committed, and what came after
// it (tool results, the next user message) is prepared.

/** The model calls of a conversation: before each assistant message, and at the end. */
export function modelCalls(messages) {
  const calls = [];
  for (let k = 1; k < messages.length; k++) if (messages[k].role === "assistant") calls.push(k);
  if (calls[calls.length - 1] !== messages.length) calls.push(messages.length);
  return calls;
}

/** Whether a conversation calls tools. */
export const usesTools = (messages) => messages.some((m) => Array.isArray(m.tool_calls) && m.tool_calls.length > 0);

const json = (v) => JSON.stringify(v);

/**
 * Replays `messages` through a Compactor over `store`. Returns what the caller asserts on:
 * every input's count against its budget, whether the prefix up to the previous input's
 * last cache breakpoint stayed byte-identical on every turn that neither compacted nor
 * moved the prune boundary, and whether the stored history is the conversation.
 */
export async function replay(ctxfold, { store, messages, window = 16384, model = "gpt-4o", id = "replay", options = {} }) {
  const { Compactor, countMessages } = ctxfold;
  const compactor = new Compactor({ model, contextWindow: window, store, ...options });
  const events = [];
  for (const name of ["compactionStart", "compactionEnd", "pruned", "fallback"]) compactor.on(name, () => events.push(name));
  const turns = [];
  const overBudget = [];
  const countMismatch = [];
  const prefix = { between: 0, identical: 0, broken: [], followUps: 0, identicalAll: 0 };
  let seen = 0;
  let last = null;
  let previous = null;
  for (const k of modelCalls(messages)) {
    if (last !== null) {
      await compactor.commit(id, messages[last]);
      seen = last + 1;
    }
    const r = await compactor.prepare(id, messages.slice(seen, k));
    seen = k;
    last = k < messages.length ? k : null;
    const counted = countMessages(r.messages, { model }).total;
    if (counted > r.report.budget.input) overBudget.push({ k, counted, budget: r.report.budget.input });
    if (counted !== r.report.tokensAfter) countMismatch.push({ k, counted, reported: r.report.tokensAfter });
    const compacted = r.record !== null;
    const pruned = r.report.pruned.advanced;
    if (previous !== null) {
      prefix.followUps++;
      const b = previous.breakpoints.at(-1) ?? -1;
      const same = b < r.messages.length && json(previous.messages.slice(0, b + 1)) === json(r.messages.slice(0, b + 1));
      if (same) prefix.identicalAll++;
      if (!compacted && !pruned) {
        prefix.between++;
        if (same) prefix.identical++;
        else prefix.broken.push(k);
      }
    }
    previous = { messages: r.messages, breakpoints: r.report.cacheBreakpoints };
    turns.push({ k, tokens: counted, compacted, pruned, status: r.contextStatus });
  }
  const history = await compactor.history(id);
  const records = await compactor.records(id);
  return {
    turns: turns.length,
    compactions: records.length,
    compactingTurns: turns.filter((t) => t.compacted).length,
    overBudget,
    countMismatch,
    prefix,
    historyEqual: json(history.map((e) => e.message)) === json(messages) && history.every((e, i) => e.index === i),
    historyLength: history.length,
    events,
  };
}
