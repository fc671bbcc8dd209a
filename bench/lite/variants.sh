#!/usr/bin/env bash
# What the lite module (dist/lite/ctxfold_bg.wasm, budget 250 KB gzip -9) would weigh built
# otherwise, and what that costs in speed (docs/benchmarks.md, "Size", names it).
#
#   bash scripts/build.sh && bash bench/lite/variants.sh
#
# Builds, in a scratch directory (the working tree is not touched), two variants of the lite
# module the way scripts/build.sh builds it (cargo --no-default-features, wasm-bindgen,
# wasm-opt -O1) and prints their sizes beside pkg/'s, in KB of 1,000 bytes as
# scripts/sizes.mjs prints them:
#   - stateless: the same source without the wasm modules of the Compactor, IndexedDBStore,
#     the HTTP summarizers and the chat commands (LTO drops the core code only they reach);
#   - opt-z: the whole lite module at opt-level "z" instead of the release profile's "s".
# Then counts the corpus's messages and compacts one conversation with pkg/'s lite module and
# with the opt-z one (bench/lite/speed.mjs).
set -euo pipefail
cd "$(dirname "$0")/../.."
[ -f pkg/dist/lite/ctxfold_bg.wasm ] || { echo "pkg/ is not built: run bash scripts/build.sh first" >&2; exit 1; }

scratch=$(mktemp -d /tmp/ctxfold-lite-variants.XXXXXX)
trap 'rm -rf "$scratch"' EXIT
target=wasm32-unknown-unknown
opt=(node_modules/.bin/wasm-opt -O1 --strip-debug --strip-producers
  --enable-bulk-memory --enable-reference-types --enable-multivalue
  --enable-nontrapping-float-to-int --enable-sign-ext --enable-mutable-globals)

variant() { # name, source dir, extra env...
  local name=$1 src=$2; shift 2
  (cd "$src" && env "$@" cargo build --lib --release --target "$target" --target-dir "$scratch/target-$name" \
    --no-default-features --manifest-path "$src/Cargo.toml" >/dev/null 2>&1)
  wasm-bindgen --target web --out-dir "$scratch/$name" --out-name ctxfold \
    --remove-name-section --remove-producers-section --experimental-reset-state-function \
    "$scratch/target-$name/$target/release/ctxfold.wasm"
  "${opt[@]}" "$scratch/$name/ctxfold_bg.wasm" -o "$scratch/$name/ctxfold_bg.wasm"
}

echo "building the stateless variant (a copy of the source without the stateful wasm modules)..."
mkdir -p "$scratch/src-stateless"
cp -r Cargo.toml Cargo.lock src vocab docs benches "$scratch/src-stateless/"
sed -i -E 's/^mod (chat|compactor|http|indexeddb);/\/\/ (left out) mod \1;/' "$scratch/src-stateless/src/wasm/mod.rs"
variant stateless "$scratch/src-stateless"
echo "building the opt-z variant..."
variant opt-z "$PWD" CARGO_PROFILE_RELEASE_OPT_LEVEL=z

size() { node -e 'const d=require("fs").readFileSync(process.argv[1]);const z=require("zlib").gzipSync(d,{level:9});console.log(`${(d.length/1000).toFixed(1).padStart(8)} KB raw ${(z.length/1000).toFixed(1).padStart(7)} KB gzip -9`)' "$1"; }
echo
echo "lite module                                     size"
echo "  pkg/ (opt-level s, the whole API)         $(size pkg/dist/lite/ctxfold_bg.wasm)"
echo "  stateless (opt-level s)                   $(size "$scratch/stateless/ctxfold_bg.wasm")"
echo "  opt-z (opt-level z, the whole API)        $(size "$scratch/opt-z/ctxfold_bg.wasm")"
echo "  budget                                                   250.0 KB gzip -9"

# pkg/ with the opt-z lite module in place of its own, for the speed comparison.
cp -r pkg "$scratch/pkg-z"
cp "$scratch/opt-z/ctxfold.js" "$scratch/opt-z/ctxfold_bg.wasm" "$scratch/pkg-z/dist/lite/"
echo
node bench/lite/speed.mjs "$PWD/pkg" "$scratch/pkg-z"
