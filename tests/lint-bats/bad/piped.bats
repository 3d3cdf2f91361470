# SPDX-License-Identifier: ISC
# expect: piped
@test "an assertion before a pipe" {
	grep -q needle haystack | cat
	true
}
