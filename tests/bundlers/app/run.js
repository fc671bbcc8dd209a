// What every bundled app does with the module it imported ("ctxfold" or "ctxfold/lite"):
// count, compact a conversation long enough to be summarized, and leave the results in
// window.__result (or the error in window.__error) for the test to read.

/** An agent conversation (OpenAI chat format) well past 70 % of an 8,000-token window. */
function conversation(turns = 12) {
  const messages = [{ role: "system", content: "You are an SRE assistant." }];
  for (let i = 0; i < turns; i++) {
    messages.push({ role: "user", content: `Turn ${i}: check /srv/app/module_${i}.py (ticket OPS-${100 + i})` });
    messages.push({
      role: "assistant",
      content: null,
      tool_calls: [{ id: `call_${i}`, type: "function", function: { name: "bash", arguments: `{"command":"cat /srv/app/module_${i}.py"}` } }],
    });
    messages.push({ role: "tool", tool_call_id: `call_${i}`, content: `def build_${i}():\n` + "    return compute()\n".repeat(150) });
    messages.push({ role: "assistant", content: `I'll fix module_${i} next; build_${i} raised ValueError.` });
  }
  return messages;
}

export async function run(ctxfold, { lite }) {
  try {
    // ctxfold/lite fetches the .ctxv file shipped in the package (its default source).
    if (lite) await ctxfold.loadVocabulary("o200k_base");
    const tokens = ctxfold.countTokens("Hello, world!", { encoding: "o200k_base" });
    const { contextStatus, report, messages } = await ctxfold.compact(conversation(), { model: "gpt-4o", contextWindow: 8000 });
    window.__result = {
      tokens,
      contextStatus,
      trigger: report.trigger,
      tokensBefore: report.tokensBefore,
      tokensAfter: report.tokensAfter,
      messages: messages.length,
    };
  } catch (e) {
    window.__error = `${e?.name}: ${e?.message}`;
    throw e;
  }
}
