// `ctxfold replay` run as a user runs it, in a child process, on corpus conversations: every
// input within budget, its figures equal to what the store holds and to the shared replay
// suite's, a second run with --store going on without repeating a message, its failures one
// typed line, its progress on stderr only, an OpenAI-compatible summarizer on 127.0.0.1 (the
// LLM double).
import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import * as ctxfold from "ctxfold";
import { conversationPath } from "../support/corpus.mjs";
import { replay as suiteReplay } from "../support/compactor-suite.mjs";
import { startLlmServer, SUMMARY } from "../support/llm-server.mjs";
import { pkgDir } from "../support/paths.mjs";

const execFileP = promisify(execFile);
const bin = join(pkgDir, "bin", "ctxfold.mjs");
const { FileStore } = await import(pathToFileURL(join(pkgDir, "bin", "file-store.mjs")).href);

// 104 messages, 52 model calls, about 64k tokens: it compacts several times at 8k.
const CORPUS_FILE = conversationPath("mini-swe-agent-gemini-3-pro__django__django-15629.json");
const corpus = JSON.parse(readFileSync(CORPUS_FILE, "utf8"));

let dir;
const at = (name) => join(dir, name);
before(() => {
  dir = mkdtempSync(join(tmpdir(), "ctxfold-replay-"));
});
after(() => rmSync(dir, { recursive: true, force: true }));

/** Runs the CLI; resolves with its exit status and output whatever the status. */
async function cli(args, env = {}) {
  const { CTXFOLD_DEBUG, OPENAI_API_KEY, ...base } = process.env;
  try {
    const { stdout, stderr } = await execFileP(process.execPath, [bin, ...args], { env: { ...base, ...env }, timeout: 120_000, maxBuffer: 64 * 1024 * 1024 });
    return { status: 0, stdout, stderr };
  } catch (err) {
    if (typeof err.code !== "number") throw err;
    return { status: err.code, stdout: err.stdout, stderr: err.stderr };
  }
}

async function replayJson(args, env) {
  const r = await cli(["replay", ...args, "--json"], env);
  assert.equal(r.status, 0, `${r.stdout}${r.stderr}`);
  return { ...r, out: JSON.parse(r.stdout) };
}

/** What a Compactor over the --store directory reads back. */
async function storedIn(storeDir, id) {
  const compactor = new ctxfold.Compactor({ model: "gpt-4o", store: new FileStore(storeDir) });
  return { history: await compactor.history(id), records: await compactor.records(id), summaries: await compactor.summaries(id) };
}

const sum = (list, f) => list.reduce((a, x) => a + f(x), 0);

