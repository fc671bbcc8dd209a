// The package bundled as users bundle it: tests/bundlers/app/ imports "ctxfold" (full.js)
// and "ctxfold/lite" (lite.js) through the package's exports map, reached via
// tests/node_modules/ctxfold (a link to pkg/). Each bundler builds both apps for real
// (production mode, into a temporary directory, offline), a static server on 127.0.0.1
// serves the output, and headless Chromium runs it: the counts and the compaction must be
// right, no build may warn, and nothing may go to the console as an error or warning.
//
// What each bundler needs is exactly what its build function below does (the "Bundlers"
// section of docs/browser-indexeddb.md says the same): Vite nothing; webpack 5 nothing but quieting its size
// advice about the .wasm; esbuild leaves new URL(..., import.meta.url) alone, so the files
// those URLs name are copied to where they resolve against the bundle.
import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import { cp, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { launchChromium } from "../support/chromium.mjs";
import { build as viteBuild, createLogger } from "vite";
import webpack from "webpack";
import * as esbuild from "esbuild";
import { rollup } from "rollup";
import { nodeResolve } from "@rollup/plugin-node-resolve";
import { spawn } from "node:child_process";
import { testsDir } from "../support/paths.mjs";
import { startStaticServer } from "../support/static-server.mjs";


const app = fileURLToPath(new URL("./app/", import.meta.url));
const ENTRIES = { full: "ctxfold", lite: "ctxfold/lite" };
/** The installed package, where a user's build script finds the files to copy. */
const installed = join(testsDir, "node_modules/ctxfold");

/** The HTML a user would write around a bundle that is not an HTML entry itself. */
const html = (name, src, type) =>
  `<!doctype html>\n<meta charset="utf-8">\n<title>ctxfold bundled (${name})</title>\n<link rel="icon" href="data:,">\n<script ${type ? `type="${type}" ` : ""}src="${src}"></script>\n`;

/** A build that warns fails: a warning here is something a user would have to act on. */
function noWarnings(bundler, warnings) {
  if (warnings.length) throw new Error(`${bundler} warned:\n${warnings.join("\n")}`);
}

/**
 * For esbuild and Rollup, which emit no file for new URL("...", import.meta.url), whose URLs
 * then resolve against the bundles in site/app/: the files they name, copied there
 * ("ctxfold" asks for ./dist/full/ctxfold_bg.wasm; "ctxfold/lite" for
 * ../dist/lite/ctxfold_bg.wasm and ../vocab/<encoding>.ctxv, written from lite/), and the
 * pages around the bundles.
 */
async function copiedBeside(site) {
  await cp(join(installed, "dist/full/ctxfold_bg.wasm"), join(site, "app/dist/full/ctxfold_bg.wasm"));
  await cp(join(installed, "dist/lite/ctxfold_bg.wasm"), join(site, "dist/lite/ctxfold_bg.wasm"));
  await cp(join(installed, "vocab"), join(site, "vocab"), { recursive: true });
  return {
    root: site,
    pages: Object.fromEntries(Object.keys(ENTRIES).map((n) => [`/${n}.html`, html(n, `/app/${n}.js`, "module")])),
  };
}

// Each build function writes the two apps into `out` and returns the pages to serve from
// memory beside the files (path -> HTML); the apps live at /full.html and /lite.html.
const BUNDLERS = {
  async vite(out) {
    const warnings = [];
    const logger = createLogger("warn");
    logger.warn = (msg) => warnings.push(msg);
    logger.warnOnce = (msg) => warnings.push(msg);
    // Vite's own HTML entries (app/full.html, app/lite.html).
    await viteBuild({
      root: app,
      configFile: false,
      customLogger: logger,
      build: {
        outDir: join(out, "site"),
        emptyOutDir: true,
        rolldownOptions: { input: { full: join(app, "full.html"), lite: join(app, "lite.html") } },
      },
    });
    noWarnings("vite", warnings);
    return { root: join(out, "site"), pages: {} };
  },

  async webpack(out) {
    const stats = await new Promise((resolve, reject) =>
      webpack(
        {
          mode: "production",
          context: app,
          entry: { full: "./full.js", lite: "./lite.js" },
          output: { path: join(out, "site"), filename: "[name].js", clean: true },
          // The .wasm files are larger than webpack's 244 KiB advice; that is expected here.
          performance: { hints: false },
        },
        (err, result) => (err ? reject(err) : resolve(result)),
      ),
    );
    if (stats.hasErrors()) throw new Error(`webpack:\n${stats.toString({ all: false, errors: true })}`);
    noWarnings("webpack", stats.toJson({ all: false, warnings: true }).warnings.map((w) => w.message));
    return {
      root: join(out, "site"),
      pages: Object.fromEntries(Object.keys(ENTRIES).map((n) => [`/${n}.html`, html(n, `/${n}.js`)])),
    };
  },

  async esbuild(out) {
    // Bundles in site/app/ (an ES module: the entries use top-level await).
    const site = join(out, "site");
    const { warnings } = await esbuild.build({
      entryPoints: Object.fromEntries(Object.keys(ENTRIES).map((n) => [n, join(app, `${n}.js`)])),
      bundle: true,
      format: "esm",
      outdir: join(site, "app"),
      logLevel: "error",
    });
    noWarnings("esbuild", (await esbuild.formatMessages(warnings, { kind: "warning" })));
    return copiedBeside(site);
  },

  async rollup(out) {
    // As esbuild: ES modules (top-level await), and the files the URLs name copied beside.
    const site = join(out, "site");
    const warnings = [];
    const bundle = await rollup({
      input: Object.fromEntries(Object.keys(ENTRIES).map((n) => [n, join(app, `${n}.js`)])),
      plugins: [nodeResolve({ browser: true })],
      onwarn: (w) => warnings.push(w.message),
    });
    await bundle.write({ dir: join(site, "app"), format: "es" });
    await bundle.close();
    noWarnings("rollup", warnings);
    return copiedBeside(site);
  },

  async parcel(out) {
    // Its CLI, as users run it, with its default settings (which read a package's main,
    // module and browser fields, not its exports map), on Parcel's own HTML entries.
    const site = join(out, "site");
    const cli = join(testsDir, "../node_modules/parcel/lib/bin.js");
    const args = ["build", join(app, "full.html"), join(app, "lite.html"), "--dist-dir", site, "--cache-dir", join(out, "cache"), "--no-autoinstall", "--log-level", "warn", "--public-url", "/"];
    const { code, output } = await new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [cli, ...args], { cwd: app, env: { ...process.env, NO_COLOR: "1" } });
      let text = "";
      child.stdout.on("data", (d) => (text += d));
      child.stderr.on("data", (d) => (text += d));
      child.on("error", reject);
      child.on("close", (c) => resolve({ code: c, output: text }));
    });
    if (code !== 0) throw new Error(`parcel exited ${code}:\n${output}`);
    noWarnings("parcel", output.trim() === "" ? [] : [output]);
    return { root: site, pages: {} };
  },
};

