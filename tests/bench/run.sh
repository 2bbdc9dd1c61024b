#!/bin/bash
# The benchmark suite of issue 11, run by `make bench` (which builds the
# helpers first). Every figure is measured next to an anchor in the same
# invocation, because these machines are shared and noisy: ratios travel,
# absolute numbers do not. Prints figures as it goes and writes
# docs/benchmarks.md (full runs only). Exits non-zero only when a run fails
# outright (a helper or a server did not work); a missed target is reported,
# not fatal.
#
# Flags: --quick (short runs, smaller N; table printed, docs untouched),
#        --only "get memory startup storm put watch heartbeat agent bigwrite".
# Environment: BENCH_BUILDDIR, BENCH_SRCDIR (set by make), BENCH_DURATION
# (wrk seconds, default 5), BENCH_ROUNDS (default 5), BENCH_OUT (where the
# Markdown goes).
set -u

srcdir=${BENCH_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
builddir=${BENCH_BUILDDIR:-$(pwd)}
bin=$builddir/tests/bench
mock=$builddir/mockapi/nodelet-mockapi
duration=${BENCH_DURATION:-5}
rounds=${BENCH_ROUNDS:-5}
quick=0
only="get memory startup storm put watch heartbeat agent bigwrite"
scale_ns="1000 10000 100000"
memory_steps="10000 50000 100000"
storm_seconds=10
put_seconds=10
watch_runs="10:10 100:10 1000:30" # watchers:seconds
hb_ladder="5000 10000 20000 30000 50000"
hb_window=15
hb_connections=64
bigwrite_seconds=10
command="make bench"

while [ $# -gt 0 ]; do
	case $1 in
	--quick)
		quick=1 duration=${BENCH_DURATION:-2} rounds=${BENCH_ROUNDS:-1}
		scale_ns="1000 10000" memory_steps="10000" storm_seconds=3 put_seconds=3
		watch_runs="10:5 100:5" hb_ladder="1000 5000" hb_window=5 bigwrite_seconds=3
		command="$command BENCH_FLAGS=--quick"
		;;
	--only)
		only=$2
		shift
		;;
	*)
		echo "run.sh: unknown flag $1" >&2
		exit 2
		;;
	esac
	shift
done
out=${BENCH_OUT:-}
if [ -z "$out" ] && [ $quick = 0 ] &&
	[ "$only" = "get memory startup storm put watch heartbeat agent bigwrite" ]; then
	out=$srcdir/docs/benchmarks.md
fi

tmp=$(mktemp -d /tmp/nodelet-bench.XXXXXX)
chmod 755 "$tmp" # nginx workers run as nobody and read the static file
pids=()
failed=0
rows=()    # summary table rows, Markdown
details=() # per-benchmark scaling tables, Markdown

cleanup() {
	local p
	for p in "${pids[@]}"; do
		kill "$p" 2>/dev/null && wait "$p" 2>/dev/null
	done
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

say() { printf '%s\n' "$*"; }
fail() {
	say "FAILED: $*" >&2
	failed=1
}
wants() { case " $only " in *" $1 "*) return 0 ;; esac; return 1; }
# key=value lines from the helpers: field NAME < line
field() { tr ' ' '\n' | sed -n "s/^$1=//p" | head -1; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "n/a" }'; }
median() { tr ' ' '\n' | grep . | sort -g | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }'; }
met() { if awk "BEGIN { exit !($1) }" 2>/dev/null; then echo yes; else echo "**no**"; fi; }
row() { rows+=("| $1 | $2 | $3 | $4 | $5 | $6 |"); }

stop_pid() {
	local p=$1 i
	kill "$p" 2>/dev/null && wait "$p" 2>/dev/null
	for i in "${!pids[@]}"; do [ "${pids[$i]}" = "$p" ] && unset 'pids[i]'; done
}

# start_server NAME CMD...: run CMD (which prints a line ending in the port),
# wait for that line; sets srv_pid and srv_port.
start_server() {
	local name=$1 i
	shift
	# Truncate here: the child's own redirection may come after our first
	# look, which must not find the previous server's port.
	: >"$tmp/$name.out"
	"$@" >"$tmp/$name.out" 2>"$tmp/$name.err" &
	srv_pid=$!
	pids+=("$srv_pid")
	srv_port=
	for i in $(seq 1 200); do
		srv_port=$(sed -n '1s/.*[^0-9]\([0-9][0-9]*\)$/\1/p' "$tmp/$name.out")
		[ -n "$srv_port" ] && return 0
		kill -0 "$srv_pid" 2>/dev/null || break
		sleep 0.05
	done
	fail "$name did not start: $(head -c 500 "$tmp/$name.err")"
	return 1
}

start_mock() { start_server mock "$mock" --port 0 "$@" && mock_pid=$srv_pid mock_url=http://127.0.0.1:$srv_port; }

# A free loopback port for nginx, which cannot report the one it picks.
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])' 2>/dev/null || echo 18443; }

start_nginx() { # DOCROOT
	local conf=$tmp/nginx.conf
	nginx_port=$(free_port)
	cat >"$conf" <<EOF
worker_processes 2;
pid $tmp/nginx.pid;
error_log $tmp/nginx.err;
events { worker_connections 1024; }
http {
	access_log off;
	client_body_temp_path $tmp/nginx-body;
	proxy_temp_path $tmp/nginx-proxy;
	fastcgi_temp_path $tmp/nginx-fastcgi;
	uwsgi_temp_path $tmp/nginx-uwsgi;
	scgi_temp_path $tmp/nginx-scgi;
	server {
		listen 127.0.0.1:$nginx_port;
		root $1;
		default_type application/json;
		etag off;
		add_header Cache-Control "no-cache, private";
	}
}
EOF
	nginx -p "$tmp" -c "$conf" -g 'daemon off;' 2>"$tmp/nginx.stderr" &
	nginx_pid=$!
	pids+=("$nginx_pid")
	local i
	for i in $(seq 1 100); do
		curl -sf -o /dev/null "http://127.0.0.1:$nginx_port/" -H 'Range: bytes=0-0' 2>/dev/null
		[ $? != 7 ] && return 0
		sleep 0.05
	done
	fail "nginx did not start: $(cat "$tmp/nginx.stderr" "$tmp/nginx.err" 2>/dev/null | head -c 500)"
	return 1
}

# CPU time (user + system) a process and its children (nginx's workers)
# have used, in clock ticks.
cpu_ticks() {
	local p t=0
	for p in "$1" $(pgrep -P "$1"); do
		t=$((t + $(awk '{ print $14 + $15 }' "/proc/$p/stat" 2>/dev/null || echo 0)))
	done
	echo $t
}

