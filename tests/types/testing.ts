// ctxfold/testing's declarations, used as a custom store's tests use them.
import { MemoryStore, type CompactorStore } from "ctxfold";
import { CASES, assertStore, checkStore, metaFor, type StoreCheckResult } from "ctxfold/testing";

export async function checks(store: CompactorStore): Promise<void> {
  const passed: number = await assertStore(() => store);
  const results: StoreCheckResult[] = await checkStore(async () => new MemoryStore(), { only: Object.keys(CASES).slice(0, 2) });
  const failed: (string | null)[] = results.filter((r) => !r.ok).map((r) => r.error);
  const version: number = metaFor("chat-1", 1, 0).version;
  console.log(passed, failed, version);
  // @ts-expect-error: a store is made by a function, not passed
  await checkStore(store);
}
