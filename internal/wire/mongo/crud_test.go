package mongo_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	drv "go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/writeconcern"
)

var bg = context.Background()

func insertN(t testing.TB, c *drv.Collection, n int) {
	t.Helper()
	docs := make([]any, n)
	for i := range docs {
		docs[i] = bson.D{{Key: "_id", Value: i}, {Key: "x", Value: i % 10}}
	}
	if _, err := c.InsertMany(bg, docs); err != nil {
		t.Fatal(err)
	}
}

func TestInsert(t *testing.T) {
	t.Parallel()
	ts := startServer(t)
	cl := ts.client(t)
	db := cl.Database("test")
	c := db.Collection("c")

	r := mustRun(t, db, bson.D{{Key: "insert", Value: "c"}, {Key: "documents", Value: bson.A{bson.D{{Key: "_id", Value: 1}}}}})
	if lookup(t, r, "n").Int32() != 1 {
		t.Fatalf("reply %v", r)
	}

	t.Run("ordered duplicate", func(t *testing.T) {
		r := run(t, db, bson.D{{Key: "insert", Value: "c"}, {Key: "documents", Value: bson.A{
			bson.D{{Key: "_id", Value: 2}}, bson.D{{Key: "_id", Value: 1}}, bson.D{{Key: "_id", Value: 3}},
		}}})
		if lookup(t, r, "n").Int32() != 1 || lookup(t, r, "ok").Double() != 1 {
			t.Fatalf("reply %v", r)
		}
		we := lookup(t, r, "writeErrors").Array().Index(0).Document()
		if lookup(t, we, "index").Int32() != 1 || lookup(t, we, "code").Int32() != 11000 {
			t.Fatalf("write error %v", we)
		}
		if !bytes.Equal(lookup(t, we, "keyPattern").Document(), mustBSON(t, bson.D{{Key: "_id", Value: 1}})) ||
			!bytes.Equal(lookup(t, we, "keyValue").Document(), mustBSON(t, bson.D{{Key: "_id", Value: 1}})) {
			t.Fatalf("keyPattern/keyValue %v", we)
		}
		if msg := lookup(t, we, "errmsg").StringValue(); msg != "E11000 duplicate key error collection: test.c index: _id_ dup key: { _id: 1 }" {
			t.Fatalf("errmsg %q", msg)
		}
	})
	t.Run("unordered duplicate", func(t *testing.T) {
		_, err := c.InsertMany(bg, []any{bson.D{{Key: "_id", Value: 1}}, bson.D{{Key: "_id", Value: 10}}, bson.D{{Key: "_id", Value: 11}}},
			options.InsertMany().SetOrdered(false))
		var bwe drv.BulkWriteException
		if !errors.As(err, &bwe) || len(bwe.WriteErrors) != 1 || bwe.WriteErrors[0].Index != 0 || bwe.WriteErrors[0].Code != 11000 {
			t.Fatalf("err = %v", err)
		}
		if n, _ := c.CountDocuments(bg, bson.D{{Key: "_id", Value: bson.D{{Key: "$in", Value: bson.A{10, 11}}}}}); n != 2 {
			t.Fatalf("unordered insert stopped: %d", n)
		}
	})
	t.Run("unacknowledged", func(t *testing.T) {
		// One pooled connection: the server answers a connection's
		// requests in order, so the find after the w:0 insert sees it.
		one, err := drv.Connect(options.Client().ApplyURI("mongodb://" + ts.addr + "/?directConnection=true").SetMaxPoolSize(1))
		if err != nil {
			t.Fatal(err)
		}
		defer one.Disconnect(bg)
		w0 := one.Database("test").Collection("c", options.Collection().SetWriteConcern(writeconcern.Unacknowledged()))
		if _, err := w0.InsertOne(bg, bson.D{{Key: "_id", Value: "w0"}}); err != nil {
			t.Fatal(err)
		}
		if err := one.Database("test").Collection("c").FindOne(bg, bson.D{{Key: "_id", Value: "w0"}}).Err(); err != nil {
			t.Fatalf("w:0 insert not applied before the next request: %v", err)
		}
	})
	errCases := []struct {
		name string
		cmd  bson.D
		code int32
		cn   string
		msg  string
	}{
		{"no documents", bson.D{{Key: "insert", Value: "c"}}, 40414, "IDLFailedToParse", "BSON field 'insert.documents' is missing but a required field"},
		{"empty documents", bson.D{{Key: "insert", Value: "c"}, {Key: "documents", Value: bson.A{}}}, 16, "InvalidLength", "Write batch sizes must be between 1 and 100000. Got 0 operations."},
		{"documents not array", bson.D{{Key: "insert", Value: "c"}, {Key: "documents", Value: 1}}, 14, "TypeMismatch", "BSON field 'insert.documents' is the wrong type 'int', expected type 'array'"},
		{"document not object", bson.D{{Key: "insert", Value: "c"}, {Key: "documents", Value: bson.A{1}}}, 14, "TypeMismatch", "BSON field 'insert.documents.0' is the wrong type 'int', expected type 'object'"},
		{"unknown field", bson.D{{Key: "insert", Value: "c"}, {Key: "documents", Value: bson.A{bson.D{}}}, {Key: "foo", Value: 1}}, 40415, "IDLUnknownField", "BSON field 'insert.foo' is an unknown field."},
		{"ordered type", bson.D{{Key: "insert", Value: "c"}, {Key: "documents", Value: bson.A{bson.D{}}}, {Key: "ordered", Value: "yes"}}, 14, "TypeMismatch", "BSON field 'insert.ordered' is the wrong type 'string', expected type 'bool'"},
		{"collection type", bson.D{{Key: "insert", Value: 1}, {Key: "documents", Value: bson.A{bson.D{}}}}, 73, "InvalidNamespace", "collection name has invalid type int"},
		{"empty collection", bson.D{{Key: "insert", Value: ""}, {Key: "documents", Value: bson.A{bson.D{}}}}, 73, "InvalidNamespace", "Invalid namespace specified 'test.'"},
		{"txnNumber not long", bson.D{{Key: "insert", Value: "c"}, {Key: "documents", Value: bson.A{bson.D{}}}, {Key: "txnNumber", Value: int32(1)}}, 14, "TypeMismatch", "BSON field 'OperationSessionInfo.txnNumber' is the wrong type 'int', expected type 'long'"},
	}
	for _, tc := range errCases {
		t.Run(tc.name, func(t *testing.T) { cmdError(t, db, tc.cmd, tc.code, tc.cn, tc.msg) })
	}
}

