#!/bin/sh
# Install what `make bench` needs beyond tests/install-deps.sh on Debian 12
# (run as root): wrk drives the HTTP benchmarks and nginx is the static
# anchor. Kept apart from install-deps.sh so CI does not pay for them.
set -e
if [ "$(id -u)" != 0 ]; then
	echo "install-bench-deps.sh: run as root (apt-get)" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
# The benchmark starts its own nginx on a free loopback port; keep the
# package's postinst from starting the system service on port 80.
policy=/usr/sbin/policy-rc.d
added_policy=
if [ ! -e "$policy" ]; then
	printf '#!/bin/sh\nexit 101\n' >"$policy"
	chmod 755 "$policy"
	added_policy=1
fi
trap '[ -n "$added_policy" ] && rm -f "$policy"' EXIT
apt-get update -q
apt-get install -y -q --no-install-recommends wrk nginx-light
