// A worker thread that runs cases one at a time for pool.mjs. A synchronous wasm call
// cannot be interrupted from inside its thread, so the parent times each case and
// terminates this worker when one hangs.
import { parentPort } from "node:worker_threads";
import { generateCase } from "./cases.mjs";
import { caseSize, runCase } from "./check.mjs";

parentPort.on("message", async (msg) => {
  const started = performance.now();
  let desc = null;
  let out;
  try {
    desc = msg.desc ?? generateCase(msg.seed, msg.index, msg.filter);
    out = await runCase(desc);
  } catch (e) {
    // A bug in the harness itself: reported as such, never as the package's.
    out = { failures: [{ kind: "harness", check: "the harness threw", step: "", message: e?.stack ?? String(e) }], recycle: true };
  }
  parentPort.postMessage({
    id: msg.id,
    kind: desc?.kind ?? "?",
    format: desc?.kind === "text" ? "text" : (desc?.format ?? "?"),
    size: desc ? caseSize(desc) : { messages: 0, bytes: 0 },
    ms: performance.now() - started,
    ...out,
  });
});
