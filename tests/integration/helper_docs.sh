#!/bin/sh
# docs/testing.md shows the helpers' example tests inline; make check runs
# the files. Each block after `<!-- example: PATH -->` must be PATH as it
# is, so that the page never shows a test nobody runs.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
doc=$top/docs/testing.md
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT INT TERM
n=0
rc=0
for f in $(sed -n 's/^<!-- example: \(.*\) -->$/\1/p' "$doc"); do
	n=$((n + 1))
	# The fenced block right after the marker, fences excluded.
	awk -v f="$f" '
		$0 == "<!-- example: " f " -->" { want = 1; next }
		want && /^```/ && !inblock { inblock = 1; next }
		inblock && /^```$/ { exit }
		inblock { print }
	' "$doc" >"$work/block"
	if diff -u "$top/$f" "$work/block" >"$work/diff"; then
		echo "ok: docs/testing.md shows $f"
	else
		echo "FAIL: docs/testing.md differs from $f:"
		cat "$work/diff"
		rc=1
	fi
done
[ "$n" -ge 3 ] || { echo "FAIL: docs/testing.md has $n examples, want 3 (Go, Python, Node)"; rc=1; }
exit $rc
