#!/bin/sh
# make install into a DESTDIR, then build docs/example/lease-get.c with
# `pkg-config --cflags --libs nodelet` against what was installed (nothing
# from the build tree) and run it against a nodelet-mockapi process: the
# installed programs, man pages, headers, library and nodelet.pc work.
set -u
top=${NL_FIXTURES_DIR:-$(dirname "$0")/../../fixtures}/..
work=$(mktemp -d)
pid=
trap '[ -n "$pid" ] && kill $pid 2>/dev/null; rm -rf "$work"' EXIT INT TERM
fail() { echo "FAIL: $*"; exit 1; }
for t in pkg-config curl; do
	command -v $t >/dev/null || { echo "SKIP: no $t"; exit 77; }
done

# Run from inside `make check`: drop the parent make's jobserver.
unset MAKEFLAGS MFLAGS MAKELEVEL
dest=$work/dest
${MAKE:-make} install DESTDIR="$dest" >"$work/install.log" 2>&1 ||
	{ tail -20 "$work/install.log"; fail "make install"; }
prefix=$(sed -n 's/^prefix=//p' nodelet.pc)
for f in bin/nodelet-mockapi bin/nodelet lib/libnodelet.a include/nodelet/client.h \
	include/nodelet/lease.h include/nodelet/config.h lib/pkgconfig/nodelet.pc \
	share/man/man8/nodelet.8 share/man/man1/nodelet-mockapi.1 share/man/man1/nodelet-scenario.1; do
	[ -f "$dest$prefix/$f" ] || fail "not installed: $prefix/$f"
done
if [ -x client/nodelet-scenario ]; then
	[ -x "$dest$prefix/bin/nodelet-scenario" ] || fail "nodelet-scenario not installed"
fi
# Every public header compiles on its own from the installed tree.
for h in "$dest$prefix"/include/nodelet/*.h; do
	printf '#include <nodelet/%s>\n' "$(basename "$h")" >"$work/h.c"
	${CC:-cc} -std=c11 -fsyntax-only -Wall -Werror -I"$dest$prefix/include" \
		$(pkg-config --cflags json-c libcurl) "$work/h.c" || fail "header $(basename "$h")"
done

# pkg-config prefixes -I and -L with the sysroot: the DESTDIR.
export PKG_CONFIG_PATH="$dest$prefix/lib/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$dest"
pkg-config --exists nodelet || fail "pkg-config does not find nodelet.pc"
flags=$(pkg-config --cflags --libs nodelet) || fail "pkg-config --cflags --libs nodelet"
# The build's own flags (e.g. the sanitizers) must match the installed objects.
# shellcheck disable=SC2086 # word splitting of the flags is intended
${CC:-cc} -std=c11 -Wall -Werror ${NL_BUILD_CFLAGS:-} -o "$work/lease-get" "$top/docs/example/lease-get.c" $flags ${NL_BUILD_LDFLAGS:-} ||
	fail "example does not build with: $flags"

"$dest$prefix/bin/nodelet-mockapi" --port 0 --kubeconfig-out "$work/kubeconfig" \
	>"$work/out" 2>"$work/log" &
pid=$!
for _ in $(seq 1 100); do grep -q "listening on" "$work/out" && break; sleep 0.05; done
grep -q "listening on" "$work/out" || { cat "$work/log"; fail "installed mockapi did not start"; }
url=$(sed -n 's/.*listening on //p' "$work/out")

"$work/lease-get" --kubeconfig "$work/kubeconfig" kube-node-lease edge-1 >"$work/get" 2>&1
[ $? -eq 1 ] || fail "a missing lease must exit 1"
grep -q 'Error from server (NotFound): leases.coordination.k8s.io "edge-1" not found' "$work/get" ||
	{ cat "$work/get"; fail "not-found message"; }

curl -sf -X POST -H 'Content-Type: application/json' \
	"$url/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases" \
	-d '{"metadata":{"name":"edge-1"},"spec":{"holderIdentity":"edge-1","leaseDurationSeconds":40,"renewTime":"2026-01-02T03:04:05.000000Z"}}' \
	>/dev/null || fail "creating the lease"
KUBECONFIG=$work/kubeconfig "$work/lease-get" kube-node-lease edge-1 >"$work/get" 2>&1 ||
	{ cat "$work/get"; fail "lease-get"; }
grep -qx 'holder=edge-1 duration=40 renewTime=2026-01-02T03:04:05.000000Z' "$work/get" ||
	{ cat "$work/get"; fail "lease-get output"; }
echo "PASS: installed to $prefix under DESTDIR, example built with: $flags"
