// The default entry ("ctxfold", both vocabularies embedded) in Node, imported exactly as a
// user imports it: through the package's exports map.
import { test, describe } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { promisify } from "node:util";
import * as ctxfold from "ctxfold";
import { countTokens, hasVocabulary, loadVocabulary, isCtxfoldError } from "ctxfold";
import { conversationFiles, readConversation } from "../support/corpus.mjs";
import { pkgDir, testsDir } from "../support/paths.mjs";

const run = promisify(execFile);
const o200k = { encoding: "o200k_base" };
const cl100k = { encoding: "cl100k_base" };

/** An assert.throws / rejects matcher for ctxfold's errors. */
function ctxfoldError(name, code, messagePart) {
  return (err) => {
    assert.ok(err instanceof Error, `expected an Error, got ${err}`);
    assert.equal(err.name, name, err.message);
    assert.equal(err.code, code, err.message);
    assert.equal(isCtxfoldError(err), true);
    if (messagePart) assert.match(err.message, messagePart);
    return true;
  };
}

describe("exports", () => {
  // A subset check, so new exports need no change here; the list for the types is in tests/types.
  test("the documented functions are exported", () => {
    for (const name of ["countTokens", "hasVocabulary", "loadVocabulary", "isCtxfoldError", "openAISummarizer", "anthropicSummarizer"]) {
      assert.equal(typeof ctxfold[name], "function", name);
    }
  });

  test("wasm-bindgen's internals are not", () => {
    for (const name of ["default", "initSync", "installVocabulary", "__wbg_init", "summarizerSettings", "HttpSummaryCall"]) {
      assert.ok(!(name in ctxfold), name);
    }
  });
});

describe("countTokens", () => {
  test("counts fixed strings with o200k_base", () => {
    // The README example.
    assert.equal(countTokens("Hello, world!", { encoding: "o200k_base" }), 4);
    assert.equal(countTokens("", o200k), 0);
    assert.equal(countTokens("tiktoken is great!", o200k), 6);
    assert.equal(countTokens("日本語のテキスト", o200k), 6);
    assert.equal(countTokens("<|endoftext|>", o200k), 7);
  });

  test("counts fixed strings with cl100k_base", () => {
    assert.equal(countTokens("Hello, world!", cl100k), 4);
    assert.equal(countTokens("", cl100k), 0);
    assert.equal(countTokens("tiktoken is great!", cl100k), 6);
    assert.equal(countTokens("日本語のテキスト", cl100k), 8);
    assert.equal(countTokens("<|endoftext|>", cl100k), 7);
  });

  test("handles a large text and lone surrogates", () => {
    const big = "The quick brown fox jumps over the lazy dog. ".repeat(20_000).trimEnd();
    assert.equal(countTokens(big, o200k), 10 * 20_000);
    // JS strings may hold unpaired surrogates; they arrive as U+FFFD and still count.
    assert.equal(countTokens("a\uD800b", o200k), countTokens("a\uFFFDb", o200k));
  });

  test("an unknown encoding is a CtxfoldError UNKNOWN_ENCODING", () => {
    assert.throws(
      () => countTokens("x", { encoding: "p50k_base" }),
      ctxfoldError("CtxfoldError", "UNKNOWN_ENCODING", /p50k_base/),
    );
  });

  test("text that is not a string is a TypeError INVALID_ARGUMENT", () => {
    for (const text of [42, null, undefined, { text: "x" }, ["x"], new Uint8Array(2)]) {
      assert.throws(() => countTokens(text, o200k), ctxfoldError("TypeError", "INVALID_ARGUMENT", /text/));
    }
    assert.throws(() => countTokens(42, o200k), /number/);
  });

  test("missing or malformed options are a TypeError INVALID_ARGUMENT", () => {
    assert.throws(() => countTokens("x"), ctxfoldError("TypeError", "INVALID_ARGUMENT", /options/));
    assert.throws(() => countTokens("x", null), ctxfoldError("TypeError", "INVALID_ARGUMENT", /options/));
    assert.throws(() => countTokens("x", "o200k_base"), ctxfoldError("TypeError", "INVALID_ARGUMENT", /options/));
    assert.throws(() => countTokens("x", {}), ctxfoldError("TypeError", "INVALID_ARGUMENT", /options\.encoding/));
    assert.throws(
      () => countTokens("x", { encoding: 200 }),
      ctxfoldError("TypeError", "INVALID_ARGUMENT", /options\.encoding/),
    );
    // Unknown keys are an error, not silence (a typo'd option would otherwise be ignored).
    assert.throws(
      () => countTokens("x", { encoding: "o200k_base", encodng: "cl100k_base" }),
      ctxfoldError("TypeError", "INVALID_ARGUMENT", /options\.encodng/),
    );
  });
});

describe("hasVocabulary and loadVocabulary", () => {
  test("both vocabularies are embedded", async () => {
    assert.equal(hasVocabulary("o200k_base"), true);
    assert.equal(hasVocabulary("cl100k_base"), true);
    assert.equal(await loadVocabulary("o200k_base"), undefined);
    assert.equal(await loadVocabulary("cl100k_base"), undefined);
  });

  test("unknown or malformed encodings are rejected", async () => {
    assert.throws(() => hasVocabulary("gpt2"), ctxfoldError("CtxfoldError", "UNKNOWN_ENCODING", /gpt2/));
    assert.throws(() => hasVocabulary(7), ctxfoldError("TypeError", "INVALID_ARGUMENT", /encoding/));
    await assert.rejects(loadVocabulary("gpt2"), ctxfoldError("CtxfoldError", "UNKNOWN_ENCODING"));
  });
});

