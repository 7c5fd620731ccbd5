package docdb

import (
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
)

func d(kv ...any) bson.D {
	out := bson.D{}
	for i := 0; i+1 < len(kv); i += 2 {
		out = append(out, bson.E{Key: kv[i].(string), Value: kv[i+1]})
	}
	return out
}

// indexSpecs returns trusted specs ({key, name, options...}, options as
// stored) as CreateIndexes takes them.
func indexSpecs(ds ...bson.D) []IndexSpec {
	out := make([]IndexSpec, len(ds))
	for i, d := range ds {
		out[i] = storedIndexSpec(d)
	}
	return out
}

func (te *testEngine) mustCreateIndexes(db, coll string, specs ...bson.D) CreateIndexesResult {
	te.t.Helper()
	res, err := te.CreateIndexes(te.t.Context(), db, coll, indexSpecs(specs...))
	if err != nil {
		te.t.Fatal(err)
	}
	return res
}

func (te *testEngine) indexList(db, coll string) string {
	te.t.Helper()
	l, err := te.ListIndexes(te.t.Context(), db, coll)
	if err != nil {
		te.t.Fatal(err)
	}
	var s []string
	for _, ix := range l {
		s = append(s, fmtDoc(ix))
	}
	return strings.Join(s, "\n")
}

func TestCreateIndexesAndList(t *testing.T) {
	te := newTestEngine(t)
	res := te.mustCreateIndexes("db", "c",
		d("key", d("a", int32(1)), "name", "a_1", "unique", true),
		d("key", d("b", int32(-1), "c", int32(1)), "name", "b_-1_c_1", "sparse", true),
		d("key", d("t", int32(1)), "name", "t_1", "expireAfterSeconds", int32(3600)),
	)
	if res.NumIndexesBefore != 1 || res.NumIndexesAfter != 4 || !res.CreatedCollectionAutomatically || res.Note != "" {
		t.Fatalf("%+v", res)
	}
	want := `{ v: 2, key: { _id: 1 }, name: "_id_" }
{ v: 2, key: { a: 1 }, name: "a_1", unique: true }
{ v: 2, key: { b: -1, c: 1 }, name: "b_-1_c_1", sparse: true }
{ v: 2, key: { t: 1 }, name: "t_1", expireAfterSeconds: 3600 }`
	if got := te.indexList("db", "c"); got != want {
		t.Fatalf("listIndexes\n%s\nwant\n%s", got, want)
	}
	te.reopen()
	if got := te.indexList("db", "c"); got != want {
		t.Fatalf("listIndexes after reopen\n%s", got)
	}
	// MongoDB rule: an identical index is a no-op with a note.
	res = te.mustCreateIndexes("db", "c", d("key", d("a", int32(1)), "name", "a_1", "unique", true))
	if res.NumIndexesBefore != 4 || res.NumIndexesAfter != 4 || res.Note != "all indexes already exist" || res.CreatedCollectionAutomatically {
		t.Fatalf("%+v", res)
	}
	_, err := te.ListIndexes(t.Context(), "db", "missing")
	wantCode(t, err, mongoerr.NamespaceNotFound, "ns does not exist: db.missing")
}

func TestCreateIndexesConflicts(t *testing.T) {
	te := newTestEngine(t)
	te.mustCreateIndexes("db", "c",
		d("key", d("x", int32(1)), "name", "x_1"),
		d("key", d("t", int32(1)), "name", "t_1", "expireAfterSeconds", int32(60)),
	)
	tests := []struct {
		name string
		spec bson.D
		code mongoerr.Code
		msg  string
	}{
		{"same name and key, TTL added", d("key", d("x", int32(1)), "name", "x_1", "expireAfterSeconds", int32(10)), mongoerr.IndexOptionsConflict,
			`An equivalent index already exists with the same name but different options. Requested index: { v: 2, expireAfterSeconds: 10, key: { x: 1 }, name: "x_1" }, existing index: { v: 2, key: { x: 1 }, name: "x_1" }`},
		{"same name and key, TTL changed", d("key", d("t", int32(1)), "name", "t_1", "expireAfterSeconds", int32(120)), mongoerr.IndexOptionsConflict,
			`An equivalent index already exists with the same name but different options. Requested index: { v: 2, expireAfterSeconds: 120, key: { t: 1 }, name: "t_1" }, existing index: { v: 2, expireAfterSeconds: 60, key: { t: 1 }, name: "t_1" }`},
		{"different name, same key and options", d("key", d("x", int32(1)), "name", "other"), mongoerr.IndexOptionsConflict,
			"Index already exists with a different name: x_1"},
		{"different name, same key, other options", d("key", d("t", int32(1)), "name", "t2", "expireAfterSeconds", int32(5)), mongoerr.IndexOptionsConflict,
			`An equivalent index already exists with a different name and options. Requested index: { v: 2, expireAfterSeconds: 5, key: { t: 1 }, name: "t2" }, existing index: { v: 2, expireAfterSeconds: 60, key: { t: 1 }, name: "t_1" }`},
		{"same name, different key", d("key", d("y", int32(1)), "name", "x_1"), mongoerr.IndexKeySpecsConflict, ""},
		{"same name, now unique", d("key", d("x", int32(1)), "name", "x_1", "unique", true), mongoerr.IndexKeySpecsConflict, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := te.CreateIndexes(t.Context(), "db", "c", indexSpecs(tc.spec))
			wantCode(t, err, tc.code, tc.msg)
		})
	}
	t.Run("same key with another partial filter is another index", func(t *testing.T) {
		te.mustCreateIndexes("db", "c", d("key", d("x", int32(1)), "name", "x_p", "partialFilterExpression", d("y", d("$gt", int32(1)))))
	})
}