let tmp, browser;

before(async () => {
  tmp = await mkdtemp(join(tmpdir(), "ctxfold-bundlers-"));
  browser = await launchChromium();
});

after(async () => {
  await browser?.close();
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

/**
 * Opens `path` in a new page and waits until the app has written window.__result or
 * window.__error, or the page threw (an import that fails never reaches the app's code).
 */
async function visit(server, path) {
  const page = await browser.newPage();
  const problems = [];
  const first = server.requests.length;
  page.on("pageerror", (err) => problems.push(`pageerror: ${err.message}`));
  page.on("console", (msg) => {
    if (msg.type() === "error" || msg.type() === "warning") problems.push(`console.${msg.type()}: ${msg.text()}`);
  });
  page.on("requestfailed", (req) => problems.push(`request failed: ${req.url()} (${req.failure()?.errorText})`));
  page.on("request", (req) => {
    const url = req.url();
    if (!url.startsWith(`${server.url}/`) && !url.startsWith("data:")) problems.push(`request outside the server: ${url}`);
  });
  let over = false;
  try {
    const threw = new Promise((resolve) => page.once("pageerror", resolve));
    const settled = page
      .waitForFunction(() => window.__result !== undefined || window.__error !== undefined, null, { timeout: 60_000 })
      .catch((err) => over || problems.push(`the app wrote no result: ${err.message.split("\n")[0]}`));
    await page.goto(`${server.url}${path}`);
    await Promise.race([settled, threw]);
    const result = await page.evaluate(() => window.__result ?? null);
    return { result, problems: [...problems], requests: server.requests.slice(first) };
  } finally {
    over = true;
    await page.close();
  }
}

for (const [bundler, bundle] of Object.entries(BUNDLERS)) {
  describe(bundler, () => {
    let server;

    before(async () => {
      const { root, pages } = await bundle(join(tmp, bundler));
      server = await startStaticServer(root, pages);
    });

    after(async () => {
      await server?.close();
    });

    for (const [name, specifier] of Object.entries(ENTRIES)) {
      test(`import from "${specifier}" counts and compacts in the page`, async () => {
        const { result, problems, requests } = await visit(server, `/${name}.html`);
        assert.deepEqual(problems, [], `the ${bundler} build of ${name}.js in Chromium:\n${problems.join("\n")}`);
        assert.ok(result, "the app wrote no result");
        assert.equal(result.tokens, 4, 'countTokens("Hello, world!", { encoding: "o200k_base" })');
        assert.equal(result.trigger, "threshold", JSON.stringify(result));
        assert.equal(result.contextStatus, "summarized", JSON.stringify(result));
        assert.ok(result.tokensAfter < result.tokensBefore, JSON.stringify(result));
        // The page fetched one wasm file from the server, and the lite app one vocabulary
        // file (its default source; installVocabulary checks it is o200k_base's). Names
        // are the bundler's: webpack's are bare hashes.
        assert.equal(requests.filter((p) => p.endsWith(".wasm")).length, 1, requests.join(" "));
        assert.equal(requests.filter((p) => p.endsWith(".ctxv")).length, name === "lite" ? 1 : 0, requests.join(" "));
      });
    }
  });
}
