package main

import (
	"encoding/json"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// stoppedRun: two short points, then one that runs for minutes.
const stoppedRun = "run: {warmup_us: 0, sim_time_max_us: 10000000}\ngenerators: [{kind: dma_read, outstanding: 32}]\n" +
	"sweep: {run.duration_us: [5, 10, 10000000]}\n"

// SIGTERM (what Slurm and CI send at a time limit) and SIGHUP stop a run
// or a sweep as Ctrl-C does: the points that finished are kept, the one in
// progress is cut at its slice, everything is written and marked partial,
// and the exit code is 128 + the signal's number.
func TestSIGTERMAndSIGHUPWritePartialResultsAsCtrlC(t *testing.T) {
	for _, c := range []struct {
		cmd string
		sig syscall.Signal
	}{{"sweep", syscall.SIGTERM}, {"run", syscall.SIGHUP}, {"sweep", syscall.SIGHUP}, {"run", syscall.SIGTERM}} {
		t.Run(c.cmd+"-"+c.sig.String(), func(t *testing.T) {
			guard := make(chan os.Signal, 16) // the test process itself never dies of the signal
			signal.Notify(guard, c.sig)
			defer signal.Stop(guard)
			dir := t.TempDir()
			f := writeFile(t, dir, "stopped.yaml", stoppedRun)
			out := filepath.Join(dir, "out")
			args := []string{c.cmd, f, "--quiet", "--out", out}
			if c.cmd == "sweep" {
				args = append(args, "--jobs", "1", "--no-plots")
			}
			done := make(chan int, 1)
			var stderr string
			go func() {
				var code int
				code, _, stderr = nicsim(t, args...)
				done <- code
			}()
			var code int
			// The two short points take milliseconds; the first signal
			// waits a second so that a loaded machine has finished them.
			started := time.Now()
			tick, deadline := time.NewTicker(200*time.Millisecond), time.After(20*time.Second)
			defer tick.Stop()
			for code == 0 {
				select {
				case code = <-done:
				case <-tick.C:
					if time.Since(started) < time.Second {
						continue
					}
					require.NoError(t, syscall.Kill(os.Getpid(), c.sig))
				case <-deadline:
					t.Fatalf("nicsim %s did not stop on %v", c.cmd, c.sig)
				}
			}
			require.Equal(t, 128+int(c.sig), code, stderr)
			require.Contains(t, stderr, "interrupted by "+map[syscall.Signal]string{syscall.SIGTERM: "SIGTERM", syscall.SIGHUP: "SIGHUP"}[c.sig])
			var r struct {
				Partial bool `json:"partial"`
				Points  []struct {
					Partial    bool   `json:"partial"`
					StopReason string `json:"stop_reason"`
				} `json:"points"`
			}
			require.NoError(t, json.Unmarshal([]byte(readFile(t, filepath.Join(out, "results.json"))), &r))
			require.True(t, r.Partial)
			require.False(t, r.Points[0].Partial, "finished points are kept")
			require.False(t, r.Points[1].Partial)
			if c.cmd == "run" {
				require.Len(t, r.Points, 3)
				require.Equal(t, "interrupted", r.Points[2].StopReason, "run keeps the point it cut")
			} else {
				require.Len(t, r.Points, 2, "a sweep keeps whole points; --resume runs the rest")
			}
			require.Contains(t, readFile(t, filepath.Join(out, "meta.json")), `"partial": true`)
		})
	}
}
