#!/bin/sh
# The report page people look at (nodelet-scenario --html, and the mock's
# GET /mockapi/v1/requests?format=html), checked as a file and in a real
# browser: one self-contained page naming nothing outside itself, whose own
# script draws the timelines, checks what it drew against its data and says
# so in <body data-selfcheck>. Debian's chromium renders each page headless
# (a screenshot and the DOM after the script ran); a page whose data was
# tampered with must say "error: ...", so the check is not a constant.
set -u
. "$(dirname "$0")/../mockapi-lib.sh"
RUNNER=${NL_SCENARIO:-./client/nodelet-scenario}
CHROMIUM=${CHROMIUM:-chromium}
command -v "$CHROMIUM" >/dev/null || fail "no $CHROMIUM (tests/install-deps.sh installs Debian's chromium)"

# chrome ARGS... URL: headless, a profile of its own, killed after 120 s
# (a loaded 2-core machine takes seconds); virtual time lets the page's
# script finish before the DOM is read.
chrome() {
	HOME=$work timeout 120 "$CHROMIUM" --headless --disable-gpu --no-sandbox \
		--user-data-dir="$work/profile" --virtual-time-budget=10000 "$@" 2>>"$work/chrome.err"
}

# static PAGE: nothing fetched, one policy forbidding fetches, the data
# element and the script as the only scripts.
static() {
	p=$1
	grep -Eiq '(src|href)[[:space:]]*=[[:space:]]*["'"'"']?[[:space:]]*(https?:)?//' "$p" && fail "$p: an external src/href"
	grep -Eiq '@import|url\(' "$p" && fail "$p: CSS that fetches"
	grep -Eiq '<(link|img|iframe|object|embed)[[:space:]>]' "$p" && fail "$p: an element that fetches"
	grep -q "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; " "$p" ||
		fail "$p: no Content-Security-Policy default-src 'none'"
	grep -q "script-src 'sha256-" "$p" || fail "$p: the script is not allowed by its hash"
	grep -q "unsafe-inline" "$p" && fail "$p: the policy allows any inline script"
	[ "$(grep -io '<script' "$p" | wc -l)" -eq 2 ] || fail "$p: not exactly two <script elements"
	[ "$(grep -io '</script' "$p" | wc -l)" -eq 2 ] || fail "$p: not exactly two </script> ends"
}

# browse PAGE: render it to PAGE.png and read the script's verdict.
browse() {
	p=$1
	chrome --window-size=1200,900 --screenshot="$p.png" "file://$p" >/dev/null ||
		{ cat "$work/chrome.err"; fail "$p: chromium could not take a screenshot"; }
	[ "$(head -c 8 "$p.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] ||
		fail "$p: the screenshot is not a PNG"
	chrome --dump-dom "file://$p" >"$p.dom" || { cat "$work/chrome.err"; fail "$p: chromium could not load it"; }
	sed -n 's/.*<body[^>]* data-selfcheck="\([^"]*\)".*/\1/p' "$p.dom" | head -1
}

# A failing scenario whose name and messages try to end the data element,
# with an injected fault, lease renewals and a Node condition.
cat >"$work/fails.yaml" <<'YAML'
name: "html-</script><script>alert(1)</script>"
description: fails with a diff
agent:
  nodeName: edge-1
steps:
  - start
  - fault: {id: lease-500, match: {resource: leases, verb: update}, action: {status: 500}, times: 2}
  - advance: 30s
  - expect:
      object:
        kind: Node
        name: edge-1
        match: {status: {conditions: {$contains: {type: Ready, status: "</script><!--"}}}}
YAML
passes="$FIXTURES/scenarios/mock/node-lifecycle.yaml"

# And one that does not parse: a failed run with its message, nothing drawn.
printf 'name: broken\nsteps:\n  - sync: leese\n' >"$work/broken.yaml"
"$RUNNER" --fixtures-dir "$FIXTURES" --html "$work/fail.html" "$work/fails.yaml" "$passes" \
	"$work/broken.yaml" >"$work/out" 2>&1
rc=$?
[ "$rc" -eq 1 ] || fail "a failing scenario with --html: exit $rc, want 1"
"$RUNNER" --fixtures-dir "$FIXTURES" --html "$work/pass.html" "$passes" >"$work/out" 2>&1 ||
	fail "a passing scenario with --html failed"

# Looking at the Nodes for the page sends nothing: the agent's requests
# are the same with --html as without.
# (A name without '/': the journal's file is named after it.)
mkdir "$work/with" "$work/without"
sed 's/^name: .*/name: html-fails/' "$work/fails.yaml" >"$work/fails-plain.yaml"
"$RUNNER" --fixtures-dir "$FIXTURES" --journal-dir "$work/with" --html "$work/again.html" \
	"$work/fails-plain.yaml" "$passes" >/dev/null 2>&1
"$RUNNER" --fixtures-dir "$FIXTURES" --journal-dir "$work/without" "$work/fails-plain.yaml" \
	"$passes" >/dev/null 2>&1
[ "$(ls "$work/with" | wc -l)" -eq 2 ] || fail "no journals written"
diff -r "$work/with" "$work/without" || fail "--html changed the requests the agent sent"

