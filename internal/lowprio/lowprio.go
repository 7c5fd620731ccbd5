package lowprio

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"sync"
	"time"
)

// ErrUnsupported is returned where this system offers no per-thread CPU
// priority that lowprio knows how to set.
var ErrUnsupported = errors.New("lowprio: per-thread CPU priority is not supported on this system")

// Nice is the nice value LowerThread gives a thread: the lowest, whose
// scheduling weight is about 1/70 of a normal thread's.
const Nice = 19

// Threads is how many lowered threads a process of mayfly runs at once:
// the sweeper's Worker and one compaction (the storage engine runs one at
// a time).
const Threads = 2

// LowerThread locks the calling goroutine to its OS thread and lowers that
// thread to nice Nice. The goroutine must never unlock it: when the
// goroutine exits, the Go runtime ends the thread instead of reusing it
// for other goroutines. On failure the goroutine is still locked, which
// only costs a thread.
func LowerThread() error {
	runtime.LockOSThread()
	if err := setNice(Nice); err != nil {
		return fmt.Errorf("lowprio: lower thread priority: %w", err)
	}
	return nil
}

// Reserve raises GOMAXPROCS by Threads, so that lowered threads, each
// holding a scheduler P while it waits for a CPU, leave as many Ps to the
// rest of the process as there are CPUs. It does nothing when the
// GOMAXPROCS environment variable is set (the operator chose) and only
// once per process. It returns the GOMAXPROCS in effect.
func Reserve() int {
	reserveOnce.Do(func() {
		if os.Getenv("GOMAXPROCS") == "" {
			runtime.GOMAXPROCS(runtime.GOMAXPROCS(0) + Threads)
		}
	})
	return runtime.GOMAXPROCS(0)
}

var reserveOnce sync.Once

// A Worker runs functions, one at a time, on one OS thread at nice Nice.
// Its methods are safe for concurrent use; Do calls are served in turn.
type Worker struct {
	jobs chan job
	done chan struct{}
	once sync.Once
}

type job struct {
	f      func()
	result chan<- result
}

type result struct {
	cpu, wall time.Duration
	panicked  any
}

// StartWorker starts a Worker. It returns ErrUnsupported (wrapped) where
// threads cannot be lowered.
func StartWorker() (*Worker, error) {
	w := &Worker{jobs: make(chan job), done: make(chan struct{})}
	started := make(chan error, 1)
	go w.run(started)
	if err := <-started; err != nil {
		return nil, err
	}
	return w, nil
}

func (w *Worker) run(started chan<- error) {
	if err := LowerThread(); err != nil { // never unlocked: the thread ends with this goroutine
		started <- err
		return
	}
	started <- nil
	for {
		select {
		case <-w.done:
			return
		case j := <-w.jobs:
			j.result <- runMeasured(j.f)
		}
	}
}

// runMeasured runs f, recovering a panic so the caller of Do can raise it
// again, and measures the CPU time the thread spent and the wall time.
func runMeasured(f func()) (r result) {
	cpu0 := threadCPU()
	t0 := time.Now()
	defer func() {
		r.wall = time.Since(t0)
		r.cpu = threadCPU() - cpu0
		r.panicked = recover()
	}()
	f()
	return r
}

// Do runs f on the worker's thread and waits for it. It returns the CPU
// time f got and the wall time it took: a CPU time far below the wall time
// says the CPUs are busy with other work and the worker is starved. A
// panic in f is raised again in the caller. After Close, Do runs f on the
// caller's goroutine.
func (w *Worker) Do(f func()) (cpu, wall time.Duration) {
	ch := make(chan result, 1)
	select {
	case w.jobs <- job{f: f, result: ch}:
	case <-w.done:
		t0 := time.Now()
		f()
		wall = time.Since(t0)
		return wall, wall
	}
	r := <-ch
	if r.panicked != nil {
		panic(r.panicked)
	}
	return r.cpu, r.wall
}

// Close stops the worker's thread once the function it runs, if any,
// returns. It is idempotent.
func (w *Worker) Close() {
	w.once.Do(func() { close(w.done) })
}
