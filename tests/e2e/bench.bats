#!/usr/bin/env bats
# SPDX-License-Identifier: ISC
# bench.bats - `ncpv bench` end to end, with tiny durations and counts: every
# method's JSON fields, skipped methods, the verdict, bad arguments, the seed's
# server, --connect, --link in network namespaces, and the HTML charts drawn
# by headless Chromium.

load helpers

setup() {
	common_setup
	command -v jq >/dev/null || skip "jq is not installed"
}

teardown() {
	common_teardown
}

# bench ARGS...: run the bench quietly with JSON on stdout into $SCRATCH/out.json
# (also echoed, which bats shows only when the test fails).
bench_json() {
	run "$NCPV" bench -q --json "$@"
	printf '%s\n' "$output" >"$SCRATCH/out.json"
	echo "$output"
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

@test "stream: every method reports its fields, or is skipped with a reason" {
	bench_json -T stream -d 0.3 -r 2
	[ "$status" -eq 0 ]
	jq -e '.tests | length == 1 and .[0].test == "stream" and .[0].duration == 0.3' "$SCRATCH/out.json"
	jq -e '.tests[0].methods | length == 8' "$SCRATCH/out.json"
	# Every method that ran: two runs, each with samples, bytes and a rate; a summary.
	jq -e '[.tests[0].methods[] | select(.status != "skipped") |
		(.runs | length == 2) and all(.runs[]; .ok and .bytes > 0 and .value > 0 and
			(.samples | length > 1)) and .median > 0 and .min <= .median and
			.median <= .max and .unit == "B/s" and (.command | length > 0) and
			(.verdict | length > 0) and (.ratio > 0)] | length > 0 and all' "$SCRATCH/out.json"
	jq -e '[.tests[0].methods[] | select(.status == "skipped") | .reason | test("not found on PATH")] | all' \
		"$SCRATCH/out.json"
	# ncpv itself is always there; the seed's pipeline is the baseline when nc and pv are.
	jq -e '.tests[0].methods[] | select(.name == "ncpv") | .status == "ok"' "$SCRATCH/out.json"
	if command -v nc >/dev/null && command -v pv >/dev/null; then
		jq -e '.tests[0].baseline == "nc-pv"' "$SCRATCH/out.json"
		jq -e '.tests[0].methods[] | select(.name == "nc-pv") | .baseline and .ratio == 1 and
			.command == "nc 127.0.0.1 \(.command | capture("(?<p>[0-9]+) \\|").p) | pv >/dev/null"' \
			"$SCRATCH/out.json"
	fi
}

# Issue 13 item 3: a tool that starts slowly (ncat loads its CA bundle) under
# load is not failed by a short duration: the clock starts at its first byte.
@test "stream: a method that starts slowly is measured from its first byte" {
	bench_json -T stream -d 0.2 -r 1 -M ncpv,late --method 'late=sleep 1; {ncpv} get -q {host} {port}'
	[ "$status" -eq 0 ]
	jq -e '.tests[0].methods[] | select(.name == "late") | .status == "ok" and
		(.runs[0] | .first_byte >= 1 and .seconds < 1 and .bytes > 0)' "$SCRATCH/out.json"
	jq -e '.tests[0].methods[] | select(.name == "ncpv") | .runs[0].first_byte < 1' "$SCRATCH/out.json"
}

@test "files: each run's downloads are counted complete at the server" {
	bench_json -T files -n 20 -s 1K -r 2 -M ncpv,cat-devtcp,bash-read
	[ "$status" -eq 0 ]
	jq -e '.tests[0].test == "files" and .tests[0].count == 20 and .tests[0].size == 1024' "$SCRATCH/out.json"
	jq -e '[.tests[0].methods[] | .status == "ok" and .unit == "transfers/s" and
		all(.runs[]; .ok and .transfers == 20 and .bytes == 20480 and .value > 0)] | all' "$SCRATCH/out.json"
}

@test "the table has the seed's columns and a line per run on stderr" {
	run "$NCPV" bench -T stream -d 0.2 -r 1 -M ncpv,bash-read
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"Method"*"Total data"*"Rate"*"vs baseline"* ]]
	[[ "$output" == *"ncpv bench: stream bash-read run 1/1: "* ]]
	# Without the seed's pipeline among the methods, the first one is the baseline.
	[[ "$output" == *$'\nncpv '*"1.000x (baseline)"* ]]
	[[ "$output" == *$'\nbash-read '*"x slower (p="* || "$output" == *$'\nbash-read '*"x within spread (p="* ]]
}

