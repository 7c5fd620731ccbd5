package docdb

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"pgregory.net/rapid"
)

// modelTxn is a transaction as the model sees it: the committed state at
// its start, and its own writes.
type modelTxn struct {
	txn     *Txn
	snap    map[string]int32
	local   map[string]int32
	written map[string]bool
}

// TestTxnModel runs random interleavings of transactions and plain writes
// on a few accounts and checks every answer against a model of snapshot
// isolation executed serially in commit order: a read in a transaction
// sees the state committed when it began plus its own writes (no dirty or
// non-repeatable reads), a read outside sees only committed state, the
// second writer of a document fails at once, a plain write of it waits, a commit over a document
// changed since its snapshot fails whole (no lost update), and the final
// state is the serial application of the commits in their order.
// blockedWriteDeadline bounds the model's plain writes of documents an
// open transaction owns, which wait for it.
const blockedWriteDeadline = 2 * time.Millisecond

func TestTxnModel(t *testing.T) {
	accounts := []string{"a", "b", "c", "d"}
	te := newTestEngine(t)
	run := 0
	rapid.Check(t, func(rt *rapid.T) {
		run++
		coll := fmt.Sprintf("acct%d", run)
		ctx := context.Background()
		db := map[string]int32{}
		var docs []bson.D
		for _, a := range accounts {
			db[a] = 100
			docs = append(docs, bson.D{{Key: "_id", Value: a}, {Key: "balance", Value: int32(100)}})
		}
		te.mustInsert("bank", coll, docs...)
		owner := map[string]*modelTxn{}
		var open []*modelTxn
		copyOf := func(m map[string]int32) map[string]int32 {
			out := map[string]int32{}
			for k, v := range m {
				out[k] = v
			}
			return out
		}
		end := func(m *modelTxn) {
			for k := range m.written {
				if owner[k] == m {
					delete(owner, k)
				}
			}
			for i, o := range open {
				if o == m {
					open = append(open[:i], open[i+1:]...)
					break
				}
			}
		}
		steps := rapid.IntRange(1, 60).Draw(rt, "steps")
		for i := range steps {
			op := rapid.IntRange(0, 5).Draw(rt, fmt.Sprintf("op%d", i))
			if len(open) == 0 && op != 5 {
				op = 0
			}
			switch op {
			case 0: // begin
				open = append(open, &modelTxn{txn: te.BeginTxn(), snap: copyOf(db), local: copyOf(db), written: map[string]bool{}})
			case 1: // read in a transaction
				m := rapid.SampledFrom(open).Draw(rt, "txn")
				got := te.balances(WithTxn(ctx, m.txn), coll)
				for _, a := range accounts {
					if got[a] != m.local[a] {
						rt.Fatalf("read in a transaction: %s = %d, model %d", a, got[a], m.local[a])
					}
				}
			case 2: // write in a transaction
				m := rapid.SampledFrom(open).Draw(rt, "txn")
				a := rapid.SampledFrom(accounts).Draw(rt, "account")
				by := int32(rapid.SampledFrom([]int{-10, -3, -1, 1, 2, 7}).Draw(rt, "by"))
				err := te.inc(WithTxn(ctx, m.txn), coll, a, by)
				if o := owner[a]; o != nil && o != m {
					if !errors.Is(err, ErrWriteConflict) {
						rt.Fatalf("second writer of %s: %v, want a write conflict", a, err)
					}
					// A failed statement aborts its transaction.
					m.txn.Abort()
					end(m)
					continue
				}
				if err != nil {
					rt.Fatalf("write: %v", err)
				}
				owner[a] = m
				m.written[a] = true
				m.local[a] += by
			case 3: // commit
				m := rapid.SampledFrom(open).Draw(rt, "txn")
				conflict := false
				for a := range m.written {
					// The commit's rule: a document it wrote must be as
					// its snapshot had it (a change undone since is no
					// conflict: committing then equals running the
					// transaction after it).
					conflict = conflict || db[a] != m.snap[a]
				}
				err := m.txn.Commit()
				if conflict != errors.Is(err, ErrWriteConflict) || !conflict && err != nil {
					rt.Fatalf("commit: %v, model conflict %v", err, conflict)
				}
				if !conflict {
					for a := range m.written {
						db[a] = m.local[a]
					}
				}
				end(m)
			case 4: // abort
				m := rapid.SampledFrom(open).Draw(rt, "txn")
				m.txn.Abort()
				end(m)
			case 5: // a plain write and a plain read
				a := rapid.SampledFrom(accounts).Draw(rt, "account")
				by := int32(rapid.SampledFrom([]int{-10, -3, -1, 1, 2, 7}).Draw(rt, "by"))
				if owner[a] != nil {
					// A plain write of a document an open transaction
					// owns waits for it: bounded here by a deadline, it
					// fails and writes nothing.
					wctx, cancel := context.WithTimeout(ctx, blockedWriteDeadline)
					err := te.inc(wctx, coll, a, by)
					cancel()
					if !errors.Is(err, context.DeadlineExceeded) {
						rt.Fatalf("plain write of %s owned by an open transaction: %v, want its deadline", a, err)
					}
				} else {
					if err := te.inc(ctx, coll, a, by); err != nil {
						rt.Fatalf("plain write: %v", err)
					}
					db[a] += by
				}
				got := te.balances(ctx, coll)
				for _, acc := range accounts {
					if got[acc] != db[acc] {
						rt.Fatalf("plain read: %s = %d, model %d", acc, got[acc], db[acc])
					}
				}
			}
		}
		for _, m := range append([]*modelTxn(nil), open...) {
			m.txn.Abort()
			end(m)
		}
		got := te.balances(ctx, coll)
		for _, a := range accounts {
			if got[a] != db[a] {
				rt.Fatalf("final %s = %d, serial model %d", a, got[a], db[a])
			}
		}
	})
}
