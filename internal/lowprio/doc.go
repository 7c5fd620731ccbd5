// Package lowprio runs background work at the lowest CPU priority an
// unprivileged process can give, so that foreground requests take a CPU
// from it at once.
//
// The expiry sweeper and the storage engine's compactions are the bulk of
// mayfly's background CPU. At equal priority they share the CPUs evenly
// with the goroutines serving clients, and on a small machine a storm of
// expiring items then multiplies the latency of every read. Go schedules
// goroutines without priorities, so the priority has to live on the OS
// thread: work that should yield runs on a goroutine locked to a thread
// at nice 19 (LowerThread), and that thread never runs anything else.
//
// A thread's priority cannot be raised again without privilege
// (CAP_SYS_NICE), so a lowered thread is never returned to the Go
// runtime's pool: the goroutine stays locked to it and the runtime ends
// the thread when the goroutine exits. Nice 19, not the idle scheduling
// class (SCHED_IDLE): a nice-19 thread still gets a small share of busy
// CPUs, so work that others wait for (a compaction) always finishes, and
// the sweeper's Worker and the compactions share what the foreground
// leaves on equal terms.
//
// Two forms:
//
//   - A Worker is one lowered thread that runs the functions given to Do,
//     for work a goroutine can hand over and wait for. Do reports the CPU
//     time the work got against its wall time, so the caller can see the
//     thread starved and run the work itself for a while.
//   - LowerThread lowers the calling goroutine's own thread, for work that
//     cannot be handed over (a compaction, which the storage engine runs
//     on its own goroutine).
//
// Work on a lowered thread holds a Go scheduler P while it waits for a
// CPU, so a process that lowers threads runs with GOMAXPROCS above its CPU
// count by the number of threads it lowers at once (Reserve).
//
// On systems other than Linux, StartWorker and LowerThread return
// ErrUnsupported and the caller runs its work at normal priority.
package lowprio
