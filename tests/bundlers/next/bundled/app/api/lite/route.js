// ctxfold/lite bundled into a route: loadVocabulary() finds the files shipped in the package.
import { countTokens, loadVocabulary } from "ctxfold/lite";

export async function GET(request) {
  const text = new URL(request.url).searchParams.get("text") ?? "";
  await loadVocabulary("o200k_base");
  await loadVocabulary("cl100k_base");
  return Response.json({ o200k: countTokens(text, { encoding: "o200k_base" }), cl100k: countTokens(text, { encoding: "cl100k_base" }) });
}
