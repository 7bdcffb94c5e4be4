package main

import (
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func csvHeader(t *testing.T, path string) map[string]bool {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	h, err := csv.NewReader(f).Read()
	require.NoError(t, err)
	out := map[string]bool{}
	for _, c := range h {
		out[c] = true
	}
	return out
}

// TestAnalysisExampleColumnsExist: every column and field the pandas
// examples of docs/analysis.md name is in a sweep's output folder.
func TestAnalysisExampleColumnsExist(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "cliff")
	sweepInto(t, dir, "--no-plots")
	rc := csvHeader(t, filepath.Join(dir, "results.csv"))
	for _, c := range []string{"row", "regions.data.pages", "throughput_mops", "latency_ns_p99", "mtt_hit_rate"} {
		require.True(t, rc[c], "results.csv column %s", c)
	}
	tc := csvHeader(t, filepath.Join(dir, "timeseries.csv"))
	for _, c := range []string{"row", "point", "start_us", "name", "utilisation"} {
		require.True(t, tc[c], "timeseries.csv column %s", c)
	}
	var res struct {
		Points []struct {
			Label      string            `json:"label"`
			Stats      []json.RawMessage `json:"stats"`
			Generators []struct {
				LatencyNS struct {
					BucketsPS string `json:"buckets_ps"`
				} `json:"latency_ns"`
			} `json:"generators"`
		} `json:"points"`
	}
	b, err := os.ReadFile(filepath.Join(dir, "results.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &res))
	require.NotEmpty(t, res.Points[0].Label)
	require.NotEmpty(t, res.Points[0].Stats)
	require.NotEmpty(t, res.Points[0].Generators[0].LatencyNS.BucketsPS)
	var meta map[string]any
	b, err = os.ReadFile(filepath.Join(dir, "meta.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &meta))
	for _, k := range []string{"commit", "dirty", "config_hash"} {
		_, ok := meta[k]
		if k != "config_hash" && meta["commit_source"] == "unknown" {
			continue
		}
		require.True(t, ok, "meta.json %s", k)
	}
	var cfg struct {
		Points []struct {
			Adapter struct {
				MTT struct {
					MTTCache struct {
						EntriesMax *uint64 `json:"entries_max"`
					} `json:"mtt_cache"`
				} `json:"mtt"`
			} `json:"adapter"`
		} `json:"points"`
	}
	b, err = os.ReadFile(filepath.Join(dir, "config.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &cfg))
	require.NotNil(t, cfg.Points[0].Adapter.MTT.MTTCache.EntriesMax)
}
