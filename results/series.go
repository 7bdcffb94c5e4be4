package results

// Series is a point's time series: what happened in each interval of the
// run, warm-up included, for timeseries.csv and its plot. Times are
// picoseconds since the end of setup (warm-up starts at 0).
type Series struct {
	// IntervalPS is the width of one interval; StartPS the start of the
	// first (the series reaches back into warm-up at most
	// SeriesWarmupIntervalsMax intervals).
	IntervalPS uint64 `json:"interval_ps"`
	StartPS    uint64 `json:"start_ps"`
	// WarmupPS is where the measured window starts, EndPS where the series
	// ends (the last interval may be cut short there).
	WarmupPS   uint64           `json:"warmup_ps"`
	EndPS      uint64           `json:"end_ps"`
	Generators []GenSeries      `json:"generators"`
	Resources  []ResourceSeries `json:"resources,omitempty"`
}

// SeriesWarmupIntervalsMax bounds the intervals of a series before the
// measured window.
const SeriesWarmupIntervalsMax = 1000

// GenSeries is one generator's operations per interval, by completion
// time (whenever they arrived).
type GenSeries struct {
	Name      string   `json:"name"`
	Completed []uint64 `json:"completed"` // successes and failures (throughput counts Completed - Failed)
	Failed    []uint64 `json:"failed"`
	Bytes     []uint64 `json:"bytes"` // of successful operations
	// LatencyCount successful operations completed in the interval, with
	// their latency quantiles in nanoseconds (within 1/64 of a sample).
	LatencyCount []uint64  `json:"latency_count"`
	P50NS        []float64 `json:"p50_ns" round:"3"`
	P99NS        []float64 `json:"p99_ns" round:"3"`
	MaxNS        []float64 `json:"max_ns" round:"3"`
}

// ResourceSeries is one resource's busy fraction per interval of the
// measured window (a sim.Meter's series), its intervals from StartPS.
type ResourceSeries struct {
	Name        string    `json:"name"`
	Unit        string    `json:"unit"`
	Capacity    uint64    `json:"capacity"`
	StartPS     uint64    `json:"start_ps"`
	IntervalPS  uint64    `json:"interval_ps"`
	Utilisation []float64 `json:"utilisation"`
}
