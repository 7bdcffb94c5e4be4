// Package traffic runs workload files: it builds the model of a point
// (model.go), drives each generator's operations through its kind's source
// (generator.go, one file per kind), advances the engine in slices
// (run.go) and measures the window after warm-up (window.go); sweeps run
// their points in parallel (sweep.go). What it measures is a
// results.Result.
//
// Build makes the model of a point (PCIe link, DMA engine, the NIC with
// its translation unit, registered regions; host b and the wire when a
// generator has a remote kind) on a fresh sim.Env seeded from run.seed.
// Each kind's Source sets up its objects (running pending creation calls
// to completion, setup.go) before warm-up; each generator drives its
// kind's Source closed or open loop with its own random streams
// (sim.Stream(seed, "gen.<name>.ops") and ".arrivals"), so adding a
// generator never changes another's. RunPoint advances the engine in
// slices (Engine.RunUntil) so callers can show progress and stop on
// Ctrl-C; the Result holds no wall-clock time and no map, so it is
// byte-identical for a file and seed, whatever the number of jobs.
//
// A kind's source registers itself with RegisterSource (kind.go) under the
// name its parameters and checks have in package workloads. A source that
// reports the requests inside its operations (the FastRegister and the
// Invalidate of a chain) implements PartSource.
package traffic
