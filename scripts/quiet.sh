# quiet CMD...: runs a noisy command with its output in a log; shows the log's tail only if it
# fails. Sourced by setup.sh and test.sh.
quiet() {
  local log rc=0
  log=$(mktemp -t ctxfold-quiet.XXXXXX)
  "$@" >"$log" 2>&1 || rc=$?
  if [ "$rc" -ne 0 ]; then
    echo "   failed (exit $rc): $*"
    tail -n 40 "$log" | sed 's/^/   | /'
    echo "   (whole log: $log)"
    return "$rc"
  fi
  rm -f "$log"
}
