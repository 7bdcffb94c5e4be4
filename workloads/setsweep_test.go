package workloads

import (
	"testing"

	"github.com/stretchr/testify/require"
)

const sweptOutstanding = minimal + `sweep:
  generators.reads.outstanding: [1, 4]
  run.seed: [1, 2]
`

// The sweep sets its keys at every point after the overrides: a --set of a
// swept key would be replaced without a word, so it is refused, with where
// the sweep key is and how to run the value.
func TestSetOfAKeyTheSweepVariesIsRefused(t *testing.T) {
	for _, set := range []string{"generators.reads.outstanding=8", "generators.0.outstanding=8"} {
		msg := loadErr(t, sweptOutstanding, set)
		require.Contains(t, msg, "w.yaml: --set "+set+": the sweep varies generators.reads.outstanding (w.yaml:8:3) and sets it at every point after the overrides, so this value would never be used", "named by index or by name")
		require.Contains(t, msg, "--set 'sweep={generators.reads.outstanding: [8]}' (which also drops the sweep's other key unless you list it)")
		var es Errors
		require.ErrorAs(t, loadErrValue(t, sweptOutstanding, set), &es)
		require.True(t, es.FromOverride(), "a bad flag: the command exits 2")
	}
}

func TestSetThatHoldsOrLiesInsideASweptKeyIsRefused(t *testing.T) {
	msg := loadErr(t, sweptOutstanding, "generators.0={name: reads, kind: dma_read, outstanding: 2}")
	require.Contains(t, msg, "the sweep varies generators.reads.outstanding (w.yaml:8:3), inside this override's value")
	msg = loadErr(t, minimal+"sweep:\n  generators.0.size_bytes: [64, {uniform: {min: 1, max: 8}}]\n", "generators.reads.size_bytes.uniform.min=2")
	require.Contains(t, msg, "this key lies inside generators.0.size_bytes, which the sweep varies (w.yaml:8:3)")
}

func TestSetBesideTheSweepOrOfTheSweepItselfIsApplied(t *testing.T) {
	f := load(t, sweptOutstanding, "generators.reads.size_bytes=128", "run.duration_us=7")
	require.Len(t, f.Points, 4)
	for _, w := range f.Points {
		require.Equal(t, 7.0, w.Run.DurationUS)
	}
	f = load(t, sweptOutstanding, "sweep={generators.reads.outstanding: [8]}")
	require.Len(t, f.Points, 1)
	require.Equal(t, 8, f.Points[0].Generators[0].Outstanding)
}

func TestSweepSetByAnOverrideIsNamedByItsFlag(t *testing.T) {
	msg := loadErr(t, minimal, "sweep={run.seed: [1, 2]}", "run.seed=3")
	require.Contains(t, msg, "--set run.seed=3: the sweep varies run.seed (--set sweep={run.seed: [1, 2]})")
}

func loadErrValue(t *testing.T, src string, sets ...string) error {
	t.Helper()
	_, err := LoadBytes("w.yaml", []byte(src), Options{Sets: sets})
	require.Error(t, err)
	return err
}

// --seed replaces every point's seed: with a sweep of run.seed the points
// would all run one seed under labels that name others.
func TestSeedFlagOnASweepOfSeedsIsRefused(t *testing.T) {
	seed := uint64(5)
	src := minimal + "sweep:\n  run.seed: [1, 2, 3]\n"
	_, err := LoadBytes("w.yaml", []byte(src), Options{Seed: &seed})
	require.Error(t, err)
	require.Contains(t, err.Error(), "w.yaml: --seed 5: the sweep varies run.seed (w.yaml:8:3), and --seed would replace the seed of every point")
	var es Errors
	require.ErrorAs(t, err, &es)
	require.True(t, es.FromOverride(), "a bad flag: the command exits 2")
	f, err := LoadBytes("w.yaml", []byte(minimal+"sweep:\n  run.duration_us: [5, 6]\n"), Options{Seed: &seed})
	require.NoError(t, err, "a sweep of other keys takes --seed")
	for _, w := range f.Points {
		require.Equal(t, seed, w.Run.Seed)
	}
}
