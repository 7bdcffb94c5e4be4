#!/usr/bin/env bash
# make speed-vs-start: the wall time per simulated work request of the
# whole-simulator benchmarks' loads, this checkout's nicsim against the
# binary of START (default 4ee3778, where the whole-simulator speed work
# began: docs/kernel.md, "Where a work request's time goes"), each binary on
# its own commit's workload file.
#
# LOADS names the loads (default quickstart; all: every one):
#   quickstart  workloads/quickstart.yaml for DURATION_US (10000) of simulated time
#   bind        workloads/bind-rate-vs-qps.yaml at 16 QPs, 1 ms
#   rdma        workloads/rdma-read-write.yaml at 64 B, 1 ms
#   register    workloads/registermr-latency-vs-size.yaml at 16 pages, 2000 operations
# The points are those of the benchmarks of workloads/traffic/bench_test.go;
# a sweep file's sweep is cut off and its point set with --set.
#
# The two binaries run in turn, RUNS times each (after one warm-up run of
# each), so that a machine whose speed drifts loads both alike. Each run's
# wall time is divided by the work requests it completed (a chain's parts,
# e.g. a FastRegister and an Invalidate, count one each). For each load the
# script prints every pair, then the medians: wall ns per request, engine
# events per request (results.json), wall ns per event, peak resident MiB
# (GNU time's, when /usr/bin/time is installed; "-" otherwise) and the
# ratio current / start of the wall ns per request, 0.25 being four times
# fewer.
set -euo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
START=${START:-4ee3778}
RUNS=${RUNS:-7}
DURATION_US=${DURATION_US:-10000}
LOADS=${LOADS:-quickstart}
[ "$LOADS" = all ] && LOADS="quickstart bind rdma register"

if ! git rev-parse --quiet --verify "$START^{commit}" >/dev/null; then
	echo "speed-vs-start: commit $START is not in this clone (a shallow clone? fetch its history, or set START)" >&2
	exit 2
fi
case $RUNS in '' | *[!0-9]* | 0)
	echo "speed-vs-start: RUNS must be a whole number of at least 1, not '$RUNS'" >&2
	exit 2
	;;
esac
for l in $LOADS; do
	case $l in quickstart | bind | rdma | register) ;;
	*)
		echo "speed-vs-start: LOADS: unknown load '$l' (quickstart, bind, rdma, register or all)" >&2
		exit 2
		;;
	esac
done

work=$(mktemp -d)
trap 'git worktree remove --force "$work/start" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT

git worktree add --detach "$work/start" "$START" >/dev/null 2>&1
# Both are built as go build builds by default, with the commit stamped in
# (-buildvcs=auto, whatever GOFLAGS says): a binary without it asks git for
# its provenance at run time (meta.json), child processes that load a 2-core
# machine by some milliseconds per run and are not the simulator.
(cd "$work/start" && $GO build -buildvcs=auto -o "$work/start.bin" ./cmd/nicsim)
$GO build -buildvcs=auto -o "$work/cur.bin" ./cmd/nicsim

# point TREE LOAD writes the load's file from TREE, its sweep cut off, to
# $work/LOAD-<tree>.yaml and prints its path; sets LOAD prints its --set
# arguments.
point() {
	local tree=$1 load=$2 file
	case $load in
	quickstart) file=quickstart ;;
	bind) file=bind-rate-vs-qps ;;
	rdma) file=rdma-read-write ;;
	register) file=registermr-latency-vs-size ;;
	esac
	local out="$work/$load-$(basename "$tree").yaml"
	sed '/^sweep/,$d' "$tree/workloads/$file.yaml" >"$out"
	echo "$out"
}
sets() {
	case $1 in
	quickstart) echo "--set run.duration_us=$DURATION_US" ;;
	bind) echo "--set generators.bind-inv.streams=16" ;;
	rdma) echo "--set run.duration_us=1000" ;;
	register) echo "--set generators.reg.pages=16 --set run.ops=2000" ;;
	esac
}

# requests prints the work requests a run completed, from results.csv: a
# generator's parts when it has any, else the generator's own row (the
# current format has a "row" column of "generator" or "part"; START's names
# a part "generator/part").
requests() {
	awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
		{
			g = $col["generator"]; part = 0
			if ("row" in col) part = $col["row"] == "part"
			else if (index(g, "/") > 0) { part = 1; g = substr(g, 1, index(g, "/") - 1) }
			if (part) { parts[g] += $col["completed"]; has[g] = 1 } else own[g] += $col["completed"]
			seen[g] = 1
		}
		END { for (g in seen) n += has[g] ? parts[g] : own[g]; print n + 0 }' "$1/results.csv"
}

# events prints the engine events of a run (its only point's).
events() { awk -F'[:,]' '/"events":/ { print $2 + 0; exit }' "$1/results.json"; }

# run BIN YAML OUT LOAD [FLAGS...] runs one point and prints its wall ns per
# request, events per request, wall ns per event and peak resident MiB.
run() {
	local bin=$1 wl=$2 out=$3 load=$4
	shift 4
	rm -rf "$out" "$out.time"
	local t0 t1 timer=()
	[ -x /usr/bin/time ] && timer=(/usr/bin/time -f %M -o "$out.time")
	t0=$(date +%s%N)
	# shellcheck disable=SC2046 # sets prints words to split
	"${timer[@]}" "$bin" run "$wl" $(sets "$load") --quiet --out "$out" "$@" >/dev/null
	t1=$(date +%s%N)
	local kb=-
	[ -s "$out.time" ] && kb=$(tail -1 "$out.time")
	awk -v ns=$((t1 - t0)) -v n="$(requests "$out")" -v ev="$(events "$out")" -v kb="$kb" 'BEGIN {
		if (n == 0) { print "speed-vs-start: no work request completed" > "/dev/stderr"; exit 1 }
		printf "%.1f %.2f %.1f %s\n", ns / n, ev / n, ns / (ev > 0 ? ev : 1), kb == "-" ? "-" : sprintf("%.1f", kb / 1024) }'
}

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
col() { cut -d' ' -f"$1" "$2" | median; }

for load in $LOADS; do
	sy=$(point "$work/start" "$load")
	cy=$(point . "$load")
	start() { run "$work/start.bin" "$sy" "$work/s" "$load"; }
	current() { run "$work/cur.bin" "$cy" "$work/c" "$load" --no-plots; }
	start >/dev/null
	current >/dev/null
	: >"$work/pairs"
	echo "== $load ($START against the current checkout; ns/req, events/req, ns/event, peak MiB)"
	printf '%-6s %-32s %-32s %8s\n' pair "start" "current" ratio
	for i in $(seq 1 "$RUNS"); do
		s=$(start)
		c=$(current)
		r=$(awk -v s="${s%% *}" -v c="${c%% *}" 'BEGIN { printf "%.3f", c / s }')
		echo "$s $c $r" >>"$work/pairs"
		printf '%-6s %-32s %-32s %8s\n' "$i" "$s" "$c" "$r"
	done
	printf '%-6s %-32s %-32s %8s\n' median \
		"$(col 1 "$work/pairs") $(col 2 "$work/pairs") $(col 3 "$work/pairs") $(col 4 "$work/pairs")" \
		"$(col 5 "$work/pairs") $(col 6 "$work/pairs") $(col 7 "$work/pairs") $(col 8 "$work/pairs")" \
		"$(col 9 "$work/pairs")"
done
