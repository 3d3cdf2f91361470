# SPDX-License-Identifier: ISC
# expect: run-unchecked
@test "run with no check after it" {
	run ncpv get -q 127.0.0.1:1
	echo "$output"
}
