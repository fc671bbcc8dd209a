// The face cannot hang, trap or lie: each defect reported from outside, reproduced
// through the package as a user imports it, now answered with a typed error or the right
// result, and the module working for the next call.
import { test, describe } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { clearCaches, compact, countMessages, countTokens, isCtxfoldError, plan, registerModel, getModel, Compactor } from "ctxfold";
import { pkgDir } from "../support/paths.mjs";

const gpt = { model: "gpt-4o" };

/** An assert.throws / rejects matcher for ctxfold's errors. */
function typed(name, code, messagePart) {
  return (err) => {
    assert.ok(err instanceof Error, `expected an Error, got ${err}`);
    assert.equal(err.name, name, err.message);
    assert.equal(err.code, code, err.message);
    assert.equal(isCtxfoldError(err), true);
    if (messagePart) assert.match(err.message, messagePart);
    return true;
  };
}

function good() {
  return [
    { role: "system", content: "You are terse." },
    { role: "user", content: "What is in /etc/hosts?" },
    { role: "assistant", content: "127.0.0.1 localhost" },
  ];
}

/** A conversation long enough to compact at an 8,000-token window. */
function long(turns = 30) {
  const h = [{ role: "system", content: "You are an SRE assistant." }];
  for (let i = 0; i < turns; i++) {
    h.push({ role: "user", content: `Turn ${i}: why did deploy ${i} of payments-api fail? `.repeat(20) });
    h.push({ role: "assistant", content: `Deploy ${i} failed on db-prod-1:5432 with ECONNREFUSED. `.repeat(20) });
  }
  h.push({ role: "user", content: "And now?" });
  return h;
}

describe("one bad message does not poison good ones (defect 2)", () => {
  const cyclic = {};
  cyclic.self = cyclic;
  const bad = {
    cycle: { role: "assistant", content: [{ type: "tool-call", toolCallId: "c", toolName: "t", input: cyclic }] },
    bigint: { role: "assistant", content: [{ type: "tool-call", toolCallId: "c", toolName: "t", input: { n: 10n } }] },
    getter: {
      role: "user",
      get content() {
        throw new Error("boom");
      },
    },
  };
  for (const [kind, message] of Object.entries(bad)) {
    test(`a message with a ${kind}: a typed error, then the good messages work (count, plan, compact)`, async () => {
      const messages = good();
      const before = countMessages(messages, gpt).total;
      assert.throws(() => countMessages([...messages, message], gpt), typed("TypeError", "INVALID_ARGUMENT"));
      assert.equal(countMessages(messages, gpt).total, before);
      assert.throws(() => plan([...messages, message], gpt), typed("TypeError", "INVALID_ARGUMENT"));
      assert.equal(plan(messages, gpt).tokens.total, before);
      await assert.rejects(compact([...messages, message], gpt), typed("TypeError", "INVALID_ARGUMENT"));
      assert.equal((await compact(messages, gpt)).report.tokensBefore, before);
      clearCaches();
      assert.equal(countMessages(messages, gpt).total, before);
    });
  }
});

describe("lone surrogates (defect 10)", () => {
  test("a message holding one counts as its text does, U+FFFD in its place", () => {
    assert.equal(countTokens("x\ud83d", { encoding: "o200k_base" }), countTokens("x\ufffd", { encoding: "o200k_base" }));
    const lone = [{ role: "user", content: "x\ud83d and \udc00 alone" }];
    const replaced = [{ role: "user", content: "x\ufffd and \ufffd alone" }];
    assert.equal(countMessages(lone, gpt).total, countMessages(replaced, gpt).total);
    // In a key, in an Anthropic system prompt; and a pair stays a pair.
    assert.equal(
      countMessages({ system: "s\ud800", messages: [{ role: "user", content: "a", ["k\udfff"]: 1 }] }, gpt).total,
      countMessages({ system: "s\ufffd", messages: [{ role: "user", content: "a", ["k\ufffd"]: 1 }] }, gpt).total,
    );
    assert.equal(countMessages([{ role: "user", content: "🙂" }], gpt).total, countMessages([{ role: "user", content: "\ud83d\ude42" }], gpt).total);
    // Escaped text that only looks like an escape is text.
    const text = [{ role: "user", content: "a literal \\ud83d in a path" }];
    assert.ok(countMessages(text, gpt).total > 0);
  });
});

