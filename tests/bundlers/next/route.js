// The route both Next.js apps serve at /api/full: counts, and a Compactor kept across
// requests (one per server, as a route module is), each POST a turn: `prepare` then `commit`.
import { Compactor, countMessages, countTokens } from "ctxfold";

const compactor = new Compactor({ model: "gpt-4o-mini", contextWindow: 3000 });

export async function GET(request) {
  const text = new URL(request.url).searchParams.get("text") ?? "";
  return Response.json({ o200k: countTokens(text, { encoding: "o200k_base" }), cl100k: countTokens(text, { encoding: "cl100k_base" }) });
}

export async function POST(request) {
  const { id, text } = await request.json();
  const { messages, contextStatus, report } = await compactor.prepare(id, [{ role: "user", content: text }]);
  await compactor.commit(id, [{ role: "assistant", content: `Noted: ${text.slice(0, 200)}` }]);
  return Response.json({ tokens: countMessages(messages, { model: "gpt-4o-mini" }).total, budget: report.budget.input, contextStatus });
}
