package scenario

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// twoQPs are the steps that make a PD, a CQ and a QP on hosts a and b.
const twoQPs = `  - create_pd: {pd: a.pd}
  - create_cq: {cq: a.cq, depth: 8}
  - create_qp: {qp: a.qp, pd: a.pd, cq: a.cq}
  - create_pd: {pd: b.pd}
  - create_cq: {cq: b.cq, depth: 8}
  - create_qp: {qp: b.qp, pd: b.pd, cq: b.cq}
`

// A key given twice at the top level is refused, naming the first line: the
// last steps: no longer silently wins.
func TestScenarioDuplicateTopLevelKeyRefused(t *testing.T) {
	src := "scenario: x\nhosts: [{name: a}]\nsteps:\n  - create_pd: {pd: a.pd}\nsteps:\n  - run: {until: idle}\n"
	_, err := LoadBytes("s.yaml", []byte(src))
	require.ErrorContains(t, err, "s.yaml:5:1: steps: duplicate key (first at line 3)")
	_, err = LoadBytes("s.yaml", []byte("scenario: x\nscenario: y\nhosts: [{name: a}]\nsteps: [{run: {until: idle}}]\n"))
	require.ErrorContains(t, err, "s.yaml:2:1: scenario: duplicate key (first at line 1)")
	_, err = LoadBytes("s.yaml", []byte("scenario: x\nhosts: [{name: a, name: b}]\nsteps: [{run: {until: idle}, expect: STATUS_SUCCESS, expect: STATUS_SUCCESS}]\n"))
	require.ErrorContains(t, err, "s.yaml:2:19: hosts.0.name: duplicate key (first at line 2)")
	require.ErrorContains(t, err, "steps.0.expect: duplicate key (first at line 3)")
}

// A poll step without expect: prints what it takes and checks nothing, as
// docs/workloads.md says of every step without expect:; expect: [] still
// requires none.
func TestScenarioPollWithoutExpectChecksNothing(t *testing.T) {
	src := `scenario: x
hosts: [{name: a}, {name: b}]
steps:
` + twoQPs + `  - connect: {a: a.qp, b: b.qp}
  - create_mr: {mr: a.mr, pd: a.pd, fast_register: true}
  - init_fr_mr: {mr: a.mr, pages: 1}
  - run: {until: idle}
  - fast_register: {qp: a.qp, mr: a.mr, pages: 1, length: 4096, ctx: 5}
  - run: {until: idle}
  - poll: {cq: a.cq}
`
	out, err := runScenarioText(t, src)
	require.NoError(t, err, out)
	require.Contains(t, out, `"op":"completion","object":"a.cq","status":"STATUS_SUCCESS"`)
	_, err = runScenarioText(t, src+"    expect: []\n")
	require.ErrorContains(t, err, "expected 0 completions, got 1")
}

// run: {us: N} refuses what simulated time cannot hold instead of clamping
// it, and a scenario's runs together stay far below the 2^64 ps of a Tick.
func TestScenarioRunDurationBeyondTheLimitRefused(t *testing.T) {
	for _, us := range []uint64{RunUSMax + 1, 1 << 40, 1<<64 - 1} {
		src := fmt.Sprintf("scenario: x\nhosts: [{name: a}]\nsteps:\n  - run: {us: %d}\n", us)
		_, err := LoadBytes("s.yaml", []byte(src))
		require.ErrorContains(t, err, fmt.Sprintf("s.yaml:4:15: steps.0.run.us: %d is out of range 0..%d", us, uint64(RunUSMax)))
	}
	half := fmt.Sprintf("  - run: {us: %d}\n", RunUSMax/2+1)
	_, err := LoadBytes("s.yaml", []byte("scenario: x\nhosts: [{name: a}]\nsteps:\n"+half+half))
	require.ErrorContains(t, err, fmt.Sprintf("steps.1.run.us: the runs add up to %d µs, more than %d", 2*(RunUSMax/2+1), uint64(RunUSMax)))
	out, err := runScenarioText(t, "scenario: x\nhosts: [{name: a}]\nsteps:\n  - run: {us: 1000000000000}\n")
	require.NoError(t, err)
	require.Contains(t, out, `"time_ps":1000000000000000000`)
}

