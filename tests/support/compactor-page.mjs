// Conversations for the Compactor's tests in a page (imports nothing, so a page loads it as
// it is): an agent whose turns are a tool call and a large result, and a way to bring a
// conversation just under the threshold with the message that takes it over.

/** A conversation of `turns` user turns, each a tool call and a large result. */
export function agent(turns, tag = "a") {
  const m = [{ role: "system", content: "You are a coding agent." }];
  for (let t = 0; t < turns; t++) {
    m.push({ role: "user", content: `Task ${tag}-${t}: look at /srv/${tag}/file_${t}.py` });
    m.push({
      role: "assistant",
      content: "",
      tool_calls: [{ id: `${tag}_${t}`, type: "function", function: { name: "read", arguments: `{"path":"/srv/${tag}/file_${t}.py"}` } }],
    });
    m.push({ role: "tool", tool_call_id: `${tag}_${t}`, content: Array.from({ length: 80 }, (_, k) => `line ${k} of file_${t}: x_${t}_${k} = ${k * t}`).join("\n") });
    m.push({ role: "assistant", content: `file_${t}.py computes x_${t}_*; done with task ${tag}-${t}.` });
  }
  return m;
}

/**
 * Prepares the turns of `agent(40)` on `id` while they stay under the threshold (no
 * compaction), and returns them with a user message as long as the room left (`over`).
 */
export async function nearThreshold(ctxfold, compactor, id, contextWindow) {
  const m = agent(40);
  let n = 2;
  while (n + 4 <= m.length && !ctxfold.plan(m.slice(0, n + 4), { model: "gpt-4o", contextWindow }).trigger) n += 4;
  await compactor.prepare(id, m.slice(0, n));
  const { estimate } = await compactor.status(id);
  if ((await compactor.records(id)).length !== 0 || estimate.tokens > estimate.threshold) {
    throw new Error("nearThreshold compacted already");
  }
  const over = { role: "user", content: "word ".repeat(estimate.threshold - estimate.tokens + 20) };
  return { before: m.slice(0, n), over };
}

/** Replays `agent(turns)` turn by turn (prepare the user turn, commit the rest). */
export async function converse(compactor, id, turns, tag = "a") {
  const m = agent(turns, tag);
  await compactor.prepare(id, m.slice(0, 2));
  await compactor.commit(id, m.slice(2, 5));
  for (let i = 5; i < m.length; i += 4) {
    await compactor.prepare(id, [m[i]]);
    await compactor.commit(id, m.slice(i + 1, i + 4));
  }
  return m;
}
