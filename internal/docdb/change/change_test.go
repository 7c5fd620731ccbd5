package change

import (
	"errors"
	"testing"

	"github.com/mayfly/mayfly/internal/storage"
)

// Ensure that a Batch keeps the earliest wake-up asked for until it is
// taken, and that its writes go to the storage batch it is bound to.
func TestBatch(t *testing.T) {
	st, err := storage.Open(storage.Options{Dir: "mem", InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var cb Batch
	if _, ok := cb.TakeWake(); ok {
		t.Fatal("a new batch has a wake-up")
	}
	cb.WakeAt(300)
	cb.WakeAt(100)
	cb.WakeAt(200)
	if due, ok := cb.TakeWake(); !ok || due != 100 {
		t.Fatalf("TakeWake = %d, %v; want 100, true", due, ok)
	}
	if _, ok := cb.TakeWake(); ok {
		t.Fatal("a taken wake-up is still there")
	}

	b := st.NewBatch()
	cb.Bind(b)
	key, gone := []byte{storage.PrefixEvents, 1}, []byte{storage.PrefixEvents, 2}
	if err := cb.Set(key, []byte("v")); err != nil {
		t.Fatal(err)
	}
	if err := cb.Delete(gone); err != nil {
		t.Fatal(err)
	}
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	b.Close()
	if v, err := st.Get(key); err != nil || string(v) != "v" {
		t.Fatalf("Get = %q, %v", v, err)
	}
	if _, err := st.Get(gone); !errors.Is(err, storage.ErrNotFound) {
		t.Fatalf("deleted key: %v", err)
	}
}
