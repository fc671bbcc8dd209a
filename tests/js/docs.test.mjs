// The user docs (README.md, docs/**/*.md) are checked as users read them:
//
// - every ```js block runs in Node as written (its `expr; // N` lines asserted), against a
//   double of the remote model on 127.0.0.1 (tests/support/model-double.mjs), unless the line
//   before it names the test that runs it elsewhere (<!-- check: page|workerd|ai-sdk FILE -->:
//   that test must read its blocks from the docs with checkedBy) or skips it with a reason
//   (<!-- check: skip REASON -->: counted and printed here);
// - ```sh blocks: every `ctxfold ...` line runs against the built package and must exit 0;
//   every script, file or folder a line names (`bash F`, `node F`, `cd D`, `npm ci` there,
//   `npm run S`, `cargo bench --bench B`) must exist; ```json parses; ```toml is parsed by
//   the docs layer (tests/docs/); ```text in docs/cli.md is what `ctxfold help` prints;
// - the README is at most 250 lines; every relative link of README.md and docs/*.md points to
//   a file (and a heading) that exists; no user doc names an internal reference;
// - the lists a doc keeps (error codes, report fields, the CLI's commands and options) name
//   everything the package has.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { repoRoot, testsDir } from "../support/paths.mjs";
import { codeBlocks, docFiles, where, withAssertions } from "../support/doc-blocks.mjs";
import { startModelDouble } from "../support/model-double.mjs";
import { startLlmServer, REPLY_MODEL } from "../support/llm-server.mjs";
import { KEY } from "../support/summarizer-cases.mjs";

const run = promisify(execFile);
const read = (file) => readFileSync(join(repoRoot, file), "utf8");
const CHECKS = new Set(["page", "workerd", "ai-sdk", "skip"]);
const LANGS = new Set(["js", "sh", "toml", "json", "text", "html", ""]);

let model;
let dir;

before(async () => {
  model = await startModelDouble();
  // Modules written here resolve "ctxfold" through tests/node_modules, as a user's would.
  dir = mkdtempSync(join(testsDir, ".docs-"));
});

after(async () => {
  await model.close();
  rmSync(dir, { recursive: true, force: true });
});

const env = () => ({
  ...process.env,
  OPENAI_BASE_URL: model.openai,
  OPENAI_API_KEY: "test-key",
  ANTHROPIC_BASE_URL: model.anthropic,
  ANTHROPIC_API_KEY: "test-key",
});

let modules = 0;
async function runModule(code, extraEnv = {}) {
  const file = join(dir, `block-${++modules}.mjs`);
  writeFileSync(file, withAssertions(code));
  return run(process.execPath, [file], { env: { ...env(), ...extraEnv }, timeout: 120_000, maxBuffer: 64 << 20 });
}

const blocks = docFiles().flatMap(codeBlocks);

test("every code block is of a kind this test knows, and every check line is one it knows", () => {
  for (const b of blocks) {
    assert.ok(LANGS.has(b.lang), `${where(b)}: a \`\`\`${b.lang} block: say how it is checked here`);
    if (b.check) {
      assert.ok(CHECKS.has(b.check.kind), `${where(b)}: unknown check "${b.check.kind}"`);
      assert.ok(b.check.arg.trim() !== "", `${where(b)}: a check line needs a test file or a reason`);
    }
  }
});

// Each ```js block without a check line, run in Node.
for (const b of blocks.filter((b) => b.lang === "js" && !b.check)) {
  test(`${where(b)} (${b.heading}) runs in Node`, async () => {
    await runModule(b.code);
  });
}

test("blocks run elsewhere are read by the test their check line names", () => {
  const elsewhere = blocks.filter((b) => b.check && b.check.kind !== "skip");
  assert.ok(elsewhere.length > 0);
  for (const b of elsewhere) {
    const file = b.check.arg.split(" ")[0];
    assert.ok(existsSync(join(repoRoot, file)), `${where(b)}: ${file} does not exist`);
    const source = read(file);
    assert.ok(source.includes(`checkedBy("${file}"`), `${where(b)}: ${file} does not read its blocks with checkedBy("${file}")`);
  }
});

