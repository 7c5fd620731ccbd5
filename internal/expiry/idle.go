package expiry

import "time"

// Idle runs functions on an OS thread that the operating system schedules
// only when a CPU would otherwise be idle (lowprio.Worker). Do returns the
// CPU time f got and the wall time it took.
type Idle interface {
	Do(f func()) (cpu, wall time.Duration)
}

// The starvation rule of Config.Idle (doc.go): a preparation that took at
// least idleStarvedWall of wall time but got less than idleStarvedShare of
// it as CPU time shows the CPUs busy with foreground work (during a storm,
// with the compactions as the only other low-priority work, it gets a
// third or more); the sweeper then prepares on its own thread, at normal
// priority, for idleStarvedHold before it tries the idle thread again.
const (
	idleStarvedWall  = 20 * time.Millisecond
	idleStarvedShare = 0.1
	idleStarvedHold  = time.Second
)

// idleState is the sweeper's record of its idle-priority preparations.
type idleState struct {
	starvedUntil time.Time
}

// prepare is Budget.Prepare: it runs f on cfg.Idle unless there is none or
// the idle thread was found starved within idleStarvedHold.
func (e *Engine) prepare(f func()) {
	if e.cfg.Idle == nil || e.now().Before(e.sw.idle.starvedUntil) {
		f()
		e.mu.Lock()
		e.tot.normalPrepares++
		e.mu.Unlock()
		return
	}
	cpu, wall := e.cfg.Idle.Do(f)
	starved := wall >= idleStarvedWall && float64(cpu) < idleStarvedShare*float64(wall)
	if starved {
		e.sw.idle.starvedUntil = e.now().Add(idleStarvedHold)
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
