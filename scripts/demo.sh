#!/usr/bin/env bash
# The main job, as the README's first command runs it: build the package, then replay a real
# agent transcript (mini-swe-agent on a SWE-bench task, MIT, see samples/README.md) turn by turn
# through a Compactor at a 16k window, as a chat app drives one, keeping it in a file store:
# the first run stops halfway, the second goes on from what the store holds. Each prints its
# progress and a line per compaction (stderr), then its table (stdout).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"

sample=samples/mini-swe-agent-sphinx-8459.json
bash scripts/build.sh
store=$(mktemp -d "${TMPDIR:-/tmp}/ctxfold-demo.XXXXXX")
trap 'rm -rf "$store"' EXIT
cli() { node pkg/bin/ctxfold.mjs "$@"; }

printf '\n$ ctxfold replay %s --window 16k --store %s --until 27\n' "$sample" "$store"
cli replay "$sample" --window 16k --store "$store" --until 27
printf '\n$ ctxfold replay %s --window 16k --store %s\n' "$sample" "$store"
cli replay "$sample" --window 16k --store "$store"
