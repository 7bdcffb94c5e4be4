package scenario

import (
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nicsim/nicsim/nic"
)

// setup is a scenario prefix: two hosts (the second's nic settings given),
// a PD, a CQ and a connected QP on each.
func setup(bNIC string) string {
	return `scenario: x
hosts: [{name: a}, {name: b, nic: {` + bNIC + `}}]
steps:
  - create_pd: {pd: a.pd}
  - create_cq: {cq: a.cq, depth: 64}
  - create_qp: {qp: a.qp, pd: a.pd, cq: a.cq}
  - create_pd: {pd: b.pd}
  - create_cq: {cq: b.cq, depth: 64}
  - create_qp: {qp: b.qp, pd: b.pd, cq: b.cq}
  - connect: {a: a.qp, b: b.qp}
`
}

// Tokens are values: saved under a name, printed, compared and used later.
func TestScenarioTokensSavedComparedAndUsed(t *testing.T) {
	src := setup("rotate_fast_register_key: true") + `  - create_mr: {mr: b.fr, pd: b.pd, fast_register: true}
  - init_fr_mr: {mr: b.fr, pages: 1, remote_access: true}
  - run: {until: idle}
  - save_token: {token: b.fr.remote_token, as: t0}
  - fast_register: {qp: b.qp, mr: b.fr, pages: 1, length: 4096, flags: [OP_ALLOW_REMOTE_WRITE]}
    expect: STATUS_SUCCESS
  - save_token: {token: b.fr.remote_token, as: $t1}
  - compare_tokens: {a: $t0, b: $t1, relation: same_index_different_key}
  - compare_tokens: {a: $t1, b: b.fr.local_token, relation: equal}
  - compare_tokens: {a: $t0, b: b.pd.remote_token, relation: different_index}
  - create_mr: {mr: a.src, pd: a.pd}
  - register_mr: {mr: a.src, va: 0x100000, length: 4096, flags: [ALLOW_LOCAL_WRITE]}
    callback: STATUS_SUCCESS
  - run: {until: idle}
  - poll: {cq: b.cq}
    expect: [{status: STATUS_SUCCESS, type: FastRegister}]
  - write: {qp: a.qp, local: {mr: a.src, va: 0x100000, length: 64}, remote: {token: $t0, va: 0}, ctx: 1}
  - run: {until: idle}
  - poll: {cq: a.cq}
    expect: [{status: STATUS_ACCESS_VIOLATION, ctx: 1}]
`
	out, err := runScenarioText(t, src)
	require.NoError(t, err, out)
	require.Regexp(t, `"op":"save_token","object":"b.fr.remote_token","token":"0x[0-9A-F]{8}","saved":"\$t1"`, out)
	require.Contains(t, out, `"op":"compare_tokens","object":"$t0 same_index_different_key $t1"`)

	_, err = runScenarioText(t, strings.Replace(src, "relation: same_index_different_key", "relation: equal", 1))
	require.ErrorContains(t, err, "compare_tokens: $t0 = 0x")
	require.ErrorContains(t, err, "expected equal")
}

