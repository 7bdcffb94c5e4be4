package workloads

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzLoad feeds arbitrary files and --set overrides to the loader: it must
// never panic, and every failure must be a list of located errors.
func FuzzLoad(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.yaml")
	builtin, _ := filepath.Glob("*.yaml")
	for _, p := range append(files, builtin...) {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, "adapter.pcie.lanes=16")
		f.Add(b, "generators.0.size_bytes={uniform: {min: 1, max: 9}}")
	}
	f.Add([]byte("a: &x [*x]\n"), "")
	f.Add([]byte("run: {duration_us: 5}\ngenerators: [{kind: translate}]\nsweep: {run.seed: [1,2]}\n"), "sweep.x=1")
	for _, d := range degenerateFiles {
		f.Add([]byte(d), "")
	}
	f.Fuzz(func(t *testing.T, data []byte, set string) {
		var sets []string
		if set != "" {
			sets = []string{set}
		}
		file, err := LoadBytes("fuzz.yaml", data, Options{Sets: sets})
		if err != nil {
			var es Errors
			if !errors.As(err, &es) || len(es) == 0 {
				t.Fatalf("error is not a located list: %v", err)
			}
			for _, e := range es {
				if e.File != "fuzz.yaml" || e.Msg == "" {
					t.Fatalf("error without file or message: %#v", e)
				}
				if strings.Contains(e.Msg, "YAML parser failed") {
					t.Fatalf("the YAML parser panicked: %v", e)
				}
			}
			return
		}
		if len(file.Points) == 0 {
			t.Fatal("a valid file with no points")
		}
		if est, budget := file.MemoryEstimate(), file.Points[0].Run.MemoryMaxBytes; est > budget {
			t.Fatalf("a valid file whose memory estimate %d is above its budget %d", est, budget)
		}
	})
}

// degenerateFiles are files at the edges the loader must refuse or bound:
// host memory smaller than what the remote kinds write, open-loop backlogs
// and page lists past the memory budget, deep stages on many engines,
// empty, oversized and repeating sweeps, YAML left open, a sweep of many
// points over an invalid file.
var degenerateFiles = []string{
	"run: {duration_us: 5}\nadapter: {nic: {host_memory_pages_max: 1}}\ngenerators: [{kind: rdma_write, size_bytes: 4096}]\n",
	"run: {duration_us: 5}\nadapter: {nic: {host_memory_pages_max: 1}}\ngenerators: [{kind: fr_write_send_inv, streams: 4, outstanding: 4}]\n",
	"run: {duration_us: 5}\ngenerators: [{kind: dma_read, streams: 1024, arrival: {rate_mops: 100, backlog_max: 1000000}}]\n",
	"run: {duration_us: 5}\nadapter: {nic: {frmr_page_count: 65536}}\ngenerators: [{kind: fr_write_send_inv, streams: 64, outstanding: 1024, pages: 65536}]\n",
	"run: {duration_us: 5}\nadapter: {nic: {exec_engines: 64, parse: {latency_cycles: 100000, items_per_cycle: 64}}}\ngenerators: [{kind: dma_read}]\n",
	"run: {duration_us: 5}\ngenerators: [{kind: dma_read}]\nsweep: {}\n",
	"run: {duration_us: 5}\ngenerators: [{kind: dma_read}]\nsweep: {run.seed: []}\n",
	"run: {duration_us: 5}\ngenerators: [{kind: dma_read}]\nsweep: {run.seed: [4, 4, 8]}\n",
	"run: {duration_us: 5}\ngenerators: [{kind: dma_read}]\nsweep_mode: zip\nsweep: {run.seed: [1, 1], run.ops: [2, 2]}\n",
	"run:\n  duration_us: [5\ngenerators: [{kind: dma_read}]\n",
	"run: {duration_us: 5, memory_max_bytes: 16777216}\ngenerators: [{kind: dma_read}]\nsweep: {run.seed: [1, 2, 3, 4, 5, 6, 7, 8], run.ops: [1, 2, 3, 4, 5, 6, 7, 8]}\n",
	"bogus: 1\nrun: {duration_us: 5}\ngenerators: [{kind: dma_read}]\nsweep: {run.seed: [1, 2, 3, 4, 5, 6, 7, 8], run.ops: [1, 2, 3, 4, 5, 6, 7, 8]}\n",
}
