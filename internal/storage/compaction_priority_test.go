package storage_test

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/mayfly/mayfly/internal/storage"
)

// With LowPriorityCompactions every compaction runs on a lowered thread;
// without it none does.
func TestLowPriorityCompactions(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("thread priorities are set on Linux only")
	}
	for _, low := range []bool{false, true} {
		t.Run(fmt.Sprint(low), func(t *testing.T) {
			s, err := storage.Open(storage.Options{Dir: "mem", InMemory: true, LowPriorityCompactions: low})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			for round := range 3 {
				commit(t, s, func(b *storage.Batch) {
					for i := range 100 {
						b.Set([]byte(fmt.Sprintf("k%03d", i)), []byte(fmt.Sprint(round)))
					}
				})
				if err := s.Flush(); err != nil {
					t.Fatal(err)
				}
			}
			if err := s.Compact(t.Context(), []byte("k"), []byte("l")); err != nil {
				t.Fatal(err)
			}
			m := s.Metrics()
			if m.Compactions == 0 {
				t.Fatal("no compaction ran")
			}
			// A compaction counts as lowered when it begins, as done when it
			// ends, so an automatic one may be lowered and not yet done.
			if low && m.LoweredCompactions < m.Compactions || !low && m.LoweredCompactions != 0 {
				t.Errorf("%d of %d compactions lowered", m.LoweredCompactions, m.Compactions)
			}
		})
	}
}