# wrk_run URL [PID]: 2 threads, 64 keep-alive connections; sets wrk_rps,
# wrk_p50, wrk_p99 (ms) and, given the server's PID, wrk_cpu_us: the server's
# CPU time per request, which the machine's other load disturbs less than
# requests/s. A run with errors or non-2xx answers fails.
wrk_header= # an extra request header for wrk_run ("Accept: ..."), or empty
wrk_run() {
	local log=$tmp/wrk.log c0=0 hdr=()
	wrk_rps=0 wrk_p50=0 wrk_p99=0 wrk_cpu_us=
	[ -n "$wrk_header" ] && hdr=(-H "$wrk_header")
	[ -n "${2:-}" ] && c0=$(cpu_ticks "$2")
	if ! wrk -t2 -c64 -d"${duration}s" --latency "${hdr[@]}" "$1" >"$log" 2>&1; then
		fail "wrk $1: $(head -c 300 "$log")"
		return 1
	fi
	if grep -q -e 'Non-2xx' -e 'Socket errors' "$log"; then
		fail "wrk $1: $(grep -e 'Non-2xx' -e 'Socket errors' "$log")"
		return 1
	fi
	wrk_rps=$(awk '/^Requests\/sec:/ { printf "%.0f", $2 }' "$log")
	# Latency percentiles come with units (us, ms, s).
	local conv='{ v = $2; u = v; sub(/[0-9.]+/, "", u); sub(/[a-z]+$/, "", v);
		m = (u == "us") ? v / 1000 : (u == "s") ? v * 1000 : v; printf "%.2f", m }'
	wrk_p50=$(awk '$1 == "50%" '"$conv" "$log")
	wrk_p99=$(awk '$1 == "99%" '"$conv" "$log")
	[ -n "$wrk_rps" ] || {
		fail "wrk $1: no figure"
		return 1
	}
	if [ -n "${2:-}" ]; then
		local c1 n
		c1=$(cpu_ticks "$2")
		n=$(awk '/requests in/ { print $1 }' "$log")
		wrk_cpu_us=$(awk -v d=$((c1 - c0)) -v hz="$(getconf CLK_TCK)" -v n="$n" \
			'BEGIN { if (n > 0) printf "%.1f", d * 1e6 / hz / n }')
	fi
}

lease_path=/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases
lease_body() {
	printf '{"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{"name":"%s"},"spec":{"holderIdentity":"%s","leaseDurationSeconds":40,"renewTime":"2024-01-01T00:00:00.000000Z"}}' "$1" "$1"
}

