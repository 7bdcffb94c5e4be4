#!/usr/bin/env bash
# make speed-vs-start: the wall time per simulated work request of the
# quickstart load, this checkout's nicsim against the binary of START
# (default 4ee3778, where the whole-simulator speed work began: docs/kernel.md,
# "Where a work request's time goes"), each on its own commit's
# workloads/quickstart.yaml for DURATION_US of simulated time.
#
# The two binaries run in turn, RUNS times each (after one warm-up run of
# each), so that a machine whose speed drifts loads both alike. Each run's
# wall time is divided by the work requests it completed (the sum of the
# "completed" figures of the generator's parts: a FastRegister and an
# Invalidate count one each); the script prints every pair, then the median
# of each and the median of the per-pair ratios (current / start): 0.25 is
# four times fewer wall nanoseconds per work request.
set -euo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
START=${START:-4ee3778}
RUNS=${RUNS:-7}
DURATION_US=${DURATION_US:-10000}

if ! git rev-parse --quiet --verify "$START^{commit}" >/dev/null; then
	echo "speed-vs-start: commit $START is not in this clone (a shallow clone? fetch its history, or set START)" >&2
	exit 2
fi
case $RUNS in '' | *[!0-9]* | 0)
	echo "speed-vs-start: RUNS must be a whole number of at least 1, not '$RUNS'" >&2
	exit 2
	;;
esac

work=$(mktemp -d)
trap 'git worktree remove --force "$work/start" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT

git worktree add --detach "$work/start" "$START" >/dev/null 2>&1
(cd "$work/start" && $GO build -o "$work/start.bin" ./cmd/nicsim)
$GO build -o "$work/cur.bin" ./cmd/nicsim

# requests prints the work requests a run completed: the rows of the
# generator's parts in results.csv (a "row" column of "part" in the
# current format; a generator name with a "/" in the format of START).
requests() {
	awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
		("row" in col) ? $col["row"] == "part" : index($col["generator"], "/") > 0 { n += $col["completed"] }
		END { print n + 0 }' "$1/results.csv"
}

# run BIN WORKLOAD OUT [FLAGS...] runs one point and prints its wall
# nanoseconds per work request.
run() {
	local bin=$1 wl=$2 out=$3
	shift 3
	rm -rf "$out"
	local t0 t1
	t0=$(date +%s%N)
	"$bin" run "$wl" --set run.duration_us="$DURATION_US" --quiet --out "$out" "$@" >/dev/null
	t1=$(date +%s%N)
	awk -v ns=$((t1 - t0)) -v n="$(requests "$out")" 'BEGIN { if (n == 0) exit 1; printf "%.1f\n", ns / n }'
}

start() { run "$work/start.bin" "$work/start/workloads/quickstart.yaml" "$work/s"; }
current() { run "$work/cur.bin" workloads/quickstart.yaml "$work/c" --no-plots; }

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

start >/dev/null
current >/dev/null
: >"$work/pairs"
printf '%-5s %14s %14s %8s\n' pair "start ns/req" "current ns/req" ratio
for i in $(seq 1 "$RUNS"); do
	s=$(start)
	c=$(current)
	r=$(awk -v s="$s" -v c="$c" 'BEGIN { printf "%.3f", c / s }')
	echo "$s $c $r" >>"$work/pairs"
	printf '%-5s %14s %14s %8s\n' "$i" "$s" "$c" "$r"
done
printf '%-5s %14s %14s %8s\n' median \
	"$(cut -d' ' -f1 "$work/pairs" | median)" \
	"$(cut -d' ' -f2 "$work/pairs" | median)" \
	"$(cut -d' ' -f3 "$work/pairs" | median)"
