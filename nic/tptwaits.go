package nic

import "github.com/nicsim/nicsim/sim"

// Who waits for a TPT write slot, for the meter NIC.TPT.Writes
// (sim.Meter.Waits): a writer stage whose head item was refused one (by
// the slots or by the engines' turn) or whose queued tick was reserved as
// such a stall (stage.reserveWriteStall), until it takes a slot or accepts
// an item that needs none; the firmware's running command (tptWait); the
// MR initialisations queued for a slot (pendingCalls.waiting); and the
// remote invalidations queued for one (responder.invWrites). A writer
// whose tick waits for a full output queue as well (writeStallsAt) is
// counted only once its accept is refused: its output binds it first.

// stageWaits records whether writer stage s waits for a write slot at now.
// Small enough to inline: a refused stage is refused again each cycle.
func (t *tptWriters) stageWaits(s *stage, now sim.Tick, waiting bool) {
	if s.tptWaiting != waiting {
		t.stageWaitChange(s, now, waiting)
	}
}

// stageWaitChange is stageWaits when s's level changes.
func (t *tptWriters) stageWaitChange(s *stage, now sim.Tick, waiting bool) {
	s.tptWaiting = waiting
	if waiting {
		t.stagesWaiting++
	} else {
		t.stagesWaiting--
	}
	if t.stagesWaiting == 0 || waiting && t.stagesWaiting == 1 { // the stages' share changed
		t.meterWaits(now)
	}
}

// noWriteWait ends the wait of writer stage s, whose head item no longer
// needs a slot (its QP entered the error state while it waited).
func (s *stage) noWriteWait(now sim.Tick) {
	if s.tptWaiting {
		s.writes.stageWaits(s, now, false)
	}
}

// meterWaits gives the meter whether anything waits for a write slot now.
func (t *tptWriters) meterWaits(now sim.Tick) {
	a := t.a
	a.tpt.WriteWaits(now, t.stagesWaiting > 0 || a.fw.tptWait || a.calls.waiting.Len() > 0 || a.resp.invWrites.Len() > 0)
}
