# shellcheck shell=sh
# Sourced by the shell tests that run nodelet-mockapi as a separate process:
# one copy of the temporary directory, the cleanup trap and the wait for the
# mock's "listening on" line, so how the mock is started and found is
# changed in one place. Sets $MOCKAPI, $FIXTURES, $work and $pid (stopped
# on exit); start_mockapi sets $url. A script may redefine fail() after
# sourcing, or cleanup() (calling mockapi_cleanup) to stop more processes.
MOCKAPI=${NL_MOCKAPI:-./mockapi/nodelet-mockapi}
# shellcheck disable=SC2034 # used by the scripts that source this
FIXTURES=${NL_FIXTURES_DIR:-$(dirname "$0")/../../fixtures}
work=$(mktemp -d)
pid=

# stop_pid PID: kill and reap a background process; nothing for "".
stop_pid() { [ -n "$1" ] && kill "$1" 2>/dev/null && wait "$1" 2>/dev/null; }
mockapi_cleanup() {
	stop_pid "$pid"
	rm -rf "$work"
}
cleanup() { mockapi_cleanup; }
trap cleanup EXIT INT TERM
fail() {
	echo "FAIL: $*"
	[ -f "$work/out" ] && cat "$work/out"
	exit 1
}

# mockapi_launch VAR NAME ARGS...: run the mock on a free port with ARGS,
# output to $work/NAME.out and $work/NAME.err, its process id in the
# variable VAR at once (so cleanup stops it even if it never answers), and
# wait up to 5 s for its URL into $url; fails with its stderr otherwise.
mockapi_launch() {
	mock_var=$1
	mock_name=$2
	shift 2
	"$MOCKAPI" --port 0 "$@" >"$work/$mock_name.out" 2>"$work/$mock_name.err" &
	eval "$mock_var=\$!"
	for _ in $(seq 1 100); do
		grep -q "listening on" "$work/$mock_name.out" 2>/dev/null && break
		sleep 0.05
	done
	url=$(sed -n 's/^nodelet-mockapi listening on //p' "$work/$mock_name.out")
	[ -n "$url" ] || { cat "$work/$mock_name.err"; fail "nodelet-mockapi ($mock_name) did not start"; }
}

# start_mockapi ARGS...: the usual single mock, in $pid, output in
# $work/server.out and $work/server.err.
start_mockapi() { mockapi_launch pid server "$@"; }
