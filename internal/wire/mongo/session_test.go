package mongo_test

import (
	"context"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	drv "go.mongodb.org/mongo-driver/v2/mongo"
)

// inSession runs f with a context bound to a new explicit session, so that
// every command f runs carries that session's lsid.
func inSession(t *testing.T, cl *drv.Client, f func(ctx context.Context)) {
	t.Helper()
	sess, err := cl.StartSession()
	if err != nil {
		t.Fatal(err)
	}
	defer sess.EndSession(context.Background())
	f(drv.NewSessionContext(context.Background(), sess))
}

func runCtx(t *testing.T, ctx context.Context, db *drv.Database, cmd bson.D) (bson.Raw, error) {
	t.Helper()
	raw, err := db.RunCommand(ctx, cmd).Raw()
	if err != nil && raw == nil {
		return nil, err
	}
	return raw, err
}

func TestStartSessionRecordsIt(t *testing.T) {
	t.Parallel()
	ts := startServer(t)
	cl := ts.client(t)
	admin := cl.Database("admin")
	r := mustRun(t, admin, bson.D{{Key: "startSession", Value: 1}})
	if lookup(t, r, "timeoutMinutes").Int32() != 30 {
		t.Fatalf("timeoutMinutes in %v", r)
	}
	sub, id := lookup(t, r, "id", "id").Binary()
	if sub != bson.TypeBinaryUUID || len(id) != 16 {
		t.Fatalf("id in %v", r)
	}
	sessions := cl.Database("config").Collection("system.sessions")
	var rec bson.Raw
	if err := sessions.FindOne(context.Background(), bson.D{{Key: "_id.id", Value: bson.Binary{Subtype: 4, Data: id}}}).Decode(&rec); err != nil {
		t.Fatalf("no session record: %v", err)
	}
	if got := lookup(t, rec, "lastUse").Time(); !got.Equal(ts.clock.Now().Truncate(time.Millisecond)) {
		t.Fatalf("lastUse %v, want %v", got, ts.clock.Now())
	}
	cur, err := sessions.Indexes().List(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var idx []bson.M
	if err := cur.All(context.Background(), &idx); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, ix := range idx {
		if ix["name"] == "lsidTTLIndex" && ix["expireAfterSeconds"] == int32(1800) {
			found = true
		}
	}
	if !found {
		t.Fatalf("no TTL index on lastUse: %v", idx)
	}
	// refreshSessions moves lastUse; endSessions removes the record.
	ts.clock.Advance(time.Minute)
	mustRun(t, admin, bson.D{{Key: "refreshSessions", Value: bson.A{bson.D{{Key: "id", Value: bson.Binary{Subtype: 4, Data: id}}}}}})
	if err := sessions.FindOne(context.Background(), bson.D{{Key: "_id.id", Value: bson.Binary{Subtype: 4, Data: id}}}).Decode(&rec); err != nil {
		t.Fatal(err)
	}
	if got := lookup(t, rec, "lastUse").Time(); !got.Equal(ts.clock.Now().Truncate(time.Millisecond)) {
		t.Fatalf("lastUse after refresh %v, want %v", got, ts.clock.Now())
	}
	mustRun(t, admin, bson.D{{Key: "endSessions", Value: bson.A{bson.D{{Key: "id", Value: bson.Binary{Subtype: 4, Data: id}}}}}})
	if n, _ := sessions.CountDocuments(context.Background(), bson.D{{Key: "_id.id", Value: bson.Binary{Subtype: 4, Data: id}}}); n != 0 {
		t.Fatalf("%d session records after endSessions", n)
	}
}

func TestSessionRecordExpires(t *testing.T) {
	t.Parallel()
	ts := startServer(t)
	cl := ts.client(t)
	r := mustRun(t, cl.Database("admin"), bson.D{{Key: "startSession", Value: 1}})
	_, id := lookup(t, r, "id", "id").Binary()
	sessions := cl.Database("config").Collection("system.sessions")
	filter := bson.D{{Key: "_id.id", Value: bson.Binary{Subtype: 4, Data: id}}}
	ts.clock.Advance(29 * time.Minute)
	if n, _ := sessions.CountDocuments(context.Background(), filter); n != 1 {
		t.Fatalf("record gone before the timeout")
	}
	ts.clock.Advance(2 * time.Minute)
	if n, _ := sessions.CountDocuments(context.Background(), filter); n != 0 {
		t.Fatalf("record of an idle session still visible after the timeout")
	}
}

func TestRetryableWritesExecuteOnce(t *testing.T) {
	t.Parallel()
	ts := startServer(t)
	cl := ts.client(t)
	db := cl.Database("test")
	inSession(t, cl, func(ctx context.Context) {
		ins := bson.D{{Key: "insert", Value: "c"}, {Key: "documents", Value: bson.A{bson.D{{Key: "_id", Value: 1}, {Key: "v", Value: 0}}}}, {Key: "txnNumber", Value: int64(1)}}
		for range 2 {
			r, err := runCtx(t, ctx, db, ins)
			if err != nil || lookup(t, r, "n").Int32() != 1 {
				t.Fatalf("insert retry: %v %v", r, err)
			}
			if _, err := r.LookupErr("writeErrors"); err == nil {
				t.Fatalf("retried insert ran again: %v", r)
			}
		}
		upd := bson.D{{Key: "update", Value: "c"}, {Key: "updates", Value: bson.A{
			bson.D{{Key: "q", Value: bson.D{{Key: "_id", Value: 1}}}, {Key: "u", Value: bson.D{{Key: "$inc", Value: bson.D{{Key: "v", Value: 1}}}}}},
			bson.D{{Key: "q", Value: bson.D{{Key: "_id", Value: 2}}}, {Key: "u", Value: bson.D{{Key: "$inc", Value: bson.D{{Key: "v", Value: 1}}}}}, {Key: "upsert", Value: true}},
		}}, {Key: "txnNumber", Value: int64(2)}}
		first, err := runCtx(t, ctx, db, upd)
		if err != nil {
			t.Fatal(err)
		}
		again, err := runCtx(t, ctx, db, upd)
		if err != nil || !bsonEqual(first, again) {
			t.Fatalf("update retry answered %v, first %v (%v)", again, first, err)
		}
		fam := bson.D{{Key: "findAndModify", Value: "c"}, {Key: "query", Value: bson.D{{Key: "_id", Value: 1}}}, {Key: "update", Value: bson.D{{Key: "$inc", Value: bson.D{{Key: "v", Value: 10}}}}}, {Key: "txnNumber", Value: int64(3)}}
		first, err = runCtx(t, ctx, db, fam)
		if err != nil || lookup(t, first, "value", "v").Int32() != 1 {
			t.Fatalf("findAndModify: %v %v", first, err)
		}
		again, err = runCtx(t, ctx, db, fam)
		if err != nil || lookup(t, again, "value", "v").Int32() != 1 {
			t.Fatalf("findAndModify retry answered %v (%v), want the pre-image v: 1", again, err)
		}
		del := bson.D{{Key: "delete", Value: "c"}, {Key: "deletes", Value: bson.A{bson.D{{Key: "q", Value: bson.D{{Key: "_id", Value: 2}}}, {Key: "limit", Value: 1}}}}, {Key: "txnNumber", Value: int64(4)}}
		for range 2 {
			r, err := runCtx(t, ctx, db, del)
			if err != nil || lookup(t, r, "n").Int32() != 1 {
				t.Fatalf("delete retry: %v %v", r, err)
			}
		}
		// An older number is refused; the current one is still answered.
		_, err = runCtx(t, ctx, db, ins)
		wantError(t, err, 225, "TransactionTooOld", "")
		r, err := runCtx(t, ctx, db, del)
		if err != nil || lookup(t, r, "n").Int32() != 1 {
			t.Fatalf("current txnNumber after a refused older one: %v %v", r, err)
		}
		_, err = runCtx(t, ctx, db, bson.D{{Key: "find", Value: "c"}, {Key: "txnNumber", Value: int64(9)}})
		wantError(t, err, 50768, "NotARetryableWriteCommand", "txnNumber may only be provided for multi-document transactions and retryable write commands. autocommit:false was not provided, and find is not a retryable write command.")
	})
	var doc bson.Raw
	if err := db.Collection("c").FindOne(context.Background(), bson.D{{Key: "_id", Value: 1}}).Decode(&doc); err != nil {
		t.Fatal(err)
	}
	if v := lookup(t, doc, "v").Int32(); v != 11 {
		t.Fatalf("v = %d, want 11: each write executed once", v)
	}
	if n, _ := db.Collection("c").CountDocuments(context.Background(), bson.D{}); n != 1 {
		t.Fatalf("%d documents, want 1", n)
	}
}

// bsonEqual compares two replies but for the cluster time every reply
// has its own of.
func bsonEqual(a, b bson.Raw) bool {
	return withoutClusterTime(a) == withoutClusterTime(b)
}

func withoutClusterTime(r bson.Raw) string {
	var d bson.D
	if err := bson.Unmarshal(r, &d); err != nil {
		return r.String()
	}
	out := d[:0]
	for _, e := range d {
		if e.Key != "$clusterTime" && e.Key != "operationTime" {
			out = append(out, e)
		}
	}
	b, _ := bson.Marshal(out)
	return bson.Raw(b).String()
}

func TestIdleSessionIsReaped(t *testing.T) {
	t.Parallel()
	ts := startServer(t)
	cl := ts.client(t)
	db := cl.Database("test")
	inSession(t, cl, func(ctx context.Context) {
		ins := bson.D{{Key: "insert", Value: "c"}, {Key: "documents", Value: bson.A{bson.D{{Key: "_id", Value: 1}}}}, {Key: "txnNumber", Value: int64(1)}}
		if _, err := runCtx(t, ctx, db, ins); err != nil {
			t.Fatal(err)
		}
		ts.clock.Advance(29 * time.Minute)
		ts.srv.ReapSessions()
		r, err := runCtx(t, ctx, db, ins)
		if err != nil || lookup(t, r, "n").Int32() != 1 {
			t.Fatalf("retry within the timeout ran again: %v %v", r, err)
		}
		ts.clock.Advance(31 * time.Minute)
		ts.srv.ReapSessions()
		// The session ended with its record, so the same number runs as a
		// new write and meets the document it inserted.
		_, err = runCtx(t, ctx, db, ins)
		wantError(t, err, 11000, "", "E11000 duplicate key error collection: test.c index: _id_ dup key: { _id: 1 }")
	})
}

func TestClusterTimeInReplies(t *testing.T) {
	t.Parallel()
	ts := startServer(t)
	db := ts.client(t).Database("test")
	var last bson.Timestamp
	for range 3 {
		r := mustRun(t, db, bson.D{{Key: "ping", Value: 1}})
		tt, ti := lookup(t, r, "operationTime").Timestamp()
		ct, ci := lookup(t, r, "$clusterTime", "clusterTime").Timestamp()
		now := bson.Timestamp{T: tt, I: ti}
		if tt != ct || ti != ci || now.Compare(last) <= 0 || tt != uint32(ts.clock.Now().Unix()) {
			t.Fatalf("operationTime %v after %v, clusterTime %v", now, last, bson.Timestamp{T: ct, I: ci})
		}
		last = now
	}
	// A causally consistent read names a time it has seen.
	mustRun(t, db, bson.D{{Key: "find", Value: "c"}, {Key: "readConcern", Value: bson.D{{Key: "afterClusterTime", Value: last}}}})
	cmdError(t, db, bson.D{{Key: "find", Value: "c"}, {Key: "readConcern", Value: bson.D{{Key: "afterClusterTime", Value: 1}}}},
		14, "TypeMismatch", "BSON field 'readConcern.afterClusterTime' is the wrong type 'int', expected type 'timestamp'")
}
