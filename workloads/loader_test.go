package workloads

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// loadErr loads src and returns the error text (failing if it loaded).
func loadErr(t *testing.T, src string, sets ...string) string {
	t.Helper()
	_, err := LoadBytes("w.yaml", []byte(src), Options{Sets: sets})
	require.Error(t, err, "file should be invalid:\n%s", src)
	var es Errors
	require.ErrorAs(t, err, &es)
	return err.Error()
}

func load(t *testing.T, src string, sets ...string) *File {
	t.Helper()
	f, err := LoadBytes("w.yaml", []byte(src), Options{Sets: sets})
	require.NoError(t, err)
	return f
}

const minimal = `
run:
  duration_us: 5
generators:
  - name: reads
    kind: dma_read
`

func TestUnknownKeyNamesFileAndLine(t *testing.T) {
	msg := loadErr(t, "run:\n  duration_us: 5\ngenerators:\n  - kind: dma_read\n    outstandng: 4\n")
	require.Equal(t, "w.yaml:5:5: generators.0.outstandng: unknown key; allowed here: name, kind, streams, outstanding, arrival, "+
		"size_bytes, window_bytes, offset_bytes, align_bytes, base_addr", msg)
}

func TestUnknownTopLevelAndNestedKeysListAllowedKeys(t *testing.T) {
	msg := loadErr(t, minimal+"extra: 1\n")
	require.Contains(t, msg, "w.yaml:7:1: extra: unknown key; allowed here: name, description, adapter, run, regions, generators, sweep")
	msg = loadErr(t, minimal+"adapter:\n  mtt:\n    mtt_cache:\n      sets: 4\n")
	require.Contains(t, msg, "w.yaml:10:7: adapter.mtt.mtt_cache.sets: unknown key; allowed here: entries_max, ways,")
}

func TestAbsurdQPCountRejectedWithRange(t *testing.T) {
	msg := loadErr(t, "run: {duration_us: 5}\ngenerators:\n  - kind: dma_read\n    streams: 1000000000000\n")
	require.Equal(t, "w.yaml:4:14: generators.0.streams: 1000000000000 is out of range 1..65536", msg)
	msg = loadErr(t, "run: {duration_us: 5}\ngenerators:\n  - kind: dma_read\n    outstanding: 1e12\n")
	require.Contains(t, msg, "generators.0.outstanding: 1e12 is out of range 1..4096")
	msg = loadErr(t, "run: {duration_us: 5, ops: 99999999999999999999999}\ngenerators:\n  - kind: dma_read\n")
	require.Contains(t, msg, "w.yaml:1:28: run.ops: 99999999999999999999999 is out of range 0..1e8")
}

func TestEveryCountSizeRateAndDurationIsBounded(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"run: {duration_us: 1e9}", "run.duration_us: 1e9 is out of range 0..1e7"},
		{"run: {duration_us: 5, warmup_us: .inf}", "run.warmup_us: .inf is not a finite number"},
		{"run: {duration_us: 5, sim_time_max_us: 0}", "run.sim_time_max_us: 0 is out of range 1..1e7"},
		{"run: {duration_us: 5}\nregions: [{name: r, pages: 100000000}]", "regions.r.pages: 100000000 is out of range 1..2^24"},
		{"run: {duration_us: 5}\nadapter: {mtt: {mtt_entries_max: 268435456}}", "adapter.mtt.mtt_entries_max: 268435456 is out of range 1..2^24"},
	} {
		msg := loadErr(t, c.src+"\ngenerators:\n  - kind: dma_read\n")
		require.Contains(t, msg, c.want)
	}
	for _, c := range []struct{ gen, want string }{
		{"size_bytes: 0", "generators.0.size_bytes: 0 is out of range 1..2^30"},
		{"size_bytes: {uniform: {min: 1, max: 4294967296}}", "generators.0.size_bytes.uniform.max: 4294967296 is out of range 1..2^30"},
		{"arrival: {rate_mops: 1e9}", "generators.0.arrival.rate_mops: 1e9 is out of range 1e-6..1e4"},
		{"arrival: {backlog_max: 1e9, rate_mops: 1}", "generators.0.arrival.backlog_max: 1e9 is out of range 1..1000000"},
		{"align_bytes: 3", "generators.0.align_bytes: 3 must be a power of two in 1..2^30"},
		{"streams: 1024\n    outstanding: 4096", "generators: streams x outstanding summed over generators is 4194304, more than 1048576"},
	} {
		msg := loadErr(t, "run: {duration_us: 5}\ngenerators:\n  - kind: dma_read\n    "+c.gen+"\n")
		require.Contains(t, msg, c.want)
	}
}

