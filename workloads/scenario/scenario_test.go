package scenario

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nicsim/nicsim/workloads"
)

func runScenarioText(t *testing.T, src string) (string, error) {
	t.Helper()
	s, err := LoadBytes("s.yaml", []byte(src))
	require.NoError(t, err)
	var out bytes.Buffer
	err = s.Run(&out)
	return out.String(), err
}

func TestBuiltinScenarioWalkPasses(t *testing.T) {
	s, err := Load("../scenario-ndk-walk.yaml")
	require.NoError(t, err)
	var out bytes.Buffer
	require.NoError(t, s.Run(&out))
	// Every seed operation appears, with a success and an error status.
	for _, want := range []string{`"op":"create_mr","object":"a.fr","status":"STATUS_SUCCESS"`, `"op":"create_mr","object":"a.none","status":"STATUS_INVALID_HANDLE"`,
		`"op":"init_fr_mr.callback","object":"a.fr","status":"STATUS_SUCCESS"`, `"status":"STATUS_IMPLEMENTATION_LIMIT"`,
		`"status":"STATUS_INVALID_DEVICE_STATE","value":"0xC0000184","type":"FastRegister"`, `"type":"Bind"`,
		`"op":"deregister_mr","object":"b.dst","status":"STATUS_DEVICE_BUSY"`, `"op":"register_mr.callback"`,
		`"status":"STATUS_INVALID_DEVICE_STATE","value":"0xC0000184","type":"Invalidate"`} {
		require.Contains(t, out.String(), want)
	}
}

func TestScenarioWriteMovesExactlyItsBytesAndARefusedWriteNone(t *testing.T) {
	s, err := Load("testdata/scenario-write-bytes.yaml")
	require.NoError(t, err)
	var out bytes.Buffer
	require.NoError(t, s.Run(&out), out.String())
	require.Equal(t, 4, strings.Count(out.String(), `"op":"check"`))
	require.NotContains(t, out.String(), "mismatch")
}

func TestScenarioCheckFailureNamesTheByte(t *testing.T) {
	src := `scenario: x
hosts: [{name: a}]
steps:
  - fill: {host: a, va: 0x1000, length: 64, pattern_seed: 3}
  - fill: {host: a, va: 0x1010, length: 1, byte: 0}
  - name: whole range
    check: {host: a, va: 0x1000, length: 64, pattern_seed: 3}
`
	out, err := runScenarioText(t, src)
	var f *Failure
	require.True(t, errors.As(err, &f), "%v", err)
	require.Equal(t, 3, f.Step)
	require.Equal(t, 6, f.Line) // the step starts at its "- name:" line
	require.Contains(t, err.Error(), `s.yaml:6: step 3 "whole range" failed: check a:0x1000+64: byte at 0x1010 (offset 16)`)
	require.Contains(t, out, `"detail":"mismatch"`)
}

func TestScenarioPendingCallbackIsChecked(t *testing.T) {
	base := `scenario: x
hosts: [{name: a, nic: {mr_pool_entries: 0}}]
steps:
  - create_pd: {pd: a.pd}
  - create_mr: {mr: a.mr, pd: a.pd, fast_register: true, ctx: 9}
    expect: STATUS_PENDING
    callback: CB
`
	out, err := runScenarioText(t, strings.Replace(base, "CB", "STATUS_SUCCESS", 1)+"  - run: {until: idle}\n  - init_fr_mr: {mr: a.mr, pages: 2}\n    expect: STATUS_PENDING\n    callback: STATUS_SUCCESS\n  - run: {us: 1000}\n")
	require.NoError(t, err)
	// The callback comes after the firmware's 50 us (firmware_command_ns),
	// the command's MMIO write and the MSI-X.
	cb := regexp.MustCompile(`\{"step":2,"op":"create_mr.callback","object":"a.mr","status":"STATUS_SUCCESS","value":"0x00000000","ctx":9,"time_ps":(\d+)\}`).FindStringSubmatch(out)
	require.NotNil(t, cb, out)
	ps, _ := strconv.ParseUint(cb[1], 10, 64)
	require.True(t, ps >= 50_000_000 && ps < 51_000_000, "callback at %d ps", ps)
	require.Contains(t, out, `"op":"init_fr_mr.callback"`)

	_, err = runScenarioText(t, strings.Replace(base, "CB", "STATUS_INSUFFICIENT_RESOURCES", 1)+"  - run: {until: idle}\n")
	require.ErrorContains(t, err, `s.yaml:5: step 2 failed: callback for a.mr: expected STATUS_INSUFFICIENT_RESOURCES, got STATUS_SUCCESS`)

	_, err = runScenarioText(t, strings.Replace(base, "CB", "STATUS_SUCCESS", 1))
	require.ErrorContains(t, err, "never fired")
}

