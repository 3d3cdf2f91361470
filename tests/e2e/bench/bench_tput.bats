#!/usr/bin/env bats
# SPDX-License-Identifier: ISC
# bench_tput.bats - `ncpv bench -T streams` and `-T udp` beside iperf3 and iperf2,
# with the shortest runs (iperf3's -t is whole seconds: 1 s): the rows exist and
# parse, the figures are positive and agree with each other, and a tool hidden
# from PATH is skipped with a one-line note, not a failure.

load ../lib/helpers
bats_require_minimum_version 1.5.0

setup() {
	common_setup
	command -v jq >/dev/null || skip "jq is not installed"
	cd "$SCRATCH"
}

teardown() {
	common_teardown
}

# tput ARGS...: the bench quietly, JSON on stdout into out.json, stderr into err.
tput() {
	run bash -c '"$@" 2>"$0"' "$SCRATCH/err" "$NCPV" bench -q --json -r 1 -d 0.2 "$@"
	printf '%s\n' "$output" >"$SCRATCH/out.json"
	echo "$output"
	cat "$SCRATCH/err"
}

# A PATH holding only the named tools (and what every shell needs).
path_with() {
	local dir=$SCRATCH/bin t
	mkdir -p "$dir"
	for t in sh bash cat "$@"; do
		ln -sf "$(command -v "$t")" "$dir/$t"
	done
	echo "$dir"
}

@test "streams: a row per P and method, rates and CPU per GiB positive, ratios to ncpv" {
	tput -T streams --streams 1,2
	[ "$status" -eq 0 ]
	jq -e '.tests == [] and .throughput.run_s == 1 and .throughput.repeat == 1' out.json
	jq -e '[.throughput.streams[] | [.streams, .method]] ==
		[[1,"ncpv"],[1,"iperf3"],[1,"iperf2"],[2,"ncpv"],[2,"iperf3"],[2,"iperf2"]]' out.json
	# Every method that ran: its run's bytes and rate agree, and CPU per GiB is known.
	jq -e '[.throughput.streams[] | select(.status != "skipped") | .status == "ok" and .runs_ok == 1 and
		.median_bytes_per_s > 0 and .cpu_per_gib_s > 0 and (.runs[0] | .ok and .bytes > 0 and .cpu_s > 0 and
		(.bytes / .seconds_s / .bytes_per_s - 1 | fabs) < 0.05)] | length > 0 and all' out.json
	# Ratios are to ncpv at the same P.
	jq -e '[.throughput.streams[] | select(.status == "ok")] | group_by(.streams)[] |
		(map(select(.method == "ncpv"))[0].median_bytes_per_s) as $n |
		all(.[]; (.ratio_to_ncpv - .median_bytes_per_s / $n | fabs) < 1e-3)' out.json
	jq -e '[.throughput.streams[] | select(.method == "ncpv" and .streams == 2) | .command |
		test("^ncpv get -P 2 -t 1 ")] == [true]' out.json
	if command -v iperf3 >/dev/null; then
		jq -e '.throughput.streams[] | select(.method == "iperf3" and .streams == 2) |
			.status == "ok" and (.command | test("^iperf3 -c 127.0.0.1 -p [0-9]+ -R -P 2 -t 1 -J$"))' out.json
		# The same direction as ncpv's download: the server sends (-R), for iperf2 too.
		jq -e '[.throughput.streams[] | select(.method != "ncpv" and .status == "ok") | .command |
			test(" -R -P [0-9]+ ")] | length > 0 and all' out.json
		# Its version is in the environment, as every method's tool is.
		jq -e '.environment.tools.iperf3 | test("^iperf 3")' out.json
	fi
}

@test "streams and udp: iperf3 and iperf hidden from PATH are skipped with a note, ncpv still runs" {
	PATH=$(path_with) tput -T streams,udp --streams 1 --rates 10M --lengths 64
	[ "$status" -eq 0 ]
	jq -e '[.throughput.streams[], .throughput.udp[] | select(.method != "ncpv") |
		.status == "skipped" and (.reason | test("^iperf3? not found on PATH$"))] | length == 4 and all' out.json
	jq -e '[.throughput.streams[], .throughput.udp[] | select(.method == "ncpv") | .status == "ok"] == [true, true]' \
		out.json
	# One line per test and tool on stderr.
	[ "$(grep -c 'skipped: iperf3\? not found on PATH' err)" -eq 4 ]
	grep -q '^ncpv bench: streams test: iperf3 skipped: iperf3 not found on PATH$' err
}

@test "streams alone: the opening estimate names only the tests asked and counts only the tools found" {
	PATH=$(path_with) run bash -c '"$@" 2>"$0" >/dev/null' "$SCRATCH/err" "$NCPV" bench --json -r 1 -d 0.2 \
		-T streams --streams 1 --no-report
	cat "$SCRATCH/err"
	[ "$status" -eq 0 ]
	run ! grep -E 'files test|stream test' "$SCRATCH/err"
	grep -q '^ncpv bench: 1 point x 1 tool x 1 run of 1 s: the streams test takes about 2 s$' "$SCRATCH/err"
	# Directories named as the tools are not tools; nor is iperf for udp without stdbuf; the
	# line names the test asked, with the tools each can run.
	mkdir -p "$SCRATCH/dirs/iperf3" "$SCRATCH/dirs/iperf"
	PATH="$(path_with):$SCRATCH/dirs" run bash -c '"$@" 2>"$0" >/dev/null' "$SCRATCH/err" "$NCPV" bench --json -r 1 \
		-d 0.2 -T streams --streams 1 --no-report
	grep -q '^ncpv bench: 1 point x 1 tool x 1 run of 1 s: the streams test takes about 2 s$' "$SCRATCH/err"
	PATH=$(path_with iperf) run bash -c '"$@" 2>"$0" >/dev/null' "$SCRATCH/err" "$NCPV" bench --json -r 1 -d 0.2 \
		-T streams,udp --streams 1 --rates 1M --lengths 64 --no-report
	cat "$SCRATCH/err"
	grep -Eq '^ncpv bench: streams 1 point x 2 tools, udp 1 point x 1 tool x 1 run of 1 s: the streams and udp tests take about [0-9]+ s$' "$SCRATCH/err"
}

