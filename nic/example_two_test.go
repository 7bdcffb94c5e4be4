package nic_test

import (
	"fmt"

	"github.com/nicsim/nicsim/nic"
	"github.com/nicsim/nicsim/pcie"
	"github.com/nicsim/nicsim/sim"
)

// Two adapters joined by a wire: host b fast-registers an MR over one page
// and reads the FastRegister's completion from its CQ, then posts a
// receive into the MR; host a sends a zero-length message (a signal), and
// both read their completions.
func Example_twoAdapters() {
	env := sim.NewEnv(1)
	host := func(name string) (*nic.Adapter, *nic.PD, *nic.CQ, *nic.QP) {
		link, _ := pcie.New(name+".PCIe", pcie.DefaultSpec(), env, sim.ClockDomain{Period: sim.Tick(nic.DefaultSpec().ClockPeriodPS)})
		a, _ := nic.New(name, nic.DefaultSpec(), env, link, link.DMA())
		_, pd := a.CreatePD()
		_, cq := a.CreateCQ(64)
		_, qp := a.CreateQP(pd, cq, 1, 16, 16)
		return a, pd, cq, qp
	}
	a, _, acq, aqp := host("A")
	b, bpd, bcq, bqp := host("B")
	if _, err := nic.NewWire("Wire", nic.DefaultWireSpec(), a, b); err != nil {
		fmt.Println(err)
	}
	if err := nic.ConnectQPs(aqp, bqp); err != nil {
		fmt.Println(err)
	}

	_, mr := b.CreateMr(bpd, true, nil, 0)
	b.InitializeFastRegisterMr(mr, 1, false, func(uint64, nic.Status) {}, 0)
	env.Engine.Run()
	st := b.FastRegister(bqp, 7, mr, []uint64{0x8000_0000}, 0, 4096, 0x7000_0000, nic.OpAllowLocalWrite)
	fmt.Println("FastRegister posted:", st)
	env.Engine.Run()
	for _, r := range b.GetCQResults(bcq, 4) {
		fmt.Println("b:", r.Type, r.RequestContext, r.Status)
	}

	fmt.Println("Receive posted:", b.Receive(bqp, 8, nic.SGE{VirtualAddress: 0x7000_0000, Length: 4096, Token: b.GetLocalTokenFromMr(mr)}))
	fmt.Println("Send posted:", a.Send(aqp, 9, nic.SGE{}, 0))
	env.Engine.Run()
	for _, r := range a.GetCQResults(acq, 4) {
		fmt.Println("a:", r.Type, r.RequestContext, r.Status)
	}
	for _, r := range b.GetCQResults(bcq, 4) {
		fmt.Println("b:", r.Type, r.RequestContext, r.Status, r.BytesTransferred)
	}
	// Output:
	// FastRegister posted: STATUS_SUCCESS
	// b: FastRegister 7 STATUS_SUCCESS
	// Receive posted: STATUS_SUCCESS
	// Send posted: STATUS_SUCCESS
	// a: Send 9 STATUS_SUCCESS
	// b: Receive 8 STATUS_SUCCESS 0
}
