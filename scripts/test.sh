#!/usr/bin/env bash
# The one test command. Runs every layer in order and stops at the first failure:
#
#   fmt        cargo fmt --check
#   lint       Biome (pinned in package.json, set in biome.json): the package's JavaScript formatted
#              and linted (biome ci: nothing written)
#   clippy     cargo clippy, natively (all targets) and for wasm32 (lib, wasm tests, lite)
#   native     cargo test: the core against tiktoken-rs, the corpus, unit and doc tests
#   wasm-node  the wasm32 tests (tests/wasm_node.rs) in Node, default and lite features
#   wasm-chromium  the same tests in headless Chromium (tests/wasm_browser.rs), through
#              tests/support/wasm-browser-runner.mjs
#   build      bash scripts/build.sh: the release package in pkg/, with wasm-opt
#   js         node --test tests/js/: the package as Node users import it
#   fuzz       node --test tests/fuzz/fuzz.test.mjs: the JS API fuzzed (1,000 seeded cases, each
#              checked by recounting; hangs are cut off per case), and the saved regressions
#   page       node --test tests/browser/: the package in a page in headless Chromium
#   bundlers   node --test tests/bundlers/: the package bundled by Vite, webpack and esbuild, and built into Next.js apps
#              (production builds, offline), each browser app run in headless Chromium, the Next.js apps served by next start
#   workerd    node --test tests/workerd/: the package in a Worker, via Miniflare
#   examples   the three projects in examples/ (a Worker with Durable Objects, a Node server over
#              SQLite, a Next.js AI SDK route), each with its own pinned packages (npm ci, when
#              its lockfile changed) and its own test, against a stand-in for the model on 127.0.0.1
#   types      tsc --noEmit on tests/types/ against the package's .d.ts
#   checkjs    tsc --checkJs --strict over the package's JavaScript (pkg-template/tsconfig.json and
#              bin/tsconfig.json: the files typed with JSDoc), then tests/checkjs/check.mjs: every
#              file but the ones not typed yet without errors, and no @ts-ignore or @ts-nocheck
#   docs       the API reference built by TypeDoc from the package's .d.ts (scripts/api-docs.sh;
#              pinned in docs/api-build, installs it), any warning an error; then the guides'
#              checks that need its tools (tests/docs/: the TOML blocks parsed)
#   anchoring  the Compactor's usage anchoring against a provider double (ai-tokenizer's Claude
#              count, pinned in tests/anchoring; installs it): the corpus replayed at 16k
#   ai-sdk     ctxfold/ai-sdk with the real AI SDK (ai 5, 6 and 7, pinned in tests/ai-sdk; installs
#              them) and its mock models: generateText and streamText with tools over corpus
#              conversations at an 8k window, the docs' AI SDK examples against a local server,
#              and tsc of the middleware against each version's own types
#   bench      the compaction benchmark's measurements, and one full run of it against the
#              targets (bench/compaction/test/; installs its pinned npm packages)
#
#   bash scripts/test.sh               every layer
#   bash scripts/test.sh js page       only these (later layers need pkg/ from "build")
#
# Needs what scripts/setup.sh installs. The JS layers import "ctxfold" through
# tests/node_modules/ctxfold, a link to pkg/ that this script makes.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"

all_layers=(fmt lint clippy native wasm-node wasm-chromium build js fuzz page bundlers workerd examples types checkjs docs anchoring ai-sdk bench)
layers=("${@:-${all_layers[@]}}")
for l in "${layers[@]}"; do
  [[ " ${all_layers[*]} " == *" $l "* ]] || { echo "unknown layer: $l (one of: ${all_layers[*]})" >&2; exit 2; }
done

log=$(mktemp -t ctxfold-test.XXXXXX)
times=()
current=""
began=$SECONDS

