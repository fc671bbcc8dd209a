// Runs cases in worker threads with a time limit per case. A case that passes the limit
// is a hang: its worker is terminated (the only way to stop a synchronous wasm call) and a
// new one takes its place. A worker that dies (an uncaught exception, out of memory) is a
// crash of the case it was running. Both are reported like any other failure.
import { Worker } from "node:worker_threads";
import { generateCase } from "./cases.mjs";
import { caseSize } from "./check.mjs";

const workerUrl = new URL("./worker.mjs", import.meta.url);

/** One worker, running one case at a time. */
class Slot {
  constructor() {
    this.worker = null;
    this.nextId = 1;
  }

  start() {
    this.worker = new Worker(workerUrl, { resourceLimits: { maxOldGenerationSizeMb: 3072 } });
  }

  async stop() {
    const w = this.worker;
    this.worker = null;
    if (w) await w.terminate();
  }

  /** Runs `job` (`{ seed, index, filter }` or `{ desc }`); never rejects. */
  run(job, timeoutMs) {
    if (!this.worker) this.start();
    const worker = this.worker;
    const id = this.nextId++;
    const started = performance.now();
    return new Promise((resolve) => {
      let done = false;
      const finish = (result, replace) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        worker.off("message", onMessage);
        worker.off("error", onError);
        worker.off("exit", onExit);
        if (replace) this.stop().then(() => resolve(result));
        else resolve(result);
      };
      const failed = (kind, check, message) => {
        const desc = job.desc ?? generateCase(job.seed, job.index, job.filter);
        return {
          kind: desc.kind,
          format: desc.kind === "text" ? "text" : desc.format,
          size: caseSize(desc),
          ms: performance.now() - started,
          failures: [{ kind, check, step: "", message }],
        };
      };
      const onMessage = (m) => {
        if (m.id === id) finish(m, m.recycle);
      };
      const onError = (e) => finish(failed("crash", "the worker died", e?.stack ?? String(e)), true);
      const onExit = (code) => finish(failed("crash", "the worker exited", `exit code ${code}`), true);
      const timer = setTimeout(() => finish(failed("hang", "time limit", `no answer within ${timeoutMs} ms`), true), timeoutMs);
      worker.on("message", onMessage);
      worker.on("error", onError);
      worker.on("exit", onExit);
      worker.postMessage({ id, ...job });
    });
  }
}

/**
 * Runs `jobs` (an array of `{ seed, index, filter }` or `{ desc }`) on `workers` threads.
 * Calls `onResult(job, result)` as each finishes; resolves with the results in job order.
 */
export async function runJobs(jobs, { workers = 1, timeoutMs = 10_000, onResult = () => {} } = {}) {
  const slots = Array.from({ length: Math.max(1, Math.min(workers, jobs.length)) }, () => new Slot());
  const results = new Array(jobs.length);
  let next = 0;
  await Promise.all(
    slots.map(async (slot) => {
      while (next < jobs.length) {
        const k = next++;
        results[k] = await slot.run(jobs[k], timeoutMs);
        onResult(jobs[k], results[k]);
      }
      await slot.stop();
    }),
  );
  return results;
}

/** A pool of one worker kept between calls (for shrinking, which runs many small cases). */
export class Runner {
  constructor(timeoutMs) {
    this.slot = new Slot();
    this.timeoutMs = timeoutMs;
  }

  run(job) {
    return this.slot.run(job, this.timeoutMs);
  }

  close() {
    return this.slot.stop();
  }
}
