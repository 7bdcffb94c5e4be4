#!/usr/bin/env bash
# make fuzz: every Go fuzz target of the module, each for FUZZTIME (a
# failure is minimised for at most FUZZMINIMIZETIME and kept under the
# package's testdata/fuzz/), then the long run of the model-level fuzzer
# (MODELFUZZ_RUNS seeds of MODELFUZZ_STEPS NDK calls). Prints the
# executions and time of each; exits 1 if any found a failure.
set -uo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
FUZZTIME=${FUZZTIME:-60s}
FUZZMINIMIZETIME=${FUZZMINIMIZETIME:-2s}
MODELFUZZ_RUNS=${MODELFUZZ_RUNS:-1000}
MODELFUZZ_STEPS=${MODELFUZZ_STEPS:-3000}
PARALLEL=${FUZZPARALLEL:-2}

log=$(mktemp -d)
trap 'rm -rf "$log"' EXIT
status=0
summary=()

# targets lists "package target" for every fuzz target.
targets() {
	for pkg in $($GO list ./...); do
		for t in $($GO test -list '^Fuzz' "$pkg" 2>/dev/null | grep '^Fuzz'); do
			echo "$pkg $t"
		done
	done
}

while read -r pkg t; do
	out="$log/$t.txt"
	start=$(date +%s)
	if $GO test "$pkg" -run '^$' -fuzz "^$t\$" -fuzztime "$FUZZTIME" -fuzzminimizetime "$FUZZMINIMIZETIME" -parallel "$PARALLEL" >"$out" 2>&1; then
		result=ok
	else
		result=FAILED
		status=1
		grep -E -- '--- FAIL|_test.go:[0-9]+:|Failing input written to' "$out" | head -5 | sed 's/^/    /'
	fi
	execs=$(grep -Eo 'execs: [0-9]+' "$out" | tail -1 | grep -Eo '[0-9]+')
	summary+=("$(printf '%-28s %-44s %12s execs %5ss  %s' "$t" "$pkg" "${execs:-0}" "$(($(date +%s) - start))" "$result")")
	echo "${summary[-1]}"
done < <(targets)

start=$(date +%s)
out="$log/modelfuzz.txt"
if $GO test ./nic -run '^TestModelFuzzKeepsTheNDKRules$' -count=1 -v -modelfuzz.first 1 \
	-modelfuzz.runs "$MODELFUZZ_RUNS" -modelfuzz.steps "$MODELFUZZ_STEPS" >"$out" 2>&1; then
	result=ok
else
	result=FAILED
	status=1
	grep -E 'seed [0-9]+ \(replay|step [0-9]+ \(' "$out" | tail -2 | sed 's/^/    /'
fi
seeds=$(grep -c 'seed [0-9]* (replay' "$out")
summary+=("$(printf '%-28s %-44s %12s calls %5ss  %s' "model fuzzer (long run)" "$seeds seeds x $MODELFUZZ_STEPS calls" \
	"$((seeds * MODELFUZZ_STEPS))" "$(($(date +%s) - start))" "$result")")
echo "${summary[-1]}"
exit $status