func TestScenarioWrongExpectationNamesTheStep(t *testing.T) {
	s, err := Load("testdata/scenario-wrong-expect.yaml")
	require.NoError(t, err)
	var out bytes.Buffer
	err = s.Run(&out)
	require.EqualError(t, err, `testdata/scenario-wrong-expect.yaml:10: step 3 "init a normal MR" failed: init_fr_mr on a.mr: expected STATUS_SUCCESS, got STATUS_INVALID_DEVICE_REQUEST (0xC0000010)`)
	require.Equal(t, 3, strings.Count(out.String(), "\n"), "nothing after the failed step")
}

func TestScenarioDecodeErrorsHaveFileLine(t *testing.T) {
	cases := map[string]string{
		"scenario: x\nhosts: [{name: a}]\nsteps:\n  - create_pd: {pd: a.pd, depth: 3}\n":                                      "s.yaml:4:27: steps.0.create_pd.depth: unknown key (allowed: pd)",
		"scenario: x\nhosts: [{name: a}]\nsteps:\n  - create_pd: {pd: c.pd}\n":                                                `s.yaml:4:21: steps.0.create_pd.pd: "c.pd" is not an object name host.name of a declared host`,
		"scenario: x\nhosts: [{name: a}]\nsteps:\n  - create_pd: {pd: a.pd}\n    expect: STATUS_OK\n":                         `s.yaml:5:13: steps.0.expect: "STATUS_OK" is not a status name such as STATUS_SUCCESS`,
		"scenario: x\nhosts: [{name: a, nic: {bogus: 1}}]\nsteps:\n  - run: {until: idle}\n":                                  `s.yaml:2:25: hosts.0.nic.bogus: unknown key; allowed here: clock_period_ps`,
		"scenario: x\nhosts: [{name: a}]\nsteps:\n  - jump: {}\n":                                                             "s.yaml:4:5: steps.0.jump: unknown operation",
		"scenario: x\nhosts: [{name: a}]\nsteps:\n  - run: {until: idle}\n    poll: {cq: a.cq}\n":                             "s.yaml:5:5: steps.0.poll: a step has exactly one operation",
		"scenario: x\nhosts: [{name: a}]\nsteps:\n  - poll: {cq: a.cq}\n    expect: [{status: STATUS_SUCCESS, type: Writ}]\n": `s.yaml:5:45: steps.0.expect.0.type: "Writ" is not an operation type`,
		"scenario: x\nhosts: [{name: a}]\nsteps:\n  - fill: {host: a, va: 0, length: 4}\n":                                    "s.yaml:4:11: steps.0.fill: exactly one of byte, pattern_seed",
		"scenario: x\nhosts: [{name: a}]\nsteps:\n  - register_mr: {mr: a.m, va: 0, length: 1, flags: [NOPE]}\n":              `s.yaml:4:54: steps.0.register_mr.flags: "NOPE" is not a flag`,
		"scenario: x\nhosts: [{name: a}]\n":                                                                                   "s.yaml:1:1: steps: a non-empty list of steps is needed",
	}
	for src, want := range cases {
		_, err := LoadBytes("s.yaml", []byte(src))
		require.ErrorContains(t, err, want, src)
	}
	many := "scenario: x\nhosts: [{name: a}]\nsteps:\n" + strings.Repeat("  - run: {until: idle}\n", StepsMax+1)
	_, err := LoadBytes("s.yaml", []byte(many))
	require.ErrorContains(t, err, "10001 steps is more than 10000")
}

func TestScenarioIsDeterministic(t *testing.T) {
	var outs [2]bytes.Buffer
	for i := range outs {
		s, err := Load("../scenario-ndk-walk.yaml")
		require.NoError(t, err)
		require.NoError(t, s.Run(&outs[i]))
	}
	require.Equal(t, outs[0].String(), outs[1].String())
}

