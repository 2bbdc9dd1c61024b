#!/bin/sh
# --state-file files that went missing, were emptied or are from another
# time (issue 19, docs/decisions/0029-state-generations.md): nodelet-mockapi
# refuses to start, naming the file, unless --discard-bad-state; a state
# directory with nothing in it is a first start and says so; every start it
# accepts has the four built-in namespaces and a resourceVersion counter
# past anything handed out before. And a final snapshot that fails at
# SIGTERM (a full disk: the temp file made a link to /dev/full) exits
# non-zero with a log line, losing nothing.
set -u
MOCKAPI=${NL_MOCKAPI:-./mockapi/nodelet-mockapi}
work=$(mktemp -d)
mock=
cleanup() {
	[ -n "$mock" ] && kill "$mock" 2>/dev/null
	wait 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT INT TERM
fail() {
	echo "FAIL: $*"
	for f in "$work"/*.err; do
		[ -s "$f" ] && { echo "--- $f"; tail -n 10 "$f"; }
	done
	exit 1
}
command -v curl >/dev/null || { echo "SKIP: no curl"; exit 77; }
state=$work/state

# start NAME [flags]: start on port 0, wait for "listening on"; sets url.
start() {
	name=$1
	shift
	"$MOCKAPI" --port 0 --state-file "$state" "$@" >"$work/$name.out" 2>"$work/$name.err" &
	mock=$!
	for _ in $(seq 1 250); do
		url=$(sed -n 's/^nodelet-mockapi listening on //p' "$work/$name.out" 2>/dev/null)
		[ -n "$url" ] && return 0
		kill -0 "$mock" 2>/dev/null || return 1
		sleep 0.02
	done
	return 1
}
# stop SIGNAL: stop the mock, leaving its exit status in $status.
stop() {
	kill "-$1" "$mock"
	wait "$mock"
	status=$?
	mock=
}
# refused NAME WANT [flags]: the start fails with WANT on stderr.
refused() {
	name=$1 want=$2
	shift 2
	if start "$name" "$@"; then
		stop TERM
		fail "$name: started"
	fi
	wait "$mock"
	status=$?
	mock=
	[ "$status" -ne 0 ] || fail "$name: exit status 0"
	grep -qF -- "$want" "$work/$name.err" || fail "$name: no \"$want\" in its log"
	grep -q -- "--discard-bad-state" "$work/$name.err" || fail "$name: no hint of the flag"
	echo "$name: refused: $want"
}
list_rv() { curl -s "$url/api/v1/namespaces" | sed -n 's/^{"kind":"NamespaceList","apiVersion":"v1","metadata":{"resourceVersion":"\([0-9]*\)".*/\1/p'; }
namespaces_there() {
	for ns in default kube-system kube-public kube-node-lease; do
		[ "$(curl -s -o /dev/null -w '%{http_code}' "$url/api/v1/namespaces/$ns")" = 200 ] ||
			fail "$1: namespace $ns missing"
	done
}
create_cm() {
	code=$(curl -s -o /dev/null -w '%{http_code}' -XPOST -H 'Content-Type: application/json' \
		"$url/api/v1/namespaces/default/configmaps" -d "{\"metadata\":{\"name\":\"$1\"}}")
	[ "$code" = 201 ] || fail "create $1: HTTP $code"
}
# accepted NAME PREV [flags]: starts, has the namespaces, counter past PREV.
accepted() {
	name=$1 prev=$2
	shift 2
	start "$name" "$@" || fail "$name: did not start"
	namespaces_there "$name"
	rv=$(list_rv)
	[ -n "$rv" ] && [ "$rv" -gt "$prev" ] || fail "$name: resourceVersion $rv not past $prev"
	echo "$name: started at resourceVersion $rv (was $prev)"
}

start first || fail "first start"
grep -q '] "No state there yet, first start with an empty store" path=' "$work/first.err" || fail "first start not logged"
namespaces_there first
create_cm a
rv=$(list_rv)
stop TERM
[ "$status" -eq 0 ] || fail "clean stop: exit status $status"

# After a clean stop, each file in turn emptied or removed.
cp "$state" "$work/keep"
: >"$state"
refused empty-snapshot "state: empty"
rm "$state"
refused missing-snapshot "state: missing"
accepted discard-snapshot "$rv" --discard-bad-state
grep -q -- '] "State file does not fit, --discard-bad-state goes on" path="[^"]*" reason="[^"]*" action="starting without it[^"]*"$' "$work/discard-snapshot.err" ||
	fail "discarding not logged"
create_cm b
rv=$(list_rv)
stop TERM

# A snapshot of another generation put back.
cp "$work/keep" "$state"
refused old-snapshot "state: generation"

# An unclean stop (kill -9): the log holds what the snapshot does not.
accepted again "$rv" --discard-bad-state
create_cm c
rv=$(list_rv)
stop KILL
: >"$state.log"
refused empty-log "state.log: empty"
rm "$state.log"
refused missing-log "state.log: missing"
accepted discard-log "$rv" --discard-bad-state
rv=$(list_rv)
stop TERM

# Everything gone but the marker: refused too.
rm "$state" "$state.log"
refused only-marker "state: missing"
accepted discard-all "$rv" --discard-bad-state
create_cm d
rv=$(list_rv)

# A full disk at SIGTERM: the final snapshot fails; exit status 1.
ln -s /dev/full "$state.tmp"
stop TERM
[ "$status" -eq 1 ] || fail "full disk at SIGTERM: exit status $status"
grep -q '] "Final snapshot failed, the stop is not clean" err="' "$work/discard-all.err" ||
	fail "no log line for the failed final snapshot"
echo "full disk at SIGTERM: exit status 1"
accepted after-full "$rv"
grep -q '] "The last stop was not clean, resourceVersions skip ahead" path=' "$work/after-full.err" || fail "unclean stop not noticed"
[ "$(curl -s -o /dev/null -w '%{http_code}' "$url/api/v1/namespaces/default/configmaps/d")" = 200 ] ||
	fail "a change acknowledged before the failed stop is lost"
stop TERM
[ "$status" -eq 0 ] || fail "clean stop after recovery: exit status $status"
echo PASS
