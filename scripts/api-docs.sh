#!/usr/bin/env bash
# The API reference: TypeDoc (pinned in docs/api-build/package.json) over the .d.ts files the
# package ships (pkg/index.d.ts, pkg/lite, pkg/ai-sdk, pkg/testing: the "exports" map), into
# docs/api/ (git-ignored; open docs/api/index.html). Any TypeDoc warning fails the build.
#
#   bash scripts/build.sh && bash scripts/api-docs.sh
set -euo pipefail
cd "$(dirname "$0")/.."

if [ ! -f pkg/index.d.ts ]; then
  echo "pkg/ is not built: run bash scripts/build.sh first" >&2
  exit 1
fi
tools=docs/api-build
stamp=$tools/node_modules/.ctxfold-stamp
want=$(sha256sum "$tools/package-lock.json" | cut -d' ' -f1)
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  (cd "$tools" && npm ci --no-audit --no-fund --loglevel=error)
  echo "$want" >"$stamp"
fi
rm -rf docs/api
(cd "$tools" && node_modules/.bin/typedoc --version && node_modules/.bin/typedoc --options typedoc.json)
test -f docs/api/index.html
echo "API reference: docs/api/index.html"
