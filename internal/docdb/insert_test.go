package docdb

import (
	"bytes"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
)

func TestInsertStoresBytesExactly(t *testing.T) {
	te := newTestEngine(t)
	// MongoDB rule: a document is stored as sent (field order and types)
	// when _id is already its first field.
	d := bson.D{
		{Key: "_id", Value: int32(7)},
		{Key: "z", Value: int64(1)},
		{Key: "a", Value: 1.5},
		{Key: "d", Value: bson.Decimal128{}},
		{Key: "n", Value: bson.D{{Key: "y", Value: bson.A{int32(1), "x"}}}},
	}
	sent := raw(t, d)
	te.mustInsert("db", "c", d)
	got := te.storedDocs("db", "c")
	if len(got) != 1 || !bytes.Equal(got[0], sent) {
		t.Fatalf("stored %v, sent %v", got, sent)
	}
}

func TestInsertIDRules(t *testing.T) {
	te := newTestEngine(t)
	t.Run("a missing _id is generated as the first field", func(t *testing.T) {
		te.mustInsert("db", "gen", bson.D{{Key: "a", Value: 1}})
		got := te.storedDocs("db", "gen")
		elems, _ := got[0].Elements()
		if elems[0].Key() != "_id" || elems[0].Value().Type != bson.TypeObjectID || elems[1].Key() != "a" {
			t.Fatalf("stored %v", got[0])
		}
	})
	t.Run("_id is moved to the front", func(t *testing.T) {
		te.mustInsert("db", "move", bson.D{{Key: "a", Value: 1}, {Key: "_id", Value: "x"}, {Key: "b", Value: 2}})
		got := te.storedDocs("db", "move")
		want := raw(t, bson.D{{Key: "_id", Value: "x"}, {Key: "a", Value: 1}, {Key: "b", Value: 2}})
		if !bytes.Equal(got[0], want) {
			t.Fatalf("stored %v, want %v", got[0], want)
		}
	})
	t.Run("Timestamp(0,0) is filled in", func(t *testing.T) {
		te.mustInsert("db", "ts", bson.D{{Key: "_id", Value: 1}, {Key: "t", Value: bson.Timestamp{}}})
		got := te.storedDocs("db", "ts")
		tt, _ := got[0].Lookup("t").Timestamp()
		if int64(tt) != te.clock.Now().Unix() {
			t.Fatalf("timestamp %v", got[0])
		}
	})
	invalid := []struct {
		name string
		id   any
		code mongoerr.Code
		msg  string
	}{
		{"array _id", bson.A{1}, mongoerr.InvalidIdField, "The '_id' value cannot be of type array"},
		{"regex _id", bson.Regex{Pattern: "a"}, mongoerr.InvalidIdField, "The '_id' value cannot be of type regex"},
		{"undefined _id", bson.Undefined{}, mongoerr.InvalidIdField, "The '_id' value cannot be of type undefined"},
		{"$-field in _id", bson.D{{Key: "$a", Value: 1}}, mongoerr.DollarPrefixedFieldName, ""},
	}
	for _, tc := range invalid {
		t.Run(tc.name, func(t *testing.T) {
			res, err := te.Insert(t.Context(), "db", "bad", InsertRequest{Documents: []bson.Raw{raw(t, bson.D{{Key: "_id", Value: tc.id}})}})
			if err != nil || len(res.WriteErrors) != 1 {
				t.Fatalf("%+v %v", res, err)
			}
			wantCode(t, res.WriteErrors[0].Err, tc.code, tc.msg)
		})
	}
}

func TestInsertDuplicateID(t *testing.T) {
	te := newTestEngine(t)
	ctx := t.Context()
	docs := []bson.Raw{
		raw(t, bson.D{{Key: "_id", Value: int32(1)}}),
		raw(t, bson.D{{Key: "_id", Value: 1.0}}), // equal to 1 in MongoDB's order
		raw(t, bson.D{{Key: "_id", Value: int32(2)}}),
	}
	t.Run("ordered stops at the first error", func(t *testing.T) {
		res, err := te.Insert(ctx, "db", "ord", InsertRequest{Documents: docs, Ordered: true})
		if err != nil {
			t.Fatal(err)
		}
		if res.N != 1 || len(res.WriteErrors) != 1 || res.WriteErrors[0].Index != 1 {
			t.Fatalf("%+v", res)
		}
		me := wantCode(t, res.WriteErrors[0].Err, mongoerr.DuplicateKey,
			"E11000 duplicate key error collection: db.ord index: _id_ dup key: { _id: 1.0 }")
		if fmtDoc(me.Info["keyPattern"].(bson.D)) != "{ _id: 1 }" || fmtDoc(me.Info["keyValue"].(bson.D)) != "{ _id: 1.0 }" {
			t.Fatalf("info %v", me.Info)
		}
	})
	t.Run("unordered goes on", func(t *testing.T) {
		res, err := te.Insert(ctx, "db", "unord", InsertRequest{Documents: docs})
		if err != nil {
			t.Fatal(err)
		}
		if res.N != 2 || len(res.WriteErrors) != 1 || res.WriteErrors[0].Index != 1 {
			t.Fatalf("%+v", res)
		}
	})
	t.Run("duplicate within one batch", func(t *testing.T) {
		res, _ := te.Insert(ctx, "db", "same", InsertRequest{Documents: []bson.Raw{docs[0], docs[0]}})
		if res.N != 1 || len(res.WriteErrors) != 1 {
			t.Fatalf("%+v", res)
		}
	})
}

func TestInsertDocumentTooLarge(t *testing.T) {
	te := newTestEngine(t)
	big := strings.Repeat("x", DefaultMaxDocumentSize)
	res, err := te.Insert(t.Context(), "db", "c", InsertRequest{Documents: []bson.Raw{raw(t, bson.D{{Key: "s", Value: big}})}})
	if err != nil || len(res.WriteErrors) != 1 {
		t.Fatalf("%+v %v", res, err)
	}
	wantCode(t, res.WriteErrors[0].Err, mongoerr.BSONObjectTooLarge, "")
}

func TestInsertBatchLimits(t *testing.T) {
	te := newTestEngine(t)
	// More documents than one storage batch holds.
	var docs []bson.Raw
	for i := 0; i < 2*maxBatchDocs+5; i++ {
		docs = append(docs, raw(t, bson.D{{Key: "_id", Value: i}}))
	}
	res, err := te.Insert(t.Context(), "db", "c", InsertRequest{Documents: docs, Ordered: true})
	if err != nil || res.N != int64(len(docs)) {
		t.Fatalf("%+v %v", res, err)
	}
	te.reopen()
	st, err := te.CollStats(t.Context(), "db", "c")
	if err != nil {
		t.Fatal(err)
	}
	if st.Count != int64(len(docs)) {
		t.Fatalf("count %d after reopen", st.Count)
	}
}
