package resp

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"math/bits"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// commandStats counts, per command, what INFO commandstats reports, and
// per error prefix (the error's first word, "ERR", "WRONGTYPE") what INFO
// errorstats reports. CONFIG RESETSTAT clears both.
type commandStats struct {
	cmds sync.Map // *command -> *cmdStat
	mu   sync.Mutex
	errs map[string]int64
}

type cmdStat struct {
	calls, usec, rejected, failed atomic.Int64
	// hist counts the calls per latency bucket: bucket k holds those that
	// took at most histBase<<k, the last also every longer one.
	hist [histBuckets]atomic.Int64
}

// The buckets of a command's latency histogram (LATENCY HISTOGRAM): powers
// of two from 1024 ns, up to the 1 s past which Redis counts every call as
// 1 s.
const (
	histBase    = 1024 * time.Nanosecond
	histBuckets = 21 // histBase<<20 is past 1 s
)

// histBucket returns the bucket of a call that took d.
func histBucket(d time.Duration) int {
	if d <= histBase {
		return 0
	}
	return min(bits.Len64(uint64((d-1)/histBase)), histBuckets-1)
}

func (cs *commandStats) of(cmd *command) *cmdStat {
	if st, ok := cs.cmds.Load(cmd); ok {
		return st.(*cmdStat)
	}
	st, _ := cs.cmds.LoadOrStore(cmd, &cmdStat{})
	return st.(*cmdStat)
}

// called records one run of cmd's handler: how long it took and whether it
// answered an error.
func (cs *commandStats) called(cmd *command, d time.Duration, failed bool) {
	st := cs.of(cmd)
	st.calls.Add(1)
	st.usec.Add(d.Microseconds())
	st.hist[histBucket(d)].Add(1)
	if failed {
		st.failed.Add(1)
	}
}

// rejected records a call of cmd refused before it ran (authentication,
// the pub/sub context).
func (cs *commandStats) rejected(cmd *command) { cs.of(cmd).rejected.Add(1) }

// errorReply records an error reply by its prefix.
func (cs *commandStats) errorReply(msg string) {
	prefix, _, _ := strings.Cut(msg, " ")
	cs.mu.Lock()
	if cs.errs == nil {
		cs.errs = make(map[string]int64)
	}
	cs.errs[prefix]++
	cs.mu.Unlock()
}

func (cs *commandStats) reset() {
	cs.cmds.Range(func(k, _ any) bool {
		cs.cmds.Delete(k)
		return true
	})
	cs.mu.Lock()
	cs.errs = nil
	cs.mu.Unlock()
}

// commandLines renders INFO commandstats: one line per command called or
// rejected, sorted by name.
func (cs *commandStats) commandLines() []string {
	var out []string
	cs.cmds.Range(func(k, v any) bool {
		cmd, st := k.(*command), v.(*cmdStat)
		calls, usec := st.calls.Load(), st.usec.Load()
		perCall := 0.0
		if calls > 0 {
			perCall = float64(usec) / float64(calls)
		}
		out = append(out, fmt.Sprintf("cmdstat_%s:calls=%d,usec=%d,usec_per_call=%.2f,rejected_calls=%d,failed_calls=%d",
			cmd.name, calls, usec, perCall, st.rejected.Load(), st.failed.Load()))
		return true
	})
	sort.Strings(out)
	return out
}

// wasCalled reports whether cmd's handler ran since the last reset.
func (cs *commandStats) wasCalled(cmd *command) bool {
	v, ok := cs.cmds.Load(cmd)
	return ok && v.(*cmdStat).calls.Load() > 0
}

// writeHistogram writes LATENCY HISTOGRAM's entry of cmd: its name, and
// a map of its calls and of the cumulative count of calls at each bucket's
// upper bound in microseconds, for the bounds where the count grows.
func (cs *commandStats) writeHistogram(w *Writer, cmd *command) {
	st := cs.of(cmd)
	var counts [histBuckets]int64
	var bounds []int
	total := int64(0)
	for k := range histBuckets {
		if n := st.hist[k].Load(); n > 0 {
			total += n
			counts[len(bounds)] = total
			bounds = append(bounds, k)
		}
	}
	w.BulkString(cmd.name)
	w.Map(2)
	w.BulkString("calls")
	w.Int(total)
	w.BulkString("histogram_usec")
	w.Map(len(bounds))
	for i, k := range bounds {
		w.Int(int64((histBase << k) / time.Microsecond))
		w.Int(counts[i])
	}
}

// errorLines renders INFO errorstats, sorted by prefix.
func (cs *commandStats) errorLines() []string {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	out := make([]string, 0, len(cs.errs))
	for p, n := range cs.errs {
		out = append(out, fmt.Sprintf("errorstat_%s:count=%d", p, n))
	}
	sort.Strings(out)
	return out
}

// newReplID returns a replication ID as Redis shows them: 40 random hex
// digits.
func newReplID() string {
	var b [20]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