func TestWrongTypeNamesWhatWasExpected(t *testing.T) {
	require.Contains(t, loadErr(t, "run: {duration_us: five}\ngenerators: [{kind: dma_read}]\n"),
		`w.yaml:1:20: run.duration_us: expected a number, found string "five"`)
	require.Contains(t, loadErr(t, minimal+"regions: 3\n"), "regions: expected a list, found number 3")
	require.Contains(t, loadErr(t, minimal+"name: [a]\n"), "name: expected a string, found a list")
	require.Contains(t, loadErr(t, "run: {duration_us: 5}\ngenerators: [{kind: dma_read, outstanding: 2.5}]\n"),
		"generators.0.outstanding: 2.5 is not a whole number; allowed range 1..4096")
	require.Contains(t, loadErr(t, minimal+"adapter: {pcie: {ecrc: 1}}\n"), "adapter.pcie.ecrc: expected true or false, found number 1")
}

func TestDuplicateKeyIsAnError(t *testing.T) {
	require.Contains(t, loadErr(t, "run:\n  duration_us: 5\n  duration_us: 6\ngenerators: [{kind: dma_read}]\n"),
		"w.yaml:3:3: run.duration_us: duplicate key (first at line 2)")
}

func TestUnknownKindListsKnownKinds(t *testing.T) {
	msg := loadErr(t, "run: {duration_us: 5}\ngenerators:\n  - kind: fast_register\n    pages: 4\n")
	require.Equal(t, `w.yaml:3:11: generators.0.kind: unknown operation kind "fast_register"; known kinds: bind_invalidate, dma_read, dma_write, fast_register_invalidate, fr_write_send_inv, rdma_read, rdma_write, register_mr, send, translate`, msg,
		"one error: the unknown kind's keys are not reported as unknown too")
	require.Contains(t, loadErr(t, "run: {duration_us: 5}\ngenerators: [{size_bytes: 4}]\n"), "generators.0: kind is required; known kinds: bind_invalidate, dma_read")
}

func TestSetOverrideValidated(t *testing.T) {
	msg := loadErr(t, minimal, "adapter.pcie.lanes=32")
	require.Equal(t, "w.yaml: --set adapter.pcie.lanes=32: adapter.pcie.lanes: 32 is not one of 1, 2, 4, 8, 16", msg)
	msg = loadErr(t, minimal, "run.bogus=1")
	require.Contains(t, msg, "--set run.bogus=1: run.bogus: unknown key; allowed here: seed, warmup_us")
	msg = loadErr(t, minimal, "generators.writes.outstanding=3")
	require.Contains(t, msg, `generators has no element named "writes"`)
	msg = loadErr(t, minimal, "run.duration_us.x=3")
	require.Contains(t, msg, "run.duration_us is number 5, not a mapping or list")
	msg = loadErr(t, minimal, "nokey")
	require.Contains(t, msg, "expected path=value")
}

func TestSetOverrideChangesValuesByNameIndexAndCreatesSections(t *testing.T) {
	f := load(t, minimal, "adapter.pcie.lanes=16", "generators.reads.outstanding=8", "generators.0.size_bytes={uniform: {min: 64, max: 128}}",
		"adapter.preset=connectx-6-dx", "run.seed=9")
	w := f.Points[0]
	require.Equal(t, 16, w.Adapter.PCIe.Lanes)
	require.Equal(t, 4, w.Adapter.PCIe.Gen, "preset applied, then the override")
	require.Equal(t, 8, w.Generators[0].Outstanding)
	require.Equal(t, Dist{Kind: "uniform", Min: 64, Max: 128}, w.Generators[0].Params.(*DMAParams).SizeBytes)
	require.Equal(t, uint64(9), w.Run.Seed)
	seed := uint64(77)
	f2, err := LoadBytes("w.yaml", []byte(minimal), Options{Seed: &seed})
	require.NoError(t, err)
	require.Equal(t, uint64(77), f2.Points[0].Run.Seed)
}

func TestEveryProblemInAFileIsReported(t *testing.T) {
	msg := loadErr(t, "adapter: {preset: e9}\nrun: {ops: -1}\nregions: [{name: a, pages: 0}]\ngenerators: [{kind: translate, regoin: a}]\n")
	lines := strings.Split(msg, "\n")
	require.Len(t, lines, 4, msg)
	require.Contains(t, lines[0], `w.yaml:1:19: adapter.preset: unknown preset "e9"; known presets: "generic", "connect-ib", "connectx-5", "connectx-6-dx", "nfp6000-e5"`)
	require.Contains(t, lines[1], "w.yaml:2:12: run.ops: -1 is out of range 0..1e8")
	require.Contains(t, lines[2], "regions.a.pages: 0 is out of range 1..2^24")
	require.Contains(t, lines[3], "generators.0.regoin: unknown key")
}

