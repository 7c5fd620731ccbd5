package expiry_test

import (
	"errors"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mayfly/mayfly/internal/expiry"
)

// reapLog records OnReaped calls with the sub-pass count at the time.
type reapLog struct {
	mu      sync.Mutex
	h       *harness
	entries []reapEntry
}

type reapEntry struct {
	source   string
	items    int
	subPass  int64
	backlog  int64
	known    bool
	keys     int
	dueCount int
}

func (l *reapLog) hook(source string, r expiry.Reaped) {
	st := l.h.e.Stats()
	ss, _ := st.Source(source)
	l.mu.Lock()
	defer l.mu.Unlock()
	l.entries = append(l.entries, reapEntry{source: source, items: r.Items, subPass: st.SubPasses,
		backlog: ss.Backlog, known: ss.BacklogKnown, keys: r.Keys, dueCount: len(r.Due)})
}

// runs compresses the log into "name×calls" runs, for example "a×4 b×4".
func (l *reapLog) runs() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var parts []string
	var cur string
	n := 0
	flush := func() {
		if n > 0 {
			parts = append(parts, cur+"×"+strconv.Itoa(n))
		}
	}
	for _, e := range l.entries {
		if e.source != cur {
			flush()
			cur, n = e.source, 0
		}
		n++
	}
	flush()
	return strings.Join(parts, " ")
}

// newLoggedHarness is newHarness with a reapLog on OnReaped.
func newLoggedHarness(t *testing.T, edit func(*expiry.Config)) (*harness, *reapLog) {
	log := &reapLog{}
	h := newHarness(t, func(c *expiry.Config) {
		c.OnReaped = log.hook
		if edit != nil {
			edit(c)
		}
	})
	log.h = h
	return h, log
}

func TestFairness(t *testing.T) {
	tests := []struct {
		name              string
		subPassTargetSecs int32
		wantSubPasses     int64
	}{
		{"sub-pass revisits big source", 60, 1},
		{"one visit per sub-pass", 0, 20},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				h, log := newLoggedHarness(t, func(c *expiry.Config) { c.Params.SubPassTargetSecs = tc.subPassTargetSecs })
				t0 := h.clk.Now()
				big := newFake("ttl_index:big", expiry.KindTTLIndex, h.clk)
				big.addN(1_000_000, t0)
				small := newFake("ttl_index:small", expiry.KindTTLIndex, h.clk)
				small.addN(10, t0)
				h.register(big, small)
				h.start()
				defer h.stop()

				if big.len() != 0 || small.len() != 0 {
					t.Fatalf("left: big %d small %d, want both drained", big.len(), small.len())
				}
				var bigBefore int
				for _, e := range log.entries {
					if e.source == small.name {
						if e.subPass != 1 {
							t.Errorf("small source reaped in sub-pass %d, want 1", e.subPass)
						}
						break
					}
					bigBefore += e.items
				}
				// At most one visit of the big source (50,000 items) before
				// the small one.
				if bigBefore > 50_000 {
					t.Errorf("big source deleted %d items before the small one was visited, want <= 50000", bigBefore)
				}
				st := h.e.Stats()
				if st.Passes != 1 || st.SubPasses != tc.wantSubPasses {
					t.Errorf("passes %d subPasses %d, want 1 and %d", st.Passes, st.SubPasses, tc.wantSubPasses)
				}
				if st.DeletedItems != 1_000_010 || st.DeletedKeys != 2_000_020 {
					t.Errorf("deleted %d items %d keys, want 1000010 and 2000020", st.DeletedItems, st.DeletedKeys)
				}
				if st.TimeCapReached != 19 {
					t.Errorf("TimeCapReached = %d, want 19 (the big source's visits that hit 50000)", st.TimeCapReached)
				}
			})
		})
	}
}