@test "a method whose tool is missing is skipped with the reason, not failed" {
	local p
	p=$(path_with nc pv)
	PATH=$p bench_json -T stream -d 0.2 -r 1 -M ncpv,socat
	[ "$status" -eq 0 ]
	jq -e '.tests[0].methods[] | select(.name == "socat") | .status == "skipped" and
		.reason == "socat not found on PATH" and (.runs | length == 0)' "$SCRATCH/out.json"
	jq -e '.tests[0].methods[] | select(.name == "ncpv") | .status == "ok"' "$SCRATCH/out.json"
}

@test "a user method runs with its placeholders filled in" {
	bench_json -T stream,files -d 0.2 -n 5 -s 512 -r 1 -M ncpv,mine,loop \
		--method 'mine={ncpv} get -q {host} {port}' \
		--method 'loop={ncpv} get -q --count {count} {host} {port}'
	[ "$status" -eq 0 ]
	jq -e '[.tests[].methods[] | select(.name == "mine" or .name == "loop") | .status == "ok"] |
		length == 4 and all' "$SCRATCH/out.json"
	jq -e '.tests[1].methods[] | select(.name == "mine") | .command | startswith("for ((i = 0; i < 5; i++)); do sh -c")' \
		"$SCRATCH/out.json"
}

@test "a difference beyond run-to-run spread is called slower" {
	bench_json -T files -n 3 -s 256 -r 5 -b ncpv -M ncpv,same,slow \
		--method 'same={ncpv} get -q --count {count} {host} {port}' \
		--method 'slow=sleep 0.05; {ncpv} get -q {host} {port}'
	[ "$status" -eq 0 ]
	jq -e '.tests[0].methods[] | select(.name == "slow") | .verdict == "slower" and .p_value < 0.05 and .ratio < 0.5' \
		"$SCRATCH/out.json"
	jq -e '.tests[0].methods[] | select(.name == "ncpv") | .verdict == "baseline"' "$SCRATCH/out.json"
}

@test "a failing method is reported with its error and exit status 1" {
	bench_json -T stream -d 0.2 -r 1 -M ncpv,broken --method 'broken=echo no route {host} {port} >&2; exit 3'
	[ "$status" -eq 1 ]
	jq -e '.tests[0].methods[] | select(.name == "broken") | .status == "failed" and
		(.reason | test("exited with status 3 .*no route"))' "$SCRATCH/out.json"
}

@test "an unknown method is a one-line usage error" {
	run "$NCPV" bench -M ncpv,nope
	[ "$status" -eq 2 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == "ncpv bench: unknown method 'nope' (known: ncpv, nc-pv,"* ]]
}

@test "a bad duration is a one-line usage error" {
	run "$NCPV" bench --duration 5x
	[ "$status" -eq 2 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == "ncpv bench: invalid duration '5x': "* ]]
}

@test "a user method without {host} and {port} is refused" {
	run "$NCPV" bench --method 'x=curl http://example.com/'
	[ "$status" -eq 2 ]
	[[ "$output" == *"method 'x': the command must use {host} and {port}"* ]]
	run "$NCPV" bench --method 'x=nc {hots} {port}'
	[ "$status" -eq 2 ]
	[[ "$output" == *"unknown placeholder {hots}"* ]]
}

@test "an unreachable --connect is a one-line error with the connect exit code" {
	local port
	# A port nobody listens on: bind one, note it, close it.
	start_serve
	port=$SERVE_PORT
	stop_pid "$SERVE_PID"
	run "$NCPV" bench --connect "127.0.0.1:$port"
	[ "$status" -eq 4 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == "ncpv bench: --connect 127.0.0.1:$port: "* ]]
}

@test "--connect measures a server that is already running" {
	start_serve
	bench_json --connect "127.0.0.1:$SERVE_PORT" -T stream -d 0.2 -r 1 -M ncpv
	[ "$status" -eq 0 ]
	jq -e '(.server | startswith("remote 127.0.0.1:")) and (.tests[0].methods[0] | .status == "ok" and .median > 0)' \
		"$SCRATCH/out.json"
}

@test "--server seed runs the seed's nc -l loop, stream only" {
	command -v nc >/dev/null || skip "nc is not installed"
	bench_json --server seed -d 0.3 -r 2 -M ncpv,bash-read
	[ "$status" -eq 0 ]
	jq -e '(.server | test("while true; do nc -l 127.0.0.1 [0-9]+ </dev/urandom; done")) and
		(.tests | length == 1) and ([.tests[0].methods[] | .status == "ok" and (.runs | length == 2)] | all)' \
		"$SCRATCH/out.json"
	run "$NCPV" bench --server seed -T files
	[ "$status" -eq 2 ]
	[[ "$output" == *"cannot serve the files test"* ]]
}

