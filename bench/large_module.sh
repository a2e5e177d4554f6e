#!/bin/sh
# Issue 27 part 2: the large-module figures in one run, so that they share the machine's load.
#   bench/large_module.sh [NAME] [OUT]      # NAME: a bench/workspaces.py artifact (default hibernate-core)
# Runs bench/firstsync.py --only NAME (cold and warm first syncs with the worker's peak RSS and the
# store's size, and ecj on the same sources and classpath), bench/edit_phases.py --workspace NAME
# (the phases of one-file edits on a warm worker) and bench/live.py --workspaces NAME --edits 10
# --no-write (write to fresh answer over MCP), printing the load average between them. Logs go to
# OUT (default /tmp/large-module-<time>); state folders under it.
set -e
NAME=${1:-hibernate-core}
OUT=${2:-/tmp/large-module-$(date +%H%M%S)}
HERE=$(cd "$(dirname "$0")" && pwd)
PY=${PYTHON:-python}
mkdir -p "$OUT"
load() { echo "$(date -u +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$OUT/load.txt"; }
load
"$PY" "$HERE/firstsync.py" --only "$NAME" --state "$OUT/state-firstsync" > "$OUT/firstsync.log" 2>&1
cp "$HERE/firstsync.json" "$OUT/firstsync.json"
load
(cd "$HERE" && "$PY" edit_phases.py --workspace "$NAME") > "$OUT/edit-phases.json" 2> "$OUT/edit-phases.log"
load
"$PY" "$HERE/live.py" --workspaces "$NAME" --edits 10 --no-write > "$OUT/live.log" 2>&1
load
echo "$OUT"