describe("isCtxfoldError", () => {
  test("recognises what ctxfold throws and nothing else", () => {
    let thrown;
    try {
      countTokens("x", { encoding: "nope" });
    } catch (e) {
      thrown = e;
    }
    assert.equal(isCtxfoldError(thrown), true);
    for (const value of [
      new Error("x"),
      Object.assign(new Error("x"), { code: "ENOENT" }),
      { name: "CtxfoldError", code: "UNKNOWN_ENCODING", message: "not an Error" },
      "UNKNOWN_ENCODING",
      null,
      undefined,
      42,
    ]) {
      assert.equal(isCtxfoldError(value), false, String(value?.code ?? value));
    }
  });
});

describe("packaging", () => {
  test("require() from CommonJS loads the same API", () => {
    const require = createRequire(join(testsDir, "js", "cjs.cjs"));
    const cjs = require("ctxfold");
    assert.equal(cjs.countTokens("Hello, world!", o200k), 4);
    assert.equal(typeof cjs.loadVocabulary, "function");
    const lite = require("ctxfold/lite");
    assert.equal(typeof lite.loadVocabulary, "function");
    const aiSdk = require("ctxfold/ai-sdk");
    assert.equal(typeof aiSdk.compactionMiddleware, "function");
  });

  test("the exports map picks the entry for each runtime", async () => {
    const cases = [
      [[], "ctxfold", "node.js"],
      [["--conditions=workerd"], "ctxfold", "workerd.js"],
      [["--conditions=browser"], "ctxfold", "browser.js"],
      [["--conditions=worker"], "ctxfold", "browser.js"],
      [[], "ctxfold/lite", "lite/node.js"],
      [["--conditions=workerd"], "ctxfold/lite", "lite/workerd.js"],
      [["--conditions=browser"], "ctxfold/lite", "lite/browser.js"],
      [[], "ctxfold/ai-sdk", "ai-sdk/node.js"],
      [["--conditions=workerd"], "ctxfold/ai-sdk", "ai-sdk/workerd.js"],
      [["--conditions=browser"], "ctxfold/ai-sdk", "ai-sdk/browser.js"],
      [[], "ctxfold/vocab/o200k_base.ctxv", "vocab/o200k_base.ctxv"],
    ];
    for (const [flags, specifier, file] of cases) {
      const { stdout } = await run(
        process.execPath,
        [...flags, "--input-type=module", "--eval", `console.log(import.meta.resolve(${JSON.stringify(specifier)}))`],
        { cwd: testsDir },
      );
      assert.ok(stdout.trim().endsWith(`/pkg/${file}`), `${flags} ${specifier}: ${stdout.trim()}`);
    }
  });

  test("npm pack ships every file the exports map and types name", async () => {
    const manifest = JSON.parse(readFileSync(join(pkgDir, "package.json"), "utf8"));
    const { stdout } = await run("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], { cwd: pkgDir });
    const packed = new Set(JSON.parse(stdout)[0].files.map((f) => f.path));
    const targets = [manifest.types];
    (function collect(node) {
      if (typeof node === "string") targets.push(node);
      else for (const value of Object.values(node)) collect(value);
    })(manifest.exports);
    for (const target of targets) {
      if (target.includes("*")) continue;
      assert.ok(packed.has(target.replace(/^\.\//, "")), `${target} is not in the packed files`);
    }
    for (const file of ["dist/full/ctxfold_bg.wasm", "dist/lite/ctxfold_bg.wasm", "vocab/o200k_base.ctxv", "vocab/cl100k_base.ctxv"]) {
      assert.ok(packed.has(file), `${file} is not in the packed files`);
    }
  });

  test("npm pack ships no tsconfig.json (pkg-template's are the checkjs layer's)", async () => {
    const { stdout } = await run("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], { cwd: pkgDir });
    const packed = JSON.parse(stdout)[0].files.map((f) => f.path);
    assert.ok(packed.includes("lib/guard.js"), "the packed list is not the package's");
    assert.deepEqual(packed.filter((f) => /(^|\/)tsconfig[^/]*\.json$/.test(f)), []);
  });

  test("npm pack ships no file of the test corpus and no CC BY-NC material", async () => {
    const { stdout } = await run("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], { cwd: pkgDir });
    const packed = JSON.parse(stdout)[0].files.map((f) => f.path);
    const names = new Set(conversationFiles().map((f) => f.file));
    for (const file of packed) {
      assert.ok(!/corpus|locomo|\.traj/i.test(file) && !names.has(file.split("/").pop()), `${file} looks like a corpus file`);
    }
    // What each conversation says first (past its system message), searched for in every text
    // file: a copy of a corpus file under another name is caught too.
    const marks = conversationFiles().map(({ file }) => {
      const first = readConversation(file).messages.find((m) => m.role !== "system" && typeof m.content === "string" && m.content.length >= 40);
      return [file, first.content.slice(0, 80)];
    });
    for (const file of packed.filter((f) => /\.(m?js|cjs|ts|json|md|txt)$|(^|\/)LICENSE/.test(f))) {
      const text = readFileSync(join(pkgDir, file), "utf8");
      assert.doesNotMatch(text, /CC[ -]BY-NC|by-nc/i, `${file} carries CC BY-NC material or its notice`);
      for (const [conversation, mark] of marks) assert.ok(!text.includes(mark), `${file} holds text of ${conversation}`);
    }
  });

  test("the bin entry names a file in the package", () => {
    const manifest = JSON.parse(readFileSync(join(pkgDir, "package.json"), "utf8"));
    for (const target of Object.values(manifest.bin ?? {})) {
      assert.ok(existsSync(join(pkgDir, target)), `bin ${target} is missing`);
    }
  });
});