func TestBudgets(t *testing.T) {
	tests := []struct {
		name   string
		params func(*expiry.Params)
		// perBatch is how long each storage batch takes on the fake clock.
		perBatch            time.Duration
		items               int
		wantRuns            string
		wantSubPasses       int64
		wantCaps            int64
		wantSubPassCaps     int64
		wantMaxItems        int
		wantFirstDeadlineMS int64 // 0: no deadline
	}{
		{
			name:   "targetDocs",
			params: func(p *expiry.Params) { p.DeleteTargetDocs = 100; p.SubPassTargetSecs = 0 },
			items:  1000,
			// Round-robin: each sub-pass starts one source further on.
			wantRuns:      "a×1 b×2 a×2 b×2 a×2 b×2 a×2 b×2 a×2 b×2 a×1",
			wantSubPasses: 10, wantCaps: 18, wantMaxItems: 100, wantFirstDeadlineMS: 1000,
		},
		{
			name: "targetTimeMS",
			params: func(p *expiry.Params) {
				p.DeleteTargetDocs = 0
				p.DeleteTargetTimeMS = 1000
			},
			perBatch:      300 * time.Millisecond,
			items:         10_000,
			wantRuns:      "a×4 b×4 a×4 b×4 a×2 b×2",
			wantSubPasses: 1, wantCaps: 4, wantMaxItems: 1000, wantFirstDeadlineMS: 1000,
		},
		{
			name: "subPassTargetSecs",
			params: func(p *expiry.Params) {
				p.DeleteTargetDocs = 0
				p.DeleteTargetTimeMS = 1000
				p.SubPassTargetSecs = 1
			},
			perBatch:      300 * time.Millisecond,
			items:         10_000,
			wantRuns:      "a×4 b×8 a×6 b×2",
			wantSubPasses: 3, wantCaps: 4, wantSubPassCaps: 2, wantMaxItems: 1000, wantFirstDeadlineMS: 1000,
		},
		{
			name: "batchDeletes off reaps to completion",
			params: func(p *expiry.Params) {
				p.BatchDeletes = false
				p.DeleteTargetDocs = 100
				p.DeleteTargetTimeMS = 1000
				p.SubPassTargetSecs = 0
			},
			perBatch:      300 * time.Millisecond,
			items:         5000,
			wantRuns:      "a×5 b×5",
			wantSubPasses: 1, wantMaxItems: 1000,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				h, log := newLoggedHarness(t, func(c *expiry.Config) { tc.params(&c.Params) })
				t0 := h.clk.Now()
				a := newFake("a", expiry.KindTTLIndex, h.clk)
				b := newFake("b", expiry.KindTTLIndex, h.clk)
				for _, s := range []*fakeSource{a, b} {
					s.perBatch = tc.perBatch
					s.addN(tc.items, t0)
				}
				h.register(a, b)
				h.start()
				defer h.stop()

				if got := log.runs(); got != tc.wantRuns {
					t.Errorf("reap order %q, want %q", got, tc.wantRuns)
				}
				st := h.e.Stats()
				if st.Passes != 1 || st.SubPasses != tc.wantSubPasses {
					t.Errorf("passes %d subPasses %d, want 1 and %d", st.Passes, st.SubPasses, tc.wantSubPasses)
				}
				if st.TimeCapReached != tc.wantCaps || st.SubPassTargetReached != tc.wantSubPassCaps {
					t.Errorf("cap hits %d, sub-pass target hits %d; want %d and %d",
						st.TimeCapReached, st.SubPassTargetReached, tc.wantCaps, tc.wantSubPassCaps)
				}
				calls := a.reapCalls()
				for _, c := range calls {
					if c.Batch.Max > tc.wantMaxItems {
						t.Fatalf("batch %+v exceeds %d items", c.Batch, tc.wantMaxItems)
					}
				}
				first := calls[0].Deadline
				if tc.wantFirstDeadlineMS == 0 {
					if !first.IsZero() {
						t.Errorf("first deadline %v, want none", first)
					}
				} else if got := first.Sub(calls[0].At); got != time.Duration(tc.wantFirstDeadlineMS)*time.Millisecond {
					t.Errorf("first deadline %v after the call, want %dms", got, tc.wantFirstDeadlineMS)
				}
				if a.len()+b.len() != 0 {
					t.Errorf("%d items left", a.len()+b.len())
				}
			})
		})
	}
}

