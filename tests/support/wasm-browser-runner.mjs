#!/usr/bin/env node
// Cargo's runner for the wasm32 tests in headless Chromium (tests/wasm_browser.rs):
//
//   CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER="node tests/support/wasm-browser-runner.mjs" \
//     cargo test --target wasm32-unknown-unknown --test wasm_browser
//
// wasm-bindgen-test-runner serves the test page (its interactive mode, NO_HEADLESS=1) and
// playwright-core drives Debian's Chromium to it, as every other browser test here does.
// Not chromedriver: on a fresh machine its first session was seen to hang with no timeout
// (the runner's own WASM_BINDGEN_TEST_TIMEOUT never fired), and the next run to panic.
// Every step here has a deadline; a browser that does not start is tried again, a test
// that ran and failed never is. Prints the page's output (cargo's summary line included)
// and exits 0 only when it ends with "test result: ok".
import { spawn } from "node:child_process";
import { createServer } from "node:net";
import { launchChromium } from "./chromium.mjs";

const wasm = process.argv[2];
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

let output = "";
let browser;
try {
  browser = await launchChromium();
  const page = await browser.newPage();
  page.on("pageerror", (e) => console.error(`pageerror: ${e.message}`));
  // Not "load": with a failing test the page never fires it.
  await page.goto(url, { timeout: 60_000, waitUntil: "domcontentloaded" });
  await page
    .waitForFunction(() => /^test result: /m.test(document.body.innerText), null, { timeout, polling: 200 })
    .catch(() => {});
  output = await page.evaluate(() => document.body.innerText);
} catch (e) {
  console.error(`the test page could not be run: ${e.message}`);
} finally {
  await browser?.close().catch(() => {});
  stop();
}
console.log(output.trim());
if (!/^test result: ok\./m.test(output)) {
  if (!/^test result: /m.test(output)) console.error(`no test result within ${timeout / 1000} s`);
  process.exit(1);
}
