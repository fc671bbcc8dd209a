// The public API of one build (full or lite) over its wasm-bindgen module: every export
// guarded against traps (guard.js), compact() driven from here (compact.js), the built-in
// HTTP summarizers' calls likewise (summarizers.js), and loadVocabulary() for the platform
// (vocabulary.js). The entry files (node.js, browser.js, workerd.js and their lite twins)
// only instantiate the module and call api().
import { guard } from "./guard.js";
import { compactWith } from "./compact.js";
import { summarizersWith } from "./summarizers.js";
import { compactorWith } from "./compactor.js";
import { vocabularyLoader } from "./vocabulary.js";
import { indexedDBStoreWith } from "./indexeddb.js";
import { parseCommand } from "./commands.js";
import { notify, sse } from "./notices.js";
import { applyAnthropicCacheControl } from "./cache-control.js";

/** wasm-bindgen's and ctxfold's internals: never part of the API. */
const INTERNAL = new Set([
  "default",
  "initSync",
  "installVocabulary",
  "CompactCall",
  "CompactorCore",
  "CompactorCall",
  "RecentKeys",
  "__ctxfoldStoreError",
  "__ctxfoldConversationError",
  "__ctxfoldRestoreOriginal",
  "HttpSummaryCall",
  "IdbCall",
  "IdbOpen",
  "idbOptions",
  "idbTimeout",
  "idbClose",
  "summarizerSettings",
  "readRefusal",
  "correctAfterRefusal",
  "refusedAgain",
  "__wbg_reset_state",
  "start",
  "__ctxfoldTestPanic",
  "__ctxfoldInternalError",
]);

/** @typedef {import("./types.d.ts").Raw} Raw */

/**
 * @param {Raw} raw  the instantiated wasm-bindgen module
 * @param {{ fetchBytes: import("./vocabulary.js").FetchBytes, defaultSource: ((encoding: import("./types.d.ts").Encoding) => URL | null) | null }} platform
 * @returns {Record<string, unknown>} the API by name (index.d.ts declares it)
 */
export function api(raw, platform) {
  const g = guard(raw);
  /** @type {Record<string, unknown>} */
  const out = {};
  for (const [name, value] of Object.entries(raw)) {
    if (INTERNAL.has(name) || typeof value !== "function") continue;
    out[name] = g.wrap(/** @type {(...args: unknown[]) => unknown} */ (value));
  }
  out.compact = compactWith(raw, g);
  Object.assign(out, summarizersWith(raw, g));
  Object.assign(out, compactorWith(raw, g));
  out.IndexedDBStore = indexedDBStoreWith(raw, g);
  // Pure JavaScript over JSON shapes: no module call, so no guard.
  Object.assign(out, { parseCommand, notify, sse, applyAnthropicCacheControl });
  out.loadVocabulary = vocabularyLoader({
    install: g.wrap(raw.installVocabulary),
    has: /** @type {Raw["hasVocabulary"]} */ (out.hasVocabulary),
    ...platform,
  });
  return out;
}
