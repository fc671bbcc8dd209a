// Node: reading the WebAssembly module beside the package, and where vocabularies come from
// (file paths, file: URLs or http(s) URLs).
import { readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { fetchBytes } from "./vocabulary.js";

/**
 * The module's bytes, from `url`: the entry's literal `new URL("…wasm", import.meta.url)`,
 * which a bundler that takes the package in (Next.js's server build) may turn into a web path
 * it serves to browsers, not a file here. That is said, with what to do, instead of Node's
 * "must be of type string" from readFileSync.
 * @param {URL | string} url
 */
export function readModule(url) {
  const file = url instanceof URL && url.protocol === "file:" ? url : URL.canParse(String(url)) ? new URL(String(url)) : null;
  try {
    if (file === null || file.protocol !== "file:") throw new Error(`${String(url)} is not a file: URL`);
    return readFileSync(file);
  } catch (/** @type {any} */ e) {
    throw new Error(
      `ctxfold could not read its WebAssembly module (${String(url)}): ${e.message}. ` +
        `A bundler that rewrites the package's files into web paths (Next.js does, for server ` +
        `components) needs the package left to Node: serverExternalPackages: ["ctxfold"] in next.config.`,
      { cause: e },
    );
  }
}

/** A path that starts with a drive letter: no URL scheme is one letter. */
const DRIVE = /^[a-z]:[\\/]/i;

/**
 * Where Node reads vocabularies from; `defaultSource(encoding)`: the file shipped in the package (lite), or null.
 * @param {((encoding: import("./types.d.ts").Encoding) => URL | null) | null} defaultSource
 */
export function nodeSources(defaultSource) {
  return {
    defaultSource,
    /** @type {import("./vocabulary.js").FetchBytes} */
    fetchBytes: async (source) => {
      // A Windows path (`C:\vocab\o200k_base.ctxv`) parses as a URL whose scheme is its drive letter.
      const url = source instanceof URL ? source : URL.canParse(source) && !DRIVE.test(source) ? new URL(source) : null;
      if (url && url.protocol !== "file:") return fetchBytes(url);
      return new Uint8Array(await readFile(url ?? source));
    },
  };
}
