#!/bin/sh
# What `make fuzz` needs beyond tests/install-deps.sh (Debian 12): clang 14
# with its libFuzzer/sanitizer runtimes and llvm-symbolizer for readable
# stack traces. Called by .ci/run before the fuzz stage; kept apart so the
# README's install command stays lean. Installs nothing when all is there.
set -e
have() {
	command -v clang-14 >/dev/null 2>&1 && command -v llvm-symbolizer-14 >/dev/null 2>&1 &&
		ls /usr/lib/llvm-14/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a >/dev/null 2>&1
}
have && exit 0
if [ "$(id -u)" != 0 ]; then
	echo "install-fuzz-deps.sh: clang-14, libclang-rt-14-dev and llvm-14 are missing;" \
		"run as root to install them (apt-get)" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q --no-install-recommends clang-14 libclang-rt-14-dev llvm-14
have
