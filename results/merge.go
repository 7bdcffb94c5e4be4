package results

import (
	"errors"
	"fmt"
	"reflect"

	"github.com/nicsim/nicsim/workloads"
)

// MergeShards combines the results of the shards of one sweep into the
// result of the whole sweep, which is the same, byte for byte once encoded,
// as running the sweep unsharded. Every shard must come from the same
// workload, seed and sweep, be complete, and together they must hold every
// point exactly once.
func MergeShards(parts []*Result) (*Result, error) {
	if len(parts) == 0 {
		return nil, errors.New("no shard results to merge")
	}
	first := parts[0]
	if err := workloads.CheckSweepAxes(first.Sweep); err != nil {
		return nil, fmt.Errorf("shard 0: %v", err)
	}
	labels := workloads.SweepLabels(first.Sweep)
	pos := make(map[string]int, len(labels))
	for i, l := range labels {
		pos[l] = i
	}
	merged := make([]*PointResult, len(labels))
	for n, p := range parts {
		switch {
		case p.Workload != first.Workload:
			return nil, fmt.Errorf("shard %d is workload %q, shard 0 is %q", n, p.Workload, first.Workload)
		case p.Seed != first.Seed:
			return nil, fmt.Errorf("shard %d has seed %d, shard 0 has %d", n, p.Seed, first.Seed)
		case !reflect.DeepEqual(p.Sweep, first.Sweep):
			return nil, fmt.Errorf("shard %d sweeps other axes than shard 0", n)
		case p.Partial:
			return nil, fmt.Errorf("shard %d is partial (interrupted); finish it with nicsim sweep --resume on its folder, then merge again", n)
		}
		for i := range p.Points {
			pt := &p.Points[i]
			k, ok := pos[pt.Label]
			if !ok {
				return nil, fmt.Errorf("shard %d holds point %q, which is not in the sweep", n, pt.Label)
			}
			if merged[k] != nil {
				return nil, fmt.Errorf("point %q appears in more than one shard", pt.Label)
			}
			merged[k] = pt
		}
	}
	out := &Result{Workload: first.Workload, Seed: first.Seed, Sweep: first.Sweep}
	var missing []string
	for k, pt := range merged {
		if pt == nil {
			missing = append(missing, fmt.Sprintf("%q", labels[k]))
			continue
		}
		out.Points = append(out.Points, *pt)
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("%d of %d points are in no shard: %v", len(missing), len(labels), missing)
	}
	return out, nil
}
