// The model the chat talks to. Online: an OpenAI-compatible Chat Completions endpoint, called
// from the page. Offline: a stand-in that answers from what it was sent (the input `prepare`
// returned), so after a compaction it knows only what the summary and the recent turns hold,
// as a real model would.
import { describe, isSummary, fmt } from "./dom.js";

const STOP = new Set(
  "a an and are as at be but by can could did do does for from had has have how i in is it its me my of on or our please said so than that the their them then there these this to was we were what when where which who why will with would you your tell about remember keep track later again".split(" "),
);

/** The words and identifiers of `text` worth matching: `ORD-4023`, `pallet`, `w23`. */
function terms(text) {
  return new Set((text.toLowerCase().match(/[\p{L}\p{N}][\p{L}\p{N}_.:/-]*[\p{L}\p{N}]|\p{N}/gu) ?? []).filter((w) => !STOP.has(w) && w.length > 1));
}

/** Sentences (or lines) of a text. */
const pieces = (text) =>
  text
    .split(/(?<=[.!?])\s+|\n+/)
    .map((s) => s.replace(/^[-*#\s]+/, "").trim())
    .filter((s) => s.length > 8 && s.length < 400);

/**
 * The stand-in's reply to `messages` (the model input). To a question: the sentences of the
 * input that share the most words with it, quoted, and where they were (the summary, or a
 * message kept verbatim). To anything else: that it was noted.
 */
export function standIn(messages) {
  const described = messages.map((m) => ({ ...describe(m), summary: isSummary(m) }));
  const lastUser = described.findLastIndex((d) => d.role === "user");
  const question = lastUser >= 0 ? described[lastUser].text : "";
  const wanted = terms(question);
  let best = [];
  described.forEach((d, i) => {
    if (i === lastUser || d.role === "system") return;
    for (const sentence of pieces(d.text)) {
      const have = terms(sentence);
      let score = 0;
      for (const w of wanted) if (have.has(w)) score += /\d/.test(w) ? 3 : 1;
      if (score > 0) best.push({ score, sentence, summary: d.summary, role: d.role });
    }
  });
  best = best.sort((a, b) => b.score - a.score).filter((b, i, all) => all.findIndex((o) => o.sentence === b.sentence) === i).slice(0, 2);
  const sent = `I was sent ${fmt(messages.length)} message${messages.length === 1 ? "" : "s"}`;
  if (!question.includes("?")) {
    return `(Stand-in model, offline.) Noted. ${sent}; ask me about anything said so far, and I will quote what my input still holds of it.`;
  }
  if (best.length === 0) {
    return `(Stand-in model, offline.) ${sent}; nothing in them matches what you wrote, so I have nothing to add. Ask about something said earlier to see what the context still holds.`;
  }
  const quoted = best.map((b) => `“${b.sentence}” (${b.summary ? "from the summary" : `from a ${b.role} message kept verbatim`})`);
  return `(Stand-in model, offline.) ${sent}. What they say about it: ${quoted.join("; ")}.`;
}

/**
 * Calls the model: `{ message, usage }`. `settings` are the page's; `signal` aborts (the Stop
 * button). A call gives up after two minutes, so no turn waits forever.
 */
export async function callModel(settings, messages, signal) {
  if (settings.offline) return { message: { role: "assistant", content: standIn(messages) }, usage: null };
  const url = `${settings.base.replace(/\/+$/, "")}/chat/completions`;
  const headers = { "content-type": "application/json" };
  if (settings.key) headers.authorization = `Bearer ${settings.key}`;
  const res = await fetch(url, {
    method: "POST",
    headers,
    body: JSON.stringify({ model: settings.model, messages }),
    signal: AbortSignal.any([signal, AbortSignal.timeout(120_000)]),
  });
  const body = await res.text();
  if (!res.ok) throw new Error(`the model answered ${res.status}: ${body.slice(0, 200)}`);
  let json;
  try {
    json = JSON.parse(body);
  } catch {
    throw new Error(`the model's answer is not JSON: ${body.slice(0, 120)}`);
  }
  const message = json?.choices?.[0]?.message;
  if (!message || typeof message !== "object") throw new Error(`the model's answer has no choices[0].message: ${body.slice(0, 120)}`);
  return { message: { ...message, content: message.content ?? "" }, usage: json.usage ?? null };
}