# ---------------------------------------------------------------------------
# 1. GET one Lease: mock vs bare libmicrohttpd vs nginx, then the mock's GET
#    and LIST as the number of stored Leases grows.
bench_get() {
	say "== 1. GET one Lease (wrk -t2 -c64 -d${duration}s, $rounds rounds)"
	start_mock || return
	local m_pid=$mock_pid m_url=$mock_url
	if ! curl -sf -o /dev/null -H 'Content-Type: application/json' -X POST \
		--data "$(lease_body node-1)" "$m_url$lease_path"; then
		fail "cannot create the Lease"
		return
	fi
	local obj=$lease_path/node-1
	mkdir -p "$tmp/www$lease_path"
	curl -sf -o "$tmp/www$obj" "$m_url$obj" || {
		fail "cannot read the Lease"
		return
	}
	chmod -R a+rX "$tmp/www"
	local size
	size=$(wc -c <"$tmp/www$obj")

	# The anchor's best threading mode, measured here and now.
	local mode best_mode='' best_rps=0 mode_figures=''
	for mode in epoll-pool poll-pool select-pool epoll thread-per-connection; do
		start_server anchor "$bin/bench_anchor" --mode $mode --body "$tmp/www$obj" || return
		wrk_run "http://127.0.0.1:$srv_port$obj" "$srv_pid"
		stop_pid "$srv_pid"
		say "   bare libmicrohttpd $mode: $wrk_rps req/s, $wrk_cpu_us µs CPU/request"
		mode_figures="$mode_figures $mode $wrk_rps $wrk_cpu_us;"
		if [ "$wrk_rps" -gt "$best_rps" ]; then best_rps=$wrk_rps best_mode=$mode; fi
	done
	[ -n "$best_mode" ] || return
	start_server anchor "$bin/bench_anchor" --mode $best_mode --body "$tmp/www$obj" || return
	local a_pid=$srv_pid a_url=http://127.0.0.1:$srv_port
	local have_nginx=0
	if command -v nginx >/dev/null && start_nginx "$tmp/www"; then have_nginx=1; fi

	# Interleaved rounds, so drift in the machine's load hits all three.
	local r m_rps='' a_rps='' n_rps='' m_p50='' m_p99='' m_cpu='' a_cpu='' n_cpu='' round_rows='' rm ra rn
	for r in $(seq 1 "$rounds"); do
		rm=- ra=- rn=-
		wrk_run "$m_url$obj" "$m_pid" && rm="$wrk_rps ($wrk_cpu_us µs)" m_rps="$m_rps $wrk_rps" \
			m_p50="$m_p50 $wrk_p50" m_p99="$m_p99 $wrk_p99" m_cpu="$m_cpu $wrk_cpu_us"
		wrk_run "$a_url$obj" "$a_pid" && ra="$wrk_rps ($wrk_cpu_us µs)" a_rps="$a_rps $wrk_rps" a_cpu="$a_cpu $wrk_cpu_us"
		if [ $have_nginx = 1 ]; then
			wrk_run "http://127.0.0.1:$nginx_port$obj" "$nginx_pid" && rn="$wrk_rps ($wrk_cpu_us µs)" \
				n_rps="$n_rps $wrk_rps" n_cpu="$n_cpu $wrk_cpu_us"
		fi
		say "   round $r: mock $rm | bare MHD $ra | nginx $rn req/s (server CPU per request)"
		round_rows="$round_rows
| $r | $rm | $ra | $rn |"
	done
	local mm am nm mc ac nc
	mm=$(echo "$m_rps" | median) am=$(echo "$a_rps" | median) nm=$(echo "$n_rps" | median)
	mc=$(echo "$m_cpu" | median) ac=$(echo "$a_cpu" | median) nc=$(echo "$n_cpu" | median)
	get_anchor_rps=$am
	say "   median: mock $mm, bare MHD ($best_mode) $am, nginx ${nm:-n/a} req/s; mock/MHD $(ratio "$mm" "$am"); CPU µs/request mock $mc, MHD $ac, nginx ${nc:-n/a}"
	row 1 "GET one Lease ($size B), keep-alive, wrk 2 threads/64 conns" \
		"$mm req/s (p50 $(echo "$m_p50" | median) ms, p99 $(echo "$m_p99" | median) ms); $mc µs CPU/request" \
		"bare MHD ($best_mode) $am req/s, $ac µs; nginx ${nm:-not installed} req/s, ${nc:--} µs" \
		"$(ratio "$mm" "$am")× MHD, $(ratio "$mm" "$nm")× nginx (CPU/request $(ratio "$mc" "$ac")× MHD)" \
		"≥ 0.9× MHD: $(met "$mm >= 0.9 * $am")"
	bench_get_protobuf "$m_url$obj" "$m_pid"
	details+=("### 1. GET one Lease

Bare libmicrohttpd threading modes (one run each, ${duration} s):$(echo "$mode_figures" | tr ';' '\n' | awk 'NF == 3 { printf "\n- %s: %s req/s, %s µs CPU/request", $1, $2, $3 }')

Requests/s per round (server CPU time per request in parentheses; wrk runs on the same two cores):

| round | nodelet-mockapi | bare MHD ($best_mode) | nginx |
|---|---|---|---|$round_rows")

	# Scaling: the same GET and a LIST with N Leases stored.
	local n have=1 scale_rows=''
	for n in $scale_ns; do
		local add=$((n - have))
		local created
		if ! created=$("$bin/bench_store" create "$m_url" "$lease_path" lease $add --start "$have" --prefix scale); then
			fail "populate $n Leases"
			break
		fi
		have=$n
		wrk_run "$m_url$obj" "$m_pid" || break
		local g=$wrk_rps gp99=$wrk_p99 gc=$wrk_cpu_us
		wrk_run "$a_url$obj" "$a_pid"
		local ga=$wrk_rps
		local lst
		lst=$("$bin/bench_store" list "$m_url" "$lease_path" 5) || {
			fail "list $n Leases"
			break
		}
		say "   N=$n: GET $g req/s, $gc µs CPU (MHD $ga, ratio $(ratio "$g" "$ga")), LIST $(echo "$lst" | field median_ms) ms = $(echo "$lst" | field us_per_item) µs/item; create $(echo "$created" | field rate)/s"
		scale_rows="$scale_rows
| $n | $g | $gc | $gp99 | $(ratio "$g" "$ga") | $(echo "$lst" | field median_ms) | $(echo "$lst" | field us_per_item) | $(echo "$created" | field rate) |"
	done
	details+=("Scaling with the number of Leases stored (GET of one Lease with wrk as above; LIST of all, median of 5; create rate with 4 connections):

| Leases stored | GET req/s | GET CPU µs/request | GET p99 ms | GET / bare MHD | LIST ms | LIST µs/item | creates/s |
|---|---|---|---|---|---|---|---|$scale_rows")
	stop_pid "$m_pid"
	stop_pid "$a_pid"
	[ $have_nginx = 1 ] && stop_pid "$nginx_pid"
}

# 1b. The same GET as protobuf (what kubelet and kubectl's typed clients
#     ask for), interleaved with the JSON GET: the anchor is the mock's own
#     JSON answer to the same object. Then the bytes of one renewal (PUT body
#     and answer) in each encoding, from the same Lease.
bench_get_protobuf() { # URL PID
	local url=$1 pid=$2 r j_rps='' p_rps='' j_cpu='' p_cpu='' jm pm jc pc
	for r in $(seq 1 "$rounds"); do
		wrk_header='Accept: application/json' wrk_run "$url" "$pid" &&
			j_rps="$j_rps $wrk_rps" j_cpu="$j_cpu $wrk_cpu_us"
		wrk_header='Accept: application/vnd.kubernetes.protobuf,application/json' wrk_run "$url" "$pid" &&
			p_rps="$p_rps $wrk_rps" p_cpu="$p_cpu $wrk_cpu_us"
	done
	jm=$(echo "$j_rps" | median) pm=$(echo "$p_rps" | median)
	jc=$(echo "$j_cpu" | median) pc=$(echo "$p_cpu" | median)
	say "   protobuf GET: $pm req/s ($pc µs CPU) vs JSON $jm req/s ($jc µs); $(ratio "$pm" "$jm")×"
	row 1b "GET one Lease as protobuf, same object, wrk 2 threads/64 conns" \
		"$pm req/s; $pc µs CPU/request" "JSON GET $jm req/s, $jc µs" \
		"$(ratio "$pm" "$jm")× JSON (CPU/request $(ratio "$pc" "$jc")×)" \
		"≥ 0.9× JSON: $(met "$pm >= 0.9 * $jm")"
	# One renewal's bytes: the Lease as the server last sent it goes back
	# with a new renewTime (the agent's splice), and the answer comes back.
	local jb pb ju jd pu pd pbt=application/vnd.kubernetes.protobuf
	curl -sf -o "$tmp/renew.json" -H 'Accept: application/json' "$url" &&
		curl -sf -o "$tmp/renew.pb" -H "Accept: $pbt" "$url" || {
		fail "cannot read the Lease for the renewal bytes"
		return
	}
	read -r ju jd < <(curl -sf -o /dev/null -w '%{size_upload} %{size_download}\n' -X PUT \
		-H 'Content-Type: application/json' -H 'Accept: application/json' \
		--data-binary @"$tmp/renew.json" "$url")
	# The protobuf PUT goes from the JSON PUT's answer's resourceVersion.
	curl -sf -o "$tmp/renew.pb" -H "Accept: $pbt" "$url"
	read -r pu pd < <(curl -sf -o /dev/null -w '%{size_upload} %{size_download}\n' -X PUT \
		-H "Content-Type: $pbt" -H "Accept: $pbt" --data-binary @"$tmp/renew.pb" "$url")
	jb=$((${ju:-0} + ${jd:-0})) pb=$((${pu:-0} + ${pd:-0}))
	say "   renewal bytes: JSON $ju up + $jd down = $jb, protobuf $pu + $pd = $pb"
	row 1c "bytes of one Lease renewal on the wire (PUT body + answer)" \
		"protobuf $pu + $pd = $pb B" "JSON $ju + $jd = $jb B" "$(ratio "$pb" "$jb")×" \
		"≤ 0.6× JSON: $(met "$pb <= 0.6 * $jb")"
}

# ---------------------------------------------------------------------------
# 5. Memory: idle RSS, then 100,000 ConfigMaps of 1 KiB.
bench_memory() {
	say "== 5. Memory"
	start_mock || return
	local m_pid=$mock_pid m_url=$mock_url
	sleep 1
	local idle idle_anon
	idle=$(awk '/^VmRSS:/ { print $2 }' /proc/$m_pid/status)
	idle_anon=$(awk '/^RssAnon:/ { print $2 }' /proc/$m_pid/status)
	say "   idle: RSS $idle KiB (anonymous $idle_anon KiB)"
	row 5 "idle mock RSS" "$((idle / 1024)).$(((idle % 1024) * 10 / 1024)) MiB (anonymous $idle_anon KiB)" "—" "—" \
		"< 10 MiB: $(met "$idle < 10240")"
	local have=0 n bytes=0 mem_rows='' rss=0
	for n in $memory_steps; do
		local created
		if ! created=$("$bin/bench_store" create "$m_url" /api/v1/namespaces/default/configmaps configmap $((n - have)) \
			--start $have --size 1024 --prefix mem); then
			fail "populate $n ConfigMaps"
			return
		fi
		bytes=$((bytes + $(echo "$created" | field json_bytes)))
		have=$n
		sleep 0.5
		rss=$(awk '/^VmRSS:/ { print $2 }' /proc/$m_pid/status)
		local lst
		lst=$("$bin/bench_store" list "$m_url" "/api/v1/namespaces/default/configmaps" 3) || {
			fail "list ConfigMaps"
			return
		}
		# A selector that matches nothing: the cost of scanning alone.
		local scan
		scan=$("$bin/bench_store" list "$m_url" "/api/v1/namespaces/default/configmaps?labelSelector=app%3Dnone" 5) || {
			fail "selector list"
			return
		}
		scan=$(awk -v ms="$(echo "$scan" | field median_ms)" -v n="$n" 'BEGIN { printf "%.2f", ms * 1000 / n }')
		local per_obj
		per_obj=$(awk -v r="$rss" -v i="$idle" -v n="$n" 'BEGIN { printf "%.0f", (r - i) * 1024 / n }')
		say "   $n ConfigMaps: JSON $((bytes / 1024)) KiB, RSS $rss KiB ($(ratio $((rss * 1024)) $bytes)× JSON; $per_obj B/object over idle); LIST $(echo "$lst" | field median_ms) ms"
		mem_rows="$mem_rows
| $n | $((bytes / 1048576)) | $((rss / 1024)) | $(ratio $((rss * 1024)) $bytes) | $per_obj | $(echo "$created" | field rate) | $(echo "$lst" | field median_ms) | $(echo "$lst" | field us_per_item) | $scan |"
	done
	row 5 "$have ConfigMaps of 1 KiB loaded: mock RSS vs their JSON" "$((rss / 1024)) MiB RSS for $((bytes / 1048576)) MiB JSON" \
		"JSON size" "$(ratio $((rss * 1024)) $bytes)×" "≤ 2×: $(met "$rss * 1024 <= 2 * $bytes")"
	details+=("### 5. Memory

Idle: RSS $idle KiB, of which anonymous $idle_anon KiB (the rest is shared libraries and the binary).

Each ConfigMap has one label and a 1 KiB-ish \`data\` value, created over 4 keep-alive connections. The default request journal (100,000 entries) is part of the figure. \"selector scan\" is a LIST whose labelSelector matches nothing: the per-object cost of filtering.

| ConfigMaps | JSON MiB | RSS MiB | RSS / JSON | bytes per object over idle | creates/s | LIST all ms | LIST µs/item | selector scan µs/object |
|---|---|---|---|---|---|---|---|---|$mem_rows")
	stop_pid "$m_pid"
}

# ---------------------------------------------------------------------------
# 6. Start-up to /readyz 200.
bench_startup() {
	say "== 6. Start-up"
	local res
	res=$("$bin/bench_startup" "$mock" 20) || {
		fail "start-up"
		return
	}
	say "   $res"
	local med
	med=$(echo "$res" | field median_ms)
	row 6 "start → /readyz 200, median of 20" "$med ms (min $(echo "$res" | field min_ms), max $(echo "$res" | field max_ms))" \
		"envtest 4–30 s" "—" "< 20 ms: $(met "$med < 20")"
}

# ---------------------------------------------------------------------------
# 7. Conflict storm: retry-on-conflict writers on one ConfigMap.
bench_storm() {
	say "== 7. Conflict storm (${storm_seconds} s per run)"
	start_mock || return
	local m_pid=$mock_pid m_url=$mock_url w res storm_rows='' last=''
	for w in 1 4 16; do
		res=$("$bin/bench_storm" "$m_url" $w "$storm_seconds") || {
			fail "storm with $w writers: $res"
			continue
		}
		say "   $w writers: $res"
		storm_rows="$storm_rows
| $w | $(echo "$res" | field writes_per_s) | $(echo "$res" | field conflict_ratio) | $(echo "$res" | field p50_ms) | $(echo "$res" | field p99_ms) | $(echo "$res" | field lost_updates) |"
		last=$res
	done
	if [ -n "$last" ]; then
		row 7 "conflict storm: 16 writers, retry-on-conflict RMW of one ConfigMap" \
			"$(echo "$last" | field writes_per_s) writes/s, conflict ratio $(echo "$last" | field conflict_ratio)" \
			"1 writer: $(echo "$storm_rows" | awk -F'|' 'NR == 2 { gsub(/ /, "", $3); print $3 }') writes/s" "—" \
			"no lost update: $(met "$(echo "$last" | field lost_updates) == 0")"
	fi
	details+=("### 7. Conflict storm

Each writer: GET, increment \`data.counter\`, PUT with the resourceVersion read; on 409 read again (client-go's RetryOnConflict without backoff). Latency is from the first GET to the successful PUT.

| writers | successful writes/s | conflicts per PUT | p50 ms | p99 ms | lost updates |
|---|---|---|---|---|---|$storm_rows")
	stop_pid "$m_pid"
}

# ---------------------------------------------------------------------------
# 2. Optimistic PUT over 1,000 Leases from our C load generator on the
#    client library's async interface.
bench_put() {
	say "== 2. Optimistic PUT over 1,000 Leases (${put_seconds} s per run)"
	local run threads inflight update res put_rows='' last='' c0 c1 cpu m_pid='' m_url cur=''
	local last_pb='' last_pb_cpu=''
	# threads:in-flight:client. The last run gives the mock one worker: two
	# workers and the load generator are three busy threads on two cores.
	for run in 2:1:text 2:16:text 2:64:text 2:64:protobuf 2:64:tree 1:64:text; do
		threads=${run%%:*} update=${run##*:} inflight=${run#*:} inflight=${inflight%:*}
		if [ "$threads" != "$cur" ]; then
			[ -z "$m_pid" ] || stop_pid "$m_pid"
			start_mock --threads "$threads" || return
			m_pid=$mock_pid m_url=$mock_url cur=$threads
			"$bin/bench_store" create "$m_url" /apis/coordination.k8s.io/v1/namespaces/default/leases lease 1000 \
				--prefix put >/dev/null || {
				fail "create 1,000 Leases"
				stop_pid "$m_pid"
				return
			}
			# Each Lease's first update moves its managedFields from the
			# creator to bench_put, a slower path than a renewal: not measured.
			"$bin/bench_put" "$m_url" default put 1000 16 1 >/dev/null
		fi
		c0=$(cpu_ticks "$m_pid")
		res=$("$bin/bench_put" "$m_url" default put 1000 "$inflight" "$put_seconds" --update "$update") || {
			fail "PUT with $inflight in flight ($update): $res"
			continue
		}
		c1=$(cpu_ticks "$m_pid")
		cpu=$(awk -v d=$((c1 - c0)) -v hz="$(getconf CLK_TCK)" -v n="$(echo "$res" | field updates)" \
			'BEGIN { if (n > 0) printf "%.0f", d * 1e6 / hz / n }')
		say "   $inflight in flight, $threads mock threads: $res mock_cpu_us_per_put=$cpu"
		put_rows="$put_rows
| $threads | $inflight | $update | $(echo "$res" | field updates_per_s) | $(echo "$res" | field p50_ms) | $(echo "$res" | field p99_ms) | $cpu | $(echo "$res" | field client_cpu_pct) | $(echo "$res" | field conflicts) |"
		[ "$run" != 2:64:text ] || { last=$res last_cpu=$cpu; }
		[ "$run" != 2:64:protobuf ] || { last_pb=$res last_pb_cpu=$cpu; }
	done
	stop_pid "$m_pid"
	[ -n "$last" ] || return
	local ups p99
	ups=$(echo "$last" | field updates_per_s) p99=$(echo "$last" | field p99_ms)
	if [ -n "$get_anchor_rps" ]; then
		row 2 "optimistic PUT (no GET), 1,000 Leases, 64 in flight, async client" \
			"$ups updates/s, p50 $(echo "$last" | field p50_ms) ms, p99 $p99 ms; $last_cpu µs mock CPU/PUT" \
			"bare MHD GET $get_anchor_rps req/s" "$(ratio "$ups" "$get_anchor_rps")×" \
			"≥ 0.6×: $(met "$ups >= 0.6 * $get_anchor_rps"); p99 < 5 ms: $(met "$p99 < 5")"
	else
		row 2 "optimistic PUT (no GET), 1,000 Leases, 64 in flight, async client" \
			"$ups updates/s, p99 $p99 ms" "not measured (run with get)" "—" "p99 < 5 ms: $(met "$p99 < 5")"
	fi
	if [ -n "$last_pb" ]; then
		local pups
		pups=$(echo "$last_pb" | field updates_per_s)
		row 2b "optimistic PUT as protobuf, same Leases, 64 in flight" \
			"$pups updates/s, p99 $(echo "$last_pb" | field p99_ms) ms; $last_pb_cpu µs mock CPU/PUT" \
			"JSON PUT $ups updates/s, $last_cpu µs" "$(ratio "$pups" "$ups")×" \
			"≥ 1× JSON: $(met "$pups >= $ups")"
	fi
	details+=("### 2. Optimistic PUT

\`bench_put\`: each in-flight slot owns every n-th of the 1,000 Leases and PUTs it with the resourceVersion of its previous answer (a new \`spec.renewTime\` each time), on one loop; the latency is the client's, from send to completion. A warm-up second first gives every Lease its first update (which moves managedFields ownership from the creator). \`text\` (the figures above): the body formatted as JSON text and sent with \`nl_client_send\`, only the new resourceVersion read from the answer, so the load generator leaves the cores to the server as wrk does; \`tree\`: the typed interface \`nl_api_update_async\` (json-c parse, tree kept and serialized per update). The summary row is the default mock (2 worker threads); the last row runs the mock with \`--threads 1\`: with two workers and the load generator, three busy threads share the two cores and a preempted worker holds up its 32 connections: compare the p99 of the two 64-in-flight text rows.

| mock threads | in flight | client | updates/s | p50 ms | p99 ms | mock CPU µs/PUT | load generator CPU % | conflicts |
|---|---|---|---|---|---|---|---|---|$put_rows")
}

# ---------------------------------------------------------------------------
# 4. Watch fan-out: watchers on Leases while 20 updates/s run.
bench_watch() {
	say "== 4. Watch fan-out (20 updates/s)"
	start_mock || return
	local m_pid=$mock_pid m_url=$mock_url spec w secs res watch_rows='' last='' c0 c1
	for spec in $watch_runs; do
		w=${spec%%:*} secs=${spec#*:}
		c0=$(cpu_ticks "$m_pid")
		res=$("$bin/bench_watch" "$m_url" default "$w" 20 "$secs") || {
			fail "watch fan-out with $w watchers: $res"
			continue
		}
		c1=$(cpu_ticks "$m_pid")
		local mcpu
		mcpu=$(awk -v d=$((c1 - c0)) -v hz="$(getconf CLK_TCK)" -v s="$secs" 'BEGIN { printf "%.0f", 100 * d / hz / s }')
		say "   $w watchers: $res mock_cpu_pct=$mcpu"
		watch_rows="$watch_rows
| $w | $secs | $(echo "$res" | field p50_ms) | $(echo "$res" | field p99_ms) | $(echo "$res" | field max_ms) | $(echo "$res" | field dropped) | $mcpu | $(echo "$res" | field client_cpu_pct) |"
		last=$res
	done
	stop_pid "$m_pid"
	[ -n "$last" ] || return
	local p99 dropped
	p99=$(echo "$last" | field p99_ms) dropped=$(echo "$last" | field dropped)
	row 4 "watch fan-out: $(echo "$last" | field watchers) watchers, 20 updates/s for $(echo "$last" | field seconds | cut -d. -f1) s" \
		"p99 delivery $p99 ms (p50 $(echo "$last" | field p50_ms)), $dropped dropped" "—" "—" \
		"p99 < 50 ms: $(met "$p99 < 50"); none dropped: $(met "$dropped == 0")"
	details+=("### 4. Watch fan-out

\`bench_watch\`: the watchers are \`nl_watch\`es of the client library on one loop; a writer thread PUTs one Lease 20 times a second. Delivery latency: from the PUT's answer to the arrival at the last watcher (0 when an event beats the answer).

| watchers | seconds | p50 ms | p99 ms | max ms | dropped | mock CPU % | watch client CPU % |
|---|---|---|---|---|---|---|---|$watch_rows")
}

# ---------------------------------------------------------------------------
# 3. Heartbeat scale: N lease controllers on one loop against one mock.
#    A ladder of N per mock configuration, stopping at the first N that
#    misses a renewal or has p99 >= 100 ms.
hb_ladder_run() { # LABEL MOCK-FLAGS...
	local label=$1 n res best=0 best_res=''
	shift
	for n in $hb_ladder; do
		start_mock "$@" || return
		local m_pid=$mock_pid m_url=$mock_url
		if ! "$bin/bench_store" create "$m_url" /api/v1/nodes node "$n" --prefix hb >/dev/null; then
			fail "create $n Nodes"
			stop_pid "$m_pid"
			return
		fi
		res=$("$bin/bench_heartbeat" "$m_url" "$n" --window "$hb_window" --connections "$hb_connections" \
			--server-pid "$m_pid" 2>"$tmp/hb.err") || {
			fail "heartbeat with $n nodes: $(tail -c 300 "$tmp/hb.err")"
			stop_pid "$m_pid"
			return
		}
		stop_pid "$m_pid"
		local missed p99 ok
		missed=$(echo "$res" | field missed) p99=$(echo "$res" | field p99_ms)
		ok=$(met "$missed == 0 && $p99 < 100")
		say "   $label N=$n: $res"
		hb_rows="$hb_rows
| $label | $n | $(echo "$res" | field renewals_per_s) | $(echo "$res" | field p50_ms) | $p99 | $missed | $(echo "$res" | field client_cpu_pct) | $(echo "$res" | field client_cpu_us_per_renewal) | $(($(echo "$res" | field client_rss_kib) / 1024)) | $(echo "$res" | field client_bytes_per_node) | $(echo "$res" | field server_cpu_pct) | $(($(echo "$res" | field server_rss_kib) / 1024)) | $ok |"
		[ "$ok" = yes ] || break
		best=$n best_res=$res
	done
	hb_best=$best hb_best_res=$best_res
}

bench_heartbeat() {
	say "== 3. Heartbeat scale (lease controllers, $hb_connections connections, ${hb_window} s window)"
	hb_rows=
	hb_ladder_run "default" || return
	local d_best=$hb_best d_res=$hb_best_res
	hb_ladder_run "controllers off" --controllers='-nodelifecycle,-garbagecollector'
	local o_best=$hb_best
	row 3 "heartbeat scale: largest N with 0 missed renewals and p99 < 100 ms" \
		"$d_best nodes (default mock; $(echo "$d_res" | field renewals_per_s) renewals/s, p99 $(echo "$d_res" | field p99_ms) ms); $o_best with the mock's controllers off" \
		"—" "—" "N ≥ 50,000: $(met "$d_best >= 50000")"
	details+=("### 3. Heartbeat scale

\`bench_heartbeat\`: N \`nl_lease_controller\`s (the agent's code) in one process on one \`nl_loop\`, sharing $hb_connections keep-alive connections. The controllers' synchronous \`nl_lease_ops\` run on the async client through coroutines (only syncs in flight hold one); renewals use the controller's text update (\`update_lease_text\` on \`nl_client_send\`: no json-c tree per renewal). Nodes join spread over one renew interval or N ms, whichever is longer (a first sync is three requests: GET, GET Node, CREATE); one interval after the last has joined, renewals are measured for ${hb_window} s: latency from due time to completion; missed = failed or still overdue at the end. Client CPU per renewal and bytes per node (RSS growth from before the controllers exist to the window, over N) hold on a busy machine too. The ladder stops at the first N that misses the target. \"controllers off\" runs the mock with \`--controllers=-nodelifecycle,-garbagecollector\`.

| mock | nodes | renewals/s | p50 ms | p99 ms | missed | client CPU % | client CPU µs/renewal | client RSS MiB | client bytes/node | mock CPU % | mock RSS MiB | target met |
|---|---|---|---|---|---|---|---|---|---|---|---|---|$hb_rows")
}

# ---------------------------------------------------------------------------
# 5. The agent's private memory in steady state: nodelet against the mock,
#    renewing every 2 s (8 s lease), sampled after a few renewals; once
#    plain, once with everything on (the anchor is the plain run).

# agent_memory NODE ARGS...: start nodelet for NODE with ARGS against
# $mock_url, wait for its Lease, let it renew, sample its memory (the
# largest of three samples) into am_anon, am_priv (Private_Clean +
# Private_Dirty of smaps_rollup), am_dirty (Private_Dirty alone), am_rss;
# am_renewing; am_err when it did not come up. Private_Clean is mostly
# library pages no other process maps at that moment, so it moves with
# whatever else runs on the machine (docs/performance.md). ARGS without a
# --kubeconfig get $tmp/kubeconfig; am_curl (an array) is what curl needs
# to read the Lease (the CA and a client certificate over HTTPS).
am_curl=()
agent_memory() {
	local node=$1 agent=$builddir/client/nodelet
	shift
	local lease=$mock_url/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/$node
	local kc=(--kubeconfig "$tmp/kubeconfig")
	case " $* " in *" --kubeconfig "*) kc=() ;; esac
	"$agent" "${kc[@]}" --node-name "$node" --lease-duration-seconds 8 "$@" \
		>"$tmp/$node.out" 2>"$tmp/$node.err" &
	local a_pid=$!
	pids+=("$a_pid")
	local i first='' last='' v
	am_anon=0 am_rss=0 am_priv=0 am_dirty=0 am_renewing=yes am_err=
	for i in $(seq 1 100); do
		first=$(curl -sf "${am_curl[@]}" "$lease" | sed -n 's/.*"renewTime":"\([^"]*\)".*/\1/p')
		[ -n "$first" ] && break
		kill -0 "$a_pid" 2>/dev/null || break
		sleep 0.1
	done
	if [ -z "$first" ]; then
		am_err="the agent did not create its Lease: $(head -c 200 "$tmp/$node.err" | tr '\n|' '  ')"
		stop_pid "$a_pid"
		return
	fi
	sleep 6
	for i in 1 2 3; do
		v=$(awk '/^RssAnon:/ { print $2 }' "/proc/$a_pid/status" 2>/dev/null || echo 0)
		[ "${v:-0}" -gt "$am_anon" ] && am_anon=$v
		v=$(awk '/^VmRSS:/ { print $2 }' "/proc/$a_pid/status" 2>/dev/null || echo 0)
		[ "${v:-0}" -gt "$am_rss" ] && am_rss=$v
		v=$(awk '/^Private_(Clean|Dirty):/ { t += $2 } END { print t + 0 }' "/proc/$a_pid/smaps_rollup" 2>/dev/null || echo 0)
		[ "${v:-0}" -gt "$am_priv" ] && am_priv=$v
		v=$(awk '/^Private_Dirty:/ { print $2 }' "/proc/$a_pid/smaps_rollup" 2>/dev/null || echo 0)
		[ "${v:-0}" -gt "$am_dirty" ] && am_dirty=$v
		sleep 1
	done
	last=$(curl -sf "${am_curl[@]}" "$lease" | sed -n 's/.*"renewTime":"\([^"]*\)".*/\1/p')
	[ "$first" != "$last" ] || am_renewing="**no renewal seen**"
	stop_pid "$a_pid"
}

# A private bus with the stand-in logind on it, for graceful shutdown; sets
# bus_env to the DBUS_SYSTEM_BUS_ADDRESS assignment, empty when either is
# missing (the row then says shutdown was off).
start_fake_logind() {
	bus_env=
	[ -x "$bin/bench_logind" ] && command -v dbus-daemon >/dev/null || return 0
	dbus-daemon --session --nofork --nopidfile --print-address=1 >"$tmp/bus.addr" 2>/dev/null &
	pids+=("$!")
	bus_pid=$!
	local i
	for i in $(seq 1 50); do [ -s "$tmp/bus.addr" ] && break; sleep 0.1; done
	[ -s "$tmp/bus.addr" ] || return 0
	DBUS_SYSTEM_BUS_ADDRESS=$(head -1 "$tmp/bus.addr") "$bin/bench_logind" 30 >"$tmp/logind.out" &
	pids+=("$!")
	logind_pid=$!
	for i in $(seq 1 50); do [ -s "$tmp/logind.out" ] && break; sleep 0.1; done
	[ -s "$tmp/logind.out" ] && bus_env="DBUS_SYSTEM_BUS_ADDRESS=$(head -1 "$tmp/bus.addr")"
}

bench_agent() {
	if [ ! -x "$builddir/client/nodelet" ]; then
		not_yet 5 "nodelet private memory" "no agent binary (client/nodelet) is built"
		return
	fi
	say "== 5. nodelet private memory"
	start_mock --kubeconfig-out "$tmp/kubeconfig" || return
	local m_pid=$mock_pid
	agent_memory bench-agent
	if [ -n "$am_err" ]; then
		# The agent is work in progress elsewhere: say why, do not fail.
		not_yet 5 "nodelet private memory" "$am_err"
		stop_pid "$m_pid"
		return
	fi
	local plain_dirty=$am_dirty
	say "   nodelet: anonymous $am_anon KiB, private (incl. file-backed) $am_priv KiB, RSS $am_rss KiB; renewing: $am_renewing"
	row 5 "nodelet private (anonymous) memory, steady state (renewing every 2 s)" \
		"$am_anon KiB anonymous ($am_priv KiB private incl. file-backed, RSS $am_rss KiB)" "—" "—" \
		"< 4 MiB: $(met "$am_anon < 4096"); renewing: $am_renewing"

	# Everything on: /metrics, dynamic config, the node conditions (always
	# on), graceful shutdown holding its inhibitor on the stand-in logind.
	local shutdown="graceful shutdown (inhibitor held on a stand-in logind)" bus_pid='' logind_pid=''
	start_fake_logind
	[ -n "$bus_env" ] || shutdown="graceful shutdown off (no dbus-daemon or bench_logind)"
	mkdir -p "$tmp/dynconfig"
	printf 'apiVersion: nodelet.io/v1alpha1\nkind: NodeletConfiguration\nshutdownGracePeriod: 5s\n' >"$tmp/nodelet.yaml"
	local port
	port=$(free_port)
	if [ -n "$bus_env" ]; then
		export "${bus_env?}"
	else
		export DBUS_SYSTEM_BUS_ADDRESS=unix:path=/nonexistent
	fi
	agent_memory bench-agent-full --config "$tmp/nodelet.yaml" --dynamic-config-dir "$tmp/dynconfig" \
		--metrics-bind-address "127.0.0.1:$port"
	unset DBUS_SYSTEM_BUS_ADDRESS
	grep -q "Failed to start node shutdown manager" "$tmp/bench-agent-full.err" &&
		shutdown="graceful shutdown **failed to start**: $(grep -m1 'Failed to start node shutdown manager' "$tmp/bench-agent-full.err" | head -c 160)"
	[ -n "$logind_pid" ] && stop_pid "$logind_pid"
	[ -n "$bus_pid" ] && stop_pid "$bus_pid"
	stop_pid "$m_pid"
	if [ -n "$am_err" ]; then
		fail "nodelet with every feature on: $am_err"
		return
	fi
	say "   nodelet, all on: private $am_priv KiB, of which dirty $am_dirty KiB (anonymous $am_anon KiB, RSS $am_rss KiB); $shutdown; renewing: $am_renewing"
	row 5 "nodelet private memory (smaps_rollup), steady state, all on: /metrics, dynamic config, node conditions, $shutdown" \
		"Private_Dirty $am_dirty KiB; with Private_Clean $am_priv KiB (anonymous $am_anon KiB, RSS $am_rss KiB)" \
		"plain agent: Private_Dirty $plain_dirty KiB" "$(ratio "$am_dirty" "$plain_dirty")×" \
		"< 4 MiB: dirty $(met "$am_dirty < 4096"), clean + dirty $(met "$am_priv < 4096"); renewing: $am_renewing"
	agent_memory_tls
}

# TLS on: the mock over HTTPS in Node authorization mode with csrapproving
# and csrsigning, the agent given a bootstrap token only (its own P-256
# key, a CSR, the issued certificate, the certificate manager waiting for
# the rotation deadline), renewing its Lease with that certificate. The
# anchor is bench_agent's plain_dirty.
agent_memory_tls() {
	local pki=$tmp/mock-pki
	printf '%s\n' 'abcdef.0123456789abcdef,system:bootstrap:abcdef,,system:bootstrappers' \
		>"$tmp/tokens.csv"
	start_server mock "$mock" --port 0 --generate-certs "$pki" --token-auth-file "$tmp/tokens.csv" \
		--authorization-mode Node || return
	local m_pid=$srv_pid
	mock_url=https://127.0.0.1:$srv_port
	cat >"$tmp/bootstrap-kubeconfig" <<KUBECONFIG
apiVersion: v1
kind: Config
clusters:
- name: mock
  cluster: {server: "$mock_url", certificate-authority: "$pki/ca.crt"}
users:
- name: bootstrap
  user: {token: abcdef.0123456789abcdef}
contexts:
- name: default
  context: {cluster: mock, user: bootstrap}
current-context: default
KUBECONFIG
	am_curl=(--cacert "$pki/ca.crt" --cert "$pki/client.crt" --key "$pki/client.key")
	agent_memory bench-agent-tls --bootstrap-kubeconfig "$tmp/bootstrap-kubeconfig" \
		--kubeconfig "$tmp/tls-kubeconfig" --cert-dir "$tmp/tls-pki"
	am_curl=()
	stop_pid "$m_pid"
	if [ -z "$am_err" ] && [ ! -s "$tmp/tls-pki/kubelet-client-current.pem" ]; then
		am_err="no kubelet-client-current.pem in --cert-dir"
	fi
	if [ -n "$am_err" ]; then
		fail "nodelet with TLS bootstrap: $am_err"
		return
	fi
	say "   nodelet, TLS bootstrap: private $am_priv KiB, of which dirty $am_dirty KiB (anonymous $am_anon KiB, RSS $am_rss KiB); renewing: $am_renewing"
	row 5 "nodelet private memory (smaps_rollup), steady state, TLS on: HTTPS, bootstrap token, its own P-256 key and client certificate, certificate manager running" \
		"Private_Dirty $am_dirty KiB; with Private_Clean $am_priv KiB (anonymous $am_anon KiB, RSS $am_rss KiB)" \
		"plain agent: Private_Dirty $plain_dirty KiB" "$(ratio "$am_dirty" "$plain_dirty")×" \
		"< 4 MiB: dirty $(met "$am_dirty < 4096"), clean + dirty $(met "$am_priv < 4096"); renewing: $am_renewing"
}

# Benchmarks that need parts still being written say so instead of failing.
# ---------------------------------------------------------------------------
# 8. No stall (issue 19): the worst body under the size limit written back
#    to back while GETs of another object run; the anchor is the same GETs
#    without the writes.
bench_bigwrite() {
	say "== 8. Largest body written while others read (${bigwrite_seconds} s per phase)"
	# The ownerReferences point at nothing: without the garbage collector
	# (and node lifecycle) the Node stays as written.
	start_mock --controllers=-garbagecollector,-nodelifecycle || return
	local m_pid=$mock_pid m_url=$mock_url res p99 a99
	if ! res=$("$bin/bench_bigwrite" "$m_url" 2 "$bigwrite_seconds"); then
		fail "bench_bigwrite: $res"
		stop_pid "$m_pid"
		return
	fi
	stop_pid "$m_pid"
	say "   $res"
	p99=$(echo "$res" | field p99_ms) a99=$(echo "$res" | field anchor_p99_ms)
	row 8 "GET of one ConfigMap (2 readers, a GET per 5 ms each) while a $(($(echo "$res" | field body_bytes) / 1024)) KiB Node ($(echo "$res" | field items) finalizers, ownerReferences and conditions) is PUT back to back" \
		"GET p99 $p99 ms (p50 $(echo "$res" | field p50_ms) ms); $(echo "$res" | field writes) PUTs, p50 $(echo "$res" | field write_p50_ms) ms" \
		"same GETs alone: p99 $a99 ms" "$(ratio "$p99" "$a99")×" "GET p99 < 50 ms: $(met "$p99 < 50")"
	details+=("### 8. The largest body under the size limit

\`bench_bigwrite\`: a Node whose finalizers (a set), ownerReferences (keyed by uid) and status.conditions (keyed by type) are as long as fit in 3 MiB is POSTed ($(echo "$res" | field post_ms) ms), then PUT back to back, every ownerReference renamed each time, so each update compares and records managedFields for every item. Meanwhile two readers GET another object every 5 ms each, each on its own keep-alive connection as client-go holds one; first the readers run alone (the anchor). The mock runs with \`--controllers=-garbagecollector,-nodelifecycle\`. Before issue 19 the managedFields walk was quadratic and ran under the store's write lock, so every GET waited for the whole write (seconds); now the lock is held only to commit (decisions/0027). The write itself runs on a request worker (decisions/0031), so a keep-alive reader whose connection libmicrohttpd put on the writer's worker thread does not wait for it either.

\`$res\`")
}

not_yet() { row "$1" "$2" "not run: $3" "—" "—" "—"; say "== $1. $2: not run ($3)"; }

machine() {
	local cpu mem
	cpu=$(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -1)
	mem=$(awk '/^MemTotal:/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo)
	echo "$(nproc) CPUs ($cpu), $mem memory, Linux $(uname -r)"
}

write_markdown() {
	local when host mhd
	when=$(date -u '+%Y-%m-%d %H:%M UTC')
	host=$(machine)
	mhd=$(pkg-config --modversion libmicrohttpd 2>/dev/null || echo '?')
	cat <<EOF
# Benchmarks

Measured by \`$command\` on $when.
Machine: $host. libmicrohttpd $mhd, $(nginx -v 2>&1 | sed 's/^nginx version: //'), $(wrk -v 2>&1 | head -1 | awk '{ print "wrk " $2 }').

Every figure is measured next to an anchor in the same invocation, because
shared machines are noisy: compare ratios, not absolute numbers, across
machines. Load generators and servers share the same cores (loopback).
Where the time goes, from profiles: [performance.md](performance.md).

| # | benchmark | nodelet | anchor | ratio | target |
|---|---|---|---|---|---|
$(printf '%s\n' "${rows[@]}")

$(printf '%s\n\n' "${details[@]}")
## How to reproduce

<!-- not-runnable: about 15 minutes on an otherwise idle machine -->
\`\`\`sh
sudo tests/install-bench-deps.sh     # wrk and nginx-light (Debian 12)
./configure && make bench            # about 15 minutes; writes this file
make bench BENCH_FLAGS=--quick       # a short run that leaves this file alone
\`\`\`

\`make bench\` builds the helpers in \`tests/bench/\` and runs
\`tests/bench/run.sh\`:

- \`bench_anchor\` — a bare libmicrohttpd server answering one persistent
  response with the mock's bytes and headers, in each threading mode; the
  best mode is the anchor. nginx serves the same bytes as a static file.
- \`bench_store\` — creates Leases/ConfigMaps over keep-alive connections and
  times LISTs.
- \`bench_startup\` — fork/exec of \`nodelet-mockapi --port 0\` until
  \`GET /readyz\` answers 200.
- \`bench_storm\` — retry-on-conflict writers on one ConfigMap; fails the run
  on a lost update.
- \`bench_put\` — optimistic PUTs through the client library's async
  interface (\`nl_client_send\` with JSON text; \`--update tree\`:
  \`nl_api_update_async\`).
- \`bench_watch\` — \`nl_watch\` watchers on one loop and a writer thread.
- \`bench_heartbeat\` — N real lease controllers on one loop, their
  synchronous API calls adapted to the async client with coroutines.
- \`bench_bigwrite\` — the largest Node under the size limit written back
  to back while readers GET another object.
- \`bench_logind\` — a stand-in systemd-logind (the InhibitDelayMaxUSec
  property and Inhibit) on a private \`dbus-daemon\`, so the agent's
  memory row runs with graceful node shutdown holding its lock.

Environment: \`BENCH_DURATION\` (wrk seconds, default 5), \`BENCH_ROUNDS\`
(interleaved rounds, default 5), \`BENCH_OUT\` (output file).
\`BENCH_FLAGS="--only 'get storm'"\` runs a subset.
EOF
}

# ---------------------------------------------------------------------------
for tool in "$mock" "$bin/bench_anchor" "$bin/bench_store" "$bin/bench_storm" "$bin/bench_startup" \
	"$bin/bench_put" "$bin/bench_watch" "$bin/bench_heartbeat" "$bin/bench_bigwrite"; do
	[ -x "$tool" ] || {
		echo "run.sh: $tool is missing; run \`make bench\`" >&2
		exit 1
	}
done
command -v wrk >/dev/null || {
	echo "run.sh: wrk is missing; run tests/install-bench-deps.sh" >&2
	exit 1
}
say "nodelet benchmarks on $(machine)"
get_anchor_rps=
wants get && bench_get
wants put && bench_put
wants heartbeat && bench_heartbeat
wants watch && bench_watch
wants memory && bench_memory
wants agent && bench_agent
wants startup && bench_startup
wants storm && bench_storm
wants bigwrite && bench_bigwrite

md=$(write_markdown)
if [ -n "$out" ]; then
	printf '%s\n' "$md" >"$out"
	say "wrote $out"
else
	say ""
	printf '%s\n' "$md" | sed -n '/^| # |/,/^$/p'
fi
[ $failed = 0 ] || say "some runs failed (see FAILED above)" >&2
exit $failed
