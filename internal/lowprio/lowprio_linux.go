package lowprio

import (
	"time"

	"golang.org/x/sys/unix"
)

// setNice sets the calling thread's nice value (on Linux, PRIO_PROCESS
// with a thread id addresses that one thread).
func setNice(n int) error {
	return unix.Setpriority(unix.PRIO_PROCESS, unix.Gettid(), n)
}

// threadCPU is the CPU time the calling thread has used.
func threadCPU() time.Duration {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		return 0
	}
	return time.Duration(ts.Nano())
}