// A fill is bounded by the host's page limit before anything is allocated,
// and that limit is bounded as in a workload file (host_memory_pages_max
// 1..2^20); a model write past it fails the step, never the process.
func TestScenarioFillBoundedByHostMemoryPagesBeforeAllocating(t *testing.T) {
	src := `scenario: x
hosts: [{name: a, nic: {host_memory_pages_max: 4}}]
steps:
  - fill: {host: a, va: 0, length: 8192, byte: 1}
  - fill: {host: a, va: 0, length: 16384, byte: 1}
  - fill: {host: a, va: 0x100000, length: 4096, byte: 1}
`
	out, err := runScenarioText(t, src)
	require.ErrorContains(t, err, "s.yaml:6: step 3 failed: fill a:0x100000+4096: needs 1 more pages of host memory; host a has written 4 of its host_memory_pages_max = 4")
	require.Equal(t, 2, strings.Count(out, `"op":"fill"`))
	_, err = LoadBytes("s.yaml", []byte("scenario: x\nhosts: [{name: a, nic: {host_memory_pages_max: 16777216}}]\nsteps: [{run: {until: idle}}]\n"))
	require.ErrorContains(t, err, "s.yaml:2:48: hosts.0.nic.host_memory_pages_max: 16777216 is out of range 1..2^20")
	_, err = LoadBytes("s.yaml", []byte("scenario: x\nhosts: [{name: a, nic: {tpt: {key_table_entries_max: 16777216}}}]\nsteps: [{run: {until: idle}}]\n"))
	require.ErrorContains(t, err, "hosts.0.nic.tpt.key_table_entries_max: 16777216 is out of range 1..2^20")
}

// A remote Write past the responder's host memory pages fails the step
// that ran the model, naming the host, instead of ending the process. The
// 8 KiB Write is two packets, placed one by one: the first takes the one
// page, the second is refused.
func TestScenarioModelWritePastHostMemoryFailsTheRunStep(t *testing.T) {
	src := `scenario: x
hosts: [{name: a}, {name: b, nic: {host_memory_pages_max: 1}}]
steps:
` + twoQPs + `  - connect: {a: a.qp, b: b.qp}
  - create_mr: {mr: a.src, pd: a.pd}
  - create_mr: {mr: b.dst, pd: b.pd}
  - register_mr: {mr: a.src, va: 0x100000, length: 8192, flags: [ALLOW_LOCAL_WRITE]}
  - register_mr: {mr: b.dst, va: 0x200000, length: 8192, flags: [ALLOW_REMOTE_WRITE, ALLOW_LOCAL_WRITE]}
  - run: {until: idle}
  - write: {qp: a.qp, local: {mr: a.src, va: 0x100000, length: 8192}, remote: {token: b.dst.remote_token, va: 0x200000}}
  - name: the write
    run: {until: idle}
`
	_, err := runScenarioText(t, src)
	require.ErrorContains(t, err, `s.yaml:17: step 14 "the write" failed: run: host b: host memory: writing 4096 bytes at 0x201000 needs 1 more pages, past the 1 of host_memory_pages_max (1 written)`)
}

// connect reports ConnectQPs' status, so a scenario can expect a refusal:
// a closed QP is STATUS_INVALID_HANDLE.
func TestScenarioConnectOfAClosedQPGivesAStatus(t *testing.T) {
	src := `scenario: x
hosts: [{name: a}, {name: b}]
steps:
` + twoQPs + `  - close: {object: a.qp}
  - connect: {a: a.qp, b: b.qp}
    expect: STATUS_INVALID_HANDLE
`
	out, err := runScenarioText(t, src)
	require.NoError(t, err, out)
}

