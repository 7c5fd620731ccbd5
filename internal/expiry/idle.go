package expiry

import "time"

// Idle runs functions on an OS thread at the lowest CPU priority
// (lowprio.Worker). Do returns the CPU time f got and the wall time it
// took; Spare is the share (0 to 1) of all CPUs' time that work at normal
// priority left over the last moments (lowprio.SpareMeter).
type Idle interface {
	Do(f func()) (cpu, wall time.Duration)
	Spare() float64
}

// The starvation rule of Config.Idle: a preparation that took at least
// idleStarvedWall of wall time but got less than idleStarvedShare of it as
// CPU time shows the CPUs busy with foreground work; the sweeper then
// prepares on its own thread, at normal priority, for idleStarvedHold
// before it tries the idle thread again. A thread at the lowest priority
// gets no CPU while the foreground keeps every CPU busy, so the commit
// never runs there: it holds the locks foreground requests wait for.
//
// Before that, a preparation goes to the idle thread only while Spare is
// at least idleMinSpare: when normal-priority work (the foreground) leaves
// less than a quarter of the CPUs, a low-priority preparation would get
// too little of them to keep up, though not always so little that it
// counts as starved, and a starved one may take seconds.
const (
	idleStarvedWall  = 20 * time.Millisecond
	idleStarvedShare = 0.1
	idleStarvedHold  = time.Second
	idleMinSpare     = 0.25
)

// prepare is Batch.Prepare: it runs f on cfg.Idle unless there is none,
// the batch is within its pass's unpaced burst (BackoffConfig.Burst), the
// idle thread was found starved within idleStarvedHold, or the foreground
// leaves too little CPU.
func (e *Engine) prepare(f func()) {
	idle := e.cfg.Idle != nil && !e.sw.backoff.inBurst && !e.now().Before(e.sw.idleStarvedUntil)
	busy := idle && e.cfg.Idle.Spare() < idleMinSpare
	if !idle || busy {
		f()
		e.mu.Lock()
		e.tot.normalPrepares++
		if busy {
			e.tot.busyPrepares++
		}
		e.mu.Unlock()
		return
	}
	cpu, wall := e.cfg.Idle.Do(f)
	starved := wall >= idleStarvedWall && float64(cpu) < idleStarvedShare*float64(wall)
	if starved {
		e.sw.idleStarvedUntil = e.now().Add(idleStarvedHold)
	}
	e.mu.Lock()
	e.tot.idlePrepares++
	e.tot.idleCPU += cpu
	e.tot.idleWall += wall
	if starved {
		e.tot.idleStarved++
	}
	e.mu.Unlock()
}