func TestCrossFieldChecksNameTheKey(t *testing.T) {
	require.Contains(t, loadErr(t, "run: {}\ngenerators: [{kind: dma_read}]\n"), "w.yaml:1:6: run: needs duration_us")
	require.Contains(t, loadErr(t, minimal+"regions: [{name: a, pages: 10}]\n", "generators.0.kind=translate", "generators.0.region=b"),
		`generators.reads.region: no region named "b"; regions: a`)
	require.Contains(t, loadErr(t, minimal+"regions: [{name: a, pages: 600000}, {name: b, pages: 600000}]\n"),
		"regions.b.pages: regions need 1200000 MTT entries in all, more than adapter.mtt.mtt_entries_max = 1048576")
	require.Contains(t, loadErr(t, minimal+"regions: [{name: a, pages: 1}, {name: a, pages: 1}]\n"), `region "a" is defined twice`)
	// A rule spanning several model fields, from the model's own Validate.
	require.Contains(t, loadErr(t, minimal+"adapter: {pcie: {host_pd_credits: 8}}\n"),
		"adapter.pcie.host_pd_credits: 8 is below 16, the data credits of one maximum-size TLP")
	require.Contains(t, loadErr(t, minimal+"adapter: {mtt: {mtt_cache: {ways: 3}}}\n"),
		"adapter.mtt.mtt_cache.entries_max: 4096, want a multiple of entries per line (8) x ways (3)")
	require.Contains(t, loadErr(t, "run: {duration_us: 5}\ngenerators: [{kind: dma_read, size_bytes: 4096, window_bytes: 1024}]\n"),
		"generators.0.size_bytes: sizes up to 4096 bytes do not fit window_bytes = 1024")
}

func TestAliasesMergeKeysAndExtraDocumentsRejected(t *testing.T) {
	require.Contains(t, loadErr(t, "run: &r {duration_us: 5}\ngenerators: [{kind: dma_read}]\nregions: *r\n"), "w.yaml:3:10: regions: YAML aliases (*r) are not allowed")
	require.Contains(t, loadErr(t, "run: {duration_us: 5}\ngenerators: [{kind: dma_read, <<: {streams: 2}}]\n"), "merge keys")
	require.Contains(t, loadErr(t, minimal+"---\nrun: {}\n"), "more than one YAML document")
	require.Contains(t, loadErr(t, ""), "empty file")
	require.Contains(t, loadErr(t, "- 1\n"), "the top level must be a mapping")
	require.Contains(t, loadErr(t, "run: [\n"), "w.yaml:2:1: YAML syntax: did not find expected node content")
}

func TestSweepExpandsPointsInOrder(t *testing.T) {
	f := load(t, minimal+"sweep:\n  generators.reads.outstanding: [1, 2, 4]\n  adapter.pcie.lanes: [8, 16]\n")
	require.Len(t, f.Points, 6)
	require.Equal(t, "generators.reads.outstanding=1 adapter.pcie.lanes=8", Label(f.Points[0].Point))
	require.Equal(t, "generators.reads.outstanding=4 adapter.pcie.lanes=16", Label(f.Points[5].Point))
	require.Equal(t, 4, f.Points[5].Generators[0].Outstanding)
	require.Equal(t, 16, f.Points[5].Adapter.PCIe.Lanes)
	msg := loadErr(t, minimal+"sweep:\n  adapter.pcie.lanes: [8, 12]\n")
	require.Contains(t, msg, "w.yaml:8:27: adapter.pcie.lanes: 12 is not one of 1, 2, 4, 8, 16", "a bad sweep value points at its line")
	vals := make([]string, 64)
	for i := range vals {
		vals[i] = strconv.Itoa(i + 1)
	}
	msg = loadErr(t, minimal+"sweep:\n  run.seed: ["+strings.Join(vals, ",")+"]\n  run.ops: ["+strings.Join(vals, ",")+"]\n  run.warmup_us: [1, 2]\n")
	require.Contains(t, msg, "more than 4096 points")
}

func TestDistributionsSampleWithinTheirBounds(t *testing.T) {
	f := load(t, "run: {duration_us: 5}\ngenerators:\n  - {kind: dma_read, size_bytes: {uniform: {min: 10, max: 20}}}\n"+
		"  - {kind: dma_read, size_bytes: {choice: [{value: 1, weight: 3}, {value: 7, weight: 1}]}}\n  - {kind: dma_read, size_bytes: {fixed: 5}}\n")
	rng := rand.New(rand.NewPCG(1, 2))
	u := f.Points[0].Generators[0].Params.(*DMAParams).SizeBytes
	c := f.Points[0].Generators[1].Params.(*DMAParams).SizeBytes
	x := f.Points[0].Generators[2].Params.(*DMAParams).SizeBytes
	seen := map[uint64]int{}
	n7 := 0
	for range 4000 {
		v := u.Sample(rng)
		require.True(t, v >= 10 && v <= 20)
		seen[v]++
		if c.Sample(rng) == 7 {
			n7++
		}
		require.Equal(t, uint64(5), x.Sample(rng))
	}
	require.Len(t, seen, 11, "every value of [min, max] occurs")
	require.InDelta(t, 1000, n7, 100, "weights 3:1")
	require.Contains(t, loadErr(t, "run: {duration_us: 5}\ngenerators: [{kind: dma_read, size_bytes: {uniform: {min: 9, max: 2}}}]\n"), "min 9 is above max 2")
	require.Contains(t, loadErr(t, "run: {duration_us: 5}\ngenerators: [{kind: dma_read, size_bytes: {normal: 3}}]\n"), "unknown distribution; allowed: fixed, uniform, choice")
}

