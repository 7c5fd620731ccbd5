package bench

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"
)

// Progress shows what the bench is doing: on a terminal one status line
// rewritten in place, elsewhere plain lines at most every few seconds so
// logs stay short. A nil *Progress shows nothing. It is safe for
// concurrent use.
type Progress struct {
	mu       sync.Mutex
	w        io.Writer
	terminal bool
	every    time.Duration
	last     time.Time
	lastLen  int
	now      func() time.Time
}

// NewProgress writes progress to w; terminal selects the in-place line.
func NewProgress(w io.Writer, terminal bool) *Progress {
	return &Progress{w: w, terminal: terminal, every: 5 * time.Second, now: time.Now}
}

// IsTerminal reports whether f is a character device (a terminal).
func IsTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// Phase announces the start of a phase; it is always shown.
func (p *Progress) Phase(format string, args ...any) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clear()
	fmt.Fprintf(p.w, "bench: "+format+"\n", args...)
	p.last = p.now()
}

// Update shows a status; on a terminal it replaces the previous one, else
// it is printed only when the last line is a few seconds old.
func (p *Progress) Update(format string, args ...any) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	s := fmt.Sprintf(format, args...)
	if p.terminal {
		p.clear()
		fmt.Fprint(p.w, "  "+s)
		p.lastLen = len(s) + 2
		return
	}
	if now := p.now(); now.Sub(p.last) >= p.every {
		fmt.Fprintln(p.w, "  "+s)
		p.last = now
	}
}

// Done clears the status line of a terminal.
func (p *Progress) Done() {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clear()
}

func (p *Progress) clear() {
	if p.terminal && p.lastLen > 0 {
		fmt.Fprint(p.w, "\r\033[K")
		p.lastLen = 0
	}
}

// ticker calls f every interval until stop is called; stop waits for it.
func ticker(interval time.Duration, f func()) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				f()
			}
		}
	}()
	return func() {
		close(done)
		wg.Wait()
	}
}
