// The lite entry ("ctxfold/lite", no vocabulary inside the wasm) in Node. Vocabularies
// are process-wide and load once, so the sources that each need a not-yet-loaded
// vocabulary run in fresh Node processes (tests/support/fresh-node.mjs); the rest runs
// here, in order.
import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { countTokens, countMessages, plan, compact, hasVocabulary, loadVocabulary, isCtxfoldError } from "ctxfold/lite";
import { fixture, pkgDir } from "../support/paths.mjs";
import { runFresh, describeError } from "../support/fresh-node.mjs";
import { startStaticServer } from "../support/static-server.mjs";

const vocabPath = (encoding) => join(pkgDir, "vocab", `${encoding}.ctxv`);
const o200k = { encoding: "o200k_base" };
const cl100k = { encoding: "cl100k_base" };

function expectError(name, code) {
  return (err) => {
    assert.ok(err instanceof Error, `expected an Error, got ${err}`);
    assert.equal(err.name, name, err.message);
    assert.equal(err.code, code, err.message);
    assert.equal(isCtxfoldError(err), true);
    return true;
  };
}

function assertFixtureCounts(encoding) {
  for (const { name, text, expected } of fixture.cases) {
    assert.equal(countTokens(text, { encoding }), expected[encoding], `${name} ${encoding}`);
  }
}

describe("in one process, in order", () => {
  test("nothing is loaded at first: VOCABULARY_NOT_LOADED", () => {
    assert.equal(hasVocabulary("o200k_base"), false);
    assert.equal(hasVocabulary("cl100k_base"), false);
    assert.throws(() => countTokens("hello", o200k), expectError("CtxfoldError", "VOCABULARY_NOT_LOADED"));
    assert.throws(() => countTokens("hello", cl100k), /loadVocabulary/);
  });

  test("a model whose encoding is not loaded: VOCABULARY_NOT_LOADED, unless allowEstimate", async () => {
    // It silently estimated before: a gpt-4o count that is not exact must be asked for.
    const messages = [{ role: "user", content: "What is in /etc/hosts?" }];
    assert.throws(() => countTokens("hello", { model: "gpt-4o" }), expectError("CtxfoldError", "VOCABULARY_NOT_LOADED"));
    assert.throws(() => countMessages(messages, { model: "gpt-4o" }), /allowEstimate/);
    assert.throws(() => plan(messages, { model: "gpt-4o" }), expectError("CtxfoldError", "VOCABULARY_NOT_LOADED"));
    await assert.rejects(compact(messages, { model: "gpt-4o" }), expectError("CtxfoldError", "VOCABULARY_NOT_LOADED"));
    assert.ok(countTokens("hello", { model: "gpt-4o", allowEstimate: true }) > 0);
    assert.equal(countMessages(messages, { model: "gpt-4o", allowEstimate: true }).method, "estimate");
    // A model ctxfold only ever estimates needs no vocabulary.
    assert.equal(countMessages(messages, { model: "claude-sonnet-4-5" }).method, "estimate");
  });

  test("argument errors come before the missing vocabulary", () => {
    assert.throws(() => countTokens(1, o200k), expectError("TypeError", "INVALID_ARGUMENT"));
    assert.throws(() => countTokens("x", { encoding: "r50k_base" }), expectError("CtxfoldError", "UNKNOWN_ENCODING"));
  });

  test("the other encoding's file is INVALID_VOCABULARY", async () => {
    await assert.rejects(loadVocabulary("cl100k_base", vocabPath("o200k_base")), (err) => {
      expectError("CtxfoldError", "INVALID_VOCABULARY")(err);
      assert.match(err.message, /o200k_base/);
      return true;
    });
    assert.equal(hasVocabulary("cl100k_base"), false);
  });

  test("corrupt bytes are INVALID_VOCABULARY and install nothing", async () => {
    const corrupt = new Uint8Array(readFileSync(vocabPath("cl100k_base")));
    corrupt[corrupt.length >> 1] ^= 0x55;
    await assert.rejects(loadVocabulary("cl100k_base", corrupt), expectError("CtxfoldError", "INVALID_VOCABULARY"));
    const truncated = readFileSync(vocabPath("cl100k_base")).subarray(0, 1000);
    await assert.rejects(loadVocabulary("cl100k_base", truncated), expectError("CtxfoldError", "INVALID_VOCABULARY"));
    await assert.rejects(
      loadVocabulary("cl100k_base", new TextEncoder().encode("not a vocabulary")),
      expectError("CtxfoldError", "INVALID_VOCABULARY"),
    );
    assert.equal(hasVocabulary("cl100k_base"), false);
  });

  test("a missing file and bad sources are rejected", async () => {
    // A file that cannot be read is a typed error that names it, the system's error as its cause.
    const missing = join(pkgDir, "vocab", "missing.ctxv");
    await assert.rejects(loadVocabulary("cl100k_base", missing), (err) => {
      expectError("CtxfoldError", "VOCABULARY_UNAVAILABLE")(err);
      assert.ok(err.message.includes(missing) && err.message.includes("ENOENT"), err.message);
      assert.equal(err.cause?.code, "ENOENT");
      return true;
    });
    // A Windows path is a path, not a URL with the drive letter for its scheme.
    await assert.rejects(loadVocabulary("cl100k_base", "C:\\ctxfold\\missing.ctxv"), (err) => {
      expectError("CtxfoldError", "VOCABULARY_UNAVAILABLE")(err);
      assert.equal(err.cause?.code, "ENOENT");
      return true;
    });
    // A URL nothing answers at: the same, never a bare TypeError.
    await assert.rejects(loadVocabulary("cl100k_base", "http://127.0.0.1:9/o200k_base.ctxv"), expectError("CtxfoldError", "VOCABULARY_UNAVAILABLE"));
    await assert.rejects(loadVocabulary("cl100k_base", 42), expectError("TypeError", "INVALID_ARGUMENT"));
    await assert.rejects(loadVocabulary("cl100k_base", null), expectError("TypeError", "INVALID_ARGUMENT"));
    await assert.rejects(loadVocabulary("p50k_base"), expectError("CtxfoldError", "UNKNOWN_ENCODING"));
  });

  test("loadVocabulary() with no source reads the file shipped in the package", async () => {
    await loadVocabulary("o200k_base");
    assert.equal(hasVocabulary("o200k_base"), true);
    assert.equal(hasVocabulary("cl100k_base"), false);
    assertFixtureCounts("o200k_base");
  });

  test("loadVocabulary with a file path", async () => {
    await loadVocabulary("cl100k_base", vocabPath("cl100k_base"));
    assert.equal(hasVocabulary("cl100k_base"), true);
    assertFixtureCounts("cl100k_base");
  });

  test("loading again is a no-op", async () => {
    await loadVocabulary("o200k_base", vocabPath("o200k_base"));
    await loadVocabulary("o200k_base");
    assert.equal(countTokens("Hello, world!", o200k), 4);
  });
});

