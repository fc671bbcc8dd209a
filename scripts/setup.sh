#!/usr/bin/env bash
# Installs what building and testing ctxfold needs, on a Debian machine with rustup,
# Node.js 20+ and npm. Safe to run again: each step checks first and is skipped when its
# tool is already there, so a machine that has everything is done in about a second.
#
#   Rust:     the wasm32-unknown-unknown target, rustfmt, clippy
#   cargo:    wasm-bindgen-cli at exactly the wasm-bindgen version in Cargo.lock
#   apt:      chromium (headless browser tests, driven by playwright-core; never a downloaded browser)
#   npm:      npm ci at the repository root (binaryen's wasm-opt, miniflare, playwright-core,
#             typescript, js-tiktoken, and vite, webpack, esbuild for the bundler tests),
#             pinned by package-lock.json
#
# Long installs write to a log file; only its tail is shown if they fail.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
# playwright-core never downloads browsers; this keeps it so should that ever change.
export PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1

step() { printf '== setup: %s\n' "$*"; }

# (The working directory is the repository root: see the cd above.)
source scripts/quiet.sh

as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

# --- Rust -------------------------------------------------------------------------------
command -v rustup >/dev/null || { echo "rustup is needed (https://rustup.rs)" >&2; exit 1; }

if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  step "rustup target add wasm32-unknown-unknown"
  quiet rustup target add wasm32-unknown-unknown
fi
for component in rustfmt clippy; do
  tool=$([ "$component" = rustfmt ] && echo fmt || echo clippy)
  if ! cargo "$tool" --version >/dev/null 2>&1; then
    step "rustup component add $component"
    quiet rustup component add "$component"
  fi
done

# wasm-bindgen-cli must be the version of the wasm-bindgen crate the build links, exactly.
bindgen=$(awk '$0 == "name = \"wasm-bindgen\"" { getline; gsub(/version = |"/, ""); print; exit }' Cargo.lock)
[ -n "$bindgen" ] || { echo "no wasm-bindgen version in Cargo.lock" >&2; exit 1; }
if [ "$(wasm-bindgen --version 2>/dev/null)" != "wasm-bindgen $bindgen" ] ||
  [ "$(wasm-bindgen-test-runner --version 2>/dev/null)" != "wasm-bindgen-test-runner $bindgen" ]; then
  step "cargo install wasm-bindgen-cli --version $bindgen (5-8 minutes on 2 cores)"
  # Not --locked: the crate's lockfile pins a transitive version the registry no longer has.
  quiet cargo install wasm-bindgen-cli --version "$bindgen" --force
  wasm-bindgen --version
fi

# --- Chromium (Debian's) -----------------------------------------------------------------
if [ ! -x /usr/bin/chromium ]; then
  step "apt-get install chromium"
  export DEBIAN_FRONTEND=noninteractive
  quiet as_root apt-get update
  # On a fresh machine the first install can stop half-way (downloaded packages vanish
  # between dpkg steps): repair and install again.
  if ! quiet as_root apt-get install -y chromium; then
    echo "   retrying after apt-get install --fix-broken"
    quiet as_root apt-get install -y --fix-broken || true
    if ! quiet as_root apt-get install -y chromium; then
      quiet as_root apt-get update
      quiet as_root apt-get install -y --fix-broken || true
      quiet as_root apt-get install -y chromium
    fi
  fi
  /usr/bin/chromium --version 2>/dev/null | head -n 1
fi

# --- npm ---------------------------------------------------------------------------------
command -v node >/dev/null || { echo "Node.js 20+ is needed" >&2; exit 1; }
node -e 'const [a, b] = process.versions.node.split(".").map(Number);
  if (a < 20 || (a === 20 && b < 19)) { console.error("Node.js 20.19+ is needed (require() of ES modules), found " + process.version); process.exit(1) }'

# npm ci replaces node_modules/, so it runs only when package-lock.json changed since the last
# one (the stamp lives inside node_modules/ and goes with it).
stamp=node_modules/.ctxfold-setup-stamp
want=$(sha256sum package-lock.json | cut -d' ' -f1)
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ] || [ ! -x node_modules/.bin/tsc ]; then
  step "npm ci"
  quiet npm ci --no-audit --no-fund
  echo "$want" >"$stamp"
fi

echo "== setup: ready ($(rustc --version | cut -d' ' -f1-2), wasm-bindgen $bindgen, node $(node --version), $(/usr/bin/chromium --version 2>/dev/null | head -n 1 | cut -d' ' -f1-2))"
