#!/bin/sh
# The layering check (tests/lint/check-layers.sh) on a small tree made here:
# it passes a tree that keeps the rule and names each kind of breach — a
# call up a layer, an include up a layer, a cycle of calls, another folder's
# _internal.h — and accepts a cycle inside one module around its
# _internal.h.
set -u
here=$(cd "$(dirname "$0")" && pwd)
check=$here/check-layers.sh
CC=${CC:-cc}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT INT TERM
fail() {
	echo "FAIL: $*"
	exit 1
}

# low ← high: high may use low, never the other way.
mk() {
	rm -rf "$work/src" "$work/obj"
	mkdir -p "$work/src/tests/lint" "$work/src/low" "$work/src/high" "$work/obj/low" \
		"$work/obj/high"
	printf 'low\nhigh low\n' >"$work/src/tests/lint/layers.txt"
	printf 'int low_a(void);\n' >"$work/src/low/a.h"
	printf '#include "a.h"\nint low_a(void) { return 1; }\n' >"$work/src/low/a.c"
	printf 'int high_b(void);\n' >"$work/src/high/b.h"
	printf '#include "b.h"\n#include "low/a.h"\nint high_b(void) { return low_a(); }\n' \
		>"$work/src/high/b.c"
}
build() {
	for f in low/a high/b "$@"; do
		$CC -c -I"$work/src" -o "$work/obj/$f.o" "$work/src/$f.c" || fail "cannot compile $f.c"
	done
}
run() {
	(cd "$work/obj" && sh "$check" "$work/src" low/a.o high/b.o "$@") >"$work/out" 2>&1
}

mk
build
run || { cat "$work/out"; fail "a tree that keeps the rule was refused"; }

# A call up a layer.
mk
printf '#include "a.h"\nint high_b(void);\nint low_a(void) { return high_b(); }\n' \
	>"$work/src/low/a.c"
build
run && fail "a call from low into high passed"
grep -q 'low/a.c calls high/b.c (high_b): low may not use high' "$work/out" ||
	{ cat "$work/out"; fail "the upward call is not named"; }

# An include up a layer, without a call.
mk
printf '#include "a.h"\n#include "high/b.h"\nint low_a(void) { return 1; }\n' \
	>"$work/src/low/a.c"
build
run && fail "an include of high from low passed"
grep -q 'low/a.c includes "high/b.h": low may not use high' "$work/out" ||
	{ cat "$work/out"; fail "the upward include is not named"; }

# Two files of one folder calling each other: a cycle...
mk
printf 'int high_c(void);\nint high_b(void);\nint high_c(void) { return high_b(); }\n' \
	>"$work/src/high/c.c"
printf '#include "low/a.h"\nint high_b(void);\nint high_c(void);\nint high_b(void) { return low_a() + high_c(); }\n' \
	>"$work/src/high/b.c"
build high/c
run high/c.o && fail "a cycle of calls passed"
grep -q 'a cycle of calls between' "$work/out" || { cat "$work/out"; fail "the cycle is not named"; }

# ... allowed when both include one module header.
printf 'int high_b(void);\nint high_c(void);\n' >"$work/src/high/mod_internal.h"
printf '#include "mod_internal.h"\nint high_c(void) { return high_b(); }\n' >"$work/src/high/c.c"
printf '#include "low/a.h"\n#include "mod_internal.h"\nint high_b(void) { return low_a() + high_c(); }\n' \
	>"$work/src/high/b.c"
build high/c
run high/c.o || { cat "$work/out"; fail "a module split around its _internal.h was refused"; }

# Another folder's _internal.h, even one below: a module's own.
mk
printf 'int low_a(void);\n' >"$work/src/low/mod_internal.h"
printf '#include "b.h"\n#include "low/mod_internal.h"\nint high_b(void) { return low_a(); }\n' \
	>"$work/src/high/b.c"
build
run && fail "an include of another folder's _internal.h passed"
grep -q "high/b.c includes \"low/mod_internal.h\": an _internal.h is for the files of its own folder (low)" \
	"$work/out" || { cat "$work/out"; fail "the foreign _internal.h is not named"; }

echo "PASS: the layering check keeps the rule and names each breach"