@test "--csv gives one row per method with a header" {
	run "$NCPV" bench -q --csv -T stream -d 0.2 -r 1 -M ncpv,bash-read
	echo "$output"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "test,method,status,runs,ok_runs,median,min,max,unit,median_bytes,ratio,p_value,verdict,reason,command" ]
	[ "${#lines[@]}" -eq 3 ]
	[[ "${lines[1]}" == stream,ncpv,ok,1,1,* ]]
}

@test "the HTML report's charts are drawn in headless Chromium" {
	local chromium
	chromium=$(command -v chromium || command -v chromium-browser) || skip "chromium is not installed"
	"$NCPV" bench -q -T stream,files -d 0.3 -n 10 -r 2 -M ncpv,bash-read --html "$SCRATCH/report.html" >/dev/null
	grep -q '<svg class="chart stream"' "$SCRATCH/report.html"
	# A page of the test's own loads the report and measures what was laid out.
	cat >"$SCRATCH/check.html" <<'HTML'
<!DOCTYPE html><html><body><iframe id="r" src="report.html" width="900" height="2000"></iframe>
<pre id="result">not loaded</pre><script>
document.getElementById('r').addEventListener('load', function () {
  var out = [];
  this.contentDocument.querySelectorAll('svg.chart').forEach(function (svg) {
    var drawn = 0;
    svg.querySelectorAll('polyline.run, rect.median').forEach(function (m) {
      /* A steady rate is a horizontal line: a run's line needs width, a bar both sides. */
      var b = m.getBBox();
      if (b.width > 0 && (b.height > 0 || m.tagName === 'polyline')) drawn++; });
    out.push((svg.classList.contains('files') ? 'files' : svg.dataset.method) + '=' + drawn);
  });
  document.getElementById('result').textContent = 'charts ' + out.join(' ');
});
</script></body></html>
HTML
	run timeout 60 "$chromium" --headless --no-sandbox --disable-gpu --disable-background-networking \
		--disable-component-update --disable-sync --no-first-run --user-data-dir="$SCRATCH/chromium" \
		--allow-file-access-from-files --virtual-time-budget=5000 --dump-dom "file://$SCRATCH/check.html"
	echo "$output" | grep -o "charts[^<]*"
	[[ "$output" == *"charts ncpv=2 bash-read=2 files=2"* ]]
}

# Skip unless this machine lets us make the link (namespaces and TUN devices, as ncpv link).
need_netns() {
	"$NCPV" link -- true 2>"$SCRATCH/why" || skip "no link here: $(tail -1 "$SCRATCH/why")"
}

# running_with ARG: PIDs of processes whose command line has ARG (ending in "bit") as one
# argument; the pattern's "[t]" keeps grep from finding its own.
running_with() {
	grep -lzxs -e "${1%t}[t]" /proc/[0-9]*/cmdline 2>/dev/null | cut -d/ -f3 || true
}

@test "--link shapes the stream to the link's rate between two namespaces" {
	need_netns
	local pid rc=0 rate=$((20000000 + RANDOM))bit
	"$NCPV" bench -q --json -T stream -d 1 -r 1 -M ncpv --link "$rate" >"$SCRATCH/out.json" &
	pid=$!
	wait "$pid" || rc=$?
	[ "$rc" -eq 0 ]
	# 20 Mbit/s is 2.5 MB/s of IP packets; TCP carries 96.5% of that, so only the cap is tight.
	jq -e --arg r "$rate" '(.path | startswith("link " + $r)) and (.tests[0].methods[0] |
		.status == "ok" and .median > 1200000 and .median < 2450000)' "$SCRATCH/out.json"
	# Nothing left behind: no delay line (a copy of the bench) outlives it.
	[ -z "$(running_with "$rate")" ]
}

@test "--link RATE,RTT,LOSS: small files pay the round trips" {
	need_netns
	command -v jq >/dev/null || skip "jq is not installed"
	"$NCPV" bench -q --json -T files -n 5 -r 1 -M ncpv --link 20mbit,40ms,1% >"$SCRATCH/out.json"
	# Each download needs at least two round trips (connect, then request and data): at
	# 40 ms no more than 12.5 a second, however fast the machine; on loopback ncpv makes
	# thousands.
	jq -e '(.path | startswith("link 20mbit,40ms,1%")) and (.tests[0].methods[0] |
		.status == "ok" and .median > 0 and .median <= 12.5)' "$SCRATCH/out.json"
}