func TestUniqueIndexes(t *testing.T) {
	te := newTestEngine(t)
	ctx := t.Context()
	te.mustCreateIndexes("db", "u", d("key", d("email", int32(1)), "name", "email_1", "unique", true))
	te.mustInsert("db", "u", d("_id", int32(1), "email", "a@x"))
	insertErr := func(doc bson.D) error {
		res, err := te.Insert(ctx, "db", "u", InsertRequest{Documents: []bson.Raw{raw(t, doc)}})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.WriteErrors) == 0 {
			return nil
		}
		return res.WriteErrors[0].Err
	}
	me := wantCode(t, insertErr(d("_id", int32(2), "email", "a@x")), mongoerr.DuplicateKey,
		`E11000 duplicate key error collection: db.u index: email_1 dup key: { email: "a@x" }`)
	if fmtDoc(me.Info["keyPattern"].(bson.D)) != "{ email: 1 }" || fmtDoc(me.Info["keyValue"].(bson.D)) != `{ email: "a@x" }` {
		t.Fatalf("info %v", me.Info)
	}
	// MongoDB rule: a missing field indexes as null, so only one document
	// may lack a unique field.
	if err := insertErr(d("_id", int32(3))); err != nil {
		t.Fatal(err)
	}
	wantCode(t, insertErr(d("_id", int32(4))), mongoerr.DuplicateKey,
		"E11000 duplicate key error collection: db.u index: email_1 dup key: { email: null }")
	// Multikey: an array element collides with a scalar.
	wantCode(t, insertErr(d("_id", int32(5), "email", bson.A{"b@x", "a@x"})), mongoerr.DuplicateKey, "")

	t.Run("sparse unique allows many missing", func(t *testing.T) {
		te.mustCreateIndexes("db", "s", d("key", d("k", int32(1)), "name", "k_1", "unique", true, "sparse", true))
		te.mustInsert("db", "s", d("_id", int32(1)), d("_id", int32(2)), d("_id", int32(3), "k", int32(1)))
	})
	t.Run("partial unique only among matching documents", func(t *testing.T) {
		te.mustCreateIndexes("db", "p", d("key", d("k", int32(1)), "name", "k_1", "unique", true,
			"partialFilterExpression", d("live", true)))
		te.mustInsert("db", "p", d("_id", int32(1), "k", int32(1), "live", false), d("_id", int32(2), "k", int32(1), "live", true))
		res, _ := te.Insert(ctx, "db", "p", InsertRequest{Documents: []bson.Raw{raw(t, d("_id", int32(3), "k", int32(1), "live", true))}})
		if len(res.WriteErrors) != 1 {
			t.Fatalf("%+v", res)
		}
	})
	t.Run("a unique build over duplicates fails and leaves no index", func(t *testing.T) {
		te.mustInsert("db", "dups", d("_id", int32(1), "v", int32(7)), d("_id", int32(2), "v", int64(7)))
		_, err := te.CreateIndexes(ctx, "db", "dups", indexSpecs(d("key", d("v", int32(1)), "name", "v_1", "unique", true)))
		me := wantCode(t, err, mongoerr.DuplicateKey, "")
		if !strings.HasPrefix(me.Message, "Index build failed: ") ||
			!strings.HasSuffix(me.Message, ":: caused by :: E11000 duplicate key error collection: db.dups index: v_1 dup key: { v: 7 }") {
			t.Fatalf("message %q", me.Message)
		}
		if got := te.indexList("db", "dups"); strings.Contains(got, "v_1") {
			t.Fatalf("index left behind: %s", got)
		}
	})
}

