# SPDX-License-Identifier: ISC
# expect: or-succeeds or-succeeds
@test "the || branch succeeds" {
	run false
	[ "$status" -eq 0 ] || echo "failed: $output"
	grep -q x f || true
	true
}
