#!/usr/bin/env bash
# The main job, as the README's first command runs it: build the package, then use its CLI
# on the bundled sample (a real SWE-agent GPT-4 transcript, MIT, see samples/README.md):
# count its tokens, show the plan for an 8k window, and compact it with the built-in
# extractive summarizer, printing the report and the summary that replaced the middle.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"

sample=samples/swe-agent-pydicom-1458.json
bash scripts/build.sh
cli() { node pkg/bin/ctxfold.mjs "$@"; }

printf '\n$ ctxfold count %s\n' "$sample"
cli count "$sample"
printf '\n$ ctxfold inspect %s --window 8192\n' "$sample"
cli inspect "$sample" --window 8192
printf '\n$ ctxfold compact %s --window 8192\n' "$sample"
cli compact "$sample" --window 8192
