package results

import (
	"runtime"
	"time"

	"github.com/nicsim/nicsim/workloads"
)

// Meta is meta.json of a run: how it was made. Wall-clock figures live
// here and nowhere else, so results.json stays byte-identical for a
// file and seed.
type Meta struct {
	Version   string `json:"nicsim_version"`
	GoVersion string `json:"go_version"`
	Provenance
	// ConfigHash is ConfigHash of the run's resolved configuration; the
	// default output folder name holds its first ConfigHashLen digits.
	ConfigHash  string   `json:"config_hash"`
	File        string   `json:"file"`
	Args        []string `json:"args"`
	Seed        uint64   `json:"seed"`
	Partial     bool     `json:"partial"`
	StopReason  string   `json:"stop_reason"`
	StartedAt   string   `json:"started_at"`
	WallSeconds float64  `json:"wall_seconds"`
	// PeakResidentBytes is the process's largest resident set by the
	// time meta.json was written (PeakResidentBytes; left out where the
	// system does not say). For a sweep with several jobs it covers them
	// all.
	PeakResidentBytes uint64 `json:"peak_resident_bytes,omitempty"`
	Trace             string `json:"trace,omitempty"`
	Profile           string `json:"profile,omitempty"`
}

// NewMeta starts the meta.json of a run of the loaded file f (nicsim
// version version, command-line args) started at started.
func NewMeta(version string, f *workloads.File, args []string, started time.Time) Meta {
	return Meta{Version: version, GoVersion: runtime.Version(), Provenance: BuildProvenance(), ConfigHash: ConfigHash(f),
		File: f.Path, Args: args, Seed: f.Points[0].Run.Seed, StartedAt: started.UTC().Format(time.RFC3339)}
}

// SweepMeta is meta.json of a sweep: how it was run.
type SweepMeta struct {
	Meta
	Sets   []string `json:"sets,omitempty"` // the --set overrides
	Jobs   int      `json:"jobs"`
	Shard  string   `json:"shard,omitempty"` // "i/n" for a shard
	Points int      `json:"points_run"`
	// Resumed is how many of Points an earlier, interrupted run of the
	// sweep had finished (--resume).
	Resumed int      `json:"points_resumed,omitempty"`
	Plots   []string `json:"plots,omitempty"`
}

// MergeMeta is meta.json of merged shards.
type MergeMeta struct {
	Version   string `json:"nicsim_version"`
	GoVersion string `json:"go_version"`
	Provenance
	MergedAt string   `json:"merged_at"`
	Shards   []string `json:"shards"`
	Seed     uint64   `json:"seed"`
	Plots    []string `json:"plots,omitempty"`
}

// NewMergeMeta is the meta.json of merging the shard folders shards now.
func NewMergeMeta(version string, shards []string, seed uint64) MergeMeta {
	return MergeMeta{Version: version, GoVersion: runtime.Version(), Provenance: BuildProvenance(), MergedAt: time.Now().UTC().Format(time.RFC3339),
		Shards: shards, Seed: seed}
}

// Config is config.json: the resolved configuration of every point after
// preset, overrides and sweep.
type Config struct {
	Workload string                `json:"workload"`
	Seed     uint64                `json:"seed"`
	Sets     []string              `json:"sets,omitempty"`
	Sweep    []workloads.SweepAxis `json:"sweep,omitempty"`
	Labels   []string              `json:"labels,omitempty"` // sweep point of each entry of points
	Points   []*workloads.Workload `json:"points"`           // each one a valid workload file in JSON
	Kinds    []string              `json:"kinds"`
	Presets  []string              `json:"presets"`
}

// NewConfig is the config.json of a loaded file with the --set overrides
// sets; the points' labels are in it when the file has a sweep.
func NewConfig(f *workloads.File, sets []string) Config {
	w0 := f.Points[0]
	c := Config{Workload: w0.Name, Seed: w0.Run.Seed, Sets: sets, Sweep: f.Sweep, Points: f.Points,
		Kinds: workloads.KindNames(), Presets: workloads.PresetNames()}
	if len(f.Sweep) > 0 {
		c.Labels = PointLabels(f)
	}
	return c
}

// PointLabels is the label of every point of f, in order.
func PointLabels(f *workloads.File) []string {
	var out []string
	for _, p := range f.Points {
		out = append(out, workloads.Label(p.Point))
	}
	return out
}
