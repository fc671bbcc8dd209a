#!/usr/bin/env node
// Cargo's runner for the wasm32 tests in headless Chromium (tests/wasm_browser.rs):
//
//   CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER="node tests/support/wasm-browser-runner.mjs" \
//     cargo test --target wasm32-unknown-unknown --test wasm_browser
//
// wasm-bindgen-test-runner serves the test page (its interactive mode, NO_HEADLESS=1) and
// playwright-core drives Debian's Chromium to it, as every other browser test here does.
// Not chromedriver: its session waits on the page with no deadline, and the page can stall
// (the runner's server left two of its module requests unanswered, one run in two, here
// and in CI, where the runner then panicked). Here every step has a deadline, the page's
// requests go through a proxy that asks the server one at a time (below), a browser that
// does not start is tried again, and a test that ran and failed never is. Prints the page's output (cargo's summary line included)
// and exits 0 only when it ends with "test result: ok".
import { spawn } from "node:child_process";
import { createServer as createHttpServer, request as httpRequest } from "node:http";
import { createServer } from "node:net";
import { launchChromium } from "./chromium.mjs";

const wasm = process.argv[2];
// Cargo runs this with LD_LIBRARY_PATH naming the Rust toolchain's libraries; Chromium's
// processes must not load those (with them its page loads never finished here).
delete process.env.LD_LIBRARY_PATH;
const timeout = Number(process.env.WASM_BINDGEN_TEST_TIMEOUT ?? 120) * 1000;
if (!wasm) {
  console.error("usage: wasm-browser-runner.mjs TEST.wasm [args...]");
  process.exit(2);
}

const port = await new Promise((resolve, reject) => {
  const s = createServer().listen(0, "127.0.0.1", () => {
    const { port } = s.address();
    s.close(() => resolve(port));
  });
  s.on("error", reject);
});

// The runner serves the page until it is killed.
const server = spawn("wasm-bindgen-test-runner", process.argv.slice(2), {
  env: { ...process.env, NO_HEADLESS: "1", WASM_BINDGEN_TEST_ADDRESS: `127.0.0.1:${port}` },
  stdio: ["ignore", "pipe", "inherit"],
});
const stop = () => server.exitCode === null && server.kill("SIGKILL");
process.on("exit", stop);

const url = await new Promise((resolve, reject) => {
  let seen = "";
  const timer = setTimeout(() => reject(new Error(`the test server did not start within 60 s:\n${seen}`)), 60_000);
  server.stdout.on("data", (d) => {
    seen += d;
    const m = /available at (http:\/\/\S+)/.exec(seen);
    if (m) {
      clearTimeout(timer);
      resolve(m[1]);
    }
  });
  server.on("exit", (code) => reject(new Error(`wasm-bindgen-test-runner exited (${code}):\n${seen}`)));
}).catch((e) => {
  console.error(e.message);
  process.exit(1);
});

// Chromium opens several connections at once and keeps them alive; the runner's server was
// seen to leave some requests of a page unanswered that way (two module snippets, never
// served, one run in two). The page goes through this proxy instead, which asks the runner
// one request at a time, each on a connection of its own.
const upstream = new URL(url);
let queue = Promise.resolve();
const forward = (req, res) => {
  queue = queue.then(
    () =>
      new Promise((done) => {
        const out = httpRequest(
          { host: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers: { ...req.headers, host: upstream.host, connection: "close" }, agent: false, timeout: 30_000 },
          (answer) => {
            res.writeHead(answer.statusCode, answer.headers);
            answer.pipe(res);
            answer.on("end", done);
            answer.on("error", done);
          },
        );
        out.on("timeout", () => out.destroy(new Error("the runner did not answer within 30 s")));
        out.on("error", (e) => {
          res.writeHead(502).end(String(e));
          done();
        });
        req.pipe(out);
      }),
  );
};
const proxy = createHttpServer(forward);
await new Promise((resolve) => proxy.listen(0, "127.0.0.1", resolve));
const pageUrl = `http://127.0.0.1:${proxy.address().port}/`;

/** One run of the page: its text at the end, and what its console said. */
async function runPage(browser) {
  const page = await browser.newPage();
  const console_ = [];
  page.on("console", (m) => console_.push(`console.${m.type()}: ${m.text()}`));
  page.on("pageerror", (e) => console_.push(`pageerror: ${e.message}`));
  const pending = new Set();
  page.on("request", (r) => pending.add(r.url()));
  page.on("requestfinished", (r) => pending.delete(r.url()));
  page.on("requestfailed", (r) => console_.push(`request failed: ${r.url()} ${r.failure()?.errorText}`));
  // Only until the response starts: the harness runs the tests inside the page's module
  // script, so "domcontentloaded" (and "load") wait for the tests themselves.
  await page.goto(pageUrl, { timeout: 60_000, waitUntil: "commit" });
  const done = () => /^test result: /m.test(document.body?.innerText ?? "");
  const waited = await page
    .waitForFunction(done, null, { timeout, polling: 200 })
    .then(() => null, (e) => e.message.split("\n")[0]);
  const text = await page.evaluate(() => document.body?.innerText ?? "");
  if (pending.size) console_.push(`still loading: ${[...pending].join(" ")}`);
  await page.close();
  return { text, waited, console: console_ };
}

let output = "";
let browser;
try {
  browser = await launchChromium();
  // A page whose harness never started (no "running N tests" line) is tried once more; a
  // run whose tests started is never repeated.
  for (let attempt = 1; attempt <= 2; attempt++) {
    const run = await runPage(browser);
    output = run.text;
    if (/^test result: /m.test(output)) break;
    console.error(`no test result (attempt ${attempt}): ${run.waited ?? "the page stopped"}`);
    console.error(run.console.slice(-20).join("\n"));
    if (/^running \d+ tests?$/m.test(output)) break;
  }
} catch (e) {
  console.error(`the test page could not be run: ${e.message}`);
} finally {
  await browser?.close().catch(() => {});
  proxy.close();
  stop();
}
console.log(output.trim());
if (!/^test result: ok\./m.test(output)) {
  if (!/^test result: /m.test(output)) console.error(`no test result within ${timeout / 1000} s`);
  process.exit(1);
}
