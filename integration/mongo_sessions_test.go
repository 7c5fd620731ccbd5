package integration_test

import (
	"context"
	"encoding/binary"
	"io"
	"net"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/integration/harness"
)

// opMsg sends cmd as an OP_MSG on nc and returns the reply's body. The
// command is sent as written (the driver would replace its lsid).
func opMsg(t *testing.T, nc net.Conn, id int32, cmd bson.D) bson.Raw {
	t.Helper()
	body, err := bson.Marshal(cmd)
	if err != nil {
		t.Fatal(err)
	}
	msg := make([]byte, 16, 16+4+1+len(body))
	binary.LittleEndian.PutUint32(msg[4:], uint32(id))
	binary.LittleEndian.PutUint32(msg[12:], 2013)
	msg = append(msg, 0, 0, 0, 0, 0)
	msg = append(msg, body...)
	binary.LittleEndian.PutUint32(msg, uint32(len(msg)))
	nc.SetDeadline(time.Now().Add(30 * time.Second))
	if _, err := nc.Write(msg); err != nil {
		t.Fatal(err)
	}
	var hdr [16]byte
	if _, err := io.ReadFull(nc, hdr[:]); err != nil {
		t.Fatal(err)
	}
	rest := make([]byte, binary.LittleEndian.Uint32(hdr[:])-16)
	if _, err := io.ReadFull(nc, rest); err != nil {
		t.Fatal(err)
	}
	return bson.Raw(rest[5:])
}

// A retryable write sent twice, and once more after a restart, executes
// once: each answer is the first one.
func TestRetryableWriteAcrossRestart(t *testing.T) {
	dir := t.TempDir()
	s := harness.StartDir(t, dir)
	lsid := bson.D{{Key: "id", Value: bson.Binary{Subtype: bson.TypeBinaryUUID, Data: []byte("0123456789abcdef")}}}
	upd := bson.D{
		{Key: "update", Value: "acct"},
		{Key: "updates", Value: bson.A{bson.D{
			{Key: "q", Value: bson.D{{Key: "_id", Value: "alice"}}},
			{Key: "u", Value: bson.D{{Key: "$inc", Value: bson.D{{Key: "balance", Value: 10}}}}},
			{Key: "upsert", Value: true},
		}}},
		{Key: "lsid", Value: lsid},
		{Key: "txnNumber", Value: int64(7)},
		{Key: "$db", Value: "bank"},
	}
	send := func(s *harness.Server) bson.Raw {
		nc, err := net.Dial("tcp", s.MongoAddr)
		if err != nil {
			t.Fatal(err)
		}
		defer nc.Close()
		return opMsg(t, nc, 1, upd)
	}
	first := send(s)
	firstTime := opTime(t, first)
	if first.Lookup("ok").Double() != 1 || first.Lookup("upserted").Type != bson.TypeArray {
		t.Fatalf("first update: %v", first)
	}
	if again := send(s); replyFields(again) != replyFields(first) {
		t.Fatalf("retry answered %v, first %v", again, first)
	}
	if err := s.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	s = harness.StartDir(t, dir)
	again := send(s)
	if replyFields(again) != replyFields(first) {
		t.Fatalf("retry after a restart answered %v, first %v", again, first)
	}
	// Cluster times keep increasing across the restart.
	if at := opTime(t, again); at.Compare(firstTime) <= 0 {
		t.Fatalf("operationTime %v after the restart, %v before", at, firstTime)
	}
	nc, err := net.Dial("tcp", s.MongoAddr)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	r := opMsg(t, nc, 2, bson.D{{Key: "find", Value: "acct"}, {Key: "$db", Value: "bank"}})
	docs, _ := r.Lookup("cursor", "firstBatch").Array().Values()
	if len(docs) != 1 || docs[0].Document().Lookup("balance").Int32() != 10 {
		t.Fatalf("after three sends: %v, want balance 10", r)
	}
	// An older number is refused after the restart too.
	old := append(bson.D{}, upd...)
	old[3] = bson.E{Key: "txnNumber", Value: int64(6)}
	r = opMsg(t, nc, 3, old)
	if r.Lookup("code").Int32() != 225 {
		t.Fatalf("older txnNumber after a restart: %v", r)
	}
}

// opTime is a reply's operationTime, which must equal its
// $clusterTime.clusterTime.
func opTime(t *testing.T, r bson.Raw) bson.Timestamp {
	t.Helper()
	ts, ti, ok := r.Lookup("operationTime").TimestampOK()
	ct, ci, ok2 := r.Lookup("$clusterTime", "clusterTime").TimestampOK()
	if !ok || !ok2 || ts != ct || ti != ci {
		t.Fatalf("reply without cluster time: %v", r)
	}
	return bson.Timestamp{T: ts, I: ti}
}

// replyFields is a reply but for the cluster time each reply has its own
// of.
func replyFields(r bson.Raw) string {
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

// A transaction's commitTransaction retried after a restart is answered as
// committed, from the record the commit stored, and the transaction is not
// run again: a driver whose commit reply was lost would otherwise get
// NoSuchTransaction, whose TransientTransactionError label makes
// WithTransaction run the whole transaction a second time.
func TestCommittedTransactionAcrossRestart(t *testing.T) {
	dir := t.TempDir()
	s := harness.StartDir(t, dir)
	lsid := bson.D{{Key: "id", Value: bson.Binary{Subtype: bson.TypeBinaryUUID, Data: []byte("fedcba9876543210")}}}
	txn := func(cmd bson.D, first bool) bson.D {
		cmd = append(cmd, bson.E{Key: "lsid", Value: lsid}, bson.E{Key: "txnNumber", Value: int64(4)})
		if first {
			cmd = append(cmd, bson.E{Key: "startTransaction", Value: true})
		}
		return append(cmd, bson.E{Key: "autocommit", Value: false})
	}
	insert := txn(bson.D{
		{Key: "insert", Value: "orders"},
		{Key: "documents", Value: bson.A{bson.D{{Key: "_id", Value: 1}}}},
		{Key: "$db", Value: "shop"},
	}, true)
	commit := txn(bson.D{{Key: "commitTransaction", Value: 1}, {Key: "$db", Value: "admin"}}, false)
	abort := txn(bson.D{{Key: "abortTransaction", Value: 1}, {Key: "$db", Value: "admin"}}, false)
	dial := func(s *harness.Server) net.Conn {
		nc, err := net.Dial("tcp", s.MongoAddr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { nc.Close() })
		return nc
	}
	nc := dial(s)
	if r := opMsg(t, nc, 1, insert); r.Lookup("n").Int32() != 1 {
		t.Fatalf("insert in the transaction: %v", r)
	}
	if r := opMsg(t, nc, 2, commit); r.Lookup("ok").Double() != 1 {
		t.Fatalf("commit: %v", r)
	}
	if err := s.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	s = harness.StartDir(t, dir)
	nc = dial(s)
	if r := opMsg(t, nc, 3, commit); r.Lookup("ok").Double() != 1 {
		t.Fatalf("commit retried after a restart: %v", r)
	}
	if r := opMsg(t, nc, 4, abort); r.Lookup("code").Int32() != 256 {
		t.Fatalf("abort of the committed transaction after a restart: %v, want TransactionCommitted", r)
	}
	r := opMsg(t, nc, 5, bson.D{{Key: "count", Value: "orders"}, {Key: "$db", Value: "shop"}})
	if r.Lookup("n").Int32() != 1 {
		t.Fatalf("after the retried commit: %v, want 1 document", r)
	}
}
