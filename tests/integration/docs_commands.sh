#!/usr/bin/env bash
# The docs test: every ```sh block of README.md and docs/*.md runs as written,
# in order, in a fresh copy of the source tree (README's first command builds
# it), each block a bash -e script with a timeout. A block right after
#   <!-- not-runnable: reason -->     is skipped (real cluster, systemd, root)
#   <!-- long-running: SECONDS -->    passes when it is still running after
#                                     SECONDS (a server, `kubectl get -w`)
# README's test command is skipped: CI's readme-tests stage runs it as
# written. A block that leaves a process running fails (long-running ones
# are stopped at their limit). PATH is not changed: commands name the
# programs by their build path or as `make install` puts them.
# The build and the demo take minutes, so this is a CI stage (.ci/run
# "docs"), not part of make check.
#
#   tests/integration/docs_commands.sh [--list] [SRCDIR]
set -uo pipefail
list=0
[ "${1:-}" = --list ] && { list=1; shift; }
src=$(cd "${1:-$(dirname "$0")/../..}" && pwd)
timeout_s=${DOCS_TIMEOUT:-1200}
skip_cmd='sh tests/install-deps.sh && autoreconf -fi && ./configure && make check'

# Split the docs into blocks: $blocks/NNN.sh and $blocks/NNN.meta
# ("FILE:LINE<TAB>mode<TAB>seconds or reason"; mode run, skip or long).
extract() { # OUTDIR
	i=0
	for f in README.md $(cd "$src" && ls docs/*.md); do
		awk -v file="$f" -v out="$1" -v start="$i" '
			function meta(m, a) { printf "%s:%d\t%s\t%s\n", file, at, m, a > (base ".meta") }
			/^```sh[ \t]*$/ && !inblock {
				inblock = 1; at = NR; n++
				base = sprintf("%s/%03d", out, start + n)
				printf "" > (base ".sh")
				if (prev ~ /^<!--[ \t]*not-runnable:/) {
					r = prev; sub(/^<!--[ \t]*not-runnable:[ \t]*/, "", r); sub(/[ \t]*-->.*$/, "", r)
					meta("skip", r)
				} else if (prev ~ /^<!--[ \t]*long-running:[ \t]*[0-9]+/) {
					r = prev; gsub(/[^0-9]/, "", r)
					meta("long", r)
				} else
					meta("run", "")
				next
			}
			/^```[ \t]*$/ && inblock { inblock = 0; close(base ".sh"); close(base ".meta"); next }
			inblock { print > (base ".sh"); next }
			/[^ \t]/ { prev = $0; sub(/^[ \t]+/, "", prev) }
			END { print n + 0 > (out "/count") }
		' "$src/$f"
		i=$((i + $(cat "$1/count")))
	done
}

blocks=$(mktemp -d)
trap 'rm -rf "$blocks"' EXIT
extract "$blocks"

if [ $list = 1 ]; then
	for m in "$blocks"/*.meta; do
		IFS="$(printf '\t')" read -r where mode arg <"$m"
		echo "--- $where [$mode $arg]"
		cat "${m%.meta}.sh"
	done
	exit 0
fi

work=$(mktemp -d)
trap 'rm -rf "$work" "$blocks"' EXIT
copy=$work/src
mkdir -p "$copy"
# The tree as it is (committed and new files), without build products.
if git -C "$src" rev-parse --git-dir >/dev/null 2>&1; then
	# One tar reading the list: xargs would split a long one into several
	# archives, and tar xf stops at the end of the first.
	(cd "$src" && git ls-files -co --exclude-standard -z | tar cf - --null -T - 2>/dev/null) |
		(cd "$copy" && tar xf -)
else
	cp -a "$src/." "$copy/"
fi

# PATH stays the user's: a block that names a program without its build
# path (mockapi/nodelet-mockapi, client/nodelet) fails here as it would for
# a reader who has not run `make install`.
failed=()
for m in "$blocks"/*.meta; do
	IFS="$(printf '\t')" read -r where mode arg <"$m"
	cp "${m%.meta}.sh" "$work/block.sh"
	if [ "$mode" = skip ]; then
		echo "::: skip $where: $arg"
		continue
	fi
	if [ "$(cat "$work/block.sh")" = "$skip_cmd" ]; then
		echo "::: skip $where: run as written by the readme-tests CI stage"
		continue
	fi
	limit=$timeout_s
	[ "$mode" = long ] && limit=$arg
	echo "::: run $where"
	sed 's/^/    /' "$work/block.sh"
	# Its own session, so that whatever it leaves running can be stopped.
	(cd "$copy" && exec setsid bash -e -o pipefail "$work/block.sh") >"$work/out" 2>&1 &
	pid=$!
	t0=$SECONDS
	while kill -0 "$pid" 2>/dev/null && [ $((SECONDS - t0)) -lt "$limit" ]; do sleep 0.2; done
	if kill -0 "$pid" 2>/dev/null; then
		kill -TERM -- -"$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
		if [ "$mode" = long ]; then
			rc=0
		else
			echo "::: $where timed out after ${limit}s"
			rc=124
		fi
	else
		wait "$pid"
		rc=$?
		# A block must stop what it started in the background (a server
		# it signalled gets a few seconds to exit; zombies are gone).
		for _ in $(seq 30); do
			left=$(ps -o pid=,stat=,args= -s "$pid" 2>/dev/null | awk '$2 !~ /^Z/')
			[ -z "$left" ] && break
			sleep 0.1
		done
		if [ -n "$left" ]; then
			echo "::: $where left processes running:"
			echo "$left" | sed 's/^/      /'
			[ $rc -eq 0 ] && rc=125
			kill -TERM -- -"$pid" 2>/dev/null
		fi
	fi
	if [ $rc -eq 0 ]; then
		echo "::: ok $where ($((SECONDS - t0))s)"
	else
		tail -40 "$work/out"
		echo "::: FAILED $where (exit $rc)"
		failed+=("$where")
	fi
done
if [ ${#failed[@]} -ne 0 ]; then
	echo "docs commands failed: ${failed[*]}"
	exit 1
fi
echo "docs commands passed"
