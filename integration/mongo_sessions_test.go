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
