// Types for the package's own JavaScript, read by `tsc --checkJs` (pkg-template/tsconfig.json)
// and never by users (the API's types are index.d.ts). The wasm-bindgen module as lib/ gets
// it: the generated declaration, plus the internals src/wasm/ exports with skip_typescript
// (lib/entry.js's INTERNAL keeps them out of the API), declared here as far as lib/ calls them.
import type * as Bindings from "../dist/full/ctxfold.js";
import type { CompactResult, Correction, CtxfoldError, HttpSummary, IndexedDBStoreOptions, SummaryRequest } from "../dist/full/ctxfold.js";
import type { CompactorSettings, Refusal } from "./core.generated.d.ts";

/** The API's types, for JSDoc here (`import("./types.d.ts").CompactOptions`). */
export type * from "../dist/full/ctxfold.js";
export type { VocabularySource } from "../index.js";

/** The instantiated module, full or lite (they declare the same functions). */
export type Raw = typeof Bindings & Internals;

/** A summarizer request as the core hands it out: the public one, and a chat API's messages. */
export type CoreRequest = Omit<SummaryRequest, "signal"> & { messages: unknown[] };

/** What compact.js and compactor.js hand back to the core for each request. */
export type Reply = { value: unknown } | { failed: string };

/** A wasm-bindgen object: freed by hand when the call it belongs to ends early. */
interface Freed {
  free(): void;
}

/** One compact() in progress (src/wasm/compact.rs). */
export interface CompactCall extends Freed {
  summarizer(): ((request: SummaryRequest) => unknown) | undefined;
  requests(): CoreRequest[] | null;
  submit(replies: Reply[]): void;
  finish(summarizeMs: number): CompactResult;
}

/** A step of an HTTP summary call: a fetch begun, a wait (ms), or the summary. */
export type HttpStep = { fetch: Promise<Response>; wait?: undefined; done?: undefined } | { wait: number; done?: undefined } | { done: HttpSummary; wait?: undefined };

/** One built-in summarizer request in progress (src/wasm/http.rs). */
export interface HttpSummaryCall extends Freed {
  next(): HttpStep;
  response(response: Response): Promise<string>;
  body(text: string): void;
  unreachable(error: unknown): void;
  abandoned(reason: unknown): CtxfoldError;
}

/** One IndexedDB request in progress (src/wasm/indexeddb.rs): the events go to finish(). */
export interface IdbCall extends Freed {
  done(): Promise<Event>;
  finish(event: Event): unknown;
  abort(): void;
}

/** An IndexedDB open in progress. */
export interface IdbOpen extends Freed {
  done(): Promise<Event>;
  finish(event: Event): IDBDatabase;
  blocked(): boolean;
}

interface Internals {
  __wbg_reset_state(): void;
  __ctxfoldInternalError(reason: string): CtxfoldError;
  __ctxfoldStoreError(operation: string, id: string, reason: string): CtxfoldError;
  __ctxfoldConversationError(exists: boolean, id: string): CtxfoldError;
  __ctxfoldRestoreOriginal(copy: unknown, original: unknown): unknown;
  __ctxfoldRecallOver(messages: unknown, args: unknown, options: unknown): Bindings.Recalled;
  installVocabulary(bytes: Uint8Array, encoding: Bindings.Encoding): void;
  summarizerSettings(provider: string, options: unknown): string;
  readRefusal(fields: unknown): Refusal | null;
  correctAfterRefusal(refusal: Refusal, counted: number, previous: Correction | null, window: number, reserved: number): Correction;
  refusedAgain(refusal: Refusal, estimate: number): CtxfoldError;
  idbOptions(options: unknown): Required<IndexedDBStoreOptions>;
  idbTimeout(operation: string, id: string, ms: number, blocked: boolean): CtxfoldError;
  idbClose(db: IDBDatabase): void;
  CompactCall: { start(messages: unknown, options: unknown): CompactCall };
  RecentKeys: { new (limit: number): RecentKeysHandle };
  CompactorCore: {
    new (...args: unknown[]): CompactorCoreHandle;
    checkId(id: unknown): string;
    recallTool(options: unknown): Record<string, unknown>;
    importOptions(options: unknown): { id: string | undefined; overwrite: boolean };
    events(): Bindings.CompactorEventName[];
    history(id: string, meta: unknown, messages: unknown, records: unknown): Bindings.HistoryEntry[];
    records(id: string, meta: unknown, records: unknown): Bindings.CompactionRecord[];
    summaries(id: string, summaries: unknown): Bindings.StoredSummary[];
    list(ids: unknown): string[];
    export(id: string, meta: unknown, messages: unknown, summaries: unknown, records: unknown): Bindings.ExportedConversation;
    importOver(id: string, existing: unknown, overwrite: boolean): boolean;
  };
  HttpSummaryCall: { start(settings: string, request: unknown, signal: AbortSignal | undefined): HttpSummaryCall };
  IdbOpen: { start(name: string): IdbOpen };
  IdbCall: {
    load(db: IDBDatabase, id: unknown): IdbCall;
    messages(db: IDBDatabase, id: unknown, from: unknown): IdbCall;
    summaries(db: IDBDatabase, id: unknown): IdbCall;
    records(db: IDBDatabase, id: unknown): IdbCall;
    list(db: IDBDatabase): IdbCall;
    write(db: IDBDatabase, id: unknown, expect: unknown, batch: unknown): IdbCall;
    delete(db: IDBDatabase, id: unknown): IdbCall;
  };
}