describe("hostile and changing inputs (defect 12)", () => {
  const throwing = () =>
    new Proxy(
      { model: "gpt-4o" },
      {
        ownKeys() {
          throw new Error("ownKeys trap");
        },
      },
    );

  test("an options Proxy whose ownKeys throws is a TypeError, and compact rejects (never an uncaught exception)", async () => {
    for (const call of [() => countTokens("x", throwing()), () => countMessages(good(), throwing()), () => plan(good(), throwing())]) {
      assert.throws(call, typed("TypeError", "INVALID_ARGUMENT", /ownKeys trap/));
    }
    await assert.rejects(compact(good(), throwing()), typed("TypeError", "INVALID_ARGUMENT", /ownKeys trap/));
    const revoked = Proxy.revocable({}, {});
    revoked.revoke();
    assert.throws(() => countMessages(good(), revoked.proxy), typed("TypeError", "INVALID_ARGUMENT"));
    assert.throws(() => countMessages(revoked.proxy, gpt), typed("TypeError", "INVALID_ARGUMENT"));
    assert.equal(countMessages(good(), gpt).total > 0, true);
  });

  test("compact sends back the messages of the moment it was called, whatever the caller does meanwhile", async () => {
    const history = long();
    const expected = await compact([...history], { model: "gpt-4o", contextWindow: 8000, summarizer: async () => SUMMARY });
    const result = await compact(history, {
      model: "gpt-4o",
      contextWindow: 8000,
      summarizer: async () => {
        history.shift();
        history.length = 3;
        return SUMMARY;
      },
    });
    assert.ok(result.messages.every((m) => m !== undefined), "no undefined entries");
    assert.deepEqual(result.messages, expected.messages);
  });

  test("an envelope object changed meanwhile is sent back as it was", async () => {
    const request = { system: "You help.", max_tokens: 100, messages: long().slice(1) };
    const result = await compact(request, {
      model: "claude-sonnet-4-5",
      contextWindow: 8000,
      summarizer: async () => {
        request.system = "changed";
        delete request.max_tokens;
        return SUMMARY;
      },
    });
    assert.equal(result.messages.system, "You help.");
    assert.equal(result.messages.max_tokens, 100);
  });
});

const SUMMARY = "## Conversation Summary\n- **Decisions:** None\n- **Entities:** payments-api\n- **Facts:** Deploys failed.\n- **Open Items:** None";

describe("smaller defects (defect 7)", () => {
  test("contextWindow: NaN says NaN, not null", () => {
    for (const bad of [NaN, Infinity, -Infinity]) {
      assert.throws(() => plan(good(), { model: "gpt-4o", contextWindow: bad }), typed("RangeError", "OUT_OF_RANGE", new RegExp(`options\\.contextWindow.*${String(bad)}`)));
    }
  });

  test("{ contextWindow } alone is enough: counted as an unknown model is", () => {
    const p = plan(good(), { contextWindow: 4096 });
    assert.equal(p.budget.window, 4096);
    const unknown = plan(good(), { model: "some-model-nobody-knows", contextWindow: 4096 });
    assert.equal(p.tokens.total, unknown.tokens.total);
  });

  test("a model whose window ctxfold cannot know needs contextWindow: UNKNOWN_MODEL, not a 200,000-token guess", async () => {
    const typo = typed("CtxfoldError", "UNKNOWN_MODEL", /unknown model "gpt4o".*did you mean "gpt-4o".*contextWindow/);
    assert.throws(() => plan(good(), { model: "gpt4o" }), typo);
    await assert.rejects(compact(good(), { model: "gpt4o" }), typo);
    assert.throws(() => new Compactor({ model: "gpt4o" }), typo);
    // An Ollama name:tag: the window is the server's setting, whatever the table says of Llama 3.1.
    const local = typed("CtxfoldError", "UNKNOWN_MODEL", /"llama3\.1:8b" is served by Ollama.*contextWindow/);
    assert.throws(() => plan(good(), { model: "llama3.1:8b" }), local);
    assert.throws(() => new Compactor({ model: "llama3.1:8b" }), local);
    // getModel still says what the table has; a window, or a registration, is the fix.
    assert.equal(getModel("gpt4o").known, false);
    assert.equal(plan(good(), { model: "gpt4o", contextWindow: 8192 }).budget.window, 8192);
    assert.equal(plan(good(), { model: "llama3.1:8b", contextWindow: 8192 }).budget.window, 8192);
    registerModel({ id: "robustness-local:7b", contextWindow: 16384 });
    assert.equal(plan(good(), { model: "robustness-local:7b" }).budget.window, 16384);
  });

  test("reserved output is at most half the window, as documented", () => {
    assert.equal(plan(good(), { model: "gpt-4o", contextWindow: 1100 }).budget.reservedOutput, 550);
  });
});