describe("a corpus conversation at an 8k window", () => {
  let run;
  let stored;
  const storeDir = () => at("store-8k");
  before(async () => {
    run = await replayJson([CORPUS_FILE, "--window", "8k", "--store", storeDir()]);
    stored = await storedIn(storeDir(), corpus.id);
  });

  test("every input is within its budget, and the turns are the model calls", () => {
    const o = run.out;
    assert.equal(o.window, 8000);
    assert.equal(o.turns, corpus.messages.filter((m, i) => i > 0 && m.role === "assistant").length + 1);
    assert.equal(o.perTurn.length, o.turns);
    assert.ok(o.perTurn.every((t) => t.input <= t.budget), "an input over its budget");
    assert.equal(o.pass, true);
    assert.deepEqual(o.overBudget, []);
    assert.equal(o.largestInput.tokens, Math.max(...o.perTurn.map((t) => t.input)));
    assert.ok(o.compactions >= 3, `${o.compactions} compactions`);
    // Without ctxfold most inputs would not have fitted: the test is not a trivial one.
    assert.ok(o.withoutCtxfold.turnsOverBudget > o.turns / 2);
  });

  test("its figures are what the store holds", () => {
    const o = run.out;
    assert.equal(o.compactions, stored.records.length);
    assert.equal(o.stored.compactions, stored.records.length);
    assert.equal(o.stored.summaries, stored.summaries.length);
    assert.deepEqual(
      o.records.map((r) => r.seq),
      stored.records.map((r) => r.seq),
    );
    assert.equal(o.identifiers.kept, sum(stored.records, (r) => r.keptIds.length));
    assert.equal(o.identifiers.lost, sum(stored.records, (r) => r.lostIds.length));
    assert.equal(o.fallbacks, stored.records.filter((r) => r.fallback !== null).length);
    assert.deepEqual(
      stored.history.map((e) => e.message),
      corpus.messages,
    );
    assert.equal(o.stored.complete, true);
  });

  test("the tokens sent add up: with ctxfold the inputs, without it the whole history each turn, counted again here", () => {
    const o = run.out;
    assert.equal(o.tokensSent.withCtxfold, sum(o.perTurn, (t) => t.input));
    const history = o.perTurn.map((t) => ctxfold.countMessages(corpus.messages.slice(0, t.messages), { model: "gpt-4o" }).total);
    assert.deepEqual(
      o.perTurn.map((t) => t.history),
      history,
    );
    assert.equal(o.tokensSent.withoutCtxfold, sum(history, (h) => h));
    assert.ok(o.tokensSent.withCtxfold < o.tokensSent.withoutCtxfold / 2);
  });

  test("it drives the Compactor as the shared replay suite does", async () => {
    const r = await suiteReplay(ctxfold, { store: new ctxfold.MemoryStore(), messages: corpus.messages, window: 8000 });
    assert.equal(run.out.turns, r.turns);
    assert.equal(run.out.compactions, r.compactions);
    assert.deepEqual(r.overBudget, []);
  });

  test("the table says the same; progress and one line per compaction go to stderr, not stdout", async () => {
    const text = await cli(["replay", CORPUS_FILE, "--window", "8k"]);
    assert.equal(text.status, 0, text.stderr);
    const o = run.out;
    assert.match(text.stdout, new RegExp(`turns +${o.turns} of ${o.turns} model calls`));
    assert.match(text.stdout, new RegExp(`compactions +${o.compactions} \\(${o.fallbacks} fallbacks\\)`));
    assert.match(text.stdout, /largest input +[\d,]+ of 6,976 input budget \(turn \d+\): PASS, never over/);
    assert.ok(text.stdout.includes(`${o.tokensSent.withCtxfold.toLocaleString("en-US")} with ctxfold, ${o.tokensSent.withoutCtxfold.toLocaleString("en-US")} without`));
    assert.match(text.stdout, /time per turn +median [\d.]+ ms · p95 [\d.]+ ms · max [\d.]+ ms/);
    assert.doesNotMatch(text.stdout, /Compacted|turn \d+\/\d+/);
    const notices = text.stderr.split("\n").filter((l) => /Compacted \(/.test(l));
    assert.equal(notices.length, o.compactions);
    for (const [k, line] of notices.entries()) {
      const r = o.records[k];
      assert.ok(line.startsWith(`turn ${r.turn}/${o.turns}: ${r.notice}, evicted ${r.evicted.length} message${r.evicted.length === 1 ? "" : "s"} (`), line);
      assert.match(r.notice, /^Compacted \([\d.]+k? -> [\d.]+k?\)$/);
    }
    // Not a terminal: a plain line at the first turn and each tenth of the way, ending at 100 %.
    const progress = text.stderr.split("\n").filter((l) => /^turn \d+\/\d+ \( *\d+ %\)/.test(l));
    assert.ok(progress.length >= 10 && progress.length <= 12, `${progress.length} progress lines`);
    assert.match(progress.at(-1), new RegExp(`^turn ${o.turns}/${o.turns} \\(100 %\\)`));
    assert.doesNotMatch(text.stderr, /\r|\x1b/);
    // --json: the same progress on stderr, one JSON object on stdout; --quiet: stderr silent.
    assert.match(run.stderr, /^turn 1\/52 \( +1 %\)/m);
    const quiet = await cli(["replay", CORPUS_FILE, "--window", "8k", "--quiet"]);
    assert.equal(quiet.stderr, "");
    assert.equal(quiet.stdout, text.stdout.replace(/median .*/, quiet.stdout.match(/median .*/)[0]));
  });
});

describe("--store: a second run goes on with the conversation", () => {
  test("up to --until K, then the rest, with no message twice; a third run has nothing to do", async () => {
    const storeDir = at("store-continue");
    const first = (await replayJson([CORPUS_FILE, "--window", "8k", "--store", storeDir, "--until", "20"])).out;
    assert.equal(first.replayed.turns, 20);
    assert.equal(first.replayed.to, 20);
    // Turn 20 was prepared, its reply not committed: the store holds what came before it.
    const calls = corpus.messages.flatMap((m, i) => (i > 0 && m.role === "assistant" ? [i] : []));
    const twentieth = calls[19];
    let stored = await storedIn(storeDir, corpus.id);
    assert.deepEqual(
      stored.history.map((e) => e.message),
      corpus.messages.slice(0, twentieth),
    );
    assert.equal(stored.records.length, first.compactions);

    const second = await replayJson([CORPUS_FILE, "--window", "8k", "--store", storeDir]);
    const o = second.out;
    assert.deepEqual(o.resumed, { storedMessages: twentieth, fromTurn: 21 });
    assert.match(second.stderr, new RegExp(`holds ${twentieth} of ${corpus.messages.length} messages of "${corpus.id}": replaying the rest, from turn 21 of 52`));
    assert.equal(o.replayed.from, 21);
    assert.equal(o.replayed.turns, 52 - 20);
    assert.ok(o.perTurn.every((t) => t.input <= t.budget));
    stored = await storedIn(storeDir, corpus.id);
    assert.deepEqual(
      stored.history.map((e) => e.message),
      corpus.messages,
    );
    assert.ok(stored.history.every((e, i) => e.index === i));
    assert.equal(stored.records.length, first.compactions + o.compactions);
    assert.equal(o.stored.compactions, stored.records.length);
    assert.equal(o.stored.complete, true);

    const third = await cli(["replay", CORPUS_FILE, "--window", "8k", "--store", storeDir]);
    assert.equal(third.status, 0, third.stderr);
    assert.match(third.stderr, new RegExp(`holds all ${corpus.messages.length} messages of "${corpus.id}": nothing to replay`));
    assert.match(third.stdout, /turns +0 of 52 model calls \(none replayed in this run\)/);
    assert.equal((await storedIn(storeDir, corpus.id)).history.length, corpus.messages.length);
  });

  test("a store whose conversation is not the start of FILE's is STORE_MISMATCH, and is left as it was", async () => {
    const storeDir = at("store-mismatch");
    await replayJson([CORPUS_FILE, "--window", "8k", "--store", storeDir, "--until", "3"]);
    const before = await storedIn(storeDir, corpus.id);
    const other = at("other.json");
    writeFileSync(other, JSON.stringify({ id: corpus.id, messages: [corpus.messages[0], { role: "user", content: "a different task" }] }));
    const r = await cli(["replay", other, "--store", storeDir]);
    assert.equal(r.status, 1);
    assert.equal(r.stdout, "");
    assert.match(r.stderr, /^ctxfold: --store .* holds conversation ".*", which is not the start of FILE's conversation: its message 1 differs from FILE's; give another --id or --store \(STORE_MISMATCH\)\n$/);
    assert.deepEqual(await storedIn(storeDir, corpus.id), before);
    // Under another id it is a conversation of its own.
    assert.equal((await replayJson([other, "--store", storeDir, "--id", "other"])).out.stored.complete, true);
    assert.deepEqual((await new FileStore(storeDir).list()).sort(), [corpus.id, "other"].sort());
  });
});

describe("failures are one typed line", () => {
  const conv = () => at("small.json");
  before(() => {
    writeFileSync(conv(), JSON.stringify([{ role: "user", content: "hi" }, { role: "assistant", content: "hello" }]));
    writeFileSync(at("empty.json"), "[]");
    writeFileSync(at("broken.json"), '[{"role": "user"');
    writeFileSync(at("a-file"), "x");
    writeFileSync(at("wizard.json"), JSON.stringify([{ role: "wizard", content: "abracadabra" }]));
  });

  const cases = () => [
    { args: ["replay"], status: 2, code: "USAGE", mentions: /replay needs a FILE/ },
    { args: ["replay", conv(), "--window", "8kb"], status: 2, code: "USAGE", mentions: /--window/ },
    { args: ["replay", conv(), "--until", "0"], status: 2, code: "USAGE", mentions: /--until needs a turn number/ },
    { args: ["replay", conv(), "--summarizer", "ftp://example.test/v1"], status: 2, code: "USAGE", mentions: /http:\/\/ or https:\/\// },
    { args: ["replay", conv(), "--api-key-env", "MY_KEY"], status: 2, code: "USAGE", mentions: /--api-key-env goes with --summarizer URL/ },
    { args: ["replay", conv(), "--state", "x.json"], status: 2, code: "USAGE", mentions: /replay does not take --state/ },
    { args: ["replay", at("missing.json")], status: 1, code: "READ_FAILED", mentions: /ENOENT/ },
    { args: ["replay", at("broken.json")], status: 1, code: "INVALID_JSON", mentions: /line 1, column/ },
    { args: ["replay", at("empty.json")], status: 1, code: "NOT_A_CONVERSATION", mentions: /no messages to replay/ },
    { args: ["replay", conv(), "--store", join(at("a-file"), "store")], status: 1, code: "WRITE_FAILED", mentions: /ENOTDIR/ },
    { args: ["replay", conv(), "--summarizer", "http://127.0.0.1:9/v1", "--api-key-env", "CTXFOLD_TEST_UNSET_KEY"], status: 1, code: "NO_API_KEY", mentions: /CTXFOLD_TEST_UNSET_KEY/ },
    { args: ["replay", at("wizard.json")], status: 1, code: "INVALID_MESSAGE", mentions: /wizard/ },
  ];

  test("with --json: one { error } with the code, exit 2 for usage and 1 for input", async () => {
    for (const c of cases()) {
      const r = await cli([...c.args, "--json"]);
      assert.equal(r.status, c.status, `${c.args.join(" ")}: ${r.stdout}`);
      const { error } = JSON.parse(r.stdout);
      assert.equal(error.code, c.code, `${c.args.join(" ")}: ${error.message}`);
      assert.match(error.message, c.mentions);
      assert.doesNotMatch(r.stderr, /^ {4}at /m);
    }
  });

  test("without --json: one ctxfold: line on stderr (and where the usage is, for a usage error), nothing on stdout", async () => {
    for (const c of cases()) {
      const r = await cli(c.args);
      assert.equal(r.status, c.status, c.args.join(" "));
      assert.equal(r.stdout, "");
      const lines = r.stderr.split("\n").filter((l) => l !== "");
      assert.match(lines[0], new RegExp(`^ctxfold: .+ \\(${c.code}\\)$`));
      assert.deepEqual(lines.slice(1), c.status === 2 ? ['run "ctxfold help" (or ctxfold replay --help) for usage'] : [], c.args.join(" "));
    }
  });

  test("an input that cannot fit names the turn; the library's code is kept", async () => {
    const big = at("big.json");
    writeFileSync(big, JSON.stringify([{ role: "user", content: "hello " }, { role: "assistant", content: "ok" }, { role: "user", content: "word ".repeat(9000) }]));
    const r = await cli(["replay", big, "--window", "8k", "--json"]);
    assert.equal(r.status, 1);
    const { error } = JSON.parse(r.stdout);
    assert.equal(error.code, "CONTEXT_OVERFLOW");
    assert.match(error.message, /^turn 2\/2 \(prepare of messages 2-2\): context overflow/);
  });
});

describe("--summarizer URL: an OpenAI-compatible API (the LLM double on 127.0.0.1)", () => {
  let llm;
  before(async () => {
    llm = await startLlmServer();
  });
  after(() => llm.close());

  test("every compaction's summary comes from it, with the key from $OPENAI_API_KEY or --api-key-env", async () => {
    for (const [k, [env, extra, key]] of [
      [{ OPENAI_API_KEY: "sk-test-default" }, [], "sk-test-default"],
      [{ OPENAI_API_KEY: "sk-not-this", LOCAL_LLM_KEY: "sk-test-named" }, ["--api-key-env", "LOCAL_LLM_KEY"], "sk-test-named"],
      [{}, [], null],
    ].entries()) {
      const { openai, requests } = llm.scenario([{ reply: "ok" }]);
      const storeDir = at(`store-llm-${k}`);
      const { out, stdout } = await replayJson([CORPUS_FILE, "--window", "8k", "--summarizer", `${openai}/chat/completions`, "--summarizer-model", "small-model", "--store", storeDir, ...extra], env);
      assert.ok(out.compactions >= 3);
      assert.equal(out.fallbacks, 0);
      assert.equal(out.pass, true);
      assert.equal(requests.length, out.compactions);
      for (const r of requests) {
        assert.equal(r.body.model, "small-model");
        assert.equal(r.headers.authorization, key === null ? undefined : `Bearer ${key}`);
      }
      assert.equal(out.summarizer, `summaries by small-model at ${openai}${key === null ? " (no key)" : ""}`);
      assert.ok(!stdout.includes("sk-test"), "the key is never printed");
      const { summaries } = await storedIn(storeDir, corpus.id);
      assert.ok(summaries.length >= out.compactions);
      assert.ok(summaries.every((s) => s.text.includes("The user asked about the billing service's retries.")), "a summary the double did not write");
    }
  });

  test("a summarizer that fails falls back, flagged, and the table counts the fallbacks", async () => {
    const { openai, requests } = llm.scenario([{ status: 400 }]);
    const { out } = await replayJson([CORPUS_FILE, "--window", "8k", "--summarizer", openai, "--quiet"]);
    assert.ok(requests.length > 0);
    assert.ok(out.fallbacks > 0);
    assert.equal(out.fallbacks, out.records.filter((r) => r.fallback !== null).length);
    assert.equal(out.pass, true);
  });
});

test("--summarizer PATH.mjs: the module's default export writes the summaries", async () => {
  const module = at("summarizer.mjs");
  writeFileSync(module, `export default async () => ${JSON.stringify(SUMMARY)};\n`);
  const storeDir = at("store-module");
  const { out } = await replayJson([CORPUS_FILE, "--window", "8k", "--summarizer", module, "--store", storeDir, "--quiet"]);
  assert.equal(out.summarizer, `summaries by ${module}`);
  assert.ok(out.compactions >= 3);
  assert.equal(out.fallbacks, 0);
  const { summaries } = await storedIn(storeDir, corpus.id);
  assert.ok(summaries.every((s) => s.text.includes("The user asked about the billing service's retries.")));
});

describe("the four formats", () => {
  const long = "x ".repeat(1500);
  test("Anthropic with a top-level system, Responses items, AI SDK messages: the stored history is the file's", async () => {
    const anthropic = {
      system: "You help.",
      messages: [
        { role: "user", content: `q1 ${long}` },
        { role: "assistant", content: [{ type: "tool_use", id: "t1", name: "bash", input: { cmd: "ls /srv" } }] },
        { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: long }] },
        { role: "assistant", content: `a1 ${long}` },
        { role: "user", content: "q2 what now?" },
      ],
    };
    const responses = [
      { role: "developer", content: "Be brief." },
      { role: "user", content: `q1 ${long}` },
      { type: "reasoning", id: "rs_1", summary: [] },
      { type: "function_call", call_id: "c1", name: "calc", arguments: "{}" },
      { type: "function_call_output", call_id: "c1", output: long },
      { type: "message", role: "assistant", content: [{ type: "output_text", text: `a1 ${long}` }] },
      { role: "user", content: "q2" },
    ];
    const sdk = [
      { role: "system", content: "s" },
      { role: "user", content: [{ type: "text", text: `q1 ${long}` }] },
      { role: "assistant", content: [{ type: "tool-call", toolCallId: "c1", toolName: "w", input: { city: "Paris" } }] },
      { role: "tool", content: [{ type: "tool-result", toolCallId: "c1", toolName: "w", output: { type: "text", value: long } }] },
      { role: "user", content: "q2" },
    ];
    // Turns: before each reply (Responses: a run of output items is one reply) and at the end.
    for (const [name, conversation, model, turns] of [
      ["anthropic", anthropic, "claude-sonnet-4-5", 3],
      ["responses", responses, "gpt-4o", 3],
      ["sdk", sdk, "gpt-4o", 2],
    ]) {
      const file = at(`${name}.json`);
      writeFileSync(file, JSON.stringify(conversation));
      const storeDir = at(`store-${name}`);
      const { out } = await replayJson([file, "--model", model, "--window", "6000", "--store", storeDir]);
      assert.equal(out.turns, turns, name);
      assert.equal(out.pass, true, name);
      assert.equal(out.stored.complete, true, name);
      const compactor = new ctxfold.Compactor({ model, store: new FileStore(storeDir) });
      const messages = Array.isArray(conversation) ? conversation : conversation.messages;
      assert.deepEqual(
        (await compactor.history(name)).map((e) => e.message),
        messages,
        name,
      );
      if (name === "anthropic") assert.equal((await compactor.prepare(name, [])).system, "You help.");
    }
  });
});
