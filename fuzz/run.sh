#!/usr/bin/env bash
# SPDX-License-Identifier: ISC
# run.sh - run each libFuzzer harness for a bounded time and print one line per harness:
# executions, corpus entries and whether it found a crash. Usage: fuzz/run.sh SECONDS DIR NAME...
# New inputs go to DIR/corpus/NAME (the committed seeds in fuzz/corpus/NAME are only read);
# a crash leaves its input in DIR/crashes/ and makes the script fail.
set -uo pipefail
seconds=$1 dir=$2
shift 2
status=0
mkdir -p "$dir/crashes"
for name in "$@"; do
	mkdir -p "$dir/corpus/$name"
	dict=()
	[ -f "fuzz/$name.dict" ] && dict=(-dict="fuzz/$name.dict")
	log=$dir/$name.log
	"$dir/fuzz_$name" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=1024 \
		-print_final_stats=1 -artifact_prefix="$dir/crashes/$name-" "${dict[@]}" \
		"$dir/corpus/$name" "fuzz/corpus/$name" >"$log" 2>&1
	rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
	corpus=$(find "$dir/corpus/$name" "fuzz/corpus/$name" -type f | wc -l)
	if [ $rc -eq 0 ]; then
		printf 'fuzz %-8s %5ss %10s executions %5s corpus entries, no crash\n' "$name" "$seconds" "${execs:-?}" "$corpus"
	else
		printf 'fuzz %-8s FAILED (exit %s); see %s and %s/crashes/\n' "$name" "$rc" "$log" "$dir"
		grep -E '^(==[0-9]+==ERROR|SUMMARY|.*runtime error)' "$log" | head -5
		status=1
	fi
done
exit $status
