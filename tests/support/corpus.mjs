// The shared corpus (../shared/corpus beside the repository, $CTXFOLD_CORPUS, or
// /work/shared/corpus), read where it lies and never copied into the repository: where it is,
// and its conversations. The tests and the benchmarks that replay it find it here. It imports
// no package, so a benchmark can use it without tests/node_modules.
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { usesTools } from "./compactor-suite.mjs";

const repoRoot = fileURLToPath(new URL("../../", import.meta.url));

/** The corpus directory (the one holding `conversations/`), or null where there is none. */
export function findCorpus() {
  return (
    [process.env.CTXFOLD_CORPUS, join(repoRoot, "../shared/corpus"), "/work/shared/corpus"].find(
      (d) => d && existsSync(join(d, "conversations")),
    ) ?? null
  );
}

/** The corpus directory; an error that says how to point at it where there is none. */
export function corpusDir() {
  const dir = findCorpus();
  if (dir === null) throw new Error("the corpus was not found: set CTXFOLD_CORPUS to the directory holding conversations/");
  return dir;
}

/**
 * Every conversation as `{ name, file, messages }`, in file-name order (`name` is the file's
 * name without `.json`). `filter(file)` keeps some files only.
 */
export function conversations(filter = () => true) {
  const dir = join(corpusDir(), "conversations");
  return readdirSync(dir)
    .filter((f) => f.endsWith(".json") && filter(f))
    .sort()
    .map((file) => ({ name: file.replace(/\.json$/, ""), file, messages: JSON.parse(readFileSync(join(dir, file), "utf8")).messages }));
}

/** The conversations that call tools. */
export function toolConversations() {
  return conversations().filter((c) => usesTools(c.messages));
}
