// A double for the remote model the docs' examples call (and nothing else): an HTTP server on
// 127.0.0.1 that speaks OpenAI's Chat Completions (POST .../chat/completions) and Anthropic's
// Messages API (POST .../v1/messages). A summarizer's request (its system prompt asks for
// ctxfold's "## Conversation Summary") gets a summary in that schema; a chat request whose
// last message is the user's and that offers tools gets a call of the first tool; any other a
// short text reply. Usage is about what a provider counts: a token per four characters.
//
//   const model = await startModelDouble();
//   model.openai      // a baseURL such as OPENAI_BASE_URL: http://127.0.0.1:PORT/v1
//   model.anthropic   // ANTHROPIC_BASE_URL: http://127.0.0.1:PORT
//   model.requests    // [{ url, headers, body, summary }]
//   await model.close();
import { createServer } from "node:http";

export const SUMMARY = [
  "## Conversation Summary",
  "- **Decisions:** None",
  "- **Entities:** config.toml",
  "- **Facts:** The user asked about the configuration.",
  "- **Open Items:** None",
].join("\n");

export const REPLY = "The port is 8080.";

const tokens = (value) => Math.ceil(JSON.stringify(value ?? "").length / 4);

export async function startModelDouble() {
  const requests = [];
  const server = createServer((req, res) => {
    let raw = "";
    req.on("data", (c) => (raw += c));
    req.on("end", () => {
      let body;
      try {
        body = JSON.parse(raw);
      } catch {
        res.writeHead(400).end();
        return;
      }
      res.setHeader("content-type", "application/json");
      if (req.url.endsWith("/chat/completions")) {
        const first = body.messages?.[0];
        const summary = first?.role === "system" && String(first.content).includes("Conversation Summary");
        requests.push({ url: req.url, headers: req.headers, body, summary });
        const last = body.messages?.at(-1);
        const tool = !summary && Array.isArray(body.tools) && body.tools.length > 0 && last?.role === "user";
        const message = summary
          ? { role: "assistant", content: SUMMARY }
          : tool
            ? {
                role: "assistant",
                content: null,
                tool_calls: [
                  { id: `call_${requests.length}`, type: "function", function: { name: body.tools[0].function.name, arguments: JSON.stringify({ path: "config.toml" }) } },
                ],
              }
            : { role: "assistant", content: REPLY };
        res.end(
          JSON.stringify({
            id: `chatcmpl-${requests.length}`,
            object: "chat.completion",
            model: body.model,
            choices: [{ index: 0, message, finish_reason: tool ? "tool_calls" : "stop" }],
            usage: { prompt_tokens: tokens(body.messages) + tokens(body.tools ?? ""), completion_tokens: 20 },
          }),
        );
        return;
      }
      if (req.url.endsWith("/v1/messages")) {
        const system = Array.isArray(body.system) ? body.system.map((b) => b.text).join("\n") : String(body.system ?? "");
        const summary = system.includes("Conversation Summary");
        requests.push({ url: req.url, headers: req.headers, body, summary });
        res.end(
          JSON.stringify({
            id: `msg_${requests.length}`,
            type: "message",
            role: "assistant",
            model: body.model,
            content: [{ type: "text", text: summary ? SUMMARY : REPLY }],
            usage: { input_tokens: tokens(body.messages) + tokens(body.system), output_tokens: 20, cache_read_input_tokens: 0 },
          }),
        );
        return;
      }
      res.writeHead(404).end();
    });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const base = `http://127.0.0.1:${server.address().port}`;
  return {
    openai: `${base}/v1`,
    anthropic: base,
    requests,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}
