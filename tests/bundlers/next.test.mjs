// The package in Next.js server code, built and served for real (`next build` with Turbopack,
// Next's default, then `next start` on 127.0.0.1), as a chat app's API routes use it:
// - next/bundled/: route handlers that import "ctxfold" and "ctxfold/lite" with no config
//   at all, so Turbopack bundles the package: the module and the vocabulary files must be
//   found through the URLs it rewrites.
// - next/external/: a server component too. Next turns a server component's
//   `new URL(..., import.meta.url)` into a web path, so the README asks for
//   `serverExternalPackages: ["ctxfold"]`, and this app has exactly that.
// Each answer is checked against the package imported here directly.
import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { cp, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { countTokens } from "ctxfold";
import { pkgDir, repoRoot } from "../support/paths.mjs";

const NEXT = join(repoRoot, "node_modules/next/dist/bin/next");
const ENV = { ...process.env, NEXT_TELEMETRY_DISABLED: "1" };
const TEXTS = ["hello world", "Über naïve café — 日本語のテキスト 🚀 `src/app/route.ts:42`", "x".repeat(300)];

/** Runs `next <args>` in `dir` to its end; its output is the error's if it fails. */
function next(dir, args) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [NEXT, ...args], { cwd: dir, env: ENV });
    let output = "";
    child.stdout.on("data", (d) => (output += d));
    child.stderr.on("data", (d) => (output += d));
    child.on("error", reject);
    child.on("close", (code) => (code === 0 ? resolve(output) : reject(new Error(`next ${args.join(" ")} exited ${code}:\n${output}`))));
  });
}

async function freePort() {
  const server = createServer();
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** `next start` on 127.0.0.1, until it answers; `stop()` ends it. */
async function start(dir) {
  const port = await freePort();
  const child = spawn(process.execPath, [NEXT, "start", "-H", "127.0.0.1", "-p", String(port)], { cwd: dir, env: ENV });
  let output = "";
  child.stdout.on("data", (d) => (output += d));
  child.stderr.on("data", (d) => (output += d));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`next start exited ${child.exitCode}:\n${output}`);
    try {
      await fetch(`${url}/api/full?text=`);
      break;
    } catch {
      if (Date.now() > deadline) {
        child.kill();
        throw new Error(`next start gave no answer within 60 s:\n${output}`);
      }
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  return {
    url,
    output: () => output,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.on("close", resolve);
        child.kill();
      }),
  };
}

const expected = (text) => ({ o200k: countTokens(text, { encoding: "o200k_base" }), cl100k: countTokens(text, { encoding: "cl100k_base" }) });

async function json(response) {
  assert.equal(response.status, 200, await response.clone().text());
  return response.json();
}

/** Turns through the route's Compactor: every input within its budget, and it compacts. */
async function conversation(url) {
  const statuses = new Set();
  for (let i = 0; i < 12; i++) {
    const text = `Turn ${i}: the deploy of build ${1000 + i} failed in src/worker/queue.ts; ${"the logs say the queue stalled again ".repeat(30)}`;
    const r = await json(await fetch(`${url}/api/full`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ id: "c", text }) }));
    assert.ok(r.tokens <= r.budget, `turn ${i}: ${r.tokens} tokens over a budget of ${r.budget}`);
    statuses.add(r.contextStatus);
  }
  assert.ok(statuses.has("summarized"), `no turn compacted: ${[...statuses]}`);
}

for (const app of ["bundled", "external"]) {
  describe(`Next.js, ${app === "bundled" ? "the package bundled into route handlers (no config)" : "serverExternalPackages, with a server component"}`, { timeout: 300_000 }, () => {
    const dir = fileURLToPath(new URL(`./next/${app}/`, import.meta.url));
    let server;
    before(async () => {
      await rm(join(dir, ".next"), { recursive: true, force: true });
      // Installed as npm installs it: a real directory in the app's node_modules (Next only
      // leaves a package to Node when it resolves inside node_modules, not through a link).
      await rm(join(dir, "node_modules"), { recursive: true, force: true });
      await cp(pkgDir, join(dir, "node_modules/ctxfold"), { recursive: true });
      await next(dir, ["build"]);
      server = await start(dir);
    });
    after(async () => {
      await server?.stop();
      await rm(join(dir, ".next"), { recursive: true, force: true });
      await rm(join(dir, "node_modules"), { recursive: true, force: true });
    });

    test("counts in a route handler equal the package's own", async () => {
      for (const text of TEXTS) {
        assert.deepEqual(await json(await fetch(`${server.url}/api/full?text=${encodeURIComponent(text)}`)), expected(text));
      }
    });

    if (app === "bundled") {
      test("ctxfold/lite loads each vocabulary file it ships", async () => {
        for (const text of TEXTS) {
          assert.deepEqual(await json(await fetch(`${server.url}/api/lite?text=${encodeURIComponent(text)}`)), expected(text));
        }
      });
    } else {
      test("a server component counts", async () => {
        for (const text of TEXTS) {
          const html = await (await fetch(`${server.url}/?text=${encodeURIComponent(text)}`)).text();
          assert.match(html, new RegExp(`<p id="count">${expected(text).o200k}</p>`));
        }
      });
    }

    test("a Compactor in a route keeps a conversation within its window across requests", async () => {
      await conversation(server.url);
      assert.doesNotMatch(server.output(), /Error/);
    });
  });
}