func TestMultikeyAndParallelArrays(t *testing.T) {
	te := newTestEngine(t)
	te.mustCreateIndexes("db", "m", d("key", d("a", int32(1), "b", int32(1)), "name", "a_1_b_1"))
	te.mustInsert("db", "m",
		d("_id", int32(1), "a", bson.A{int32(1), int32(2), int32(1)}, "b", "x"),
		d("_id", int32(2), "a", bson.A{}, "b", int32(3)),
		d("_id", int32(3), "a", bson.A{d("c", int32(1)), int32(4)}),
	)
	res, err := te.Insert(t.Context(), "db", "m", InsertRequest{Documents: []bson.Raw{raw(t, d("_id", int32(4), "a", bson.A{int32(1)}, "b", bson.A{int32(2)}))}})
	if err != nil || len(res.WriteErrors) != 1 {
		t.Fatalf("%+v %v", res, err)
	}
	// MongoDB rule: two arrays in one compound key cannot be indexed.
	wantCode(t, res.WriteErrors[0].Err, mongoerr.CannotIndexParallelArrays, "cannot index parallel arrays [b] [a]")
	c := te.lookupColl("db", "m")
	if !c.Meta.Index("a_1_b_1").Multikey {
		t.Fatal("index not marked multikey")
	}
	te.reopen()
	if !te.lookupColl("db", "m").Meta.Index("a_1_b_1").Multikey {
		t.Fatal("multikey flag not persisted")
	}
}

func TestDropIndexes(t *testing.T) {
	te := newTestEngine(t)
	ctx := t.Context()
	setup := func(coll string) {
		te.mustInsert("db", coll, d("_id", int32(1), "a", int32(1), "b", int32(2)))
		te.mustCreateIndexes("db", coll,
			d("key", d("a", int32(1)), "name", "a_1"),
			d("key", d("b", int32(1)), "name", "b_1"),
			d("key", d("a", int32(1), "b", int32(1)), "name", "a_1_b_1"),
		)
	}
	setup("c")
	tests := []struct {
		name  string
		index DropIndexesRequest
		code  mongoerr.Code
		msg   string
	}{
		{"_id_ by name", DropIndexesRequest{Names: []string{"_id_"}}, mongoerr.InvalidOptions, "cannot drop _id index"},
		{"_id_ by key", DropIndexesRequest{KeyPattern: d("_id", int32(1))}, mongoerr.InvalidOptions, "cannot drop _id index"},
		{"_id_ in a list", DropIndexesRequest{Names: []string{"a_1", "_id_"}}, mongoerr.InvalidOptions, "cannot drop _id index"},
		{"missing name", DropIndexesRequest{Names: []string{"nope"}}, mongoerr.IndexNotFound, "index not found with name [nope]"},
		{"missing in a list", DropIndexesRequest{Names: []string{"a_1", "nope"}}, mongoerr.IndexNotFound, "index not found with name [nope]"},
		{"missing key", DropIndexesRequest{KeyPattern: d("z", int32(1))}, mongoerr.IndexNotFound, "can't find index with key: { z: 1 }"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := te.DropIndexes(ctx, "db", "c", tc.index)
			wantCode(t, err, tc.code, tc.msg)
		})
	}
	if n, err := te.DropIndexes(ctx, "db", "c", DropIndexesRequest{KeyPattern: d("b", int32(1))}); err != nil || n != 4 {
		t.Fatalf("by key: %d %v", n, err)
	}
	if n, err := te.DropIndexes(ctx, "db", "c", DropIndexesRequest{Names: []string{"a_1"}}); err != nil || n != 3 {
		t.Fatalf("by list: %d %v", n, err)
	}
	if n, err := te.DropIndexes(ctx, "db", "c", DropIndexesRequest{All: true}); err != nil || n != 2 {
		t.Fatalf("all: %d %v", n, err)
	}
	if got := te.indexList("db", "c"); got != `{ v: 2, key: { _id: 1 }, name: "_id_" }` {
		t.Fatalf("left %s", got)
	}
	_, err := te.DropIndexes(ctx, "db", "missing", DropIndexesRequest{All: true})
	wantCode(t, err, mongoerr.NamespaceNotFound, "ns not found db.missing")
}