func TestPresetsAreValidAndEveryValueHasASource(t *testing.T) {
	require.Equal(t, []string{"generic", "connect-ib", "connectx-5", "connectx-6-dx", "nfp6000-e5"}, PresetNames())
	for _, p := range Presets() {
		require.NoError(t, p.Adapter.PCIe.Validate(), p.Name)
		require.NoError(t, p.Adapter.MTT.Validate(), p.Name)
		vals := p.Values()
		require.Greater(t, len(vals), 50)
		for _, v := range vals {
			require.NotEqual(t, "unsourced", v.Source, "%s: %s", p.Name, v.Key)
		}
	}
	g, _ := PresetByName("connectx-6-dx")
	require.Equal(t, 4, g.Adapter.PCIe.Gen)
	require.Equal(t, 16, g.Adapter.PCIe.Lanes)
}

func TestErrorsAreCappedPerFile(t *testing.T) {
	var b strings.Builder
	b.WriteString("run: {duration_us: 5}\ngenerators:\n")
	for range 64 {
		b.WriteString("  - {kind: dma_read, a: 1, b: 2}\n")
	}
	msg := loadErr(t, b.String())
	require.LessOrEqual(t, len(strings.Split(msg, "\n")), ErrorsMax+1)
}

// docs/ndk.md, "Provider settings": register_mr_inline is for scenarios;
// a workload file that sets it is refused, naming the key.
func TestRegisterMrInlineIsRefusedInWorkloadFiles(t *testing.T) {
	msg := loadErr(t, "adapter: {nic: {register_mr_inline: true}}\nrun: {duration_us: 5}\ngenerators: [{kind: register_mr}]\n")
	require.Contains(t, msg, "adapter.nic.register_mr_inline: is for scenarios")
}

func TestNumberThatDoesNotFitItsFieldSaysWhy(t *testing.T) {
	for _, c := range []struct{ seed, want string }{
		{"-1", "w.yaml:1:29: run.seed: -1 is negative"},
		{"1.5", "w.yaml:1:29: run.seed: 1.5 is not a whole number >= 0"},
		{"99999999999999999999999", "w.yaml:1:29: run.seed: 99999999999999999999999 is not a whole number >= 0"},
		{"!!int 99999999999999999999999", "w.yaml:1:29: run.seed: 99999999999999999999999 does not fit in 64 bits"},
		{"18446744073709551615", ""},
	} {
		src := "run: {duration_us: 5, seed: " + c.seed + "}\ngenerators: [{kind: dma_read}]\n"
		if c.want == "" {
			_, err := LoadBytes("w.yaml", []byte(src), Options{})
			require.NoError(t, err, c.seed)
			continue
		}
		require.Equal(t, c.want, loadErr(t, src), c.seed)
	}
}

// A send generator's receive_depth is at least its sends in flight and at
// most the adapter's receive queue; no other kind posts receives. By
// default it is 4 x outstanding, within the receive queue.
func TestReceiveDepthIsCheckedAgainstSendsAndTheReceiveQueue(t *testing.T) {
	const run = "run: {duration_us: 5}\ngenerators: [{name: s, kind: send, outstanding: 8, "
	for gen, want := range map[string]string{
		"receive_depth: 4}]":    "generators.s.receive_depth: 4 receives per QP are fewer than the 8 sends in flight (outstanding)",
		"receive_depth: 2048}]": "generators.s.receive_depth: 2048 receives per QP exceed adapter.nic.max_receive_queue_depth = 1024",
	} {
		require.Contains(t, loadErr(t, run+gen+"\n"), want)
	}
	require.Contains(t, loadErr(t, "run: {duration_us: 5}\ngenerators: [{name: w, kind: rdma_write, receive_depth: 8}]\n"),
		"generators.w.receive_depth: applies to send only: rdma_write posts no receives")
	p := load(t, run+"}]\n").Points[0].Generators[0].Params.(*RDMAParams)
	require.Equal(t, uint32(32), ReceiveDepthFor(p, 8, 1024))
	require.Equal(t, uint32(20), ReceiveDepthFor(p, 8, 20))
}
