# SPDX-License-Identifier: ISC
# expect: and-chain
@test "two assertions joined by &&" {
	run false
	[ "$status" -eq 2 ] && [[ "$output" == *usage* ]]
	run true
	[ "$status" -eq 0 ]
}
