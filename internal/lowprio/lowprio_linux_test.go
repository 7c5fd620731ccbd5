package lowprio

import (
	"errors"
	"os"
	"regexp"
	"runtime"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

func TestWorkerRunsLowered(t *testing.T) {
	w, err := StartWorker()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	prio, tid := 0, 0
	cpu, wall := w.Do(func() {
		tid = unix.Gettid()
		var err error
		if prio, err = unix.Getpriority(unix.PRIO_PROCESS, tid); err != nil {
			t.Error(err)
		}
		sink = spin(2_000_000)
	})
	// The raw syscall returns 20-nice.
	if 20-prio != Nice {
		t.Errorf("worker thread at nice %d, want %d", 20-prio, Nice)
	}
	if tid == unix.Gettid() {
		t.Error("Do ran f on the caller's thread")
	}
	if cpu <= 0 || wall <= 0 || cpu > wall*2 {
		t.Errorf("Do measured cpu %v, wall %v", cpu, wall)
	}
	// The same thread serves every call.
	var again int
	w.Do(func() { again = unix.Gettid() })
	if again != tid {
		t.Errorf("second Do ran on thread %d, first on %d", again, tid)
	}
}

func TestWorkerForwardsPanics(t *testing.T) {
	w, err := StartWorker()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	defer func() {
		if r := recover(); r != "boom" {
			t.Errorf("recovered %v, want boom", r)
		}
	}()
	w.Do(func() { panic("boom") })
	t.Error("Do returned after a panic")
}

func TestWorkerAfterCloseRunsInline(t *testing.T) {
	w, err := StartWorker()
	if err != nil {
		t.Fatal(err)
	}
	w.Close()
	w.Close()
	ran := false
	w.Do(func() { ran = true })
	if !ran {
		t.Error("Do after Close did not run f")
	}
}

// A lowered thread ends with its goroutine: no goroutine started later runs
// on a thread at nice 19.
func TestLowerThreadDoesNotLeakThePriority(t *testing.T) {
	// The raw syscall returns 20-nice; the process may run niced already.
	base, err := unix.Getpriority(unix.PRIO_PROCESS, unix.Gettid())
	if err != nil {
		t.Fatal(err)
	}
	if 20-base >= Nice {
		t.Skipf("the test process already runs at nice %d", 20-base)
	}
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := LowerThread(); err != nil {
				t.Error(err)
				return
			}
			if n, err := unix.Getpriority(unix.PRIO_PROCESS, unix.Gettid()); err != nil || 20-n != Nice {
				t.Errorf("after LowerThread, getpriority = %d, %v; want nice %d", n, err, Nice)
			}
		}()
	}
	wg.Wait()
	for range 64 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			if n, err := unix.Getpriority(unix.PRIO_PROCESS, unix.Gettid()); err != nil || n != base {
				t.Errorf("a later goroutine's thread has getpriority %d (%v): a lowered thread was reused", n, err)
			}
		}()
	}
	wg.Wait()
}

var sink int

func spin(n int) int {
	x := 0
	for i := range n {
		x += i ^ x>>3
	}
	return x
}

func TestParseCPUTimes(t *testing.T) {
	got, err := parseCPUTimes("cpu  3550927 32508 1403501 1614158 20437 0 135512 7 0 0")
	want := cpuTimes{spare: 1614158 + 20437 + 32508, total: 3550927 + 32508 + 1403501 + 1614158 + 20437 + 135512 + 7}
	if err != nil || got != want {
		t.Errorf("parseCPUTimes = %+v, %v; want %+v", got, err, want)
	}
	for _, bad := range []string{"", "cpu0 1 2 3 4 5 6 7 8", "cpu 1 2 3", "cpu 1 2 3 x 5 6 7 8"} {
		if _, err := parseCPUTimes(bad); !errors.Is(err, ErrUnsupported) {
			t.Errorf("parseCPUTimes(%q) = %v, want ErrUnsupported", bad, err)
		}
	}
}

// Busy normal-priority goroutines on every CPU leave little spare time.
func TestSpareMeterSeesBusyCPUs(t *testing.T) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		t.Fatal(err)
	}
	if cpus := regexp.MustCompile(`(?m)^cpu[0-9]+ `).FindAll(b, -1); len(cpus) != runtime.NumCPU() {
		// In a container limited to fewer CPUs than the host has, the
		// kernel's counters are the host's.
		t.Skipf("/proc/stat counts %d CPUs, the process may use %d", len(cpus), runtime.NumCPU())
	}
	m, err := NewSpareMeter(0)
	if err != nil {
		t.Fatal(err)
	}
	if s := m.Spare(); s < 0 || s > 1 {
		t.Fatalf("Spare = %v, want within [0, 1]", s)
	}
	// What is measured is CPU time over wall time, so the spinners burn
	// for a span of wall time.
	m.Spare()
	until := time.Now().Add(300 * time.Millisecond)
	var wg sync.WaitGroup
	for range runtime.NumCPU() {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Now().Before(until) {
				sink = spin(10_000)
			}
		}()
	}
	wg.Wait()
	s := m.Spare()
	if s > 0.5 {
		t.Errorf("Spare = %.2f with every CPU spinning, want at most 0.5", s)
	}
}