for p in "$work/fail.html" "$work/pass.html"; do
	static "$p"
	grep -q '"kind":"condition","node":"edge-1","type":"Ready","status":"True"' "$p" ||
		fail "$p: no Node condition"
	grep -q '"resource":"leases"' "$p" || fail "$p: no lease requests"
	grep -q '"step":"start"' "$p" || fail "$p: no steps"
done
grep -q '"fault":"lease-500"' "$work/fail.html" || fail "fail.html: the injected fault is not shown"
grep -q '"failedAt":30000000' "$work/fail.html" || fail "fail.html: the failure is not at 30s"
grep -q '"outcome":"fail"' "$work/fail.html" || fail "fail.html: no failed run"
grep -q '"outcome":"pass"' "$work/fail.html" || fail "fail.html: no passed run"
[ "$(grep -o '"outcome":"fail"' "$work/fail.html" | wc -l)" -eq 2 ] ||
	fail "fail.html: the scenario that does not parse is missing"
grep -q '\\u003c/script\\u003e\\u003cscript\\u003ealert(1)' "$work/fail.html" ||
	fail "fail.html: the scenario's name is not in the data, escaped"
grep -q '"status":"Unknown"' "$work/pass.html" || fail "pass.html: the lapse is not shown"

for p in "$work/fail.html" "$work/pass.html"; do
	v=$(browse "$p")
	[ "$v" = ok ] || fail "$p: the page's self-check says \"$v\""
done
grep -q 'class="failline"' "$work/fail.html.dom" || fail "fail.html: the failure is not marked"
grep -q 'class="failure"' "$work/fail.html.dom" || fail "fail.html: no failure beside the timeline"
grep -q '<pre class="diff">' "$work/fail.html.dom" || fail "fail.html: no diff"
grep -q 'alert(1)</span>' "$work/fail.html.dom" || grep -q 'alert(1)' "$work/fail.html.dom" ||
	fail "fail.html: the name is not shown as text"

# Tampered data: the self-check must say what is wrong.
sed 's/"t":\([0-9]\)/"t":"x\1"/' "$work/pass.html" >"$work/bad.html"
v=$(browse "$work/bad.html")
case "$v" in "error: "*) ;; *) fail "tampered data: the self-check says \"$v\"" ;; esac

# The mock's journal, through the same renderer.
start_mockapi --fixtures "$FIXTURES/manifests/sample.yaml"
curl -sf -A 'nodelet/test' "$url/api/v1/nodes/edge-1" >/dev/null || fail "GET a node"
curl -s -A 'nodelet/test' "$url/api/v1/nodes/no-such-node" >/dev/null
curl -sf -A 'nodelet/test' -X PATCH -H 'Content-Type: application/merge-patch+json' \
	-d '{"status":{"conditions":[{"type":"Ready","status":"True","reason":"KubeletReady",
	"lastHeartbeatTime":"2026-01-01T00:00:00Z","lastTransitionTime":"2026-01-01T00:00:00Z"}]}}' \
	"$url/api/v1/nodes/edge-1/status" >/dev/null || fail "PATCH the node's status"
curl -sf -D "$work/headers" -o "$work/journal.html" "$url/mockapi/v1/requests?format=html" ||
	fail "GET /mockapi/v1/requests?format=html"
grep -qi '^content-type: text/html; charset=utf-8' "$work/headers" || fail "journal: not text/html"
static "$work/journal.html"
grep -q '"name":"no-such-node"' "$work/journal.html" || fail "journal: the requests are missing"
grep -q '"kind":"condition","node":"edge-1","type":"Ready"' "$work/journal.html" ||
	fail "journal: no Node condition"
v=$(browse "$work/journal.html")
[ "$v" = ok ] || fail "journal: the page's self-check says \"$v\""
code=$(curl -s -o "$work/body" -w '%{http_code}' "$url/mockapi/v1/requests?format=xml")
[ "$code" = 400 ] || fail "format=xml: $code, want 400"
grep -q '"message":"format: must be json or html"' "$work/body" || fail "format=xml: no Status"

# Against that running server (--server): the Nodes through its control API.
# A scenario it cannot run is on the page as skipped, without a timeline.
"$RUNNER" --fixtures-dir "$FIXTURES" --server "$url" --html "$work/server.html" \
	"$work/fails-plain.yaml" "$passes" >"$work/out" 2>&1
rc=$?
[ "$rc" -eq 1 ] || fail "--server with --html: exit $rc, want 1"
static "$work/server.html"
grep -q '"fault":"lease-500"' "$work/server.html" || fail "server.html: no faults"
grep -q '"outcome":"skip"' "$work/server.html" || fail "server.html: the skipped scenario is missing"
grep -q '"kind":"condition","node":"edge-1","type":"Ready","status":"True"' "$work/server.html" ||
	fail "server.html: no Node condition"
v=$(browse "$work/server.html")
[ "$v" = ok ] || fail "server.html: the page's self-check says \"$v\""
echo "PASS: scenario and journal pages render and check themselves"
