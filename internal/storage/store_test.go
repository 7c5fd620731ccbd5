package storage_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/mayfly/mayfly/internal/storage"
)

func openMem(t *testing.T) *storage.Store {
	t.Helper()
	s, err := storage.Open(storage.Options{Dir: "mem", InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func commit(t *testing.T, s *storage.Store, f func(b *storage.Batch)) {
	t.Helper()
	b := s.NewBatch()
	defer b.Close()
	f(b)
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
}

func keys(t *testing.T, r storage.Reader, lower, upper []byte) []string {
	t.Helper()
	it, err := r.NewIter(lower, upper)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for ok := it.First(); ok; ok = it.Next() {
		out = append(out, string(it.Key()))
	}
	if err := it.Close(); err != nil {
		t.Fatal(err)
	}
	return out
}

// Ensure that a batch is applied atomically and Get returns a copy.
func TestBatchAndGet(t *testing.T) {
	s := openMem(t)
	b := s.NewBatch()
	b.Set([]byte("a"), []byte("1"))
	b.Set([]byte("b"), []byte("2"))
	if _, err := s.Get([]byte("a")); !errors.Is(err, storage.ErrNotFound) {
		t.Fatalf("uncommitted write visible: %v", err)
	}
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	b.Close()
	v, err := s.Get([]byte("a"))
	if err != nil || string(v) != "1" {
		t.Fatalf("Get(a) = %q, %v", v, err)
	}
	v[0] = 'x'
	if v2, _ := s.Get([]byte("a")); string(v2) != "1" {
		t.Fatalf("Get did not return a copy")
	}
}

// Ensure that Keys lists every write of a batch in order, with the end of
// a range deletion, for a plain batch and an indexed one.
func TestBatchKeys(t *testing.T) {
	s := openMem(t)
	for _, b := range []*storage.Batch{s.NewBatch(), s.NewIndexedBatch()} {
		b.Set([]byte("a"), []byte("1"))
		b.Delete([]byte("b"))
		b.DeleteRange([]byte("c"), []byte("d"))
		b.Set([]byte("a"), []byte("2"))
		var got []string
		if err := b.Keys(func(key, end []byte) { got = append(got, string(key)+"-"+string(end)) }); err != nil {
			t.Fatal(err)
		}
		if want := []string{"a-", "b-", "c-d", "a-"}; !slices.Equal(got, want) {
			t.Fatalf("Keys (indexed %v) = %q, want %q", b.Indexed(), got, want)
		}
		b.Close()
	}
	empty := s.NewBatch()
	defer empty.Close()
	if err := empty.Keys(func(key, end []byte) { t.Fatalf("empty batch listed %q", key) }); err != nil {
		t.Fatal(err)
	}
}

// Ensure that an indexed batch reads its own writes and a plain one refuses reads.
func TestIndexedBatch(t *testing.T) {
	s := openMem(t)
	commit(t, s, func(b *storage.Batch) { b.Set([]byte("k1"), []byte("old")) })
	b := s.NewIndexedBatch()
	defer b.Close()
	b.Set([]byte("k1"), []byte("new"))
	b.Set([]byte("k2"), []byte("v"))
	if v, err := b.Get([]byte("k1")); err != nil || string(v) != "new" {
		t.Fatalf("batch Get = %q, %v", v, err)
	}
	if got := keys(t, b, []byte("k"), []byte("l")); len(got) != 2 {
		t.Fatalf("batch iter = %v", got)
	}
	plain := s.NewBatch()
	defer plain.Close()
	if _, err := plain.Get([]byte("k1")); !errors.Is(err, storage.ErrNotIndexed) {
		t.Fatalf("plain batch Get err = %v", err)
	}
}

// Ensure that iterators honour bounds, range deletes remove a whole range and
// snapshots do not see later writes.
func TestIterRangeDeleteSnapshot(t *testing.T) {
	s := openMem(t)
	commit(t, s, func(b *storage.Batch) {
		for _, k := range []string{"a1", "a2", "a3", "b1", "c1"} {
			b.Set([]byte(k), []byte("v"))
		}
	})
	if got := keys(t, s, []byte("a"), storage.PrefixEnd([]byte("a"))); len(got) != 3 {
		t.Fatalf("prefix a = %v", got)
	}
	snap := s.NewSnapshot()
	defer snap.Close()
	commit(t, s, func(b *storage.Batch) { b.DeleteRange([]byte("a"), []byte("b")) })
	if got := keys(t, s, nil, nil); len(got) != 2 {
		t.Fatalf("after range delete = %v", got)
	}
	if got := keys(t, snap, nil, nil); len(got) != 5 {
		t.Fatalf("snapshot = %v", got)
	}
	if err := s.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := s.Compact(t.Context(), []byte("a"), []byte("z")); err != nil {
		t.Fatal(err)
	}
}

func TestPrefixEnd(t *testing.T) {
	cases := []struct{ in, want []byte }{
		{[]byte{1}, []byte{2}},
		{[]byte{1, 0xff}, []byte{2}},
		{[]byte{0xff, 0xff}, nil},
		{[]byte("ab"), []byte("ac")},
	}
	for _, c := range cases {
		if got := storage.PrefixEnd(c.in); !bytes.Equal(got, c.want) {
			t.Errorf("PrefixEnd(%x) = %x, want %x", c.in, got, c.want)
		}
	}
}

// Ensure that data survives a close and reopen under both durability modes,
// and that a second opener of the same directory gets ErrLocked.
func TestReopenAndLock(t *testing.T) {
	for _, d := range []storage.Durability{storage.DurabilityGroup, storage.DurabilitySync} {
		t.Run(d.String(), func(t *testing.T) {
			dir := t.TempDir()
			s, err := storage.Open(storage.Options{Dir: dir, Durability: d})
			if err != nil {
				t.Fatal(err)
			}
			commit(t, s, func(b *storage.Batch) { b.Set([]byte("k"), []byte("v")) })
			if _, err := storage.Open(storage.Options{Dir: dir}); !errors.Is(err, storage.ErrLocked) {
				t.Fatalf("second open: err = %v, want ErrLocked", err)
			}
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			if err := s.Close(); err != nil {
				t.Fatalf("second Close: %v", err)
			}
			s2, err := storage.Open(storage.Options{Dir: dir, Durability: d})
			if err != nil {
				t.Fatal(err)
			}
			defer s2.Close()
			if v, err := s2.Get([]byte("k")); err != nil || string(v) != "v" {
				t.Fatalf("after reopen Get = %q, %v", v, err)
			}
		})
	}
}

// Ensure that a data directory that cannot be created gives an error naming it.
func TestOpenUnusableDir(t *testing.T) {
	parent := t.TempDir()
	file := filepath.Join(parent, "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := storage.Open(storage.Options{Dir: filepath.Join(file, "data")})
	if err == nil {
		t.Fatal("open under a regular file succeeded")
	}
	if !bytes.Contains([]byte(err.Error()), []byte(file)) {
		t.Fatalf("error does not name the directory: %v", err)
	}
}

func TestParseDurability(t *testing.T) {
	for in, want := range map[string]storage.Durability{"sync": storage.DurabilitySync, "group": storage.DurabilityGroup} {
		got, err := storage.ParseDurability(in)
		if err != nil || got != want {
			t.Errorf("ParseDurability(%q) = %v, %v", in, got, err)
		}
	}
	if _, err := storage.ParseDurability("fsync"); err == nil {
		t.Error("ParseDurability(fsync) succeeded")
	}
}

func TestMetrics(t *testing.T) {
	s := openMem(t)
	commit(t, s, func(b *storage.Batch) { b.Set([]byte("k"), bytes.Repeat([]byte("v"), 1000)) })
	if err := s.Flush(); err != nil {
		t.Fatal(err)
	}
	m := s.Metrics()
	if m.TableCount < 1 || m.Flushes < 1 {
		t.Fatalf("metrics after flush: %s", m)
	}
}

// Ensure that ApplyReplicated neither keeps nor changes the batch
// representations it is given: a replica set member applies raft's cached
// log entries, which the leader goes on sending to other members.
func TestApplyReplicatedLeavesItsInputAlone(t *testing.T) {
	s := openMem(t)
	repr := func(k, v string) []byte {
		b := s.NewBatch()
		defer b.Close()
		b.Set([]byte(k), []byte(v))
		return slices.Clone(b.Repr())
	}
	reprs := [][]byte{repr("a", "1"), repr("b", "2"), repr("c", "3")}
	given := make([][]byte, len(reprs))
	for i, r := range reprs {
		given[i] = slices.Clone(r)
	}
	if err := s.ApplyReplicated(reprs...); err != nil {
		t.Fatal(err)
	}
	for i := range 8 {
		commit(t, s, func(b *storage.Batch) { b.Set([]byte{'z', byte(i)}, bytes.Repeat([]byte("x"), 64)) })
	}
	for i := range reprs {
		if !bytes.Equal(reprs[i], given[i]) {
			t.Fatalf("representation %d changed: %x, was %x", i, reprs[i], given[i])
		}
	}
	for k, want := range map[string]string{"a": "1", "b": "2", "c": "3"} {
		if v, err := s.Get([]byte(k)); err != nil || string(v) != want {
			t.Fatalf("Get(%q) = %q, %v; want %q", k, v, err, want)
		}
	}
}