@test "an interrupted --link bench stops its delay line and exits 130" {
	need_netns
	local rate=$((50000000 + RANDOM))bit i
	"$NCPV" bench -q -T stream -d 5 -r 3 -M ncpv --link "$rate" >/dev/null 2>"$SCRATCH/err" &
	local pid=$!
	STARTED_PIDS+=("$pid")
	# The server starts once the link is up.
	for ((i = 0; i < 600; i++)); do
		pgrep -P "$pid" -f " serve " >/dev/null && break
		sleep 0.05
	done
	pgrep -P "$pid" -f " serve " >/dev/null
	[ "$(running_with "$rate" | wc -l)" -ge 2 ] # the bench and its delay line
	kill -INT "$pid"
	wait_gone "$pid" 10
	wait "$pid" || status=$?
	[ "$status" -eq 130 ]
	grep -q "interrupted: .*removed the link" "$SCRATCH/err"
	for ((i = 0; i < 100; i++)); do
		[ -z "$(running_with "$rate")" ] && break
		sleep 0.05
	done
	[ -z "$(running_with "$rate")" ]
}

@test "--link as an ordinary user works, or says why in one line and stops" {
	if [ "$(id -u)" -eq 0 ]; then
		command -v setpriv >/dev/null || skip "setpriv is not installed"
		cp "$NCPV" "$SCRATCH/ncpv" && chmod 755 "$SCRATCH" "$SCRATCH/ncpv"
		run setpriv --reuid=65534 --regid=65534 --clear-groups "$SCRATCH/ncpv" bench -q -T stream -d 1 -r 1 -M ncpv --link 94mbit
	else
		run "$NCPV" bench -q -T stream -d 1 -r 1 -M ncpv --link 94mbit
	fi
	echo "$output"
	if [ "$status" -ne 0 ]; then
		[ "$status" -eq 1 ]
		[ "${#lines[@]}" -eq 1 ]
		[[ "$output" == "ncpv bench: --link: "* ]]
	fi
}

@test "a bad --link rate is a usage error" {
	run "$NCPV" bench --link fast
	[ "$status" -eq 2 ]
	[[ "$output" == "ncpv bench: invalid link 'fast': rate 'fast'"* ]]
}

@test "an --html file that cannot be written fails before any run" {
	run "$NCPV" bench -q -T stream -d 5 -M ncpv --html "$SCRATCH/no/such/dir/report.html"
	[ "$status" -eq 6 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == "ncpv bench: cannot write $SCRATCH/no/such/dir/report.html: No such file or directory" ]]
}

# Defect 3 of issue 12: a host name is data, never shell code, in every method.
@test "a --connect host with shell syntax in it runs no code (a private /etc/hosts names it)" {
	[ "$(id -u)" -eq 0 ] || skip "a private /etc/hosts needs root (unshare -m)"
	command -v unshare >/dev/null || skip "unshare is not installed"
	local host='a$(touch${IFS}PWNED)b`touch${IFS}PWNED2`c'
	start_serve
	printf '127.0.0.1 localhost\n127.0.0.1 %s\n' "$host" >"$SCRATCH/hosts"
	cd "$SCRATCH"
	# The name resolves only inside this mount namespace; the real /etc/hosts is untouched.
	# (socat is left out: its own address syntax refuses such a name, which is safe.)
	run unshare -m sh -c 'mount --bind "$1" /etc/hosts && exec "$2" bench -q --json -T stream -d 0.3 -r 1 \
		-M ncpv,nc-pv,pv-devtcp,nc,cat-devtcp,bash-read,ncat --connect "$3:$4"' \
		sh "$SCRATCH/hosts" "$NCPV" "$host" "$SERVE_PORT"
	printf '%s\n' "$output" >"$SCRATCH/out.json"
	echo "$output"
	[ ! -e "$SCRATCH/PWNED" ] && [ ! -e "$SCRATCH/PWNED2" ]
	[ "$status" -eq 0 ]
	# Every method that ran reached the server under that name.
	jq -e '[.tests[0].methods[] | select(.status != "skipped") | .status == "ok" and .median > 0] |
		length > 0 and all' "$SCRATCH/out.json"
}

