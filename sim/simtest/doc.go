// Package simtest is what the tests of several packages share: the -seed
// flag that replays a randomised test. It is imported by tests only; it
// models nothing and has no timing.
package simtest
