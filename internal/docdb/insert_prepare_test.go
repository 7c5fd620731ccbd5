package docdb

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
)

// Ensure that documents prepared before the collection is locked still
// report their errors in statement order among the errors the writer
// finds (duplicate keys), that an ordered insert stops at the first of
// either kind, and that a collection is created even when every document
// fails, as before.
func TestInsertPreparedErrorsInOrder(t *testing.T) {
	docs := []bson.Raw{
		raw(t, bson.D{{Key: "_id", Value: int32(1)}}),
		raw(t, bson.D{{Key: "_id", Value: int32(1)}}),                 // duplicate: found under the lock
		raw(t, bson.D{{Key: "_id", Value: bson.A{int32(2)}}}),         // invalid _id: found while preparing
		raw(t, bson.D{{Key: "v", Value: int32(3)}}),                   // _id generated
		raw(t, bson.D{{Key: "_id", Value: bson.Regex{Pattern: "x"}}}), // invalid _id
	}
	tests := []struct {
		name    string
		ordered bool
		n       int64
		errs    []int
		codes   []mongoerr.Code
	}{
		{"ordered", true, 1, []int{1}, []mongoerr.Code{mongoerr.DuplicateKey}},
		{"unordered", false, 2, []int{1, 2, 4}, []mongoerr.Code{mongoerr.DuplicateKey, mongoerr.InvalidIdField, mongoerr.InvalidIdField}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			te := newTestEngine(t)
			res, err := te.Insert(t.Context(), "db", "c", InsertRequest{Documents: docs, Ordered: tt.ordered})
			if err != nil {
				t.Fatal(err)
			}
			if res.N != tt.n || len(res.WriteErrors) != len(tt.errs) {
				t.Fatalf("got %+v", res)
			}
			for i, we := range res.WriteErrors {
				if we.Index != tt.errs[i] {
					t.Fatalf("write error %d at index %d, want %d", i, we.Index, tt.errs[i])
				}
				wantCode(t, we.Err, tt.codes[i], "")
			}
			if got := len(te.storedDocs("db", "c")); int64(got) != tt.n {
				t.Fatalf("%d documents stored, want %d", got, tt.n)
			}
		})
	}
	t.Run("past the documents prepared ahead", func(t *testing.T) {
		te := newTestEngine(t)
		var big []bson.Raw
		for i := range prepareAhead + 10 {
			big = append(big, raw(t, bson.D{{Key: "_id", Value: int32(i)}}))
		}
		big[prepareAhead-1] = docs[2]                                       // invalid, prepared ahead
		big[prepareAhead+3] = raw(t, bson.D{{Key: "_id", Value: int32(0)}}) // duplicate, prepared under the lock
		big[prepareAhead+5] = docs[4]                                       // invalid, prepared under the lock
		res, err := te.Insert(t.Context(), "db", "c", InsertRequest{Documents: big})
		if err != nil {
			t.Fatal(err)
		}
		want := []int{prepareAhead - 1, prepareAhead + 3, prepareAhead + 5}
		if res.N != int64(len(big)-len(want)) || len(res.WriteErrors) != len(want) {
			t.Fatalf("got N %d and %d write errors", res.N, len(res.WriteErrors))
		}
		for i, we := range res.WriteErrors {
			if we.Index != want[i] {
				t.Fatalf("write error %d at index %d, want %d", i, we.Index, want[i])
			}
		}
	})
	t.Run("all fail", func(t *testing.T) {
		te := newTestEngine(t)
		res, err := te.Insert(t.Context(), "db", "c", InsertRequest{Documents: docs[2:3], Ordered: true})
		if err != nil || res.N != 0 || len(res.WriteErrors) != 1 {
			t.Fatalf("got %+v, %v", res, err)
		}
		if te.lookupColl("db", "c") == nil {
			t.Fatal("the collection was not created")
		}
	})
}
