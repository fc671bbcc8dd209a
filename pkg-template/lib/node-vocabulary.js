// Node: vocabulary sources may be file paths, file: URLs or http(s) URLs; with none,
// the file shipped in this package is read.
import { readFile } from "node:fs/promises";
import { vocabularyLoader, fetchBytes } from "./vocabulary.js";

export function nodeLoader(install, has) {
  return vocabularyLoader({
    install,
    has,
    defaultSource: (encoding) => new URL(`../vocab/${encoding}.ctxv`, import.meta.url),
    fetchBytes: async (source) => {
      const url = source instanceof URL ? source : URL.canParse(source) ? new URL(source) : null;
      if (url && url.protocol !== "file:") return fetchBytes(url);
      return new Uint8Array(await readFile(url ?? source));
    },
  });
}
