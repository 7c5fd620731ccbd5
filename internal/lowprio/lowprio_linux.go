package lowprio

import (
	"fmt"
	"os"
	"strconv"
	"strings"
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

// readCPUTimes reads the kernel's CPU time counters from /proc/stat.
func readCPUTimes() (cpuTimes, error) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return cpuTimes{}, fmt.Errorf("lowprio: %w: %w", ErrUnsupported, err)
	}
	line, _, _ := strings.Cut(string(b), "\n")
	return parseCPUTimes(line)
}

// parseCPUTimes parses the first line of /proc/stat: "cpu user nice system
// idle iowait irq softirq steal guest guest_nice", in clock ticks (guest
// time is already counted in user and nice).
func parseCPUTimes(line string) (cpuTimes, error) {
	f := strings.Fields(line)
	if len(f) < 9 || f[0] != "cpu" {
		return cpuTimes{}, fmt.Errorf("lowprio: %w: /proc/stat begins %q", ErrUnsupported, line)
	}
	var v [8]uint64
	for i := range v {
		var err error
		if v[i], err = strconv.ParseUint(f[i+1], 10, 64); err != nil {
			return cpuTimes{}, fmt.Errorf("lowprio: %w: /proc/stat begins %q", ErrUnsupported, line)
		}
	}
	user, nice, system, idle, iowait, irq, softirq, steal := v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]
	return cpuTimes{spare: idle + iowait + nice, total: user + nice + system + idle + iowait + irq + softirq + steal}, nil
}