func mustBSON(t testing.TB, d bson.D) []byte {
	t.Helper()
	b, err := bson.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestFindAndGetMore(t *testing.T) {
	t.Parallel()
	ts := startServer(t)
	db := ts.client(t).Database("test")
	c := db.Collection("c")
	insertN(t, c, 250)

	r := mustRun(t, db, bson.D{{Key: "find", Value: "c"}})
	first, _ := lookup(t, r, "cursor", "firstBatch").Array().Values()
	id := lookup(t, r, "cursor", "id").Int64()
	if len(first) != 101 || id == 0 || lookup(t, r, "cursor", "ns").StringValue() != "test.c" {
		t.Fatalf("first batch %d, id %d", len(first), id)
	}
	r = mustRun(t, db, bson.D{{Key: "getMore", Value: id}, {Key: "collection", Value: "c"}, {Key: "batchSize", Value: 100}})
	next, _ := lookup(t, r, "cursor", "nextBatch").Array().Values()
	if len(next) != 100 || lookup(t, r, "cursor", "id").Int64() != id {
		t.Fatalf("next batch %d", len(next))
	}
	r = mustRun(t, db, bson.D{{Key: "getMore", Value: id}, {Key: "collection", Value: "c"}})
	next, _ = lookup(t, r, "cursor", "nextBatch").Array().Values()
	if len(next) != 49 || lookup(t, r, "cursor", "id").Int64() != 0 {
		t.Fatalf("last batch %d, id %d", len(next), lookup(t, r, "cursor", "id").Int64())
	}
	cmdError(t, db, bson.D{{Key: "getMore", Value: id}, {Key: "collection", Value: "c"}}, 43, "CursorNotFound", fmt.Sprintf("cursor id %d not found", id))

	t.Run("driver cursor", func(t *testing.T) {
		cur, err := c.Find(bg, bson.D{{Key: "x", Value: bson.D{{Key: "$gte", Value: 5}}}}, options.Find().SetBatchSize(7).SetSort(bson.D{{Key: "_id", Value: -1}}))
		if err != nil {
			t.Fatal(err)
		}
		var docs []bson.M
		if err := cur.All(bg, &docs); err != nil {
			t.Fatal(err)
		}
		if len(docs) != 125 || docs[0]["_id"] != int32(249) {
			t.Fatalf("%d docs, first %v", len(docs), docs[0])
		}
	})
	t.Run("skip limit projection", func(t *testing.T) {
		r := mustRun(t, db, bson.D{{Key: "find", Value: "c"}, {Key: "sort", Value: bson.D{{Key: "_id", Value: 1}}},
			{Key: "skip", Value: 10}, {Key: "limit", Value: 3}, {Key: "projection", Value: bson.D{{Key: "x", Value: 0}}}})
		vals, _ := lookup(t, r, "cursor", "firstBatch").Array().Values()
		if len(vals) != 3 || lookup(t, r, "cursor", "id").Int64() != 0 {
			t.Fatalf("reply %v", r)
		}
		if got := vals[0].Document().String(); got != `{"_id": {"$numberInt":"10"}}` {
			t.Fatalf("first = %s", got)
		}
	})
	t.Run("single batch", func(t *testing.T) {
		r := mustRun(t, db, bson.D{{Key: "find", Value: "c"}, {Key: "batchSize", Value: 5}, {Key: "singleBatch", Value: true}})
		if vals, _ := lookup(t, r, "cursor", "firstBatch").Array().Values(); len(vals) != 5 || lookup(t, r, "cursor", "id").Int64() != 0 {
			t.Fatalf("reply %v", r)
		}
	})
	t.Run("batchSize 0", func(t *testing.T) {
		r := mustRun(t, db, bson.D{{Key: "find", Value: "c"}, {Key: "batchSize", Value: 0}})
		if vals, _ := lookup(t, r, "cursor", "firstBatch").Array().Values(); len(vals) != 0 || lookup(t, r, "cursor", "id").Int64() == 0 {
			t.Fatalf("reply %v", r)
		}
	})
	t.Run("missing collection", func(t *testing.T) {
		r := mustRun(t, db, bson.D{{Key: "find", Value: "nope"}})
		if vals, _ := lookup(t, r, "cursor", "firstBatch").Array().Values(); len(vals) != 0 || lookup(t, r, "cursor", "id").Int64() != 0 {
			t.Fatalf("reply %v", r)
		}
	})
	t.Run("hint", func(t *testing.T) {
		r := mustRun(t, db, bson.D{{Key: "find", Value: "c"}, {Key: "hint", Value: bson.D{{Key: "_id", Value: 1}}}, {Key: "limit", Value: 1}})
		if vals, _ := lookup(t, r, "cursor", "firstBatch").Array().Values(); len(vals) != 1 {
			t.Fatalf("reply %v", r)
		}
	})
	errCases := []struct {
		name string
		cmd  bson.D
		code int32
		cn   string
		msg  string
	}{
		{"negative skip", bson.D{{Key: "find", Value: "c"}, {Key: "skip", Value: -1}}, 51024, "Location51024", "BSON field 'skip' value must be >= 0, actual value '-1'"},
		{"negative limit", bson.D{{Key: "find", Value: "c"}, {Key: "limit", Value: -1}}, 51024, "Location51024", "BSON field 'limit' value must be >= 0, actual value '-1'"},
		{"limit type", bson.D{{Key: "find", Value: "c"}, {Key: "limit", Value: "x"}}, 14, "TypeMismatch", "BSON field 'find.limit' is the wrong type 'string', expected types '[long, int, decimal, double']"},
		{"filter type", bson.D{{Key: "find", Value: "c"}, {Key: "filter", Value: bson.A{}}}, 14, "TypeMismatch", "BSON field 'find.filter' is the wrong type 'array', expected type 'object'"},
		{"unknown field", bson.D{{Key: "find", Value: "c"}, {Key: "bogus", Value: 1}}, 40415, "IDLUnknownField", "BSON field 'find.bogus' is an unknown field."},
		{"awaitData without tailable", bson.D{{Key: "find", Value: "c"}, {Key: "awaitData", Value: true}}, 9, "FailedToParse", "Cannot set 'awaitData' without also setting 'tailable'"},
		{"tailable sort", bson.D{{Key: "find", Value: "c"}, {Key: "tailable", Value: true}, {Key: "sort", Value: bson.D{{Key: "a", Value: 1}}}}, 2, "BadValue", "cannot use tailable option with a sort other than {$natural: 1}"},
		{"tailable singleBatch", bson.D{{Key: "find", Value: "c"}, {Key: "tailable", Value: true}, {Key: "singleBatch", Value: true}}, 2, "BadValue", "cannot use tailable option with the 'singleBatch' option"},
		{"maxTimeMS negative", bson.D{{Key: "find", Value: "c"}, {Key: "maxTimeMS", Value: -1}}, 2, "BadValue", "-1 value for maxTimeMS is out of range [0, 2147483647]"},
		{"maxTimeMS fraction", bson.D{{Key: "find", Value: "c"}, {Key: "maxTimeMS", Value: 1.5}}, 2, "BadValue", "maxTimeMS has non-integral value"},
		{"maxTimeMS huge", bson.D{{Key: "find", Value: "c"}, {Key: "maxTimeMS", Value: 1e300}}, 2, "BadValue", "9223372036854775807 value for maxTimeMS is out of range [0, 2147483647]"},
		{"maxTimeMS type", bson.D{{Key: "find", Value: "c"}, {Key: "maxTimeMS", Value: "1"}}, 14, "TypeMismatch", "BSON field 'find.maxTimeMS' is the wrong type 'string', expected types '[long, int, decimal, double']"},
		{"getMore int id", bson.D{{Key: "getMore", Value: 1}, {Key: "collection", Value: "c"}}, 14, "TypeMismatch", "BSON field 'getMore.getMore' is the wrong type 'int', expected type 'long'"},
		{"getMore no collection", bson.D{{Key: "getMore", Value: int64(1)}}, 40414, "IDLFailedToParse", "BSON field 'getMore.collection' is missing but a required field"},
		{"getMore unknown cursor", bson.D{{Key: "getMore", Value: int64(12345)}, {Key: "collection", Value: "c"}}, 43, "CursorNotFound", "cursor id 12345 not found"},
	}
	for _, tc := range errCases {
		t.Run(tc.name, func(t *testing.T) { cmdError(t, db, tc.cmd, tc.code, tc.cn, tc.msg) })
	}
	t.Run("getMore other namespace", func(t *testing.T) {
		r := mustRun(t, db, bson.D{{Key: "find", Value: "c"}, {Key: "batchSize", Value: 1}})
		id := lookup(t, r, "cursor", "id").Int64()
		cmdError(t, db, bson.D{{Key: "getMore", Value: id}, {Key: "collection", Value: "other"}}, 13, "Unauthorized",
			"Requested getMore on namespace 'test.other', but cursor belongs to a different namespace test.c")
		r = mustRun(t, db, bson.D{{Key: "killCursors", Value: "c"}, {Key: "cursors", Value: bson.A{id, int64(42)}}})
		killed, _ := lookup(t, r, "cursorsKilled").Array().Values()
		notFound, _ := lookup(t, r, "cursorsNotFound").Array().Values()
		if len(killed) != 1 || killed[0].Int64() != id || len(notFound) != 1 || notFound[0].Int64() != 42 {
			t.Fatalf("killCursors %v", r)
		}
		lookup(t, r, "cursorsAlive")
		lookup(t, r, "cursorsUnknown")
		cmdError(t, db, bson.D{{Key: "getMore", Value: id}, {Key: "collection", Value: "c"}}, 43, "CursorNotFound", "")
		cmdError(t, db, bson.D{{Key: "killCursors", Value: "c"}}, 40414, "IDLFailedToParse", "BSON field 'killCursors.cursors' is missing but a required field")
		cmdError(t, db, bson.D{{Key: "killCursors", Value: "c"}, {Key: "cursors", Value: bson.A{1}}}, 14, "TypeMismatch", "BSON field 'killCursors.cursors.0' is the wrong type 'int', expected type 'long'")
	})
}

// Ensure that an idle cursor is closed after ten minutes of the injected
// clock, and that a cursor in use is not.
func TestCursorIdleTimeout(t *testing.T) {
	t.Parallel()
	ts := startServer(t)
	cl := ts.client(t)
	db := cl.Database("test")
	insertN(t, db.Collection("c"), 10)
	// One explicit session for every command: a getMore must come from
	// the session that opened its cursor, and implicit sessions are the
	// driver's to choose.
	sess, err := cl.StartSession()
	if err != nil {
		t.Fatal(err)
	}
	defer sess.EndSession(context.Background())
	ctx := drv.NewSessionContext(context.Background(), sess)
	run := func(cmd bson.D) bson.Raw {
		t.Helper()
		raw, err := db.RunCommand(ctx, cmd).Raw()
		if err != nil {
			t.Fatalf("%v: %v", cmd, err)
		}
		return raw
	}
	open := func(extra ...bson.E) int64 {
		r := run(append(bson.D{{Key: "find", Value: "c"}, {Key: "batchSize", Value: 2}}, extra...))
		return lookup(t, r, "cursor", "id").Int64()
	}
	idle, kept, pinned := open(), open(), open(bson.E{Key: "noCursorTimeout", Value: true})
	ts.clock.Advance(9 * time.Minute)
	run(bson.D{{Key: "getMore", Value: kept}, {Key: "collection", Value: "c"}, {Key: "batchSize", Value: 1}})
	ts.clock.Advance(2 * time.Minute)
	err = db.RunCommand(ctx, bson.D{{Key: "getMore", Value: idle}, {Key: "collection", Value: "c"}}).Err()
	wantError(t, err, 43, "CursorNotFound", fmt.Sprintf("cursor id %d not found", idle))
	run(bson.D{{Key: "getMore", Value: kept}, {Key: "collection", Value: "c"}, {Key: "batchSize", Value: 1}})
	run(bson.D{{Key: "getMore", Value: pinned}, {Key: "collection", Value: "c"}, {Key: "batchSize", Value: 1}})
}

// Ensure that batches stay under the 16 MiB reply limit whatever the
// batch size.
func TestBatchByteLimit(t *testing.T) {
	t.Parallel()
	ts := startServer(t)
	db := ts.client(t).Database("test")
	c := db.Collection("big")
	blob := strings.Repeat("x", 1<<20)
	for i := range 20 {
		if _, err := c.InsertOne(bg, bson.D{{Key: "_id", Value: i}, {Key: "b", Value: blob}}); err != nil {
			t.Fatal(err)
		}
	}
	r := mustRun(t, db, bson.D{{Key: "find", Value: "big"}, {Key: "batchSize", Value: 100}})
	first, _ := lookup(t, r, "cursor", "firstBatch").Array().Values()
	if len(first) == 0 || len(first) >= 17 || len(r) > 16*1024*1024+16*1024 {
		t.Fatalf("first batch holds %d documents in %d bytes", len(first), len(r))
	}
	r = mustRun(t, db, bson.D{{Key: "getMore", Value: lookup(t, r, "cursor", "id").Int64()}, {Key: "collection", Value: "big"}})
	next, _ := lookup(t, r, "cursor", "nextBatch").Array().Values()
	if len(first)+len(next) != 20 || lookup(t, r, "cursor", "id").Int64() != 0 {
		t.Fatalf("batches %d + %d", len(first), len(next))
	}
}

// Ensure that a batch of many small documents stays under the reply limit
// too: the array's element headers count toward the 16 MiB, as in
// MongoDB.
func TestBatchByteLimitCountsElementHeaders(t *testing.T) {
	t.Parallel()
	ts := startServer(t)
	db := ts.client(t).Database("test")
	c := db.Collection("many")
	pad := strings.Repeat("x", 900)
	var docs []any
	for i := range 20000 {
		docs = append(docs, bson.D{{Key: "_id", Value: int32(i)}, {Key: "p", Value: pad}})
	}
	if _, err := c.InsertMany(bg, docs); err != nil {
		t.Fatal(err)
	}
	r := mustRun(t, db, bson.D{{Key: "find", Value: "many"}, {Key: "batchSize", Value: 1}})
	r = mustRun(t, db, bson.D{{Key: "getMore", Value: lookup(t, r, "cursor", "id").Int64()}, {Key: "collection", Value: "many"}})
	next, _ := lookup(t, r, "cursor", "nextBatch").Array().Values()
	if len(next) < 16000 || len(r) > 16*1024*1024+16*1024 {
		t.Fatalf("getMore batch holds %d documents in %d bytes", len(next), len(r))
	}
}

func TestUpdateDelete(t *testing.T) {
	t.Parallel()
	ts := startServer(t)
	db := ts.client(t).Database("test")
	c := db.Collection("c")
	insertN(t, c, 20)

	res, err := c.UpdateOne(bg, bson.D{{Key: "_id", Value: 3}}, bson.D{{Key: "$set", Value: bson.D{{Key: "y", Value: 1}}}})
	if err != nil || res.MatchedCount != 1 || res.ModifiedCount != 1 {
		t.Fatalf("updateOne %+v %v", res, err)
	}
	res, err = c.UpdateMany(bg, bson.D{{Key: "x", Value: 1}}, bson.D{{Key: "$inc", Value: bson.D{{Key: "n", Value: 1}}}})
	if err != nil || res.MatchedCount != 2 || res.ModifiedCount != 2 {
		t.Fatalf("updateMany %+v %v", res, err)
	}
	res, err = c.UpdateOne(bg, bson.D{{Key: "_id", Value: "new"}}, bson.D{{Key: "$set", Value: bson.D{{Key: "y", Value: 2}}}}, options.UpdateOne().SetUpsert(true))
	if err != nil || res.UpsertedCount != 1 || res.UpsertedID != "new" {
		t.Fatalf("upsert %+v %v", res, err)
	}
	r := mustRun(t, db, bson.D{{Key: "update", Value: "c"}, {Key: "updates", Value: bson.A{
		bson.D{{Key: "q", Value: bson.D{{Key: "_id", Value: "new2"}}}, {Key: "u", Value: bson.D{{Key: "v", Value: 1}}}, {Key: "upsert", Value: true}},
		bson.D{{Key: "q", Value: bson.D{{Key: "_id", Value: 4}}}, {Key: "u", Value: bson.A{bson.D{{Key: "$set", Value: bson.D{{Key: "p", Value: "$x"}}}}}}},
	}}})
	if lookup(t, r, "n").Int32() != 2 || lookup(t, r, "nModified").Int32() != 1 {
		t.Fatalf("update reply %v", r)
	}
	up := lookup(t, r, "upserted").Array().Index(0).Document()
	if lookup(t, up, "index").Int32() != 0 || lookup(t, up, "_id").StringValue() != "new2" {
		t.Fatalf("upserted %v", up)
	}
	if _, err := c.ReplaceOne(bg, bson.D{{Key: "_id", Value: 5}}, bson.D{{Key: "r", Value: true}}); err != nil {
		t.Fatal(err)
	}
	_, err = c.UpdateOne(bg, bson.D{{Key: "_id", Value: 5}}, bson.D{{Key: "$set", Value: bson.D{{Key: "_id", Value: 6}}}})
	wantError(t, err, 66, "ImmutableField", "")

	dres, err := c.DeleteOne(bg, bson.D{{Key: "x", Value: 2}})
	if err != nil || dres.DeletedCount != 1 {
		t.Fatalf("deleteOne %+v %v", dres, err)
	}
	dres, err = c.DeleteMany(bg, bson.D{{Key: "x", Value: bson.D{{Key: "$gte", Value: 8}}}})
	if err != nil || dres.DeletedCount != 4 {
		t.Fatalf("deleteMany %+v %v", dres, err)
	}
	errCases := []struct {
		name string
		cmd  bson.D
		code int32
		cn   string
		msg  string
	}{
		{"no updates", bson.D{{Key: "update", Value: "c"}}, 40414, "IDLFailedToParse", "BSON field 'update.updates' is missing but a required field"},
		{"no q", bson.D{{Key: "update", Value: "c"}, {Key: "updates", Value: bson.A{bson.D{{Key: "u", Value: bson.D{}}}}}}, 40414, "IDLFailedToParse", "BSON field 'update.updates.q' is missing but a required field"},
		{"no u", bson.D{{Key: "update", Value: "c"}, {Key: "updates", Value: bson.A{bson.D{{Key: "q", Value: bson.D{}}}}}}, 40414, "IDLFailedToParse", "BSON field 'update.updates.u' is missing but a required field"},
		{"statement field", bson.D{{Key: "update", Value: "c"}, {Key: "updates", Value: bson.A{bson.D{{Key: "q", Value: bson.D{}}, {Key: "u", Value: bson.D{}}, {Key: "zz", Value: 1}}}}}, 40415, "IDLUnknownField", "BSON field 'update.updates.zz' is an unknown field."},
		{"no deletes", bson.D{{Key: "delete", Value: "c"}}, 40414, "IDLFailedToParse", "BSON field 'delete.deletes' is missing but a required field"},
		{"no limit", bson.D{{Key: "delete", Value: "c"}, {Key: "deletes", Value: bson.A{bson.D{{Key: "q", Value: bson.D{}}}}}}, 40414, "IDLFailedToParse", "BSON field 'delete.deletes.limit' is missing but a required field"},
		{"limit 2", bson.D{{Key: "delete", Value: "c"}, {Key: "deletes", Value: bson.A{bson.D{{Key: "q", Value: bson.D{}}, {Key: "limit", Value: 2}}}}}, 9, "FailedToParse", "The limit field in delete objects must be 0 or 1. Got 2"},
		{"q type", bson.D{{Key: "delete", Value: "c"}, {Key: "deletes", Value: bson.A{bson.D{{Key: "q", Value: 1}, {Key: "limit", Value: 0}}}}}, 14, "TypeMismatch", "BSON field 'delete.deletes.q' is the wrong type 'int', expected type 'object'"},
		{"empty updates", bson.D{{Key: "update", Value: "c"}, {Key: "updates", Value: bson.A{}}}, 16, "InvalidLength", "Write batch sizes must be between 1 and 100000. Got 0 operations."},
		{"empty deletes", bson.D{{Key: "delete", Value: "c"}, {Key: "deletes", Value: bson.A{}}}, 16, "InvalidLength", "Write batch sizes must be between 1 and 100000. Got 0 operations."},
		{"update ordered type", bson.D{{Key: "update", Value: "c"}, {Key: "ordered", Value: "x"}, {Key: "updates", Value: bson.A{}}}, 14, "TypeMismatch", "BSON field 'update.ordered' is the wrong type 'string', expected type 'bool'"},
		{"delete let type", bson.D{{Key: "delete", Value: "c"}, {Key: "let", Value: 1}, {Key: "deletes", Value: bson.A{}}}, 14, "TypeMismatch", "BSON field 'delete.let' is the wrong type 'int', expected type 'object'"},
		{"delete bypass type", bson.D{{Key: "delete", Value: "c"}, {Key: "bypassDocumentValidation", Value: "x"}, {Key: "deletes", Value: bson.A{}}}, 14, "TypeMismatch", "BSON field 'delete.bypassDocumentValidation' is the wrong type 'string', expected type 'bool'"},
		{"insert has no let", bson.D{{Key: "insert", Value: "c"}, {Key: "documents", Value: bson.A{bson.D{}}}, {Key: "let", Value: bson.D{}}}, 40415, "IDLUnknownField", "BSON field 'insert.let' is an unknown field."},
		{"update collectionUUID", bson.D{{Key: "update", Value: "c"}, {Key: "collectionUUID", Value: true}, {Key: "updates", Value: bson.A{}}}, 238, "NotImplemented", "update: the 'collectionUUID' option is not supported by mayfly"},
		{"delete collection type", bson.D{{Key: "delete", Value: 1}, {Key: "deletes", Value: bson.A{}}}, 73, "InvalidNamespace", "collection name has invalid type int"},
	}
	for _, tc := range errCases {
		t.Run(tc.name, func(t *testing.T) { cmdError(t, db, tc.cmd, tc.code, tc.cn, tc.msg) })
	}
}

func TestFindAndModify(t *testing.T) {
	t.Parallel()
	ts := startServer(t)
	db := ts.client(t).Database("test")
	c := db.Collection("c")
	insertN(t, c, 5)

	var got bson.M
	err := c.FindOneAndUpdate(bg, bson.D{{Key: "_id", Value: 1}}, bson.D{{Key: "$set", Value: bson.D{{Key: "y", Value: 7}}}},
		options.FindOneAndUpdate().SetReturnDocument(options.After)).Decode(&got)
	if err != nil || got["y"] != int32(7) {
		t.Fatalf("findOneAndUpdate %v %v", got, err)
	}
	r := mustRun(t, db, bson.D{{Key: "findAndModify", Value: "c"}, {Key: "query", Value: bson.D{{Key: "_id", Value: "up"}}},
		{Key: "update", Value: bson.D{{Key: "$set", Value: bson.D{{Key: "z", Value: 1}}}}}, {Key: "upsert", Value: true}})
	if lookup(t, r, "lastErrorObject", "n").Int32() != 1 || lookup(t, r, "lastErrorObject", "updatedExisting").Boolean() ||
		lookup(t, r, "lastErrorObject", "upserted").StringValue() != "up" || lookup(t, r, "value").Type != bson.TypeNull {
		t.Fatalf("upsert reply %v", r)
	}
	r = mustRun(t, db, bson.D{{Key: "findAndModify", Value: "c"}, {Key: "query", Value: bson.D{{Key: "_id", Value: 2}}}, {Key: "remove", Value: true}})
	if lookup(t, r, "lastErrorObject", "n").Int32() != 1 || lookup(t, r, "value", "_id").Int32() != 2 {
		t.Fatalf("remove reply %v", r)
	}
	r = mustRun(t, db, bson.D{{Key: "findAndModify", Value: "c"}, {Key: "query", Value: bson.D{{Key: "_id", Value: 99}}}, {Key: "remove", Value: true}})
	if lookup(t, r, "lastErrorObject", "n").Int32() != 0 || lookup(t, r, "value").Type != bson.TypeNull {
		t.Fatalf("no match reply %v", r)
	}
	errCases := []struct {
		name string
		cmd  bson.D
		msg  string
	}{
		{"neither", bson.D{{Key: "findAndModify", Value: "c"}}, "Either an update or remove=true must be specified"},
		{"both", bson.D{{Key: "findAndModify", Value: "c"}, {Key: "remove", Value: true}, {Key: "update", Value: bson.D{}}}, "Cannot specify both an update and remove=true"},
		{"remove upsert", bson.D{{Key: "findAndModify", Value: "c"}, {Key: "remove", Value: true}, {Key: "upsert", Value: true}}, "Cannot specify both upsert=true and remove=true "},
		{"remove new", bson.D{{Key: "findAndModify", Value: "c"}, {Key: "remove", Value: true}, {Key: "new", Value: true}}, "Cannot specify both new=true and remove=true; 'remove' always returns the deleted document"},
	}
	for _, tc := range errCases {
		t.Run(tc.name, func(t *testing.T) { cmdError(t, db, tc.cmd, 9, "FailedToParse", tc.msg) })
	}
	cmdError(t, db, bson.D{{Key: "findAndModify", Value: "c"}, {Key: "update", Value: bson.D{}}, {Key: "bogus", Value: 1}}, 40415, "IDLUnknownField", "BSON field 'findAndModify.bogus' is an unknown field.")
}

func TestCountDistinctAggregate(t *testing.T) {
	t.Parallel()
	ts := startServer(t)
	db := ts.client(t).Database("test")
	c := db.Collection("c")
	insertN(t, c, 30)

	r := mustRun(t, db, bson.D{{Key: "count", Value: "c"}, {Key: "query", Value: bson.D{{Key: "x", Value: 3}}}})
	if lookup(t, r, "n").Int32() != 3 {
		t.Fatalf("count %v", r)
	}
	r = mustRun(t, db, bson.D{{Key: "count", Value: "c"}, {Key: "skip", Value: 25}, {Key: "limit", Value: -10}})
	if lookup(t, r, "n").Int32() != 5 {
		t.Fatalf("count skip/limit %v", r)
	}
	if n, err := c.EstimatedDocumentCount(bg); err != nil || n != 30 {
		t.Fatalf("estimatedDocumentCount %d %v", n, err)
	}
	cmdError(t, db, bson.D{{Key: "count", Value: "c"}, {Key: "skip", Value: -1}}, 51024, "Location51024", "BSON field 'skip' value must be >= 0, actual value '-1'")

	vals, err := c.Distinct(bg, "x", bson.D{{Key: "_id", Value: bson.D{{Key: "$lt", Value: 4}}}}).Raw()
	if err != nil {
		t.Fatal(err)
	}
	if elems, _ := vals.Values(); len(elems) != 4 {
		t.Fatalf("distinct %v", vals)
	}
	cmdError(t, db, bson.D{{Key: "distinct", Value: "c"}}, 40414, "IDLFailedToParse", "BSON field 'distinct.key' is missing but a required field")

	cur, err := c.Aggregate(bg, bson.A{
		bson.D{{Key: "$match", Value: bson.D{{Key: "x", Value: bson.D{{Key: "$lt", Value: 3}}}}}},
		bson.D{{Key: "$group", Value: bson.D{{Key: "_id", Value: "$x"}, {Key: "n", Value: bson.D{{Key: "$sum", Value: 1}}}}}},
		bson.D{{Key: "$sort", Value: bson.D{{Key: "_id", Value: 1}}}},
	}, options.Aggregate().SetBatchSize(1))
	if err != nil {
		t.Fatal(err)
	}
	var groups []bson.M
	if err := cur.All(bg, &groups); err != nil || len(groups) != 3 || groups[2]["n"] != int32(3) {
		t.Fatalf("aggregate %v %v", groups, err)
	}
	cmdError(t, db, bson.D{{Key: "aggregate", Value: "c"}, {Key: "pipeline", Value: bson.A{}}}, 9, "FailedToParse", "The 'cursor' option is required, except for aggregate with the explain argument")
	cmdError(t, db, bson.D{{Key: "aggregate", Value: "c"}, {Key: "cursor", Value: bson.D{}}}, 40414, "IDLFailedToParse", "BSON field 'aggregate.pipeline' is missing but a required field")
	cmdError(t, db, bson.D{{Key: "aggregate", Value: "c"}, {Key: "pipeline", Value: bson.A{}}, {Key: "cursor", Value: bson.D{{Key: "batchSize", Value: -1}}}}, 51024, "Location51024", "BSON field 'batchSize' value must be >= 0, actual value '-1'")

	// mongosh's local Atlas probe on a collection that does not exist.
	r = mustRun(t, db, bson.D{{Key: "aggregate", Value: "atlascli"}, {Key: "pipeline", Value: bson.A{
		bson.D{{Key: "$match", Value: bson.D{{Key: "managedClusterType", Value: "atlasCliLocalDevCluster"}}}},
		bson.D{{Key: "$group", Value: bson.D{{Key: "_id", Value: 1}, {Key: "n", Value: bson.D{{Key: "$sum", Value: 1}}}}}},
	}}, {Key: "cursor", Value: bson.D{}}})
	if v, _ := lookup(t, r, "cursor", "firstBatch").Array().Values(); len(v) != 0 {
		t.Fatalf("atlascli %v", r)
	}

	r = mustRun(t, db, bson.D{{Key: "aggregate", Value: "c"}, {Key: "pipeline", Value: bson.A{
		bson.D{{Key: "$collStats", Value: bson.D{{Key: "storageStats", Value: bson.D{{Key: "scale", Value: 1024}}}, {Key: "count", Value: bson.D{}}}}},
	}}, {Key: "cursor", Value: bson.D{}}})
	st := lookup(t, r, "cursor", "firstBatch").Array().Index(0).Document()
	if lookup(t, st, "count").Int32() != 30 || lookup(t, st, "storageStats", "count").Int32() != 30 ||
		lookup(t, st, "storageStats", "scaleFactor").Int32() != 1024 || lookup(t, st, "ns").StringValue() != "test.c" {
		t.Fatalf("$collStats %v", st)
	}
	cmdError(t, db, bson.D{{Key: "aggregate", Value: "c"}, {Key: "pipeline", Value: bson.A{
		bson.D{{Key: "$collStats", Value: bson.D{{Key: "queryExecStats", Value: bson.D{}}}}},
	}}, {Key: "cursor", Value: bson.D{}}}, 238, "NotImplemented", "")
}

// Ensure that a document holding every BSON type comes back byte for byte.
func TestRoundTripEveryType(t *testing.T) {
	t.Parallel()
	ts := startServer(t)
	db := ts.client(t).Database("test")
	doc := mustBSON(t, bson.D{
		{Key: "_id", Value: bson.NewObjectID()}, {Key: "double", Value: 1.5}, {Key: "negzero", Value: negZero()},
		{Key: "string", Value: "ş ğ 中文"}, {Key: "doc", Value: bson.D{{Key: "z", Value: 1}, {Key: "a", Value: int64(2)}}},
		{Key: "array", Value: bson.A{int32(1), "x", 2.0}}, {Key: "bin", Value: bson.Binary{Subtype: 0x80, Data: []byte{1, 2}}},
		{Key: "oldbin", Value: bson.Binary{Subtype: 2, Data: []byte{1, 2}}}, {Key: "uuid", Value: bson.Binary{Subtype: 4, Data: make([]byte, 16)}},
		{Key: "undef", Value: bson.Undefined{}}, {Key: "bool", Value: true}, {Key: "date", Value: bson.DateTime(-5)},
		{Key: "null", Value: nil}, {Key: "regex", Value: bson.Regex{Pattern: "^a", Options: "im"}},
		{Key: "dbptr", Value: bson.DBPointer{DB: "x.y", Pointer: bson.NewObjectID()}}, {Key: "js", Value: bson.JavaScript("f()")},
		{Key: "sym", Value: bson.Symbol("s")}, {Key: "cws", Value: bson.CodeWithScope{Code: "c", Scope: bson.D{{Key: "x", Value: 1}}}},
		{Key: "int", Value: int32(-7)}, {Key: "ts", Value: bson.Timestamp{T: 1, I: 2}}, {Key: "long", Value: int64(1) << 40},
		{Key: "dec", Value: bson.NewDecimal128(0x3040000000000000, 12345)}, {Key: "min", Value: bson.MinKey{}}, {Key: "max", Value: bson.MaxKey{}},
	})
	mustRun(t, db, bson.D{{Key: "insert", Value: "types"}, {Key: "documents", Value: bson.A{bson.Raw(doc)}}})
	r := mustRun(t, db, bson.D{{Key: "find", Value: "types"}})
	got := lookup(t, r, "cursor", "firstBatch").Array().Index(0).Document()
	if !bytes.Equal(got, doc) {
		t.Fatalf("round trip changed the document\n got %v\nwant %v", got, bson.Raw(doc))
	}
}

func negZero() float64 {
	z := 0.0
	return -z
}
