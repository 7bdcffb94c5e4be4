// Package workloads holds the workload file format (YAML), its strict
// loader, the traffic generators and operation kinds, and the run loop that
// nicsim run uses. docs/workloads.md documents every key.
//
// Loading: the file is parsed into a yaml.Node tree; --set overrides edit
// the tree; a sweep is expanded into points; each point is decoded by a
// reflective decoder that knows every key's Go type and range (`check`
// tags, and the modelRules table for pcie.Spec and mtt.Spec fields), so
// each error names file:line:col, the key path and the allowed range;
// then cross-key rules and each model's own Validate run. A file with any
// error yields no workload at all.
//
// Running: Build makes the model of a point (PCIe link, DMA engine, the NIC
// with its translation unit, registered regions) on a fresh sim.Env seeded
// from run.seed; each kind's Source sets up its objects (running pending
// creation calls to completion) before warm-up; each generator drives its kind's Source closed or open loop
// with its own random streams (sim.Stream(seed, "gen.<name>.ops") and
// ".arrivals"); RunPoint advances the engine in slices (Engine.RunUntil)
// so callers can show progress and stop on Ctrl-C; the Result holds no
// wall-clock time and no map, so it is byte-identical for a file and seed.
//
// Kinds register themselves with RegisterKind (see kind.go): dma_read,
// dma_write, translate, and the NIC's fast_register_invalidate
// (kind_fastreg.go), whose parts (fast_register, invalidate) get rows of
// their own through PartSource.
package workloads
