// A Worker that runs the built-in HTTP summarizers' shared cases (tests/support/
// summarizer-cases.mjs) through the package's workerd entry, calling the LLM double on
// 127.0.0.1 with the Worker's own fetch. /global says what workerd's global object is.
import * as ctxfold from "../../pkg/workerd.js";
import { runCase } from "../support/summarizer-cases.mjs";

export default {
  async fetch(request) {
    const path = new URL(request.url).pathname;
    if (path === "/global") {
      return Response.json({
        window: typeof Window,
        workerGlobalScope: typeof WorkerGlobalScope,
        isWorkerGlobalScope: typeof WorkerGlobalScope === "function" && globalThis instanceof WorkerGlobalScope,
        serviceWorkerGlobalScope: typeof ServiceWorkerGlobalScope,
        globalIs: Object.prototype.toString.call(globalThis),
        fetch: typeof fetch,
        abortSignal: typeof AbortSignal,
      });
    }
    if (path !== "/case") return new Response("not found", { status: 404 });
    const { provider, name, urls } = await request.json();
    return Response.json(await runCase(ctxfold, provider, name, urls));
  },
};
