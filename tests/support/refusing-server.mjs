// A model server on 127.0.0.1 that refuses an input too long for its context window with a
// provider's own error body (tests/refusals/fixtures.json's templates, the counts put in), and
// answers an input that fits as OpenAI's Chat Completions does. It counts the input as ctxfold
// counts it for gpt-4o times `ratio`: a provider whose tokenizer counts more than ctxfold
// estimates, with a window (`limit`) smaller than the one ctxfold plans for. Every request is
// kept (its count and its Authorization header), so tests count the retries. A request with
// `stream: true` that fits is answered as Chat Completions streams (server-sent events).
import { createServer } from "node:http";
import { readFileSync } from "node:fs";
import { countMessages } from "ctxfold";

const fixtures = JSON.parse(readFileSync(new URL("../refusals/fixtures.json", import.meta.url), "utf8")).fixtures;

/** The providers whose refusal has a template: their names. */
export const PROVIDERS = fixtures.filter((f) => f.template).map((f) => f.name);

/**
 * The body `provider` refuses an input of `tokens` with, against `limit`.
 * @param {string} provider
 * @param {number} tokens
 * @param {number} limit
 */
export function refusalBody(provider, tokens, limit) {
  const f = fixtures.find((x) => x.name === provider && x.template);
  if (!f) throw new Error(`no template for ${provider}`);
  return f.template
    .replaceAll('"{N}"', String(tokens))
    .replaceAll('"{M}"', String(limit))
    .replaceAll("{N}", String(tokens))
    .replaceAll("{M}", String(limit))
    .replaceAll("{T}", String(tokens + 32));
}

/**
 * @param {{ provider: string, limit: number, ratio?: number, always?: boolean, reply?: string }} o
 */
export async function refusingServer({ provider, limit, ratio = 1.25, always = false, reply = "Done." }) {
  /** @type {{ tokens: number, auth: string | undefined, refused: boolean, messages: unknown[] }[]} */
  const requests = [];
  const server = createServer((req, res) => {
    let text = "";
    req.on("data", (c) => (text += c));
    req.on("end", () => {
      const body = JSON.parse(text);
      const messages = body.system ? [{ role: "system", content: String(body.system) }, ...body.messages] : body.messages;
      const tokens = Math.ceil(countMessages(messages, { model: "gpt-4o" }).total * ratio);
      const refused = always || tokens >= limit;
      requests.push({ tokens, auth: req.headers.authorization ?? req.headers["x-api-key"], refused, messages });
      res.setHeader("content-type", "application/json");
      if (refused) {
        res.statusCode = 400;
        res.end(refusalBody(provider, tokens, limit));
        return;
      }
      const usage = { prompt_tokens: tokens, completion_tokens: 2, total_tokens: tokens + 2 };
      if (body.stream) {
        // Chat Completions' stream: the text, the finish, the usage, [DONE].
        const chunk = (choices, more = {}) => `data: ${JSON.stringify({ id: "chatcmpl-s", object: "chat.completion.chunk", created: 0, model: body.model, choices, ...more })}\n\n`;
        res.setHeader("content-type", "text/event-stream");
        res.write(chunk([{ index: 0, delta: { role: "assistant", content: reply }, finish_reason: null }]));
        res.write(chunk([{ index: 0, delta: {}, finish_reason: "stop" }]));
        res.write(chunk([], { usage }));
        res.end("data: [DONE]\n\n");
        return;
      }
      res.end(
        JSON.stringify({
          id: `chatcmpl-${requests.length}`,
          object: "chat.completion",
          created: 0,
          model: body.model,
          choices: [{ index: 0, message: { role: "assistant", content: reply }, finish_reason: "stop" }],
          usage,
        }),
      );
    });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = /** @type {import("node:net").AddressInfo} */ (server.address());
  return {
    url: `http://127.0.0.1:${address.port}/v1`,
    requests,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}