@test "udp: the sent rate holds the asked one; packets per second, loss and jitter are figures" {
	tput -T udp --rates 20M,0 --lengths 64,1400
	[ "$status" -eq 0 ]
	jq -e '[.throughput.udp[] | [.length_bytes, .rate_asked_bits_per_s, .method]] ==
		[[64,2e7,"ncpv"],[64,2e7,"iperf3"],[64,2e7,"iperf2"],[64,0,"ncpv"],[64,0,"iperf3"],[64,0,"iperf2"],
		 [1400,2e7,"ncpv"],[1400,2e7,"iperf3"],[1400,2e7,"iperf2"],[1400,0,"ncpv"],[1400,0,"iperf3"],
		 [1400,0,"iperf2"]]' out.json
	jq -e '[.throughput.udp[] | select(.status != "skipped") | .status == "ok" and
		.sent_median_bytes_per_s > 0 and .sent_packets_per_s > 0 and .cpu_per_gib_s > 0 and
		(.loss_percent == null or (.loss_percent >= 0 and .loss_percent <= 100)) and
		(.jitter_s == null or .jitter_s >= 0) and
		# packets/s times the payload is the sent rate
		((.sent_packets_per_s * .length_bytes / .sent_median_bytes_per_s - 1 | fabs) < 0.05)] |
		length > 0 and all' out.json
	# ncpv at 20 Mbit/s: near the rate asked (never above; a loaded machine makes its
	# pacing slip behind, which it reports), and datagrams received.
	jq -e '[.throughput.udp[] | select(.method == "ncpv" and .rate_asked_bits_per_s > 0) |
		.sent_of_asked > 0.5 and .sent_of_asked < 1.01 and .received_packets_per_s > 0] ==
		[true, true]' out.json
	# As fast as possible has no accuracy; iperf2 is asked 10G for it.
	jq -e '[.throughput.udp[] | select(.rate_asked_bits_per_s == 0) | .sent_of_asked] | all(. == null)' out.json
	if command -v iperf >/dev/null; then
		jq -e '[.throughput.udp[] | select(.method == "iperf2" and .rate_asked_bits_per_s == 0) | .command |
			test(" -u -b 10000000000 ")] == [true, true]' out.json
	fi
}

@test "streams and udp: the text table and the HTML report have their rows" {
	run "$NCPV" bench -q -r 1 -d 0.2 -T streams,udp --streams 1 --rates 10M --lengths 1400 --html r.html
	[ "$status" -eq 0 ]
	echo "$output" | grep -Eq '^  1  ncpv +[0-9.]+[kMG]?bit/s .* 1/1$'
	echo "$output" | grep -Eq '^ 1400 +10.0Mbit/s  ncpv +[0-9.]+[kMG]?bit/s +[0-9.]+%'
	grep -q '<h2>streams: TCP with P parallel streams' r.html
	grep -q '<h2>udp: a rate sweep' r.html
	jq -e '.throughput.udp | length == 3' r.json
}

@test "streams over --link: each tool's server at the link's near end, every rate held to the link's" {
	"$NCPV" link -- true 2>"$SCRATCH/why" || skip "no link here: $(tail -1 "$SCRATCH/why")"
	tput -T streams --streams 2 --link 20mbit,4ms
	[ "$status" -eq 0 ]
	jq -e '.throughput.path == "link 20mbit,4ms"' out.json
	# Every client reached its server across the link (10.231.0.1, the near end), and no
	# tool ran faster than 20 Mbit/s of IP packets (2.5 MB/s; + 3% for a late wakeup's
	# burst in a 1 s run): on loopback each would run 100x faster.
	jq -e '[.throughput.streams[] | select(.status != "skipped") | .status == "ok" and
		(.command | test(" 10[.]231[.]0[.]1[: ]")) and
		.median_bytes_per_s > 1000000 and .median_bytes_per_s < 2575000] | length > 0 and all' out.json ||
		{ jq -c '.throughput.streams[] | {method, status, median_bytes_per_s, command}' out.json; false; }
}

@test "-T udp with --link is a usage error naming both" {
	run "$NCPV" bench -q --no-report -T udp -d 0.2 -r 1 --rates 1M --lengths 64 --link 94mbit
	[ "$status" -eq 2 ]
	[ "$output" = "ncpv bench: -T udp runs on loopback only: it conflicts with --link (-T streams takes it)" ]
}

@test "bench: bad --streams, --rates, --lengths and -T streams with --connect are usage errors" {
	run "$NCPV" bench -T streams --streams 0
	[ "$status" -eq 2 ]
	[[ "$output" == *"--streams"*"'0'"* ]] || [[ "$output" == *"streams"*"0"* ]]
	run "$NCPV" bench -T udp --rates fast
	[ "$status" -eq 2 ]
	run "$NCPV" bench -T udp --lengths 20
	[ "$status" -eq 2 ]
	run "$NCPV" bench -T streams --connect 127.0.0.1:1
	[ "$status" -eq 2 ]
	[[ "$output" == *"conflict with --connect"* ]]
	run "$NCPV" bench -T nope
	[ "$status" -eq 2 ]
	[[ "$output" == *"stream, files, streams or udp"* ]]
}
