// Node: vocabulary sources may be file paths, file: URLs or http(s) URLs; with none,
// the file shipped in this package is read.
import { readFile } from "node:fs/promises";
import { fetchBytes } from "./vocabulary.js";

/** Where Node reads vocabularies from; `base` is the package root (a URL ending in "/"). */
export function nodeSources(base) {
  return {
    defaultSource: (encoding) => new URL(`vocab/${encoding}.ctxv`, base),
    fetchBytes: async (source) => {
      const url = source instanceof URL ? source : URL.canParse(source) ? new URL(source) : null;
      if (url && url.protocol !== "file:") return fetchBytes(url);
      return new Uint8Array(await readFile(url ?? source));
    },
  };
}
