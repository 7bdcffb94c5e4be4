// Package scenario holds the scenario format and its runner. A scenario is
// an exact sequence of NDK calls on named objects of one or two hosts, with
// the status each call must return, the callbacks it must fire and the
// completions a poll must find: the executable form of the rules in
// docs/ndk.md (docs/workloads.md, "Scenarios").
//
// Tokens are values: save_token keeps one under a name ($name), later
// steps use it, and compare_tokens asserts relations between tokens (equal,
// different, same index with another key, different index). register_mr
// takes an explicit MDL chain, fast_register an explicit page list, so the
// provider's own checks decide; a poll may accept a set of statuses for a
// completion and completions in any order; run may stop at the first
// completion on a CQ, within a bound. The rules suite (rules/, indexed in
// docs/rules-index.md) is one scenario file per family of docs/ndk.md rules.
//
// Decoding (decode.go, args.go) is strict, like a workload file's: every
// problem is a workloads.Error naming file:line:col and the key path, and a
// file with any problem runs nothing. Each step has exactly one operation;
// the table in ops.go gives every operation its keys (their kinds: number,
// object reference, token, flag list, SGE, ...), its required keys and the
// runner method that performs it, so a new step is one table row and one
// method.
//
// Running (run.go, ops.go, poll.go, memory.go) builds one adapter per
// host, each on a PCIe link of pcie.DefaultSpec, on one sim.Env with seed 1,
// joined by a wire when there are two hosts. Calls run at the current
// simulated time; only `run` steps advance the engine, so a scenario's
// output (one JSON line per call, callback and completion, with the
// simulated time in ps) is byte-identical from run to run. The first
// failed expectation stops the run with a *Failure naming the step and its
// line.
package scenario
