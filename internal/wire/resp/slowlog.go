package resp

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// slowLog is Redis's slow log: the commands that ran for
// slowlog-log-slower-than microseconds or more (none when it is negative),
// newest first, at most slowlog-max-len of them (older ones are dropped
// when the next one is logged, as in Redis). A command is logged after it
// ran, so a CONFIG SET of the threshold is judged by its new value; EXEC
// (flag skip_slowlog) is not logged but the commands it runs are, and the
// commands a script runs are not. Each entry keeps at most 32 arguments
// (the last one then saying how many more there were) of at most 128 bytes
// each (then saying how many more bytes), passwords redacted.
type slowLog struct {
	threshold atomic.Int64 // microseconds
	maxLen    atomic.Int64

	mu      sync.Mutex
	nextID  int64
	entries []slowEntry // newest first
}

type slowEntry struct {
	id, at, usec int64 // at: Unix seconds
	args         []string
	addr, name   string
}

const (
	slowlogMaxArgs   = 32
	slowlogMaxString = 128
)

// record logs a command that ran for d, if it is slow enough.
func (l *slowLog) record(c *client, cmd *command, args [][]byte, d time.Duration) {
	t := l.threshold.Load()
	if t < 0 || d.Microseconds() < t || cmd.has(flagSkipSlowlog) {
		return
	}
	c.mu.Lock()
	name := c.name
	c.mu.Unlock()
	e := slowEntry{at: c.s.opts.Now().Unix(), usec: d.Microseconds(), args: slowlogArgs(args),
		addr: c.nc.RemoteAddr().String(), name: name}
	l.mu.Lock()
	defer l.mu.Unlock()
	e.id = l.nextID
	l.nextID++
	l.entries = append(l.entries, slowEntry{})
	copy(l.entries[1:], l.entries)
	l.entries[0] = e
	if n := l.maxLen.Load(); int64(len(l.entries)) > n {
		clear(l.entries[n:])
		l.entries = l.entries[:n]
	}
}

// slowlogArgs is what an entry keeps of a command's arguments.
func slowlogArgs(args [][]byte) []string {
	n := min(len(args), slowlogMaxArgs)
	out := make([]string, n)
	for i := range n {
		if n != len(args) && i == n-1 {
			out[i] = fmt.Sprintf("... (%d more arguments)", len(args)-n+1)
			break
		}
		a := args[i]
		if len(a) > slowlogMaxString {
			out[i] = string(a[:slowlogMaxString]) + fmt.Sprintf("... (%d more bytes)", len(a)-slowlogMaxString)
		} else {
			out[i] = string(a)
		}
	}
	for _, i := range slowlogRedacted(args) {
		if i < n && !(n != len(args) && i == n-1) {
			out[i] = "(redacted)"
		}
	}
	return out
}

// slowlogRedacted are the positions of the passwords in a command, which
// Redis's slow log shows as "(redacted)": AUTH's arguments, HELLO's after
// AUTH, MIGRATE's after AUTH or AUTH2, and CONFIG SET's values of
// requirepass and masterauth.
func slowlogRedacted(args [][]byte) []int {
	var out []int
	name := strings.ToLower(string(args[0]))
	switch {
	case name == "auth":
		for i := 1; i < len(args); i++ {
			out = append(out, i)
		}
	case name == "hello":
		for i := 2; i < len(args); i++ {
			if argEq(args[i], "auth") {
				out = append(out, i+1, i+2)
				i += 2
			}
		}
	case name == "migrate":
		for i := 6; i < len(args); i++ {
			switch {
			case argEq(args[i], "auth"):
				out = append(out, i+1)
				i++
			case argEq(args[i], "auth2"):
				out = append(out, i+1, i+2)
				i += 2
			}
		}
	case name == "config" && len(args) > 2 && argEq(args[1], "set"):
		for i := 2; i+1 < len(args); i += 2 {
			if argEq(args[i], "requirepass") || argEq(args[i], "masterauth") {
				out = append(out, i+1)
			}
		}
	}
	return out
}

// get returns up to n of the newest entries (all when n is -1).
func (l *slowLog) get(n int64) []slowEntry {
	l.mu.Lock()
	defer l.mu.Unlock()
	if n < 0 || n > int64(len(l.entries)) {
		n = int64(len(l.entries))
	}
	return append([]slowEntry(nil), l.entries[:n]...)
}

func (l *slowLog) len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.entries)
}

func (l *slowLog) reset() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.entries = nil
}

// setFromConfig reads a changed slowlog parameter.
func (l *slowLog) setFromConfig(name, value string) {
	n, err := strconv.ParseInt(value, 10, 64)
	if err != nil {
		return
	}
	switch name {
	case "slowlog-log-slower-than":
		l.threshold.Store(n)
	case "slowlog-max-len":
		l.maxLen.Store(n)
	}
}