func TestPassUsesOneNow(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, func(c *expiry.Config) { c.Params.DeleteTargetDocs = 0 })
		t0 := h.clk.Now()
		src := newFake("a", expiry.KindTTLIndex, h.clk)
		src.perBatch = 100 * time.Millisecond
		src.addN(3000, t0)
		// Due while the pass runs: left for the next pass.
		src.add(t0.Add(150 * time.Millisecond))
		h.register(src)
		h.start()
		defer h.stop()
		advance(time.Second)
		calls := src.reapCalls()
		if len(calls) != 4 || calls[3].Deleted != 1 || calls[3].At.Sub(t0) != 310*time.Millisecond {
			for _, c := range calls {
				t.Logf("call at %v deleted %d", c.At.Sub(t0), c.Deleted)
			}
			t.Fatalf("want 3 batches in the first pass and the late item in the next pass at 310ms (pass end 300ms + MinPeriod)")
		}
	})
}

func TestUnregisterDuringPass(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var h *harness
		calls := 0
		h = newHarness(t, func(c *expiry.Config) {
			c.Params.DeleteTargetDocs = 1000
			c.Params.SubPassTargetSecs = 0
			c.OnReaped = func(source string, _ expiry.Reaped) {
				if source != "a" {
					return
				}
				calls++
				switch calls {
				case 1:
					if !h.e.Unregister("b") {
						t.Error("Unregister(b) = false")
					}
				case 2:
					if !h.e.Unregister("a") {
						t.Error("Unregister(a) = false")
					}
				}
			}
		})
		t0 := h.clk.Now()
		a := newFake("a", expiry.KindPolicy, h.clk)
		b := newFake("b", expiry.KindPolicy, h.clk)
		a.addN(5000, t0)
		b.addN(5000, t0)
		h.register(a, b)
		h.start()
		defer h.stop()
		advance(time.Minute)

		if n := len(a.reapCalls()); n != 2 {
			t.Errorf("a reaped %d times, want 2 (it unregistered itself in the second)", n)
		}
		if n := len(b.reapCalls()); n != 0 {
			t.Errorf("b reaped %d times after it was unregistered, want 0", n)
		}
		if h.e.Unregister("a") {
			t.Error("second Unregister(a) = true")
		}
		st := h.e.Stats()
		if len(st.Sources) != 0 {
			t.Errorf("Sources = %v, want none", st.Sources)
		}
		if got := st.Kind(expiry.KindPolicy).DeletedItems; got != 2000 {
			t.Errorf("policy kind deleted %d, want 2000 (kept after unregister)", got)
		}
		// The name is free again.
		h.register(newFake("a", expiry.KindPolicy, h.clk))
	})
}

func TestSourceErrorsAreLoggedAndSkipped(t *testing.T) {
	tests := []struct {
		name string
		fail func(*fakeSource)
		op   string
	}{
		{"reap", func(f *fakeSource) { f.reapErr = errors.New("disk on fire") }, "reap"},
		{"next due", func(f *fakeSource) { f.nextErr = errors.New("disk on fire") }, "next due"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				h := newHarness(t, nil)
				t0 := h.clk.Now()
				a := newFake("a", expiry.KindTTLIndex, h.clk)
				b := newFake("b", expiry.KindTTLIndex, h.clk)
				a.addN(10, t0)
				b.addN(10, t0)
				tc.fail(a)
				h.register(a, b)
				h.start()
				defer h.stop()

				if a.len() != 10 || b.len() != 0 {
					t.Fatalf("after the first pass: a has %d, b has %d; want 10 and 0", a.len(), b.len())
				}
				st := h.e.Stats()
				sa, _ := st.Source("a")
				if st.Errors != 1 || sa.Errors != 1 || st.Passes != 1 {
					t.Errorf("errors %d (a: %d), passes %d; want 1, 1, 1", st.Errors, sa.Errors, st.Passes)
				}
				logs := h.logs.String()
				if !strings.Contains(logs, "expiry source failed") || !strings.Contains(logs, "source=a") ||
					!strings.Contains(logs, `op="`+tc.op+`"`) && !strings.Contains(logs, "op="+tc.op) {
					t.Errorf("log %q lacks the error record", logs)
				}
				// Retried after ErrorRetry (1s).
				advance(999 * time.Millisecond)
				if a.len() != 10 {
					t.Fatalf("a retried before ErrorRetry")
				}
				advance(time.Millisecond)
				if a.len() != 0 {
					t.Fatalf("a has %d items 1s later, want 0", a.len())
				}
			})
		})
	}
}

