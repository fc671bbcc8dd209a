#!/usr/bin/env bash
# Builds pkg/, the npm package: the Rust crate for wasm32 twice (with both vocabularies
# embedded, and "lite" with none), wasm-bindgen, wasm-opt, then pkg-template/ on top.
#
#   scripts/build.sh          release build, optimised with wasm-opt
#   CTXFOLD_FAST=1 scripts/build.sh   skip wasm-opt (3-6 % larger, 30 s faster)
set -euo pipefail
cd "$(dirname "$0")/.."

target=wasm32-unknown-unknown
out=pkg
wasm_opt=node_modules/.bin/wasm-opt
bindgen_version=$(grep -A1 '^name = "wasm-bindgen"$' Cargo.lock | sed -n 's/version = "\(.*\)"/\1/p')
if ! wasm-bindgen --version 2>/dev/null | grep -q "$bindgen_version"; then
  echo "wasm-bindgen $bindgen_version is needed (Cargo.lock); run scripts/setup.sh" >&2
  exit 1
fi

if [ -z "${CTXFOLD_FAST:-}" ] && [ ! -x "$wasm_opt" ]; then
  echo "$wasm_opt is missing: run scripts/setup.sh (or npm ci), or set CTXFOLD_FAST=1 to skip wasm-opt" >&2
  exit 1
fi

rm -rf "$out"
mkdir -p "$out/dist"

build() { # name, cargo flags...
  local name=$1; shift
  echo "== cargo build ($name)"
  # Separate target dirs keep both feature sets cached.
  cargo build --lib --release --target "$target" --target-dir "target/$name" "$@"
  # --experimental-reset-state-function: __wbg_reset_state, which lib/guard.js calls to
  # make a fresh instance after a trap.
  wasm-bindgen --target web --out-dir "$out/dist/$name" --out-name ctxfold \
    --remove-name-section --remove-producers-section --experimental-reset-state-function \
    "target/$name/$target/release/ctxfold.wasm"
  if [ -z "${CTXFOLD_FAST:-}" ]; then
    echo "== wasm-opt ($name)"
    # -O1, not -Os: -Os gives a smaller raw file but a larger gzip (lite 266.5 against 251.6 KB,
    # measured at 0a9fadb), and both count tokens at the same speed.
    "$wasm_opt" -O1 --strip-debug --strip-producers \
      --enable-bulk-memory --enable-reference-types --enable-multivalue \
      --enable-nontrapping-float-to-int --enable-sign-ext --enable-mutable-globals \
      "$out/dist/$name/ctxfold_bg.wasm" -o "$out/dist/$name/ctxfold_bg.wasm"
  fi
}

build full
build lite --no-default-features

cp -r pkg-template/. "$out/"
# The tsc --checkJs configurations (scripts/test.sh's checkjs layer) are the repository's, not the package's.
rm -f "$out/tsconfig.json" "$out/bin/tsconfig.json"
mkdir -p "$out/vocab"
cp vocab/*.ctxv vocab/SHA256SUMS "$out/vocab/"
cp README.md "$out/"
# The package's licence is the MIT text alone: the root LICENSE's exceptions list repository
# files (the test corpus) that the package does not contain.
sed '/^-----/,$d' LICENSE | sed -e :a -e '/^\n*$/{$d;N;ba' -e '}' >"$out/LICENSE"
node scripts/entries.mjs "$out"
node scripts/sizes.mjs "$out"
