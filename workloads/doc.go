// Package workloads will hold the workload file format (YAML), its strict
// loader, traffic generators and scenarios, and the built-in workload files
// that nicsim run executes.
package workloads
