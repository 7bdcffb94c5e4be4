package nic_test

import (
	"fmt"

	"github.com/nicsim/nicsim/nic"
	"github.com/nicsim/nicsim/pcie"
	"github.com/nicsim/nicsim/sim"
)

// A fast registration and its invalidation on one QP, on a gen3 x8 link.
func ExampleAdapter_FastRegister() {
	env := sim.NewEnv(1)
	link, _ := pcie.New("PCIe", pcie.DefaultSpec(), env, sim.ClockDomain{Period: sim.Tick(nic.DefaultSpec().ClockPeriodPS)})
	a, _ := nic.New("NIC", nic.DefaultSpec(), env, link, link.DMA())
	_, pd := a.CreatePD()
	_, cq := a.CreateCQ(64)
	_, qp := a.CreateQP(pd, cq, 1, 16, 0)
	qp.Connect()
	_, mr := a.CreateMr(pd, true, nil, 0)
	st := a.InitializeFastRegisterMr(mr, 16, true, func(ctx uint64, s nic.Status) { fmt.Println("initialised:", s) }, 0)
	fmt.Println("InitializeFastRegisterMr:", st)

	pages := []uint64{0x8000_0000, 0x8000_5000}
	fmt.Println("FastRegister:", a.FastRegister(qp, 7, mr, pages, 0x10, 0x1000, 0x7000_0010, nic.OpAllowRemoteWrite|nic.OpDefer))
	fmt.Println("Invalidate:", a.Invalidate(qp, 8, mr, 0))
	env.Engine.Run()
	for _, r := range a.GetCQResults(cq, 8) {
		fmt.Println(r.Type, r.RequestContext, r.Status)
	}
	// Output:
	// InitializeFastRegisterMr: STATUS_PENDING
	// FastRegister: STATUS_SUCCESS
	// Invalidate: STATUS_SUCCESS
	// initialised: STATUS_SUCCESS
	// FastRegister 7 STATUS_SUCCESS
	// Invalidate 8 STATUS_SUCCESS
}