test("skipped blocks are few, and each says why", (t) => {
  const skipped = blocks.filter((b) => b.check?.kind === "skip");
  for (const b of skipped) t.diagnostic(`skipped ${where(b)}: ${b.check.arg}`);
  console.log(`docs: ${skipped.length} code blocks skipped of ${blocks.length}`);
  assert.ok(skipped.length <= 3, `${skipped.length} skipped blocks: run them somewhere instead`);
});

test("```json blocks parse", () => {
  for (const b of blocks.filter((b) => b.lang === "json")) assert.doesNotThrow(() => JSON.parse(b.code), where(b));
});

// What a ```sh line names: `cd D` (then relative to D), `bash F`, `node F`, `npm ci` (a
// lockfile where it runs), `npm run S`, `cargo bench --bench B`; `ctxfold ...` lines run.
const scripts = JSON.parse(read("package.json")).scripts;
for (const b of blocks.filter((b) => b.lang === "sh")) {
  test(`${where(b)}: the shell block's commands exist (and its ctxfold lines run)`, async () => {
    let cwd = repoRoot;
    for (const raw of b.code.split("\n")) {
      const line = raw.replace(/(^|\s)#.*$/, "").trim();
      if (line === "") continue;
      for (let cmd of line.split(/&&|;/).map((c) => c.trim())) {
        cmd = cmd.replace(/^(\w+=\S*\s+)+/, ""); // CTXFOLD_FAST=1 ...
        const words = cmd.split(/\s+/);
        const at = (p) => join(cwd, p);
        if (words[0] === "cd") {
          cwd = at(words[1]);
          assert.ok(existsSync(cwd) && statSync(cwd).isDirectory(), `${where(b)}: no folder ${relative(repoRoot, cwd)}`);
        } else if ((words[0] === "bash" || words[0] === "node") && words[1] && !words[1].startsWith("-")) {
          assert.ok(existsSync(at(words[1])), `${where(b)}: ${words[0]} ${words[1]}: no such file`);
        } else if (words[0] === "npm" && words[1] === "ci") {
          assert.ok(existsSync(at("package-lock.json")), `${where(b)}: npm ci in ${relative(repoRoot, cwd)}: no package-lock.json`);
        } else if (words[0] === "npm" && words[1] === "run") {
          assert.ok(Object.hasOwn(scripts, words[2]), `${where(b)}: npm run ${words[2]}: no such script`);
        } else if (words[0] === "cargo" && words[1] === "bench") {
          assert.ok(existsSync(join(repoRoot, "benches", `${words[words.indexOf("--bench") + 1]}.rs`)), `${where(b)}: ${cmd}`);
        } else if (words[0] === "ctxfold") {
          const args = words.slice(1);
          const { stdout } = await run(process.execPath, [join(repoRoot, "pkg/bin/ctxfold.mjs"), ...args], { cwd, timeout: 120_000, maxBuffer: 64 << 20 });
          assert.ok(stdout.length > 0, `${where(b)}: ${cmd} printed nothing`);
          if (args.includes("--json")) assert.doesNotThrow(() => JSON.parse(stdout), `${where(b)}: ${cmd} --json`);
        }
      }
    }
  });
}

test("the README is a first read: at most 250 lines, the two commands at the top, the install line", () => {
  const readme = read("README.md");
  const lines = readme.split("\n").length - (readme.endsWith("\n") ? 1 : 0);
  assert.ok(lines <= 250, `README.md has ${lines} lines`);
  const first = codeBlocks("README.md")[0];
  assert.equal(first.lang, "sh");
  assert.match(first.code, /^bash scripts\/setup\.sh && bash scripts\/demo\.sh$/m);
  assert.match(first.code, /^bash scripts\/setup\.sh && bash scripts\/test\.sh$/m);
  assert.match(readme, /^npm install ctxfold$/m);
  assert.match(readme, /!\[[^\]]+\]\(docs\/images\/chat\.png\)/);
});

// The docs a user reads: the README, the guides, the changelog, the examples' READMEs.
function userDocs() {
  const files = [...docFiles()];
  if (existsSync(join(repoRoot, "CHANGELOG.md"))) files.push("CHANGELOG.md");
  if (existsSync(join(repoRoot, "examples"))) {
    for (const name of readdirSync(join(repoRoot, "examples"))) {
      if (existsSync(join(repoRoot, "examples", name, "README.md"))) files.push(`examples/${name}/README.md`);
    }
  }
  return files;
}

