// The one per-key queue (lib/serial.js) that a Compactor's calls and the AI SDK middleware's
// calls on one key go through: the package's own module, as it ships.
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { pkgDir } from "../support/paths.mjs";

const { serial } = await import(pathToFileURL(join(pkgDir, "lib/serial.js")).href);

/** A promise and its resolve/reject, to settle it when the test says. */
function deferred() {
  let resolve;
  let reject;
  const promise = new Promise((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

const tick = () => new Promise((r) => setTimeout(r, 0));

test("a task starts after every earlier task of its key has settled, a rejected one too", async () => {
  const queues = new Map();
  const log = [];
  const first = deferred();
  const second = deferred();
  const a = serial(queues, "k", () => (log.push("a"), first.promise));
  const b = serial(queues, "k", () => (log.push("b"), second.promise));
  const c = serial(queues, "k", () => (log.push("c"), "c done"));
  await tick();
  assert.deepEqual(log, ["a"], "b waits for a");
  first.reject(new Error("a failed"));
  await assert.rejects(a, /a failed/);
  await tick();
  assert.deepEqual(log, ["a", "b"], "b runs once a has rejected");
  second.resolve("b done");
  assert.equal(await b, "b done");
  assert.equal(await c, "c done");
  assert.deepEqual(log, ["a", "b", "c"]);
});

test("keys do not wait for each other, and a key's entry goes when its last task settles", async () => {
  const queues = new Map();
  const held = deferred();
  const log = [];
  const x = serial(queues, "x", () => held.promise);
  const y = serial(queues, "y", () => log.push("y"));
  await y;
  assert.deepEqual(log, ["y"], "y ran while x was still running");
  await tick();
  assert.deepEqual([...queues.keys()], ["x"], "y's entry went when y settled; x's stays while x runs");
  const next = deferred();
  const later = serial(queues, "x", () => next.promise);
  held.resolve("x done");
  assert.equal(await x, "x done");
  await tick();
  assert.ok(queues.has("x"), "x's entry stays while the task queued after it runs");
  next.resolve("later");
  assert.equal(await later, "later");
  await tick();
  assert.equal(queues.size, 0);
});

test("a task that throws at once rejects its own call only", async () => {
  const queues = new Map();
  const bad = serial(queues, "k", () => {
    throw new TypeError("bad task");
  });
  const good = serial(queues, "k", () => 42);
  await assert.rejects(bad, TypeError);
  assert.equal(await good, 42);
});
