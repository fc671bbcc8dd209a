// The conversation corpus in tests/corpus/ (see its README.md): where it is, and its
// conversations. The tests and the benchmarks that replay it find it here. It imports no
// package, so a benchmark can use it without tests/node_modules.
//
// Conversations are `conversations/<source>/<source>__<id>.json`, one folder per source beside
// its licence file; everything here lists them in file-name order.
import { readFileSync, readdirSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { usesTools } from "./compactor-suite.mjs";

const repoRoot = fileURLToPath(new URL("../../", import.meta.url));

/** The corpus directory: the one holding `conversations/` and `identifiers.json`. */
export const CORPUS_DIR = join(repoRoot, "tests/corpus");

/** A path as the repository names it (for what a benchmark prints or records). */
export const fromRepo = (path) => relative(repoRoot, path) || ".";

/**
 * Every conversation file of the corpus in `dir` as `{ name, file, path }`, in file-name
 * order (`file` is the file's name, `name` the same without `.json`).
 */
export function conversationFiles(dir = CORPUS_DIR) {
  const root = join(dir, "conversations");
  return readdirSync(root)
    .filter((source) => statSync(join(root, source)).isDirectory())
    .flatMap((source) =>
      readdirSync(join(root, source))
        .filter((f) => f.endsWith(".json"))
        .map((file) => ({ name: file.replace(/\.json$/, ""), file, path: join(root, source, file) })),
    )
    .sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
}

/** The path of the conversation file named `file` (`<source>__<id>.json`) in the corpus in `dir`. */
export function conversationPath(file, dir = CORPUS_DIR) {
  return join(dir, "conversations", file.replace(/\.json$/, "").split("__")[0], file);
}

/** The whole JSON of the conversation file named `file`. */
export function readConversation(file, dir = CORPUS_DIR) {
  return JSON.parse(readFileSync(conversationPath(file, dir), "utf8"));
}

/**
 * Every conversation as `{ name, file, messages }`, in file-name order. `filter(file)` keeps
 * some files only.
 */
export function conversations(filter = () => true) {
  return conversationFiles()
    .filter(({ file }) => filter(file))
    .map(({ name, file, path }) => ({ name, file, messages: JSON.parse(readFileSync(path, "utf8")).messages }));
}

/** The conversations that call tools. */
export function toolConversations() {
  return conversations().filter((c) => usesTools(c.messages));
}
