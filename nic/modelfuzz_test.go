package nic

import (
	"encoding/binary"
	"flag"
	"math/rand/v2"
	"testing"

	"github.com/nicsim/nicsim/sim"
	"github.com/nicsim/nicsim/sim/simtest"
)

// The model-level fuzzer: random sequences of NDK calls on two hosts (the
// scenario operations: create, register, deregister, fast-register, bind,
// invalidate, read, write, send, receive, send-and-invalidate, flush,
// close), with valid and invalid arguments, checked against a small
// reference model of docs/ndk.md section 5 (modelfuzz_ref_test.go):
//
//   - every request a post accepted completes exactly once, a queue's in
//     post order (rules 3, 5, 8), and nothing completes that was not
//     posted;
//   - no byte moves without a live token, its rights and its bounds (5.4):
//     a successful Read or Write had a token the model knows live, with
//     the right and covering the range, at some time between its post and
//     its completion, and at the end every byte of host memory that
//     changed was written by a request that completed successfully (a
//     Write with exactly its source's bytes);
//   - a token is never revived: it is live only while a registration,
//     fast registration or bind that issued it stands (5.3);
//   - a QP in error cancels everything after (5.1): after a QP's first
//     failed completion, after NdkFlush, and after the peer's remote access
//     error, every later request completes STATUS_CANCELLED.
//
// A run is a program of choices: TestModelFuzzKeepsTheNDKRules draws them
// from a seeded stream (it prints the seed; -seed replays one), FuzzModel
// from the fuzzing engine's bytes, so a failing input is kept in
// testdata/fuzz and replays with go test.

var (
	modelFuzzFirst = flag.Uint64("modelfuzz.first", 1, "first seed of the model-level fuzzer's runs")
	modelFuzzRuns  = flag.Int("modelfuzz.runs", 4, "seeds the model-level fuzzer runs (make fuzz runs many)")
	modelFuzzSteps = flag.Int("modelfuzz.steps", 300, "NDK calls per model-level fuzzer run")
	modelFuzzTrace = flag.Bool("modelfuzz.trace", false, "log every call and completion of the model-level fuzzer")
)

// chooser makes the fuzzer's choices.
type chooser interface {
	intn(n int) int // 0..n-1 (n >= 1)
}

// rngChooser draws choices from a seeded stream.
type rngChooser struct{ r *rand.Rand }

func (c rngChooser) intn(n int) int { return c.r.IntN(n) }

// byteChooser takes choices from a fuzzer's bytes (0 once they run out).
type byteChooser struct {
	b []byte
	i int
}

func (c *byteChooser) intn(n int) int {
	if c.i+2 > len(c.b) {
		c.i = len(c.b)
		return 0
	}
	v := int(binary.LittleEndian.Uint16(c.b[c.i:]))
	c.i += 2
	return v % n
}

func (c *byteChooser) done() bool { return c.i >= len(c.b) }

// TestModelFuzzKeepsTheNDKRules runs the model-level fuzzer from seeded
// streams (-modelfuzz.runs seeds of -modelfuzz.steps calls; -seed replays
// one) and fails at the first broken rule with the seed and the call.
func TestModelFuzzKeepsTheNDKRules(t *testing.T) {
	first, runs := *modelFuzzFirst, *modelFuzzRuns
	if s, ok := simtest.Given(); ok {
		first, runs = s, 1
	}
	for i := range runs {
		seed := first + uint64(i)
		t.Logf("seed %d (replay: go test ./nic -run TestModelFuzzKeepsTheNDKRules -seed %d)", seed, seed)
		w := newFuzzWorld(t, rngChooser{sim.Stream(seed, "modelfuzz")})
		for range *modelFuzzSteps {
			w.step()
		}
		w.finish()
	}
}

// FuzzModel is the model-level fuzzer driven by the fuzzing engine: the
// input's bytes are the program's choices.
func FuzzModel(f *testing.F) {
	for seed := range uint64(8) {
		b := make([]byte, 512)
		r := sim.Stream(seed, "modelfuzz.corpus")
		for i := range b {
			b[i] = byte(r.Uint32())
		}
		f.Add(b)
	}
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, prog []byte) {
		if len(prog) > 1024 {
			prog = prog[:1024] // about 170 calls
		}
		c := &byteChooser{b: prog}
		w := newFuzzWorld(t, c)
		for !c.done() {
			w.step()
		}
		w.finish()
	})
}
