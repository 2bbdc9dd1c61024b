#!/bin/sh
# Run the fuzz targets (docs/fuzzing.md); called by `make fuzz`.
#   run.sh BUILD_DIR FIXTURES_DIR SECONDS TARGET...
# For each target: replay fixtures/fuzz/<target>/regressions/ (inputs that
# once crashed it), then fuzz for SECONDS with the seed corpus
# fixtures/fuzz/<target>/, the dictionary <target>.dict and the extra flags
# in <target>.options when present. New inputs go to BUILD_DIR/corpus/, never
# into the source tree; crashes to BUILD_DIR/crashes/. Prints the executions
# per target and fails when any target crashed.
set -u
dir=$1 seeds=$2 secs=$3
shift 3
mkdir -p "$dir/corpus" "$dir/crashes" "$dir/logs"
failed='' summary=''
for t in "$@"; do
	bin=$dir/fuzz_$t log=$dir/logs/$t.log
	flags="-timeout=10 -print_final_stats=1 -artifact_prefix=$dir/crashes/$t-"
	[ -f "$seeds/$t.dict" ] && flags="$flags -dict=$seeds/$t.dict"
	[ -f "$seeds/$t.options" ] && flags="$flags $(cat "$seeds/$t.options")"
	mkdir -p "$dir/corpus/$t"

	if [ -d "$seeds/$t/regressions" ] && [ -n "$(ls "$seeds/$t/regressions")" ]; then
		# shellcheck disable=SC2086
		if ! "$bin" $flags "$seeds/$t/regressions"/* </dev/null >"$log.replay" 2>&1; then
			echo "fuzz: $t: a regression input crashes again:"
			tail -40 "$log.replay"
			failed="$failed $t"
			summary="$summary$t - REGRESSION\n"
			continue
		fi
	fi

	seed_dir=
	[ -d "$seeds/$t" ] && seed_dir=$seeds/$t
	# shellcheck disable=SC2086
	"$bin" $flags -max_total_time="$secs" "$dir/corpus/$t" $seed_dir </dev/null >"$log" 2>&1
	rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *\([0-9]*\).*/\1/p' "$log" | tail -1)
	[ -n "$execs" ] || execs=$(sed -n 's/^#\([0-9]*\)[[:space:]]*DONE.*/\1/p' "$log" | tail -1)
	[ -n "$execs" ] || execs='?'
	if [ $rc -ne 0 ]; then
		echo "fuzz: $t CRASHED (exit $rc) after $execs executions:"
		tail -60 "$log"
		ls "$dir/crashes/$t-"* 2>/dev/null
		failed="$failed $t"
		summary="$summary$t $execs CRASH\n"
	else
		echo "fuzz: $t: $execs executions in ${secs}s, no crash"
		summary="$summary$t $execs ok\n"
	fi
done
printf '%-20s %14s %s\n' target executions result
# shellcheck disable=SC2059
printf "$summary" | while read -r t n r; do printf '%-20s %14s %s\n' "$t" "$n" "$r"; done
if [ -n "$failed" ]; then
	echo "fuzz: failed:$failed (inputs under $dir/crashes/, logs under $dir/logs/)"
	exit 1
fi
