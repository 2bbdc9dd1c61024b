#!/bin/sh
# Install what nodelet needs to build and test on Debian 12 (run as root).
# Kept in one place so the README's commands and CI install the same thing.
# libsystemd-dev: sd-bus for graceful node shutdown; dbus-daemon: its test.
# python3-prometheus-client: its parser reads /metrics in metrics_scrape.sh.
# chromium: renders the report page headless (tests/integration/scenario_html.sh).
# golang-go, python3-pytest, python3-kubernetes and nodejs: make check's
# tests of the mock's test helpers (mockapi/helpers, docs/testing.md), and
# python3-kubernetes the leader election program the scenario suite runs
# (fixtures/programs/leader_elect.py, from /usr/bin/python3); then
# install-client-deps.sh for @kubernetes/client-node, so `make check`
# skips nothing (.ci/run fails on a skip). kubectl 1.32 is not a Debian
# package (bookworm's kubernetes-client is 1.20): the kubectl suites need
# the one the image provides and skip, saying so, without it.
set -e
if [ "$(id -u)" != 0 ]; then
	echo "install-deps.sh: run as root (apt-get)" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q --no-install-recommends \
	build-essential autoconf automake libtool pkg-config ca-certificates curl \
	libmicrohttpd-dev libcurl4-openssl-dev libjson-c-dev libyaml-dev libcunit1-dev libgnutls28-dev zlib1g-dev libssl-dev \
	libsystemd-dev dbus-daemon \
	valgrind cppcheck clang-format protobuf-compiler \
	golang-go python3-pytest python3-kubernetes python3-prometheus-client nodejs chromium
sh "$(dirname "$0")/install-client-deps.sh"