func TestStuckSourceDoesNotSpin(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, nil)
		t0 := h.clk.Now()
		a := newFake("a", expiry.KindTTLIndex, h.clk)
		a.addN(10, t0)
		a.stuck = true
		h.register(a)
		h.start()
		defer h.stop()
		advance(10 * time.Second)
		n := len(a.reapCalls())
		if n < 5 || n > 12 {
			t.Errorf("stuck source reaped %d times in 10s, want about one per ErrorRetry", n)
		}
		if st := h.e.Stats(); st.Stalls == 0 {
			t.Error("Stalls = 0")
		}
	})
}

func TestBacklog(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h, log := newLoggedHarness(t, func(c *expiry.Config) {
			c.Params.DeleteTargetDocs = 1000
			c.Params.SubPassTargetSecs = 0
		})
		t0 := h.clk.Now()
		a := countingSource{newFake("a", expiry.KindTTLIndex, h.clk)}
		b := newFake("b", expiry.KindTTLIndex, h.clk) // not a Counter
		a.addN(3000, t0.Add(-time.Second))
		b.addN(3000, t0)
		h.register(a, b)
		h.start()
		defer h.stop()

		var sawA, sawB bool
		for _, e := range log.entries {
			if e.subPass != 2 {
				continue
			}
			switch e.source {
			case "a":
				sawA = true
				if !e.known || e.backlog != 2000 {
					t.Errorf("a's backlog in sub-pass 2: %d (known %v), want 2000", e.backlog, e.known)
				}
			case "b":
				sawB = true
				if e.known {
					t.Errorf("b's backlog known (%d) mid-pass, but b is not a Counter", e.backlog)
				}
			}
		}
		if !sawA || !sawB {
			t.Fatal("no reaps seen in sub-pass 2")
		}
		st := h.e.Stats()
		for _, s := range st.Sources {
			if !s.BacklogKnown || s.Backlog != 0 {
				t.Errorf("after the pass %s backlog %d known %v, want 0 known", s.Name, s.Backlog, s.BacklogKnown)
			}
		}

		// On demand, from Counters only.
		a.addN(7, t0.Add(-time.Minute))
		a.add(t0.Add(time.Hour))
		got, err := h.e.CountDue(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 1 || got[0].Source != "a" || got[0].Count != 7 || !got[0].Oldest.Equal(t0.Add(-time.Minute)) {
			t.Fatalf("CountDue = %+v, want a: 7 due from %v", got, t0.Add(-time.Minute))
		}
		if s, _ := h.e.Stats().Source("a"); s.Backlog != 7 {
			t.Errorf("gauge after CountDue = %d, want 7", s.Backlog)
		}
	})
}

func TestOnReapedSeesEveryDeletion(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h, log := newLoggedHarness(t, nil)
		t0 := h.clk.Now()
		a := newFake("a", expiry.KindRedisKeys, h.clk)
		a.addN(2500, t0)
		h.register(a)
		h.start()
		defer h.stop()
		items, due := 0, 0
		for _, e := range log.entries {
			items += e.items
			due += e.dueCount
			if e.keys != 2*e.items {
				t.Errorf("keys %d for %d items", e.keys, e.items)
			}
		}
		if items != 2500 || due != 2500 || len(log.entries) != 3 {
			t.Errorf("OnReaped saw %d items, %d due times in %d calls; want 2500, 2500, 3", items, due, len(log.entries))
		}
	})
}