func TestIsScenario(t *testing.T) {
	require.True(t, IsFile("../scenario-ndk-walk.yaml"))
	require.False(t, IsFile("../quickstart.yaml"))
	require.False(t, IsScenario([]byte("- a\n")))
}

func TestScenarioModelFailureFailsTheStep(t *testing.T) {
	src := `scenario: x
hosts: [{name: a, nic: {host_memory_pages_max: 2}}]
steps:
  - fill: {host: a, va: 0, length: 16384, byte: 1}
`
	_, err := runScenarioText(t, src)
	require.ErrorContains(t, err, "s.yaml:4: step 1 failed: fill a:0x0+16384: needs 4 more pages of host memory; host a has written 0 of its host_memory_pages_max = 2")
	_, err = runScenarioText(t, strings.Replace(src, "va: 0,", "va: 0xFFFFFFFFFFFFFFF0,", 1))
	require.ErrorContains(t, err, "wraps past 2^64")
}

// FuzzLoadScenario: decoding never panics and every failure is a located list.
func FuzzLoadScenario(f *testing.F) {
	seeds, err := filepath.Glob("rules/*.yaml")
	require.NoError(f, err)
	for _, p := range append(seeds, "../scenario-ndk-walk.yaml", "testdata/scenario-write-bytes.yaml", "testdata/scenario-wrong-expect.yaml") {
		b, err := os.ReadFile(p)
		require.NoError(f, err)
		f.Add(b)
	}
	for _, d := range degenerateScenarios {
		f.Add([]byte(d))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := LoadBytes("fuzz.yaml", data)
		if err != nil {
			var es workloads.Errors
			if !errors.As(err, &es) || len(es) == 0 {
				t.Fatalf("error is not a located list: %v", err)
			}
			return
		}
		if est := workloads.MemoryTotal(s.MemoryEstimate()); est > s.MemoryMaxBytes {
			t.Fatalf("a valid scenario whose memory estimate %d is above its budget %d", est, s.MemoryMaxBytes)
		}
	})
}

// degenerateScenarios are scenarios at the edges the decoder must refuse or
// bound: runs past what simulated time holds, duplicate keys, fills past
// the host's pages, a host override past the loader's rules, a poll
// without expect, a connect of a closed QP.
var degenerateScenarios = []string{
	"scenario: x\nhosts: [{name: a}]\nsteps: [{run: {us: 4611686018427387904}}]\n",
	"scenario: x\nhosts: [{name: a}]\nsteps: [{run: {us: 600000000000}}, {run: {us: 600000000000}}]\n",
	"scenario: x\nhosts: [{name: a}]\nsteps: [{run: {until: idle}}]\nsteps: [{run: {until: idle}}]\n",
	"scenario: x\nhosts: [{name: a, nic: {host_memory_pages_max: 2}}]\nsteps: [{fill: {host: a, va: 0, length: 16777216, byte: 1}}]\n",
	"scenario: x\nhosts: [{name: a, nic: {host_memory_pages_max: 16777216}}]\nsteps: [{run: {until: idle}}]\n",
	"scenario: x\nhosts: [{name: a}]\nsteps: [{create_cq: {cq: a.cq, depth: 8}}, {poll: {cq: a.cq}}]\n",
	"scenario: x\nhosts: [{name: a}, {name: b}]\nsteps: [{create_pd: {pd: a.pd}}, {create_cq: {cq: a.cq, depth: 8}}, {create_qp: {qp: a.q, pd: a.pd, cq: a.cq}}, " +
		"{create_pd: {pd: b.pd}}, {create_cq: {cq: b.cq, depth: 8}}, {create_qp: {qp: b.q, pd: b.pd, cq: b.cq}}, {close: {object: a.q}}, {connect: {a: a.q, b: b.q}}]\n",
}

func TestScenarioReadSendReceiveInvalidateFlushClose(t *testing.T) {
	s, err := Load("testdata/scenario-send-read.yaml")
	require.NoError(t, err)
	var out bytes.Buffer
	require.NoError(t, s.Run(&out), out.String())
}
