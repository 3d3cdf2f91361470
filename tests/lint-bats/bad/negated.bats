# SPDX-License-Identifier: ISC
# expect: negated negated negated negated negated
helper() {
	! grep -q x "$1"
	true
}
@test "negated, not last" {
	! grep -q secret "$f"
	true
}
@test "negated in a loop checks only the last pass" {
	for i in 1 2; do
		! [ "$i" = 1 ]
	done
}
@test "negated in an if body" {
	if true; then
		! cmp -s a b
	fi
	true
}
@test "negated after &&, in a pipeline" {
	[ -f x ] && ! awk 'length > 80' f | grep .
	true
}
