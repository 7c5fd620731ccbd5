package storage

import (
	"fmt"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/vfs"
)

func spansString(spans []purgeSpan) string {
	out := ""
	for _, s := range spans {
		out += fmt.Sprintf("[%s,%s)", s.start, s.end)
	}
	return out
}

// Ensure that the pending set stays sorted and disjoint: a new span merges
// with every span it overlaps or touches.
func TestInsertSpan(t *testing.T) {
	base := []purgeSpan{{[]byte("b"), []byte("d")}, {[]byte("f"), []byte("h")}, {[]byte("m"), []byte("p")}}
	tests := []struct {
		add  purgeSpan
		want string
	}{
		{purgeSpan{[]byte("a"), []byte("a1")}, "[a,a1)[b,d)[f,h)[m,p)"},
		{purgeSpan{[]byte("q"), []byte("r")}, "[b,d)[f,h)[m,p)[q,r)"},
		{purgeSpan{[]byte("c"), []byte("e")}, "[b,e)[f,h)[m,p)"},
		{purgeSpan{[]byte("d"), []byte("f")}, "[b,h)[m,p)"},
		{purgeSpan{[]byte("a"), []byte("z")}, "[a,z)"},
		{purgeSpan{[]byte("g"), []byte("n")}, "[b,d)[f,p)"},
		{purgeSpan{[]byte("f"), []byte("g")}, "[b,d)[f,h)[m,p)"},
	}
	for _, tt := range tests {
		t.Run(spansString([]purgeSpan{tt.add}), func(t *testing.T) {
			spans := append([]purgeSpan(nil), base...)
			if got := spansString(insertSpan(spans, tt.add)); got != tt.want {
				t.Fatalf("got %s, want %s", got, tt.want)
			}
		})
	}
}

// Ensure that past maxPurgeSpans the nearest neighbours merge, so the set
// stays bounded and still covers every deleted key.
func TestPendingSetIsBounded(t *testing.T) {
	tr := &purgeTracker{}
	for i := range 3 * maxPurgeSpans {
		k := fmt.Appendf(nil, "k%04d", i*2)
		tr.addLocked([]purgeSpan{{k, append(k, 0)}}, time.Unix(1, 0))
	}
	if len(tr.spans) > maxPurgeSpans {
		t.Fatalf("%d spans pending, want at most %d", len(tr.spans), maxPurgeSpans)
	}
	for i := range 3 * maxPurgeSpans {
		k := fmt.Appendf(nil, "k%04d", i*2)
		covered := false
		for _, s := range tr.spans {
			if string(s.start) <= string(k) && string(k) < string(s.end) {
				covered = true
			}
		}
		if !covered {
			t.Fatalf("key %s is not covered by %s", k, spansString(tr.spans))
		}
	}
}

// Ensure that a batch's spans are one per keyspace prefix, covering its
// point and range deletions and nothing it only sets.
func TestBatchSpans(t *testing.T) {
	db, err := pebble.Open("", &pebble.Options{FS: vfs.NewMem()})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	b := db.NewBatch()
	defer b.Close()
	b.Set([]byte{PrefixDocument, 'z'}, nil, nil)
	b.Delete([]byte{PrefixDocument, 'm'}, nil)
	b.Delete([]byte{PrefixDocument, 'c'}, nil)
	b.DeleteRange([]byte{PrefixIndex, 'a'}, []byte{PrefixIndex, 'q'}, nil)
	b.Delete([]byte{PrefixIndex, 'x'}, nil)
	got := spansString(batchSpans(b))
	want := spansString([]purgeSpan{
		{[]byte{PrefixDocument, 'c'}, []byte{PrefixDocument, 'm', 0}},
		{[]byte{PrefixIndex, 'a'}, []byte{PrefixIndex, 'x', 0}},
	})
	if got != want {
		t.Fatalf("spans %q, want %q", got, want)
	}
}
