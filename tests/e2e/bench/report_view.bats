#!/usr/bin/env bats
# SPDX-License-Identifier: ISC
# report_view.bats - the bench's HTML report as a reader sees it (issue 27, 6 and 8): an
# eight-method report made from synthetic runs (tests/unit/test_bench.c writes it, no bench
# runs), laid out by headless Chromium at two widths and measured from the DOM.

load ../lib/helpers

UNIT_BENCH=$(dirname "$NCPV")/tests/test_bench

setup() {
	common_setup
	CHROMIUM=$(command -v chromium || command -v chromium-browser) || skip "chromium is not installed"
	[ -x "$UNIT_BENCH" ] || { echo "no $UNIT_BENCH: run make unit first" >&2; return 1; }
	# The unit tests' own verdicts are make unit's business: here only the page they write.
	NCPV_REPORT_SAMPLE=$SCRATCH/report.html "$UNIT_BENCH" >/dev/null 2>&1 || true
	[ -s "$SCRATCH/report.html" ]
}
teardown() { common_teardown; }

# measure WIDTH: lay the report out in a WIDTH-pixel frame; prints "report KEY=VALUE...".
measure() {
	cat >"$SCRATCH/check.html" <<HTML
<!DOCTYPE html><html><body style="margin:0"><iframe id="r" src="report.html" width="$1" height="800"></iframe>
<pre id="result">not loaded</pre><script>
document.getElementById('r').addEventListener('load', function () {
  var doc = this.contentDocument, width = doc.documentElement.clientWidth, out = [];
  var cmp = doc.querySelector('svg.chart.compare'), bars = [], rows = {};
  cmp.querySelectorAll('rect.median').forEach(function (r) {
    bars.push(r.dataset.method + ':' + r.getBoundingClientRect().width.toFixed(1) + ':' + r.dataset.median); });
  doc.querySelectorAll('.multiples svg').forEach(function (s) {
    var t = Math.round(s.getBoundingClientRect().top); rows[t] = (rows[t] || 0) + 1; });
  out.push('height=' + doc.documentElement.scrollHeight, 'page=' + width,
           'fits=' + (doc.documentElement.scrollWidth <= width),
           'compare=' + Math.round(cmp.getBoundingClientRect().width), 'scale=' + cmp.dataset.scale,
           'multiples=' + doc.querySelectorAll('.multiples svg').length, 'rows=' + Object.keys(rows).length,
           'bars=' + bars.join(','));
  document.getElementById('result').textContent = 'report ' + out.join(' ');
});
</script></body></html>
HTML
	# Chromium is the ruler here, not what is measured: a start that gave no page (seen
	# under load) is tried once more, and its stderr shown if that fails too.
	local try out
	for try in 1 2; do
		out=$(timeout 60 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-background-networking \
			--disable-component-update --disable-sync --no-first-run --user-data-dir="$SCRATCH/chromium.$try" \
			--allow-file-access-from-files --virtual-time-budget=5000 --dump-dom "file://$SCRATCH/check.html" \
			2>"$SCRATCH/chromium.err" | grep -o 'report height=[^<]*') && { echo "$out"; return 0; }
	done
	tail -5 "$SCRATCH/chromium.err" >&2
	return 1
}

# field NAME: a KEY=VALUE of the last measure.
field() { tr ' ' '\n' <<<"$M" | sed -n "s/^$1=//p"; }

@test "eight methods' report fits a 1000-pixel page well under the old 5,300 pixels, rate charts in a grid" {
	M=$(measure 1000)
	echo "$M"
	[ "$(field fits)" = true ]
	[ "$(field height)" -lt 2500 ]
	[ "$(field multiples)" -eq 8 ]
	[ "$(field rows)" -le 3 ]
}

@test "the comparison chart uses the page's width, at 1000 and at 1600 pixels" {
	local w
	for w in 1000 1600; do
		M=$(measure $w)
		echo "$M"
		[ "$(field fits)" = true ]
		# Within the page's margins: at least 85% of it, whatever the width.
		[ "$(field compare)" -ge $(($(field page) * 85 / 100)) ]
	done
}

@test "the comparison bars are fastest first on a linear axis: each bar's width is its median's share" {
	M=$(measure 1000)
	echo "$M"
	[ "$(field scale)" = linear ]
	# name:width:median per bar, in the page's order: widths and medians both descending,
	# and width / median the same for every bar (linear from 0) within half a pixel.
	field bars | tr ',' '\n' | awk -F: '
		NR > 1 && ($2 > w + 0.01 || $3 > m) { print "not descending at " $1; bad = 1 }
		NR == 1 { k = $2 / $3 }
		{ if ($2 > 1 && (($2 - k * $3) > 0.5 || (k * $3 - $2) > 0.5)) { print "not linear at " $1; bad = 1 }
		  w = $2; m = $3; n++ }
		END { exit bad || n != 8 }'
}