describe("each source in a fresh process", () => {
  let server;
  before(async () => {
    server = await startStaticServer(pkgDir);
  });
  after(async () => {
    await server?.close();
  });

  /** Loads cl100k_base from `sourceExpr` (a JS expression) in a new Node process. */
  async function loadIn(sourceExpr) {
    return runFresh(`
      import { readFileSync } from "node:fs";
      import { countTokens, hasVocabulary, loadVocabulary } from "ctxfold/lite";
      const source = ${sourceExpr};
      try {
        await loadVocabulary("cl100k_base", source);
        const text = ${JSON.stringify(fixture.cases.map((c) => c.text).join("\n"))};
        console.log(JSON.stringify({ has: hasVocabulary("cl100k_base"), o200k: hasVocabulary("o200k_base"), count: countTokens(text, { encoding: "cl100k_base" }) }));
      } catch (e) {
        console.log(JSON.stringify((${describeError})(e)));
      }
    `);
  }

  const file = vocabPath("cl100k_base");
  const allText = fixture.cases.map((c) => c.text).join("\n");
  let expected;
  before(async () => {
    // The reference: the same text counted here, after a load in this process.
    await loadVocabulary("cl100k_base", file);
    expected = { has: true, o200k: false, count: countTokens(allText, cl100k) };
  });

  test("a file: URL object", async () => {
    assert.deepEqual(await loadIn(`new URL(${JSON.stringify(pathToFileURL(file).href)})`), expected);
  });

  test("a file: URL string", async () => {
    assert.deepEqual(await loadIn(JSON.stringify(pathToFileURL(file).href)), expected);
  });

  test("a Uint8Array", async () => {
    assert.deepEqual(await loadIn(`new Uint8Array(readFileSync(${JSON.stringify(file)}))`), expected);
  });

  test("a Buffer", async () => {
    assert.deepEqual(await loadIn(`readFileSync(${JSON.stringify(file)})`), expected);
  });

  test("an ArrayBuffer", async () => {
    assert.deepEqual(await loadIn(`new Uint8Array(readFileSync(${JSON.stringify(file)})).buffer`), expected);
  });

  test("a Response", async () => {
    assert.deepEqual(await loadIn(`new Response(readFileSync(${JSON.stringify(file)}))`), expected);
  });

  test("an http URL", async () => {
    assert.deepEqual(await loadIn(JSON.stringify(`${server.url}/vocab/cl100k_base.ctxv`)), expected);
    assert.ok(server.requests.includes("/vocab/cl100k_base.ctxv"));
  });

  test("an http URL that answers 404 is VOCABULARY_UNAVAILABLE", async () => {
    const result = await loadIn(JSON.stringify(`${server.url}/vocab/nothing-here.ctxv`));
    assert.equal(result.threw, true, JSON.stringify(result));
    assert.equal(result.name, "CtxfoldError");
    assert.equal(result.code, "VOCABULARY_UNAVAILABLE");
    assert.match(result.message, /404/);
  });
});