// The new keys are checked when the file is read, with file:line:col.
func TestScenarioNewKeysAreValidatedStrictly(t *testing.T) {
	head := "scenario: x\nhosts: [{name: a}]\nsteps:\n"
	cases := map[string]string{
		"  - compare_tokens: {a: $nope, b: 1, relation: equal}\n":                          `s.yaml:4:25: steps.0.compare_tokens.a: token $nope is not saved by an earlier step`,
		"  - save_token: {token: 5, as: x}\n  - save_token: {token: 6, as: $x}\n":          `s.yaml:5:32: steps.1.save_token.as: token $x is already saved by an earlier step`,
		"  - compare_tokens: {a: 1, b: 2, relation: near}\n":                               `s.yaml:4:44: steps.0.compare_tokens.relation: "near" is not a relation`,
		"  - save_token: {token: 1, as: t}\n    expect: STATUS_SUCCESS\n":                  `s.yaml:5:13: steps.0.expect: save_token returns no status`,
		"  - register_mr: {mr: a.m, length: 0, mdl: [{va: 1}]}\n":                          `s.yaml:4:45: steps.0.register_mr.mdl.0.bytes: missing`,
		"  - register_mr: {mr: a.m, va: 0, length: 0, mdl: []}\n":                          `s.yaml:4:18: steps.0.register_mr: exactly one of va, mdl`,
		"  - register_mr: {mr: a.m, length: 1, mdl: [{va: 0, bytes: 1}], pieces: 2}\n":     `steps.0.register_mr.pieces: pieces goes with va`,
		"  - fast_register: {qp: a.q, mr: a.m, length: 1, page_list: [x]}\n":               `s.yaml:4:62: steps.0.fast_register.page_list.0: "x" is not a whole number`,
		"  - fast_register: {qp: a.q, mr: a.m, length: 1}\n":                               `steps.0.fast_register: exactly one of pages, page_list`,
		"  - fast_register: {qp: a.q, mr: a.m, length: 1, page_list: [0], page_base: 0}\n": `page_base goes with pages`,
		"  - run: {until: idle, cq: a.cq}\n":                                               `s.yaml:4:10: steps.0.run.cq: a run until a completion needs its bound, us: N`,
		"  - poll: {cq: a.cq}\n    expect: [{status: [STATUS_SUCCESS, NOPE]}]\n":           `s.yaml:5:40: steps.0.expect.0.status.1: "NOPE" is not a status name`,
		"  - poll: {cq: a.cq}\n    expect: [{status: []}]\n":                               `s.yaml:5:23: steps.0.expect.0.status: a list of statuses must not be empty`,
		"  - poll: {cq: a.cq, any_order: yes}\n":                                           `steps.0.poll.any_order: must be true or false`,
		"  - create_qp: {qp: a.q, pd: a.p, cq: a.c, receive_cq: z.c}\n":                    `steps.0.create_qp.receive_cq: "z.c" is not an object name`,
	}
	for body, want := range cases {
		_, err := LoadBytes("s.yaml", []byte(head+body))
		require.ErrorContains(t, err, want, body)
	}
	two := "scenario: x\nhosts: [{name: a}, {name: b}]\nsteps:\n  - bind: {qp: b.q, mw: a.w, mr: b.m, va: 0, length: 1}\n"
	_, err := LoadBytes("s.yaml", []byte(two))
	require.ErrorContains(t, err, "s.yaml:4:11: steps.0.bind: the objects of one call must be on one host (got a, b)")
	many := head + "  - fast_register: {qp: a.q, mr: a.m, length: 1, page_list: [" + strings.Repeat("0,", PagesMax) + "0]}\n"
	_, err = LoadBytes("s.yaml", []byte(many))
	require.ErrorContains(t, err, "4097 entries is more than 4096")
}

// register_mr takes an explicit MDL chain, written exactly as given:
// non-contiguous, shorter or longer than Length, Length 0.
func TestScenarioRegisterMrWithExplicitMDLChain(t *testing.T) {
	src := `scenario: x
hosts: [{name: a}]
steps:
  - create_pd: {pd: a.pd}
  - create_mr: {mr: a.m, pd: a.pd}
  - name: a hole between the pieces
    register_mr: {mr: a.m, length: 8192, mdl: [{va: 0x10000, bytes: 4096}, {va: 0x12000, bytes: 4096}]}
    expect: STATUS_INVALID_PARAMETER
  - name: Length above the chain's bytes
    register_mr: {mr: a.m, length: 8193, mdl: [{va: 0x10000, bytes: 4096}, {va: 0x11000, bytes: 4096}]}
    expect: STATUS_INVALID_PARAMETER
  - name: Length 0
    register_mr: {mr: a.m, length: 0, mdl: [{va: 0x10000, bytes: 4096}]}
    expect: STATUS_INVALID_PARAMETER
  - name: the chain longer than Length, contiguous pieces
    register_mr: {mr: a.m, length: 5000, mdl: [{va: 0x10800, bytes: 2048}, {va: 0x11000, bytes: 8192}]}
    expect: STATUS_PENDING
    callback: STATUS_SUCCESS
  - run: {until: idle}
`
	out, err := runScenarioText(t, src)
	require.NoError(t, err, out)
}

// fast_register takes an explicit page list: any addresses, unaligned ones
// refused inline (rule 36); a scattered list places the bytes page by page.
func TestScenarioFastRegisterWithExplicitPageList(t *testing.T) {
	src := setup("") + `  - create_mr: {mr: b.fr, pd: b.pd, fast_register: true}
  - init_fr_mr: {mr: b.fr, pages: 2, remote_access: true}
  - run: {until: idle}
  - fast_register: {qp: b.qp, mr: b.fr, page_list: [0x300000, 0x100800], length: 8192, flags: [OP_ALLOW_REMOTE_WRITE]}
    expect: STATUS_INVALID_PARAMETER
  - fast_register: {qp: b.qp, mr: b.fr, page_list: [0x300000, 0x100000], length: 8192, flags: [OP_ALLOW_REMOTE_WRITE]}
    expect: STATUS_SUCCESS
  - create_mr: {mr: a.src, pd: a.pd}
  - register_mr: {mr: a.src, va: 0x500000, length: 8192}
    callback: STATUS_SUCCESS
  - fill: {host: a, va: 0x500000, length: 8192, pattern_seed: 7}
  - run: {until: idle}
  - write: {qp: a.qp, local: {mr: a.src, va: 0x500000, length: 8192}, remote: {token: b.fr.remote_token, va: 0}, ctx: 2}
  - run: {until: idle}
  - poll: {cq: a.cq}
    expect: [{status: STATUS_SUCCESS, type: Write, ctx: 2}]
  - check: {host: b, va: 0x300000, length: 4096, equals: {host: a, va: 0x500000}}
  - check: {host: b, va: 0x100000, length: 4096, equals: {host: a, va: 0x501000}}
`
	out, err := runScenarioText(t, src)
	require.NoError(t, err, out)
}