finish() {
  local rc=$?
  echo
  echo "================ summary"
  for t in "${times[@]}"; do echo "  $t"; done
  if [ "$rc" -ne 0 ] && [ -n "$current" ]; then
    echo "  FAILED: $current (exit $rc)"
  fi
  # Totals over the test runners' own summaries (cargo test and node:test).
  local totals
  totals=$(awk '
    /^test result: / { for (i = 1; i < NF; i++) { if ($(i+1) ~ /^passed/) p += $i; if ($(i+1) ~ /^failed/) f += $i } }
    /^ℹ pass [0-9]+$/ { p += $3 }
    /^ℹ fail [0-9]+$/ { f += $3 }
    END { printf "%d passed, %d failed", p, f }' "$log")
  echo "  total $(clock $((SECONDS - began)))"
  echo "tests: $totals"
  rm -f "$log"
  exit "$rc"
}
trap finish EXIT

clock() { printf '%d m %02d s' $(($1 / 60)) $(($1 % 60)); }

# run NAME: runs layer_NAME with a banner and its time.
run() {
  current=$1
  local start=$SECONDS
  printf '\n================ %s\n' "$1"
  "layer_${1//-/_}"
  times+=("$(printf '%-14s ok  %s' "$1" "$(clock $((SECONDS - start)))")")
  current=""
}

# Runs a test command, keeping its output for the totals.
counted() {
  "$@" 2>&1 | tee -a "$log"
}

wasm_test() { # cargo test arguments...
  CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER=wasm-bindgen-test-runner \
    counted cargo test --target wasm32-unknown-unknown "$@"
}

layer_fmt() {
  cargo fmt --check
}

layer_lint() {
  node_modules/.bin/biome --version
  node_modules/.bin/biome ci
}

layer_clippy() {
  cargo clippy --all-targets -- -D warnings
  cargo clippy --target wasm32-unknown-unknown --lib --test wasm_node --test wasm_browser -- -D warnings
  cargo clippy --target wasm32-unknown-unknown --no-default-features --lib --test wasm_node -- -D warnings
}

layer_native() {
  counted cargo test
}

layer_wasm_node() {
  wasm_test --test wasm_node
  echo "-- again without the embedded vocabularies (the lite build)"
  wasm_test --no-default-features --test wasm_node
}

layer_wasm_chromium() {
  # The page is served by wasm-bindgen-test-runner and driven by playwright-core, with a
  # deadline on every step (tests/support/wasm-browser-runner.mjs says why not chromedriver).
  CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER="node $PWD/tests/support/wasm-browser-runner.mjs" \
    WASM_BINDGEN_TEST_TIMEOUT=${WASM_BINDGEN_TEST_TIMEOUT:-120} \
    counted cargo test --target wasm32-unknown-unknown --test wasm_browser
}

layer_build() {
  # What ships: the release build with wasm-opt, even if CTXFOLD_FAST is set.
  env -u CTXFOLD_FAST bash scripts/build.sh
}

link_package() {
  if [ ! -f pkg/package.json ]; then
    echo "pkg/ is not built: run the build layer first (bash scripts/test.sh build ...)" >&2
    return 1
  fi
  mkdir -p tests/node_modules
  ln -sfn ../../pkg tests/node_modules/ctxfold
}

node_tests() { # directory or test file
  link_package
  counted node --test --test-reporter=spec "$1"
}

layer_js() { node_tests tests/js/; }
layer_fuzz() { node_tests tests/fuzz/fuzz.test.mjs; }
layer_page() { node_tests tests/browser/; }
layer_bundlers() { node_tests tests/bundlers/; }
layer_workerd() { node_tests tests/workerd/; }

# (The working directory is the repository root: see the cd above.)
source scripts/quiet.sh

layer_examples() {
  link_package
  # Each folder is a project a user copies, with "ctxfold": "file:../../pkg" and exact versions
  # in its package-lock.json; its test starts the stand-in for the model itself.
  # better-sqlite3 builds from source (its prebuilt binaries are not on the npm registry):
  # node-gyp needs Node's headers, which Debian's nodejs package ships under /usr.
  if [ -z "${npm_config_nodedir:-}" ] && [ -f /usr/include/node/node.h ]; then
    export npm_config_nodedir=/usr
  fi
  local dir
  for dir in examples/*/; do
    dir=${dir%/}
    [ -f "$dir/package.json" ] || continue
    echo "-- $dir: npm ci (when its lockfile changed)"
    quiet npm_ci_once "$dir"
    counted node --test --test-reporter=spec "$dir/test/"
  done
}

layer_types() {
  link_package
  node_modules/.bin/tsc --version
  node_modules/.bin/tsc -p tests/types/tsconfig.json
  node_modules/.bin/tsc -p tests/types/tsconfig.node16.json
}

layer_checkjs() {
  # The JSDoc names the built package's types (pkg/index.d.ts, pkg/dist/): pkg/ must be built.
  link_package
  node_modules/.bin/tsc -p pkg-template/tsconfig.json
  node_modules/.bin/tsc -p pkg-template/bin/tsconfig.json
  node tests/checkjs/check.mjs
}

layer_docs() {
  link_package
  bash scripts/api-docs.sh
  counted node --test --test-reporter=spec tests/docs/
}

# npm ci in DIR, only when its lockfile changed since the last one.
npm_ci_once() {
  local dir=$1 stamp want
  stamp=$dir/node_modules/.ctxfold-stamp
  want=$(sha256sum "$dir/package-lock.json" | cut -d' ' -f1)
  if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
    # (An explicit return: under quiet, set -e does not stop a function, and a failed install
    # must not write the stamp.)
    (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error) || return
    echo "$want" >"$stamp"
  fi
}

layer_anchoring() {
  link_package
  npm_ci_once tests/anchoring
  counted node --test --test-reporter=spec tests/anchoring/
}

layer_ai_sdk() {
  link_package
  # ai 5, 6 and 7 under aliases, and ai 7 with @ai-sdk/openai for the docs' AI SDK examples;
  # ctxfold itself is tests/node_modules/ctxfold, the link to pkg/.
  npm_ci_once tests/ai-sdk
  counted node --test --test-reporter=spec tests/ai-sdk/
  node_modules/.bin/tsc -p tests/ai-sdk/types/tsconfig.json
}

layer_bench() {
  link_package
  # LangChain and the AI SDK at the versions bench/compaction pins; ctxfold itself is a
  # link to pkg/.
  npm_ci_once bench/compaction
  counted node --test --test-reporter=spec bench/compaction/test/
}

for l in "${layers[@]}"; do run "$l"; done
