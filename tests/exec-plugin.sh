#!/bin/sh
# A client-go exec credential plugin for tests/unit/test_exec_credential.c.
# Usage: sh exec-plugin.sh STATEDIR MODE
# Each run appends a line to STATEDIR/runs (so tests can count runs) and
# records what it was given: KUBERNETES_EXEC_INFO, $PLUGIN_GREETING,
# $NL_TEST_OVERRIDE, its arguments, what stdin is and its open descriptors.
set -u
dir=$1
mode=$2
echo run >>"$dir/runs"
n=$(wc -l <"$dir/runs" | tr -d ' ')
printf '%s' "${KUBERNETES_EXEC_INFO-}" >"$dir/exec-info"
printf '%s' "${PLUGIN_GREETING-}" >"$dir/greeting"
printf '%s' "${NL_TEST_OVERRIDE-}" >"$dir/override"
printf '%s\n' "$@" >"$dir/args"
readlink /proc/self/fd/0 >"$dir/stdin" 2>/dev/null
ls /proc/$$/fd >"$dir/fds" 2>/dev/null

v1=client.authentication.k8s.io/v1
beta=client.authentication.k8s.io/v1beta1
case $mode in
token)
	printf '{"apiVersion":"%s","kind":"ExecCredential","status":{"token":"token-%s"}}\n' "$v1" "$n" ;;
expiring)
	printf '{"apiVersion":"%s","kind":"ExecCredential","status":{"token":"token-%s","expirationTimestamp":"%s"}}\n' \
		"$v1" "$n" "$NL_TEST_EXPIRY" ;;
beta)
	# YAML output is accepted too, as client-go's universal decoder does
	printf 'apiVersion: %s\nkind: ExecCredential\nstatus:\n  token: beta-%s\n' "$beta" "$n" ;;
cert)
	printf '{"apiVersion":"%s","kind":"ExecCredential","status":{"clientCertificateData":"CERT %s\\n","clientKeyData":"KEY %s\\n"}}\n' \
		"$v1" "$n" "$n" ;;
fail)
	echo "exec-plugin: refusing on purpose" >&2
	exit 3 ;;
badjson)
	echo '{"apiVersion": ' ;;
wrongversion)
	printf '{"apiVersion":"%s","kind":"ExecCredential","status":{"token":"t"}}\n' "$beta" ;;
nostatus)
	printf '{"apiVersion":"%s","kind":"ExecCredential"}\n' "$v1" ;;
certonly)
	printf '{"apiVersion":"%s","kind":"ExecCredential","status":{"clientCertificateData":"CERT"}}\n' "$v1" ;;
empty)
	printf '{"apiVersion":"%s","kind":"ExecCredential","status":{}}\n' "$v1" ;;
big)
	head -c 2000000 /dev/zero | tr '\0' 'x' ;;
sleep)
	sleep 30
	echo late ;;
*)
	echo "exec-plugin: unknown mode $mode" >&2
	exit 2 ;;
esac
