// The demo chat (www/) as a user serves it: `node www/serve.mjs --port 0`, started and stopped
// by the test, and a few steps the browser tests of the page share.
import { spawn } from "node:child_process";
import { join } from "node:path";
import { repoRoot } from "./paths.mjs";

/** Starts www/serve.mjs on a free port; resolves to `{ url, close }` once it printed its URL. */
export function startDemoServer() {
  const child = spawn(process.execPath, [join(repoRoot, "www/serve.mjs"), "--port", "0"], { stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => fail(new Error(`www/serve.mjs printed no URL in 10 s: ${output}`)), 10_000);
    const fail = (e) => {
      clearTimeout(timer);
      child.kill();
      reject(e);
    };
    child.on("exit", (code) => fail(new Error(`www/serve.mjs exited (${code}): ${output}`)));
    child.stderr.on("data", (d) => (output += d));
    child.stdout.on("data", (d) => {
      output += d;
      const m = output.match(/ctxfold demo chat: (http:\/\/127\.0\.0\.1:\d+\/)/);
      if (!m) return;
      clearTimeout(timer);
      child.removeAllListeners("exit");
      resolve({
        url: m[1],
        close: () =>
          new Promise((done) => {
            if (child.exitCode !== null) return done();
            child.once("exit", () => done());
            child.kill();
          }),
      });
    });
  });
}

/** Resolves when the page has loaded and nothing is running. */
export const idle = (page, timeout = 60_000) =>
  page.waitForFunction(() => document.body.dataset.ready === "true" && document.body.dataset.idle === "true", null, { timeout });

/** Opens the settings dialog, sets `values` (`{ "s-window": "4096", "s-offline": true }`), saves; resolves to the dialog's error text ("" when saved). */
export async function setSettings(page, values) {
  await page.click("#open-settings");
  for (const [id, value] of Object.entries(values)) {
    if (typeof value === "boolean") await page.setChecked(`#${id}`, value);
    else if (id === "s-preset") await page.selectOption(`#${id}`, value);
    else await page.fill(`#${id}`, value);
  }
  await page.click("#s-save");
  await page.waitForFunction(() => !document.getElementById("settings").open || !document.getElementById("s-error").hidden, null, { timeout: 10_000 });
  await idle(page);
  const open = await page.evaluate(() => document.getElementById("settings").open);
  if (!open) return "";
  const error = await page.textContent("#s-error");
  await page.keyboard.press("Escape");
  return error;
}

/** Types a message (or a command) and waits for the turn to end. */
export async function send(page, text) {
  await page.fill("#text", text);
  await page.press("#text", "Enter");
  await page.waitForFunction(() => document.body.dataset.idle === "true" && document.getElementById("text").value === "", null, { timeout: 60_000 });
  await idle(page);
}

/** The chat's notices, in order. */
export const notices = (page) => page.$$eval("#messages .notice", (els) => els.map((el) => el.textContent));