// A scenario is held to a memory budget as a workload file is: what its
// fills, registrations and buffers span (up to each host's pages) and the
// queues it creates are added up at decode time, and a scenario above
// memory_max_bytes (default 4 GiB) runs nothing.
func TestScenarioMemoryBudgetRefusesWhatCannotBeHeld(t *testing.T) {
	var b strings.Builder
	b.WriteString("scenario: x\nhosts: [{name: a, nic: {host_memory_pages_max: 1048576}}]\nsteps:\n")
	for i := range 300 {
		fmt.Fprintf(&b, "  - fill: {host: a, va: %d, length: 16777216, byte: 1}\n", uint64(i)<<24)
	}
	_, err := LoadBytes("s.yaml", []byte(b.String()))
	require.ErrorContains(t, err, "s.yaml:4:36: steps.0.fill.length: the run needs an estimated 4.")
	require.ErrorContains(t, err, "host memory 4.1 GiB (steps: 1048576 pages that fills, registrations and local buffers span")
	require.ErrorContains(t, err, "raise memory_max_bytes")

	same := "scenario: x\nhosts: [{name: a, nic: {host_memory_pages_max: 1048576}}]\nsteps:\n" +
		strings.Repeat("  - fill: {host: a, va: 0, length: 16777216, byte: 1}\n", 300)
	_, err = LoadBytes("s.yaml", []byte(same))
	require.NoError(t, err, "300 fills of one range span 4096 pages")

	b.Reset()
	b.WriteString("scenario: x\nhosts: [{name: a, nic: {max_initiator_queue_depth: 65536}}]\nsteps:\n  - create_pd: {pd: a.pd}\n  - create_cq: {cq: a.cq, depth: 64}\n")
	for i := range 1024 {
		fmt.Fprintf(&b, "  - create_qp: {qp: a.q%d, pd: a.pd, cq: a.cq, depth: 65536}\n", i)
	}
	_, err = LoadBytes("s.yaml", []byte(b.String()))
	require.ErrorContains(t, err, "s.yaml:6:54: steps.2.create_qp.depth: the run needs an estimated 12.")
	require.ErrorContains(t, err, "objects 12.")
	_, err = LoadBytes("s.yaml", []byte(b.String()+"memory_max_bytes: 1099511627776\n"))
	require.NoError(t, err)
	_, err = LoadBytes("s.yaml", []byte("scenario: x\nhosts: [{name: a}]\nsteps: [{run: {until: idle}}]\nmemory_max_bytes: 5\n"))
	require.ErrorContains(t, err, "s.yaml:4:19: memory_max_bytes: 5 is out of range 2^24..2^40")
}

// A scenario over its memory budget is refused at the step field that asks
// for the most memory, not at the top of the file.
func TestScenarioMemoryBudgetNamesTheStep(t *testing.T) {
	src := "scenario: big\nhosts: [{name: a}]\nsteps:\n  - create_pd: {pd: a.pd}\n  - fill: {host: a, va: 0, length: 4096, byte: 1}\n" +
		strings.Repeat("  - run: {until: idle}\n", 6) +
		"  - register_mr: {mr: a.m, va: 0, length: 18446744073709551615}\n"
	_, err := LoadBytes("s.yaml", []byte(src))
	require.ErrorContains(t, err, "s.yaml:12:43: steps.8.register_mr.length: the run needs an estimated 4.1 GiB")
	src = "scenario: big\nhosts: [{name: a, nic: {max_initiator_queue_depth: 65536}}]\nsteps:\n  - create_pd: {pd: a.pd}\n  - create_cq: {cq: a.cq, depth: 64}\n" +
		strings.Repeat("  - create_qp: {qp: a.q, pd: a.pd, cq: a.cq}\n", 1) +
		strings.Repeat("  - create_qp: {qp: a.r, pd: a.pd, cq: a.cq, depth: 65536}\n", 1)
	_, err = LoadBytes("s.yaml", []byte(src+"memory_max_bytes: 16777216\n"))
	require.ErrorContains(t, err, "s.yaml:7:")
	require.ErrorContains(t, err, "steps.3.create_qp.depth: the run needs an estimated")
}

// register_mr's pieces (the va/length chain split at page boundaries) is
// 1..64: a value outside is refused when the file is read, at the value's
// file:line:col, not when the step runs.
func TestScenarioRegisterMrPiecesOutOfRangeRefusedAtLoad(t *testing.T) {
	head := "scenario: x\nhosts: [{name: a}]\nsteps:\n"
	for _, pieces := range []string{"65", "0", "1000000"} {
		body := "  - register_mr: {mr: a.m, va: 0, length: 4096, pieces: " + pieces + "}\n"
		_, err := LoadBytes("s.yaml", []byte(head+body))
		require.ErrorContains(t, err, "s.yaml:4:57: steps.0.register_mr.pieces: "+pieces+" is out of range 1..64", body)
	}
	for _, pieces := range []string{"1", "64"} {
		_, err := LoadBytes("s.yaml", []byte(head+"  - register_mr: {mr: a.m, va: 0, length: 4096, pieces: "+pieces+"}\n"))
		require.NoError(t, err, pieces)
	}
}