/** One summarizer call's outcome, as compact.js's `ask` gives it. */
export type Asked = { value: unknown; failed?: undefined; rejection?: undefined } | { value?: undefined; failed: string; rejection: unknown };

/** A summarizer request of a Compactor call, with the key that says which summary made ahead answers it. */
export type KeyedRequest = { key: string; request: CoreRequest };

/** An event as the core makes it: its `type` names it (`compactionFailed` gets its `error` from JS). */
export type CoreEvent = Bindings.CompactorEvent;

/** What a Compactor call needs next (src/wasm/compactor/call.rs), with the events to send now. */
export type CompactorStep = {
  events: CoreEvent[];
  owed?: CoreEvent;
  load?: true;
  read?: number;
  summarize?: KeyedRequest[];
  finish?: true;
  write?: { messages: unknown[] };
  expect?: number;
  done?: true;
};

/** One Compactor call in progress (src/wasm/compactor/call.rs). */
export interface CompactorCallHandle extends Freed {
  next(): CompactorStep;
  assumeCached(length: number): boolean;
  loaded(meta: unknown, length: number): number;
  read(items: unknown): void;
  submit(replies: Reply[]): void;
  submitExtractive(): void;
  finish(planMs: number, summarizeMs: number, totalMs: number): void;
  written(): void;
  stale(found: number | null, error: unknown): { events: CoreEvent[]; error?: unknown };
  fail(error: unknown): CoreEvent[];
  result(): any;
  end(): { kept: number | null; dropped: string[] };
}

/** A Compactor's core (src/wasm/compactor/mod.rs): each call it makes is stepped by lib/compactor-call.js. */
/** What the core read of a Compactor's options that JS awaits by, its defaults applied (`CompactorCore.settings`). */
export type { CompactorSettings };

/** The module's RecentKeys (src/wasm/recent.rs): at most `limit` keys, least recently used dropped first. */
export interface RecentKeysHandle extends Freed {
  /** Puts `key` as the one used last: the keys dropped (never `key`). */
  put(key: string): string[];
  /** Forgets `key`: whether it was kept. */
  forget(key: string): boolean;
}

export interface CompactorCoreHandle extends Freed {
  readonly settings: CompactorSettings;
  prepare(id: string, messages: unknown, now: string): CompactorCallHandle;
  commit(id: string, reply: unknown, usage: unknown, now: string): CompactorCallHandle;
  compact(id: string, options: unknown, now: string): CompactorCallHandle;
  prune(id: string, now: string): CompactorCallHandle;
  overflowed(id: string, refusal: Refusal, now: string): CompactorCallHandle;
  undo(id: string, now: string): CompactorCallHandle;
  status(id: string): CompactorCallHandle;
  search(id: string, query: unknown, options: unknown): CompactorCallHandle;
  recall(id: string, args: unknown): CompactorCallHandle;
  ahead(id: string, now: string): CompactorCallHandle;
  import(data: unknown, id: string | undefined, now: string): { id: string; batch: { messages: unknown[] } & Record<string, unknown> };
  forget(id: string): void;
}

/** What guard(raw) returns (lib/guard.js). */
export type Guard = ReturnType<typeof import("./guard.js").guard>;
