#!/bin/sh
# docs/deploy/nodelet.service as shipped: systemd-analyze verify finds
# nothing wrong with it, systemd-analyze security rates its sandbox at most
# 2.0 ("OK"), and — as root, with setpriv — its ExecStart line, run the way
# systemd would run it (an unprivileged user, the kubeconfig copied into a
# credentials directory, a state directory of that user's), registers the
# node against a nodelet-mockapi process and exits 0 on SIGTERM, where the
# root-only kubeconfig itself could not even be read. Skipped without
# systemd-analyze.
set -u
MOCKAPI=${NL_MOCKAPI:-./mockapi/nodelet-mockapi}
NODELET=${NL_NODELET:-./client/nodelet}
top=${NL_FIXTURES_DIR:-$(dirname "$0")/../../fixtures}/..
unit=$top/docs/deploy/nodelet.service
work=$(mktemp -d)
mock= agent=
trap '[ -n "$agent" ] && kill $agent 2>/dev/null; [ -n "$mock" ] && kill $mock 2>/dev/null; rm -rf "$work"' EXIT INT TERM
fail() { echo "FAIL: $*"; tail -20 "$work/agent.log" 2>/dev/null; exit 1; }
command -v systemd-analyze >/dev/null || { echo "SKIP: no systemd-analyze"; exit 77; }
[ -x "$NODELET" ] || { echo "SKIP: $NODELET not built"; exit 77; }
nodelet=$(cd "$(dirname "$NODELET")" && pwd)/$(basename "$NODELET")

# verify wants the ExecStart program to exist: point it at the build's.
mkdir "$work/units"
sed "s|/usr/local/bin/nodelet|$nodelet|" "$unit" >"$work/units/nodelet.service"
# The man page is installed by make install, not here: --man=no.
systemd-analyze verify --man=no "$work/units/nodelet.service" >"$work/verify" 2>&1 ||
	{ cat "$work/verify"; fail "systemd-analyze verify"; }
[ -s "$work/verify" ] && { cat "$work/verify"; fail "systemd-analyze verify warns"; }
echo "systemd-analyze verify: clean"
systemd-analyze security --offline=true --threshold=20 "$work/units/nodelet.service" \
	>"$work/security" 2>&1 || { cat "$work/security"; fail "exposure above 2.0"; }
tail -n 1 "$work/security"

if [ "$(id -u)" != 0 ] || ! command -v setpriv >/dev/null || ! command -v curl >/dev/null; then
	echo "SKIP (the run as an unprivileged user): needs root, setpriv and curl"
	echo PASS
	exit 0
fi

"$MOCKAPI" --port 0 --kubeconfig-out "$work/kubeconfig" >"$work/mock.out" 2>"$work/mock.log" &
mock=$!
for _ in $(seq 1 100); do grep -q "listening on" "$work/mock.out" && break; sleep 0.05; done
url=$(sed -n 's/.*listening on //p' "$work/mock.out")
[ -n "$url" ] || fail "mock did not start"
chmod 0600 "$work/kubeconfig" # as docs/real-cluster.md leaves /etc/nodelet/kubeconfig
chmod 0755 "$work"
uid=65534
as_service() { setpriv --reuid=$uid --regid=$uid --clear-groups --no-new-privs "$@"; }

# The premise: the service user cannot read the root-only file itself.
as_service "$nodelet" --kubeconfig "$work/kubeconfig" --hostname-override edge-9 --once \
	>"$work/direct.log" 2>&1 && fail "the service user read a root-only kubeconfig"
echo "as the service user, the 0600 root kubeconfig is refused: $(grep -o 'Permission denied' "$work/direct.log" | head -n 1)"

# What LoadCredential= and StateDirectory= give the service.
mkdir -m 0700 "$work/creds" "$work/state"
cp "$work/kubeconfig" "$work/creds/kubeconfig"
chmod 0400 "$work/creds/kubeconfig"
chown -R $uid:$uid "$work/creds" "$work/state"
# ExecStart, continuation lines joined, with %d and the state directory.
cmd=$(sed -n '/^ExecStart=/,/[^\\]$/p' "$work/units/nodelet.service" | sed 's/\\$//' | tr -d '\n' |
	sed -e 's/^ExecStart=//' -e "s|%d|$work/creds|g" -e "s|/var/lib/nodelet|$work/state|g")
echo "ExecStart: $cmd"
# shellcheck disable=SC2086 # the command line is split as systemd splits it
(umask 0077 && exec setpriv --reuid=$uid --regid=$uid --clear-groups --no-new-privs $cmd) \
	>"$work/agent.log" 2>&1 &
agent=$!
for _ in $(seq 1 100); do
	curl -s "$url/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/edge-9" |
		grep -q '"holderIdentity":"edge-9"' && break
	sleep 0.1
done
curl -s "$url/api/v1/nodes/edge-9" | grep -q '"name":"edge-9"' || fail "edge-9 not registered"
kill -0 $agent 2>/dev/null || fail "nodelet exited"
kill -TERM $agent
wait $agent
rc=$?
agent=
[ $rc -eq 0 ] || fail "nodelet exited $rc on SIGTERM"
[ -n "$(find "$work/state" -mindepth 1 -print -quit)" ] || fail "nothing checkpointed in the state directory"
echo "ExecStart as the service user: node edge-9 registered, lease held, exit 0 on SIGTERM"
echo PASS