describe("a trap restarts the module (defect 4)", () => {
  const raw = () => import(pathToFileURL(join(pkgDir, "dist", "full", "ctxfold.js")).href);

  test("after a panic that left state held: the panic is on the console, one typed INTERNAL error, then every call works, registered models kept", async () => {
    registerModel({ id: "trap-test-model", contextWindow: 12345 });
    const messages = good();
    const before = countMessages(messages, gpt).total;
    const bindings = await raw();
    // A bug in the middle of a call: the panic's message goes to the console, the instance
    // traps holding the message store. (Called unguarded here, as no public call panics.)
    const logged = [];
    const error = console.error;
    console.error = (...args) => logged.push(args.join(" "));
    try {
      assert.throws(() => bindings.__ctxfoldTestPanic("a test panic"), WebAssembly.RuntimeError);
      // The next call through the package trips over the held store: it makes the module
      // afresh and says so with a typed error, never a bare RuntimeError.
      assert.throws(() => countMessages(messages, gpt), typed("CtxfoldError", "INTERNAL", /restarted/));
    } finally {
      console.error = error;
    }
    assert.ok(logged.some((l) => l.includes("a test panic")), `the panic is on the console: ${logged}`);
    // From then on everything works, as before, with what was registered.
    assert.equal(countMessages(messages, gpt).total, before);
    assert.equal(getModel("trap-test-model").contextWindow, 12345);
    const result = await compact(long(), { model: "gpt-4o", contextWindow: 8000 });
    assert.equal(result.contextStatus, "summarized");
  });

  test("a compaction in flight when the module restarts rejects with INTERNAL (never hangs), and the module works", async () => {
    const bindings = await raw();
    const { guard } = await import(pathToFileURL(join(pkgDir, "lib", "guard.js")).href);
    // A trap in another call while this compaction waits for its summarizer.
    const trap = guard(bindings).wrap(bindings.__ctxfoldTestPanic);
    const error = console.error;
    console.error = () => {};
    let outcome;
    try {
      outcome = await Promise.race([
        compact(long(), {
          model: "gpt-4o",
          contextWindow: 8000,
          summarizer: async () => {
            assert.throws(() => trap("a panic elsewhere"), typed("CtxfoldError", "INTERNAL"));
            return SUMMARY;
          },
        }).then(
          (r) => ({ resolved: r }),
          (e) => ({ rejected: e }),
        ),
        new Promise((resolve) => setTimeout(() => resolve({ hung: true }), 10_000)),
      ]);
    } finally {
      console.error = error;
    }
    assert.ok(!outcome.hung, "compact settled");
    assert.ok(outcome.rejected, "its compaction belonged to the old instance");
    typed("CtxfoldError", "INTERNAL", /restarted while this call/)(outcome.rejected);
    assert.ok(countMessages(good(), gpt).total > 0);
    assert.equal((await compact(long(), { model: "gpt-4o", contextWindow: 8000 })).contextStatus, "summarized");
  });

  test("the guard: a trap in a call makes a fresh instance and a typed INTERNAL error; if none can be made, MODULE_POISONED", async () => {
    const { guard } = await import(pathToFileURL(join(pkgDir, "lib", "guard.js")).href);
    let resets = 0;
    const internal = (reason) => Object.assign(new Error(`internal error: ${reason}`), { name: "CtxfoldError", code: "INTERNAL" });
    const fake = {
      __wbg_reset_state: () => resets++,
      __ctxfoldInternalError: internal,
    };
    const g = guard(fake);
    const trapping = g.wrap(() => {
      throw new WebAssembly.RuntimeError("unreachable");
    });
    const fine = g.wrap((x) => x * 2);
    assert.throws(trapping, (e) => e.code === "INTERNAL" && e.cause instanceof WebAssembly.RuntimeError);
    assert.equal(resets, 1);
    assert.equal(fine(21), 42);
    // Other errors pass through untouched, and restart nothing.
    const typeError = new TypeError("bad argument");
    assert.throws(g.wrap(() => { throw typeError; }), (e) => e === typeError);
    assert.equal(resets, 1);
    // A module that cannot be made again: every later call is refused, typed.
    const broken = guard({
      __wbg_reset_state: () => {
        throw new RangeError("out of memory");
      },
      __ctxfoldInternalError: internal,
    });
    assert.throws(broken.wrap(() => { throw new WebAssembly.RuntimeError("unreachable"); }), (e) => e.code === "MODULE_POISONED" && e.name === "CtxfoldError" && isCtxfoldError(e));
    assert.throws(broken.wrap(() => 1), (e) => e.code === "MODULE_POISONED");
  });
});

describe("vocabularies (defect 13)", () => {
  test("the shipped files' SHA-256 sums are shipped beside them", () => {
    const sums = readFileSync(join(pkgDir, "vocab", "SHA256SUMS"), "utf8");
    assert.match(sums, /^[0-9a-f]{64} {2}o200k_base\.ctxv$/m);
    assert.match(sums, /^[0-9a-f]{64} {2}cl100k_base\.ctxv$/m);
  });
});

describe("memory (defect 14)", () => {
  test("many synchronous calls on fresh arrays: the message store stays bounded, and clearCaches empties it", async () => {
    const { initSync } = await import(pathToFileURL(join(pkgDir, "dist", "full", "ctxfold.js")).href);
    const memory = () => initSync().memory.buffer.byteLength;
    const fresh = (k) => [
      { role: "system", content: "You are terse." },
      ...Array.from({ length: 8 }, (_, i) => ({ role: i % 2 ? "assistant" : "user", content: `call ${k} message ${i}: deploy ${k * 8 + i} failed` })),
    ];
    countMessages(fresh(-1), gpt);
    const start = memory();
    for (let k = 0; k < 4000; k++) countMessages(fresh(k), gpt);
    // Unbounded, this kept every message's JSON (about 2.4 KB each: 86 MB here).
    assert.ok(memory() - start < 16 * 2 ** 20, `grew ${((memory() - start) / 2 ** 20).toFixed(1)} MB`);
    clearCaches();
    assert.ok(countMessages(fresh(0), gpt).total > 0);
  });
});
