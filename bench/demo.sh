#!/usr/bin/env bash
# SPDX-License-Identifier: ISC
# demo.sh - start `ncpv serve` on loopback, measure it with `ncpv get` for a few seconds, stop it.
set -euo pipefail
NCPV=${NCPV:-./ncpv}
SECONDS_TO_RUN=${1:-3}
log=$(mktemp)
trap 'kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; rm -f "$log"' EXIT
"$NCPV" serve --quiet 127.0.0.1:0 2>"$log" &
pid=$!
for _ in $(seq 100); do grep -q 'listening on' "$log" && break; sleep 0.05; done
port=$(sed -n 's/.*listening on .*:\([0-9][0-9]*\) .*/\1/p' "$log")
[ -n "$port" ] || { cat "$log" >&2; exit 1; }
"$NCPV" get --force --time "$SECONDS_TO_RUN" "127.0.0.1:$port"
