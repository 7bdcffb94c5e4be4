#!/usr/bin/env bash
# make same-time-order: how far each regression baseline's figures move when
# events of one time and priority run last scheduled first (the check build,
# go build -tags reverseties), against how far they move with another seed
# (docs/accuracy.md, section 8).
#
# For every folder of results/baselines it runs the baseline's workload with
# the ordinary build at the baseline's seed (the reference), with the check
# build at that seed, and with the ordinary build at each seed of SEEDS
# (default "2 3 4"). It compares each with the reference (nicsim compare
# --all) and prints, per baseline, the largest relative change of the
# throughput, the mean latency and the p99 latency over all points and
# generators: reversed / seeds. The output is the table of docs/accuracy.md.
#
# It fails when a run fails or a baseline carries --set overrides, which it
# does not pass on.
set -euo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
SEEDS=${SEEDS:-2 3 4}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
$GO build -o "$tmp/ordinary" ./cmd/nicsim
$GO build -tags reverseties -o "$tmp/reversed" ./cmd/nicsim

# field NAME FILE: a string or number field of a baseline.json.
field() { sed -n "s/^ *\"$1\": *\"\{0,1\}\([^\",]*\)\"\{0,1\},\{0,1\}$/\1/p" "$2"; }

# changes TAG: "metric tag |change %|" for each row of nicsim compare's table
# on stdin whose metric is one of the three.
changes() {
	awk -v tag="$1" '{
		for (i = 1; i <= NF; i++) if ($i == "throughput_mops" || $i == "latency_ns_mean" || $i == "latency_ns_p99") {
			v = $(i + 3); sub(/^[+-]/, "", v); sub(/%$/, "", v); print $i, tag, v + 0
		}
	}'
}

# diffs REF NEW: nicsim compare's whole table; exit 1 (a figure moved past
# its threshold) is what this script measures, not a failure.
diffs() { "$tmp/ordinary" compare --all "$1" "$2" 2>/dev/null || [ $? -eq 1 ]; }

# run BIN SEED OUT FILE: one quiet run without plots; the check build's
# warning is expected and dropped.
run() { "$1" run "$4" --seed "$2" --no-plots --quiet --force --out "$3" 2> >(grep -v 'warning: same-time events' >&2) >/dev/null; }

echo "| baseline | throughput: reversed / seeds | mean latency: reversed / seeds | p99 latency: reversed / seeds |"
echo "|---|---|---|---|"
for d in results/baselines/*/; do
	name=$(basename "$d")
	if grep -q '"sets"' "$d/baseline.json"; then
		echo "same-time-order: $name: a baseline with --set overrides is not handled" >&2
		exit 1
	fi
	file=$(field file "$d/baseline.json")
	seed=$(field seed "$d/baseline.json")
	run "$tmp/ordinary" "$seed" "$tmp/$name-ref" "$file"
	run "$tmp/reversed" "$seed" "$tmp/$name-rev" "$file"
	{
		diffs "$tmp/$name-ref" "$tmp/$name-rev" | changes rev
		for s in $SEEDS; do
			run "$tmp/ordinary" "$s" "$tmp/$name-$s" "$file"
			diffs "$tmp/$name-ref" "$tmp/$name-$s" | changes seed
		done
	} | awk -v name="$name" '
		{ k = $1 " " $2; if (!(k in m) || $3 > m[k]) m[k] = $3 }
		END {
			printf "| %s", name
			split("throughput_mops latency_ns_mean latency_ns_p99", ms, " ")
			for (i = 1; i <= 3; i++) printf " | %.2f %% / %.2f %%", m[ms[i] " rev"], m[ms[i] " seed"]
			print " |"
		}'
done