// A QP with separate receive and initiator CQs; a poll accepting a set of
// statuses, and completions in any order; a run until a CQ has a
// completion, bounded.
func TestScenarioSeparateCQsStatusSetsAnyOrderAndRunUntilCQ(t *testing.T) {
	src := `scenario: x
hosts: [{name: a}, {name: b}]
steps:
  - create_pd: {pd: a.pd}
  - create_cq: {cq: a.cq, depth: 64}
  - create_qp: {qp: a.qp, pd: a.pd, cq: a.cq}
  - create_pd: {pd: b.pd}
  - create_cq: {cq: b.scq, depth: 64}
  - create_cq: {cq: b.rcq, depth: 64}
  - create_qp: {qp: b.qp, pd: b.pd, cq: b.scq, receive_cq: b.rcq}
  - connect: {a: a.qp, b: b.qp}
  - create_mr: {mr: a.m, pd: a.pd}
  - register_mr: {mr: a.m, va: 0x100000, length: 4096, flags: [ALLOW_LOCAL_WRITE]}
  - create_mr: {mr: b.m, pd: b.pd}
  - register_mr: {mr: b.m, va: 0x200000, length: 4096, flags: [ALLOW_LOCAL_WRITE]}
  - run: {until: idle}
  - receive: {qp: b.qp, local: {mr: b.m, va: 0x200000, length: 64}, ctx: 1}
  - receive: {qp: b.qp, local: {mr: b.m, va: 0x200040, length: 64}, ctx: 2}
  - send: {qp: a.qp, local: {mr: a.m, va: 0x100000, length: 16}, ctx: 3}
  - name: until the receive CQ has the completion
    run: {cq: b.rcq, us: 100}
  - poll: {cq: b.scq}
    expect: []
  - poll: {cq: b.rcq}
    expect: [{status: [STATUS_SUCCESS, STATUS_CANCELLED], type: Receive, ctx: 1, bytes: 16}]
  - flush: {qp: b.qp}
  - send: {qp: b.qp, local: {mr: b.m, va: 0x200000, length: 8}, ctx: 4}
  - run: {until: idle}
  - poll: {cq: b.rcq}
    expect: [{status: STATUS_CANCELLED, ctx: 2}]
  - poll: {cq: b.scq}
    expect: [{status: STATUS_CANCELLED, type: Send, ctx: 4}]
  - poll: {cq: a.cq, any_order: true}
    expect: [{status: STATUS_SUCCESS, ctx: 3}]
`
	out, err := runScenarioText(t, src)
	require.NoError(t, err, out)
	sent := regexp.MustCompile(`"op":"send","object":"a.qp","status":"STATUS_SUCCESS","value":"0x00000000","ctx":3,"time_ps":(\d+)`).FindStringSubmatch(out)
	ran := regexp.MustCompile(`"name":"until the receive CQ has the completion","op":"run","time_ps":(\d+)`).FindStringSubmatch(out)
	require.NotNil(t, sent, out)
	require.NotNil(t, ran, out)
	t0, _ := strconv.ParseUint(sent[1], 10, 64)
	t1, _ := strconv.ParseUint(ran[1], 10, 64)
	require.Greater(t, t1, t0)
	require.Less(t, t1-t0, uint64(10_000_000), "the run stopped at the completion (a few us), not after 100 us")

	anyOrder := strings.Replace(src, "  - poll: {cq: a.cq, any_order: true}\n    expect: [{status: STATUS_SUCCESS, ctx: 3}]\n",
		"  - receive: {qp: a.qp, local: {mr: a.m, va: 0x100000, length: 64}, ctx: 5}\n  - send: {qp: a.qp, local: {mr: a.m, va: 0x100000, length: 8}, ctx: 6}\n  - run: {until: idle}\n"+
			"  - poll: {cq: a.cq, any_order: true}\n    expect: [{status: STATUS_CANCELLED, ctx: 6}, {status: STATUS_SUCCESS, ctx: 3}, {status: STATUS_CANCELLED, type: Receive}]\n", 1)
	out, err = runScenarioText(t, anyOrder)
	require.NoError(t, err, out)
	_, err = runScenarioText(t, strings.Replace(anyOrder, "{status: STATUS_SUCCESS, ctx: 3}", "{status: STATUS_SUCCESS, ctx: 9}", 1))
	require.ErrorContains(t, err, "no completion left for expected STATUS_SUCCESS ctx 9 (any order)")

	_, err = runScenarioText(t, strings.Replace(src, "run: {cq: b.rcq, us: 100}", "run: {cq: b.scq, us: 100}", 1))
	require.ErrorContains(t, err, `step 17 "until the receive CQ has the completion" failed: run: no completion arrived on b.scq: the model went idle first`)
}

