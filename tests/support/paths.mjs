// Where the tests find things: the repository, the built package and the shared fixture.
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

export const repoRoot = fileURLToPath(new URL("../../", import.meta.url));
export const pkgDir = fileURLToPath(new URL("../../pkg/", import.meta.url));
/** The directory whose node_modules/ctxfold links to pkg/ (scripts/test.sh makes the link). */
export const testsDir = fileURLToPath(new URL("../", import.meta.url));

if (!existsSync(new URL("../node_modules/ctxfold/package.json", import.meta.url))) {
  throw new Error(
    "tests/node_modules/ctxfold is missing: build the package (bash scripts/build.sh) and link it " +
      "(ln -sfn ../../pkg tests/node_modules/ctxfold), or run bash scripts/test.sh",
  );
}

/** The cross-runtime fixture: texts and their counts per encoding, from js-tiktoken. */
export const fixture = JSON.parse(readFileSync(new URL("../fixtures/cross-runtime.json", import.meta.url), "utf8"));