test("no user doc names an internal reference: an issue or pull request, a design input, a commit, a machine path", () => {
  const patterns = [
    [/(^|[\s(])#\d+\b/, "an issue number (#N)"],
    [/\bissues?\b/i, 'the word "issue"'],
    [/(?<!--)\bseeds?\b/i, 'a "seed" (design input)'],
    [/\bSPEC\b/, "the SPEC"],
    [/`[0-9a-f]{7,40}`/, "a commit hash in backticks"],
    [/\bcommit [0-9a-f]{7,40}\b/, "a commit hash"],
    [/\/work\//, "a machine path"],
  ];
  const found = [];
  for (const file of userDocs()) {
    read(file)
      .split("\n")
      .forEach((line, i) => {
        for (const [re, what] of patterns) if (re.test(line)) found.push(`${file}:${i + 1}: ${what}: ${line.trim().slice(0, 120)}`);
      });
  }
  assert.deepEqual(found, []);
});

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
const slug = (heading) =>
  heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-");

function anchors(file) {
  const out = new Set();
  let fence = false;
  for (const line of read(file).split("\n")) {
    if (/^\s*```/.test(line)) fence = !fence;
    const h = !fence && /^#{1,6} (.*)$/.exec(line);
    if (h) out.add(slug(h[1].trim()));
  }
  return out;
}

test("every relative link of README.md and docs/*.md points to a file (and a heading) that exists", () => {
  const broken = [];
  const files = ["README.md", ...readdirSync(join(repoRoot, "docs")).filter((n) => n.endsWith(".md")).map((n) => `docs/${n}`)];
  for (const file of files) {
    const text = read(file).replace(/^\s*```[\s\S]*?^\s*```/gm, "");
    for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:/i.test(target)) continue; // http:, https:, mailto:
      const [path, hash] = target.split("#");
      const resolved = path === "" ? file : relative(repoRoot, join(repoRoot, dirname(file), path));
      if (!existsSync(join(repoRoot, resolved))) {
        broken.push(`${file}: ${target} (no ${resolved})`);
        continue;
      }
      if (hash && resolved.endsWith(".md") && !anchors(resolved).has(hash)) broken.push(`${file}: ${target} (no heading #${hash} in ${resolved})`);
    }
  }
  assert.deepEqual(broken, []);
});

test("docs/errors.md names every error code: the package's (its .d.ts) and the command line's", async () => {
  const errors = read("docs/errors.md");
  const dts = read("pkg/dist/full/ctxfold.d.ts");
  // The union, to its last member (each member has a doc comment, which may hold a ";").
  const union = /export type CtxfoldErrorCode =[\s\S]*?\| "[A-Z_]+";/.exec(dts)[0];
  const codes = [...union.matchAll(/"([A-Z_]+)"/g)].map((m) => m[1]);
  assert.ok(codes.length >= 13, codes.join(" "));
  const [library, cli] = errors.split("## The command line");
  for (const code of codes) assert.ok(library.includes(`| \`${code}\` |`), `docs/errors.md's table lacks ${code}`);
  const { CLI_ERRORS } = await import(join(repoRoot, "pkg/bin/input.mjs"));
  for (const code of Object.keys(CLI_ERRORS)) assert.ok(cli.includes(`| \`${code}\` |`), `docs/errors.md's command-line table lacks ${code}`);
});

test("docs/compactor-and-stores.md's report paragraph names every field a report has", async () => {
  const { compact } = await import("ctxfold");
  const history = Array.from({ length: 40 }, (_, i) => ({ role: i % 2 ? "assistant" : "user", content: `turn ${i} `.repeat(400) }));
  const { report } = await compact(history, { model: "gpt-4o", contextWindow: 16000 });
  const guide = read("docs/compactor-and-stores.md");
  const paragraph = guide.slice(guide.indexOf("## The report"));
  for (const key of Object.keys(report)) assert.ok(paragraph.includes(`\`${key}\``), `the report paragraph lacks ${key}`);
});

/** The fields of a generated object type in the package's .d.ts, each with its doc comment's text. */
function declaredFields(dts, type) {
  const body = new RegExp(`export type ${type} = \\{([\\s\\S]*?)\\n\\};`).exec(dts);
  assert.ok(body, `the .d.ts declares no object type ${type}`);
  return new Map([...body[1].matchAll(/\/\*\*([\s\S]*?)\*\/\s*(\w+)\??:/g)].map((m) => [m[2], m[1].replace(/\s*\*\s*/g, " ").trim()]));
}

test("docs/compactor-and-stores.md's options table lists every option a Compactor has beyond compact()'s, with the defaults its declaration gives", async () => {
  const { Compactor, plan } = await import("ctxfold");
  const known = (make) => {
    try {
      make();
    } catch (e) {
      assert.ok(Array.isArray(e.known), String(e));
      return e.known;
    }
    assert.fail("no error");
  };
  // What each declares, as the core reads it: an unknown option's list of the known ones.
  const compactors = known(() => new Compactor({ model: "gpt-4o", noSuchOption: 1 }));
  const compacts = new Set(known(() => plan([], { model: "gpt-4o", noSuchOption: 1 })));
  const own = compactors.filter((k) => !compacts.has(k)).sort();
  const guide = read("docs/compactor-and-stores.md");
  const section = guide.slice(guide.indexOf("## Options"));
  const table = section.slice(section.indexOf("| option | default |"), section.indexOf("\n\n", section.indexOf("| option | default |")));
  const rows = new Map([...table.matchAll(/^\| `(\w+)` \| ([^|]*) \| ([^\n]*) \|$/gm)].map((m) => [m[1], { default: m[2].trim(), what: m[3] }]));
  assert.deepEqual([...rows.keys()].sort(), own, "the table's options are the Compactor's own");
  const dts = read("pkg/dist/full/ctxfold.d.ts");
  let compared = 0;
  for (const [name, doc] of declaredFields(dts, "CompactorOwnOptions")) {
    const given = /Default:? ([^.;]+)\./.exec(doc);
    if (given === null) continue;
    assert.equal(rows.get(name)?.default, given[1], `the table's default of ${name} is its declaration's`);
    compared++;
  }
  assert.ok(compared >= 3, `defaults compared: ${compared}`);
  for (const guard of declaredFields(dts, "GuardOptions").keys()) assert.ok(rows.get("guards").what.includes(guard), `the guards row lacks ${guard}`);
});

test("docs/cli.md names every command and option, and its synopsis is what ctxfold help prints", async () => {
  const cli = read("docs/cli.md");
  const { COMMANDS, OPTIONS } = await import(join(repoRoot, "pkg/bin/args.mjs"));
  for (const name of Object.keys(COMMANDS)) assert.ok(cli.includes(`ctxfold ${name}`), `docs/cli.md lacks ctxfold ${name}`);
  for (const option of Object.keys(OPTIONS)) assert.ok(cli.includes(option), `docs/cli.md lacks ${option}`);
  const { stdout } = await run(process.execPath, [join(repoRoot, "pkg/bin/ctxfold.mjs"), "help"]);
  const texts = codeBlocks("docs/cli.md").filter((b) => b.lang === "text");
  assert.equal(texts.length, 1);
  // Each synopsis line is a line of the help, in the help's order (its descriptions between).
  const help = stdout.split("\n");
  let at = 0;
  for (const line of texts[0].code.split("\n").filter((l) => l.trim() !== "")) {
    const found = help.indexOf(line, at);
    assert.ok(found >= 0, `docs/cli.md's synopsis line is not in \`ctxfold help\` (in that order): ${line}`);
    at = found + 1;
  }
});

// The guides' examples that say more than "it runs": what they sent and printed.

test("docs/summarizers.md: your own summarizer is called over HTTP, with the cap and the key", async () => {
  const [code] = codeBlocks("docs/summarizers.md").filter((b) => b.lang === "js" && b.heading === "Your own function").map((b) => b.code);
  const before = model.requests.length;
  const { stdout } = await runModule(code);
  assert.equal(stdout.trim(), "summarized null");
  const calls = model.requests.slice(before);
  assert.ok(calls.length >= 1 && calls.every((r) => r.summary), "the summarizer was called over HTTP");
  assert.equal(calls[0].url, "/v1/chat/completions");
  assert.equal(calls[0].headers.authorization, "Bearer test-key");
  assert.equal(calls[0].body.max_tokens, 1000); // 1/16 of the window
});

test("docs/summarizers.md: the built-in summarizers' examples run against both APIs, and a 401 shows no key", async () => {
  const [openaiBlock, anthropicBlock] = codeBlocks("docs/summarizers.md")
    .filter((b) => b.lang === "js" && b.heading === "The built-in HTTP summarizers")
    .map((b) => b.code);
  assert.match(openaiBlock, /openAISummarizer\(/);
  assert.match(anthropicBlock, /anthropicSummarizer\(/);
  const llm = await startLlmServer();
  try {
    const openai = llm.scenario([{ reply: "ok" }]);
    const first = await runModule(openaiBlock, { OPENAI_BASE_URL: openai.openai, OPENAI_API_KEY: KEY });
    assert.match(first.stdout, new RegExp(`^null ${REPLY_MODEL.openai} \\{ .*prompt_tokens: 1234`), first.stdout);
    assert.equal(openai.requests[0].headers.authorization, `Bearer ${KEY}`);

    const anthropic = llm.scenario([{ reply: "ok" }]);
    const second = await runModule(anthropicBlock, { ANTHROPIC_BASE_URL: anthropic.anthropic, ANTHROPIC_API_KEY: KEY });
    assert.match(second.stdout, new RegExp(`^${REPLY_MODEL.anthropic} \\{ .*input_tokens: 1234`), second.stdout);
    assert.equal(anthropic.requests[0].headers["x-api-key"], KEY);

    // The same block against a server that answers 401 and repeats the key in its body.
    const refusing = llm.scenario([{ echoKey: true }]);
    const third = await runModule(anthropicBlock, { ANTHROPIC_BASE_URL: refusing.anthropic, ANTHROPIC_API_KEY: KEY });
    assert.match(third.stderr, /^401 Anthropic API request to .* failed: HTTP 401; body: .*Incorrect API key provided: \[redacted\]/, third.stderr);
    assert.ok(!third.stderr.includes(KEY) && !third.stdout.includes(KEY), third.stderr);
  } finally {
    await llm.close();
  }
});

test("docs/compactor-and-stores.md: the store written there keeps the store contract", async () => {
  const [code] = codeBlocks("docs/compactor-and-stores.md").filter((b) => b.lang === "js" && b.heading === "Stores").map((b) => b.code);
  const check = `\nconst { checkStore } = await import("ctxfold/testing");\nconsole.log(JSON.stringify(await checkStore(() => store)));\n`;
  const results = JSON.parse((await runModule(code + check)).stdout);
  assert.ok(results.length >= 10);
  for (const r of results) assert.ok(r.ok, `${r.name}: ${r.error}`);
});

test("docs/compactor-and-stores.md: the Compactor example compacts a long chat with its summarizer, and says so", async () => {
  const [code] = codeBlocks("docs/compactor-and-stores.md")
    .filter((b) => b.lang === "js" && b.heading === "The Compactor: conversations that remember")
    .map((b) => b.code);
  const long = code
    .replace('model: "gpt-4o",\n  store', 'model: "gpt-4o",\n  contextWindow: 8000,\n  store')
    .replace(/^await send\("chat-42".*$/m, 'for (let i = 0; i < 30; i++) await send("chat-42", `message ${i}: ` + "about the billing service retries ".repeat(40));')
    .replace(/^.*\/\/ \d+.*$/gm, "");
  assert.notEqual(long, code);
  const before = model.requests.length;
  const { stdout } = await runModule(long);
  assert.match(stdout, /^Summarizing earlier messages\.\.\.\nCompacted \(\d+ -> \d+\)$/m, stdout);
  const calls = model.requests.slice(before);
  assert.ok(calls.some((r) => r.summary && r.body.model === "gpt-4o-mini"), "the summarizer was called over HTTP");
  const chats = calls.filter((r) => !r.summary);
  assert.equal(chats.length, 30);
  assert.ok(chats.at(-1).body.messages.length < 59, "the last call's input was compacted");
});

test("docs/prompt-caching.md: the commands example prints the status line it shows", async () => {
  const [code] = codeBlocks("docs/prompt-caching.md").filter((b) => b.lang === "js").map((b) => b.code);
  assert.match(code, /applyAnthropicCacheControl/);
  const { stdout } = await runModule(code);
  const shown = /\/\/ (Context: .*)$/m.exec(code)[1];
  assert.equal(stdout.trim(), shown);
});

test("docs/README.md, the index, lists every guide", () => {
  const index = read("docs/README.md");
  for (const name of readdirSync(join(repoRoot, "docs")).filter((n) => n.endsWith(".md") && n !== "README.md")) {
    assert.ok(index.includes(`](${name})`), `docs/README.md does not list ${name}`);
  }
});