@test "a printed command pastes into a shell and runs, quotes and all" {
	start_serve --size 100
	bench_json --connect "127.0.0.1:$SERVE_PORT" -T files -n 3 -r 1 -M q \
		--method "q=printf '%s\n' \"it's\" >>\"$SCRATCH/ran\"; {ncpv} get -q {host} {port} >/dev/null"
	[ "$status" -eq 0 ]
	[ "$(wc -l <"$SCRATCH/ran")" -eq 3 ]
	run "$NCPV" bench -T files -n 3 -r 1 -M q --connect "127.0.0.1:$SERVE_PORT" \
		--method "q=printf '%s\n' \"it's\" >>\"$SCRATCH/ran\"; {ncpv} get -q {host} {port} >/dev/null"
	[ "$status" -eq 0 ]
	local line
	line=$(printf '%s\n' "$output" | sed -n 's/^  files  q  *//p')
	echo "pasting: $line"
	[ -n "$line" ]
	rm "$SCRATCH/ran"
	run sh -c "$line"
	[ "$status" -eq 0 ]
	[ "$(cat "$SCRATCH/ran")" = "$(printf "it's\nit's\nit's")" ]
}

@test "a placeholder inside the template's own quotes is refused" {
	local q
	for q in "'{host}'" '"{host}"' "\"x {port} y\""; do
		run "$NCPV" bench --method "x=nc $q {port}"
		[ "$status" -eq 2 ]
		[ "${#lines[@]}" -eq 1 ]
		[[ "$output" == "ncpv bench: method 'x': write {"*"} without quotes around it (the bench quotes every value)" ]]
	done
}

# descendants PID: "PID:COMM" of every live (not zombie) process below PID.
descendants() {
	ps -eo pid=,ppid=,stat=,comm= | awk -v root="$1" '
		{ parent[$1] = $2; state[$1] = $3; comm[$1] = $4 }
		END { for (p in parent) { q = p
			for (hops = 0; hops < 64 && q in parent && q != root; hops++) q = parent[q]
			if (q == root && p != root && state[p] !~ /^Z/) print p ":" comm[p] } }'
}

# alive PID...: those of the PIDs still running (zombies are not).
alive() {
	local p
	for p in "$@"; do
		[ -r "/proc/$p/stat" ] && ! awk '{ sub(/.*\) /, ""); exit !($1 == "Z") }' "/proc/$p/stat" && echo "$p"
	done
	return 0
}

# start_stream_bench: a long stream bench whose method leaves a grandchild
# (sleep) that neither a parent-death signal nor the server's end would
# stop; sets BENCH_PID and KIDS (every process below it) once all run.
start_stream_bench() {
	local i d=""
	(ulimit -c 0; exec "$NCPV" bench -q -T stream -d 60 -r 1 -M hold \
		--method 'hold=sleep 600 & {ncpv} get -q {host} {port}') >/dev/null 2>"$SCRATCH/bench.err" &
	BENCH_PID=$!
	STARTED_PIDS+=("$BENCH_PID")
	for ((i = 0; i < 600; i++)); do
		d=$(descendants "$BENCH_PID")
		[[ "$d" == *":sleep"* && "$d" == *":ncpv-guard"* && $(wc -l <<<"$d") -ge 5 ]] && break
		sleep 0.05
	done
	echo "below the bench: $d"
	[[ "$d" == *":sleep"* && $(wc -l <<<"$d") -ge 5 ]]
	KIDS=($(printf '%s\n' "$d" | cut -d: -f1))
	SLEEP_PID=$(printf '%s\n' "$d" | sed -n 's/:sleep$//p')
}

# wait_all_gone SECONDS PID...: true once none of them runs.
wait_all_gone() {
	local limit=$1 i
	shift
	for ((i = 0; i < limit * 20; i++)); do
		[ -z "$(alive "$@")" ] && return 0
		sleep 0.05
	done
	echo "still running: $(alive "$@")"
	ps -o pid,ppid,stat,args -p "$(alive "$@" | paste -sd,)" || true
	return 1
}

# Defect 4 of issue 12: nothing the bench started outlives it.
@test "a bench killed by SIGKILL takes its server and methods with it" {
	start_stream_bench
	kill -KILL "$BENCH_PID"
	wait_all_gone 20 "${KIDS[@]}"
}

@test "a bench killed by SIGQUIT takes its server and methods with it" {
	start_stream_bench
	kill -QUIT "$BENCH_PID"
	wait_all_gone 20 "${KIDS[@]}"
}

@test "the next bench removes what a bench killed with its supervisor left" {
	start_stream_bench
	local guard
	guard=$(descendants "$BENCH_PID" | sed -n 's/:ncpv-guard$//p')
	[ -n "$guard" ]
	kill -KILL "$BENCH_PID" "$guard"
	# sleep was the shell's child, and holds no socket: only the sweep reaches it.
	[ -n "$(alive "$SLEEP_PID")" ]
	run "$NCPV" bench -q -T stream -d 0.2 -r 1 -M ncpv
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"ncpv bench: killed "*" left running by a bench that was killed"* ]]
	wait_all_gone 20 "${KIDS[@]}"
}
