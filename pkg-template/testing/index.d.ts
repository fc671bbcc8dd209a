// ctxfold/testing: the store contract as cases a custom store runs in its own tests.

import type { CompactorStore, StoredMeta } from "../index.js";

/** One case's outcome: `error` is the first check that failed, or what the store threw. */
export interface StoreCheckResult {
  /** The case, in words (`"a write expecting another version is refused and writes nothing"`). */
  name: string;
  ok: boolean;
  error: string | null;
}

/**
 * Runs every case of the store contract against stores from `makeStore` (called once per
 * case; it may return one shared store: each case uses ids of its own and deletes what it
 * wrote). Resolves to one result per case; never rejects for a failing store.
 *
 * ```ts
 * import { checkStore } from "ctxfold/testing";
 * for (const r of await checkStore(() => store)) if (!r.ok) console.error(r.name, r.error);
 * ```
 */
export function checkStore(
  makeStore: () => CompactorStore | Promise<CompactorStore>,
  options?: { only?: string[] },
): Promise<StoreCheckResult[]>;

/**
 * Runs every case and throws an `AggregateError` listing each case that failed and why;
 * resolves to the number of cases run when all pass. For any test runner:
 *
 * ```ts
 * import { assertStore } from "ctxfold/testing";
 * test("my store keeps the contract", () => assertStore(() => new MySqliteStore(db)));
 * ```
 */
export function assertStore(
  makeStore: () => CompactorStore | Promise<CompactorStore>,
  options?: { only?: string[] },
): Promise<number>;

/** The cases by name (what `checkStore` runs), each `(store, id) => Promise<void>`. */
export const CASES: Record<string, (store: CompactorStore, id: string) => Promise<void>>;

/** A meta as the Compactor writes it, for a store's own extra tests (a store reads only `version`). */
export function metaFor(id: string, version: number, length: number, extra?: Partial<StoredMeta>): StoredMeta;