// Adapter settings NDK leaves to the provider, set per host.
func TestScenarioAdapterSettingsNDKLeavesToTheProvider(t *testing.T) {
	src := `scenario: x
hosts: [{name: a, nic: {register_mr_inline: true, max_window_size_bytes: 8192, mrs_max: 1, mws_max: 1}}]
steps:
  - create_pd: {pd: a.pd}
  - create_cq: {cq: a.cq, depth: 64}
  - create_qp: {qp: a.qp, pd: a.pd, cq: a.cq}
  - create_mr: {mr: a.m, pd: a.pd}
  - create_mr: {mr: a.m2, pd: a.pd}
    expect: STATUS_INSUFFICIENT_RESOURCES
  - register_mr: {mr: a.m, va: 0x100000, length: 16384, flags: [ALLOW_REMOTE_WRITE]}
    expect: STATUS_SUCCESS
  - create_mw: {mw: a.w, pd: a.pd}
    expect: STATUS_SUCCESS
  - bind: {qp: a.qp, mw: a.w, mr: a.m, va: 0x100000, length: 12288, flags: [OP_ALLOW_REMOTE_READ]}
    expect: STATUS_CONNECTION_INVALID
`
	out, err := runScenarioText(t, src)
	require.NoError(t, err, out)
	require.Regexp(t, `"op":"register_mr","object":"a.m","status":"STATUS_SUCCESS","value":"0x00000000","time_ps":[1-9]\d{7,}`, out)
}

// Every operation and key of the scenario format is documented in
// docs/workloads.md, as `key`.
func TestEveryScenarioKeyIsDocumented(t *testing.T) {
	b, err := os.ReadFile("../../docs/workloads.md")
	require.NoError(t, err)
	doc := string(b)
	keys := map[string]bool{"scenario": true, "hosts": true, "wire": true, "steps": true, "name": true, "nic": true,
		"expect": true, "callback": true, "status": true, "type": true, "ctx": true, "bytes": true, "token": true}
	for op, def := range ops {
		keys[op] = true
		for _, f := range strings.Fields(def.fields) {
			keys[f[:len(f)-2]] = true
		}
	}
	for _, sub := range subArgs {
		for _, f := range strings.Fields(sub.fields) {
			keys[f[:len(f)-2]] = true
		}
	}
	for rel := range relations {
		keys[rel] = true
	}
	var missing []string
	for k := range keys {
		if !strings.Contains(doc, "`"+k+"`") {
			missing = append(missing, k)
		}
	}
	sort.Strings(missing)
	require.Empty(t, missing, "scenario keys not in docs/workloads.md")
}

// Rule 1: the runner fails a call whose callback fires although the call
// returned inline, or fires twice.
func TestScenarioRunnerRefusesCallbackAfterInlineReturnOrTwice(t *testing.T) {
	st := &Step{Index: 3, Line: 7, Op: "register_mr"}
	for _, c := range []struct {
		ret   nic.Status
		fires int
		want  string
	}{
		{nic.StatusSuccess, 1, "fired after the call returned STATUS_SUCCESS inline"},
		{nic.StatusPending, 2, "fired 2 times, expected once"},
	} {
		r := &runner{s: &Scenario{File: "s.yaml"}}
		ret := c.ret
		r.checkOneCallback(&callbackRec{step: st, obj: "a.m", ret: &ret, fires: c.fires})
		require.NotNil(t, r.failure)
		require.Contains(t, r.failure.Error(), "s.yaml:7: step 3 failed: callback for a.m "+c.want)
	}
	r := &runner{s: &Scenario{File: "s.yaml"}}
	ret := nic.StatusPending
	r.checkOneCallback(&callbackRec{step: st, obj: "a.m", ret: &ret, fires: 1})
	require.Nil(t, r.failure)
}