// callback: belongs to calls that may return STATUS_PENDING (docs/ndk.md
// rule 1). On a call that never pends - a work request (rule 3), a create
// of a PD, CQ or QP, a flush, connect, or a step that returns no status -
// it is refused when the file is read. On a call that may pend but, with
// the host's settings, returned inline, the step fails when it runs.
func TestScenarioCallbackOnACallThatNeverPendsRefusedAtLoad(t *testing.T) {
	head := "scenario: x\nhosts: [{name: a}]\nsteps:\n"
	for _, step := range []string{
		"  - create_pd: {pd: a.pd}\n",
		"  - create_qp: {qp: a.q, pd: a.pd, cq: a.cq}\n",
		"  - fast_register: {qp: a.q, mr: a.m, pages: 1, length: 4096}\n",
		"  - write: {qp: a.q, local: {mr: a.m, va: 0, length: 8}, remote: {token: 1, va: 0}}\n",
		"  - flush: {qp: a.q}\n",
		"  - run: {until: idle}\n",
	} {
		_, err := LoadBytes("s.yaml", []byte(head+step+"    callback: STATUS_SUCCESS\n"))
		op := strings.TrimSpace(strings.SplitN(strings.TrimPrefix(step, "  - "), ":", 2)[0])
		require.ErrorContains(t, err, "s.yaml:5:15: steps.0.callback: "+op+" never returns STATUS_PENDING, so no callback follows", step)
		require.ErrorContains(t, err, "only close, create_mr, create_mw, deregister_mr, init_fr_mr, register_mr take callback:")
	}
	// A create_mr from a full pool returns STATUS_SUCCESS inline (mr_pool_entries):
	// the callback: is legal in the file and fails the step when it runs.
	src := head + "  - create_pd: {pd: a.pd}\n  - create_mr: {mr: a.m, pd: a.pd}\n    callback: STATUS_SUCCESS\n"
	_, err := runScenarioText(t, src)
	require.ErrorContains(t, err, "s.yaml:5: step 2 failed: create_mr on a.m: callback STATUS_SUCCESS expected, but the call returned STATUS_SUCCESS (no callback)")
	_, err = runScenarioText(t, strings.Replace(src, "hosts: [{name: a}]", "hosts: [{name: a, nic: {mr_pool_entries: 0}}]", 1)+"  - run: {until: idle}\n")
	require.NoError(t, err)
}

// A scenario number past 64 bits is out of range, at its line and column,
// not "not a whole number".
func TestScenarioHugeNumberIsOutOfRange(t *testing.T) {
	_, err := LoadBytes("s.yaml", []byte("scenario: x\nhosts: [{name: a}]\nsteps:\n  - fill: {host: a, va: 18446744073709551616, length: 1, byte: 1}\n"))
	require.EqualError(t, err, "s.yaml:4:25: steps.0.fill.va: 18446744073709551616 is out of range 0..2^64-1")
}

// A Send with no receive posted is retried for ever with rnr_retry 7: a
// run until idle fails, naming why, instead of running without end; with a
// bounded rnr_retry the Send completes STATUS_REMOTE_RESOURCES and the run
// goes idle.
func TestScenarioRunUntilIdleThatNeverIdlesFails(t *testing.T) {
	src := `scenario: x
hosts: [{name: a, nic: {rnr_timer_ns: 1000000}}, {name: b, nic: {rnr_timer_ns: 1000000}}]
steps:
` + twoQPs + `  - connect: {a: a.qp, b: b.qp}
  - create_mr: {mr: a.m, pd: a.pd}
  - register_mr: {mr: a.m, va: 0x100000, length: 4096, flags: [ALLOW_LOCAL_WRITE]}
  - run: {until: idle}
  - send: {qp: a.qp, local: {mr: a.m, va: 0x100000, length: 16}, ctx: 3}
  - name: the send
    run: {until: idle}
`
	_, err := runScenarioText(t, src)
	require.ErrorContains(t, err, `step 12 "the send" failed: run: the model is still busy 10s after the step began (a Send with no receive posted is retried for ever`)
	bounded := strings.Replace(src, "{name: a, nic: {rnr_timer_ns: 1000000}}", "{name: a, nic: {rnr_timer_ns: 1000000, rnr_retry: 1}}", 1) +
		"  - poll: {cq: a.cq}\n    expect: [{status: STATUS_REMOTE_RESOURCES, type: Send, ctx: 3}]\n"
	out, err := runScenarioText(t, bounded)
	require.NoError(t, err, out)
}
