#!/usr/bin/env bats
# SPDX-License-Identifier: ISC
# licence.bats - the tree is under the ISC licence, and says so wherever a packager looks.

load ../lib/helpers

ROOT=$(cd "$BATS_TEST_DIRNAME/../../.." && pwd)

setup() { common_setup; }
teardown() { common_teardown; }

@test "LICENSE is the ISC licence and debian/copyright names it" {
	grep -q '^ISC License$' "$ROOT/LICENSE"
	grep -q '^License: ISC$' "$ROOT/debian/copyright"
	! grep -q 'none-stated' "$ROOT/debian/copyright"
}

# The tree's files: git's list in a checkout, else (a copy such as CI's fresh one) every file
# outside the build products.
source_files() {
	if git rev-parse --git-dir >/dev/null 2>&1; then
		git ls-files
	else
		find . -path ./build -prune -o -path ./.git -prune -o -type f -print | sed 's|^\./||' |
			grep -Ev '^(ncpv|ncpv-static|libncpv-devtcp\.so|ncpv-bench-.*)$'
	fi
}

@test "every source file carries an SPDX-License-Identifier: ISC line near its top" {
	cd "$ROOT"
	missing=()
	while IFS= read -r f; do
		case $f in fuzz/corpus/*|debian/*|*.md|*.dict|*.supp|.ci/packages|.ci/packages-*|.gitignore|.clang-tidy|.cppcheck-suppressions|LICENSE) continue ;; esac
		case $f in *.c|*.h|*.sh|*.bash|*.bats|*.py|Makefile|tools/*|tests/run-e2e|tests/valgrind/ncpv-valgrind|.ci/*|completions/*|doc/*.1) ;; *) continue ;; esac
		head -n 5 "$f" | grep -q 'SPDX-License-Identifier: ISC' || missing+=("$f")
	done < <(source_files)
	[ ${#missing[@]} -eq 0 ] || { printf 'no SPDX line: %s\n' "${missing[@]}"; false; }
}

@test "ncpv --version and the README name the licence" {
	run "$NCPV" --version
	[ "$status" -eq 0 ]
	[[ "$output" == *"license: ISC"* ]]
	grep -q 'ISC licence' "$ROOT/README.md"
}
