#!/bin/sh
# Each program's man page (docs/man/, written by hand) documents every flag
# its --help lists, and names no flag the program does not have. A program
# not built yet is skipped.
set -u
top=${NL_FIXTURES_DIR:-$(dirname "$0")/../../fixtures}/..
fail=0
check() { # program man-page
	prog=$1 page=$top/docs/man/$2
	if [ ! -x "$prog" ]; then
		echo "SKIP: $prog not built"
		return
	fi
	"$prog" --help >/dev/null 2>&1 || { echo "FAIL: $prog --help exit status"; fail=1; }
	# The man source escapes dashes (\-); compare without the backslashes.
	flags=$("$prog" --help | grep -o -- '--[a-z][a-z-]*' | sort -u)
	text=$(sed 's/\\-/-/g' "$page")
	for f in $flags; do
		case $text in
		*"$f"*) ;;
		*) echo "FAIL: $2 does not document $f"; fail=1 ;;
		esac
	done
	help=$("$prog" --help)
	options=$(sed -n '/^\.SH OPTIONS/,/^\.SH [^O]/p' "$page" | sed 's/\\-/-/g')
	for f in $(printf '%s\n' "$options" | grep -o -- '--[a-z][a-z-]*' | sort -u); do
		case $help in
		*"$f"*) ;;
		*) echo "FAIL: $2 documents $f, which --help does not list"; fail=1 ;;
		esac
	done
}
check ./mockapi/nodelet-mockapi nodelet-mockapi.1
check ./client/nodelet nodelet.8
check ./client/nodelet-scenario nodelet-scenario.1
exit $fail
