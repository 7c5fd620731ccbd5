package lowprio

import (
	"sync"
	"time"
)

// SpareMeter measures how much CPU the machine's normal-priority work
// leaves: the share of CPU time spent idle, waiting for I/O, or running
// niced threads (which any normal thread preempts), as the kernel counts
// it for all CPUs. Lowered work can count on that share; when it is near
// zero, the foreground keeps every CPU busy and lowered work would starve.
// The counters are the kernel's for the whole machine: in a container
// limited to fewer CPUs than its host has, they describe the host.
type SpareMeter struct {
	mu       sync.Mutex
	at       time.Time
	last     cpuTimes
	spare    float64
	interval time.Duration
}

// cpuTimes are cumulative CPU times in clock ticks: spare (idle, iowait
// and nice) and total.
type cpuTimes struct{ spare, total uint64 }

// NewSpareMeter returns a meter whose Spare averages over at least
// interval. It returns ErrUnsupported where the kernel's counters cannot
// be read.
func NewSpareMeter(interval time.Duration) (*SpareMeter, error) {
	t, err := readCPUTimes()
	if err != nil {
		return nil, err
	}
	return &SpareMeter{at: time.Now(), last: t, spare: 1, interval: interval}, nil
}

// Spare returns the share (0 to 1) of all CPUs' time that normal-priority
// work left over the last interval or more. Calls within interval of the
// previous measurement return it again.
func (m *SpareMeter) Spare() float64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	if time.Since(m.at) < m.interval {
		return m.spare
	}
	t, err := readCPUTimes()
	if err != nil {
		return m.spare
	}
	if dt := t.total - m.last.total; dt > 0 && t.total > m.last.total && t.spare >= m.last.spare {
		m.spare = float64(t.spare-m.last.spare) / float64(dt)
	}
	m.at, m.last = time.Now(), t
	return m.spare
}
