package main

import (
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"
)

// stopSignals are the signals that stop a run the way Ctrl-C does: at the
// end of the current slice, with the results so far written and marked
// partial. SIGTERM is what Slurm and CI send at a time limit, SIGHUP what a
// closed terminal sends.
var stopSignals = []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP}

// caught is the number of the stop signal received (0: none, or an
// interrupt a test injected).
var caught atomic.Int32

// interruptSource returns a poll function that reports a stop signal and a
// function that stops listening; tests replace it.
var interruptSource = func() (poll func() bool, stop func()) {
	var hit atomic.Bool
	caught.Store(0)
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, stopSignals...)
	done := make(chan struct{})
	go func() {
		select {
		case s := <-ch:
			if n, ok := s.(syscall.Signal); ok {
				caught.Store(int32(n))
			}
			hit.Store(true)
		case <-done:
		}
	}()
	return hit.Load, func() { signal.Stop(ch); close(done) }
}

// interruptedExit is the exit code of a run stopped by a signal: 128 plus
// its number, as a shell reports it (130 Ctrl-C, 143 SIGTERM, 129 SIGHUP).
func interruptedExit() int {
	if n := caught.Load(); n > 0 {
		return 128 + int(n)
	}
	return exitInterrupted
}

// signalName names the signal that stopped a run, for messages.
func signalName() string {
	switch syscall.Signal(caught.Load()) {
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGHUP:
		return "SIGHUP"
	}
	return "Ctrl-C"
}
