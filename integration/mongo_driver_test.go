package integration_test

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/mayfly/mayfly/integration/harness"
)

// mongoClient connects the Go driver to a running mayfly.
func mongoClient(t *testing.T, s *harness.Server) *mongo.Client {
	t.Helper()
	cl, err := mongo.Connect(options.Client().ApplyURI("mongodb://" + s.MongoAddr + "/?directConnection=true").SetTimeout(30 * time.Second))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cl.Disconnect(context.Background()) })
	return cl
}

func wantCommandError(t *testing.T, err error, code int32, msg string) {
	t.Helper()
	var ce mongo.CommandError
	if !errors.As(err, &ce) || ce.Code != code || (msg != "" && ce.Message != msg) {
		t.Fatalf("error = %v, want code %d %q", err, code, msg)
	}
}

// Ensure that the Go driver works against `mayfly serve` for documents,
// indexes, cursors and the server commands wired to the expiry engine.
func TestMongoDriverAgainstServe(t *testing.T) {
	s := harness.Start(t)
	cl := mongoClient(t, s)
	ctx := t.Context()
	if err := cl.Ping(ctx, nil); err != nil {
		t.Fatal(err)
	}
	c := cl.Database("app").Collection("sessions")
	docs := make([]any, 300)
	for i := range docs {
		docs[i] = bson.D{{Key: "_id", Value: i}, {Key: "user", Value: i % 7}, {Key: "createdAt", Value: time.Now()}}
	}
	if _, err := c.InsertMany(ctx, docs); err != nil {
		t.Fatal(err)
	}
	_, err := c.InsertOne(ctx, bson.D{{Key: "_id", Value: 0}})
	var we mongo.WriteException
	if !errors.As(err, &we) || we.WriteErrors[0].Code != 11000 {
		t.Fatalf("duplicate insert: %v", err)
	}
	name, err := c.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: "createdAt", Value: 1}}, Options: options.Index().SetExpireAfterSeconds(3600)})
	if err != nil || name != "createdAt_1" {
		t.Fatalf("createIndex %q %v", name, err)
	}
	cur, err := c.Find(ctx, bson.D{{Key: "user", Value: 3}}, options.Find().SetBatchSize(5).SetSort(bson.D{{Key: "_id", Value: 1}}))
	if err != nil {
		t.Fatal(err)
	}
	var got []bson.M
	if err := cur.All(ctx, &got); err != nil || len(got) != 43 {
		t.Fatalf("find through getMore: %d %v", len(got), err)
	}
	if res, err := c.UpdateMany(ctx, bson.D{{Key: "user", Value: 3}}, bson.D{{Key: "$set", Value: bson.D{{Key: "seen", Value: true}}}}); err != nil || res.ModifiedCount != 43 {
		t.Fatalf("updateMany %+v %v", res, err)
	}
	if res, err := c.DeleteMany(ctx, bson.D{{Key: "user", Value: 4}}); err != nil || res.DeletedCount != 43 {
		t.Fatalf("deleteMany %+v %v", res, err)
	}
	if n, err := c.CountDocuments(ctx, bson.D{}); err != nil || n != 257 {
		t.Fatalf("count %d %v", n, err)
	}

	admin := cl.Database("admin")
	var status bson.Raw
	if status, err = admin.RunCommand(ctx, bson.D{{Key: "serverStatus", Value: 1}}).Raw(); err != nil {
		t.Fatal(err)
	}
	if _, err := status.LookupErr("metrics", "ttl", "passes"); err != nil {
		t.Fatalf("serverStatus has no metrics.ttl.passes: %v", err)
	}
	raw, err := admin.RunCommand(ctx, bson.D{{Key: "getParameter", Value: 1}, {Key: "ttlMonitorSleepSecs", Value: 1}}).Raw()
	if err != nil || raw.Lookup("ttlMonitorSleepSecs").Int32() != 60 {
		t.Fatalf("getParameter %v %v", raw, err)
	}
	err = admin.RunCommand(ctx, bson.D{{Key: "setParameter", Value: 1}, {Key: "ttlMonitorSleepSecs", Value: 0}}).Err()
	wantCommandError(t, err, 2, "Invalid value for parameter ttlMonitorSleepSecs: 0 is not greater than 0")
	raw, err = admin.RunCommand(ctx, bson.D{{Key: "setParameter", Value: 1}, {Key: "ttlMonitorSleepSecs", Value: 30}}).Raw()
	if err != nil || raw.Lookup("was").Int32() != 60 {
		t.Fatalf("setParameter %v %v", raw, err)
	}
	err = admin.RunCommand(ctx, bson.D{{Key: "atlasVersion", Value: 1}}).Err()
	wantCommandError(t, err, 59, "no such command: 'atlasVersion'")
}

// rawFrame builds an OP_MSG with one body section.
func rawFrame(t *testing.T, requestID int32, body []byte) []byte {
	t.Helper()
	b := make([]byte, 16, 21+len(body))
	binary.LittleEndian.PutUint32(b[4:], uint32(requestID))
	binary.LittleEndian.PutUint32(b[12:], 2013)
	b = append(b, 0, 0, 0, 0, 0)
	b = append(b, body...)
	binary.LittleEndian.PutUint32(b, uint32(len(b)))
	return b
}

func readRawReply(t *testing.T, r *bufio.Reader) bson.Raw {
	t.Helper()
	var hdr [16]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		t.Fatalf("read reply: %v", err)
	}
	rest := make([]byte, binary.LittleEndian.Uint32(hdr[:])-16)
	if _, err := io.ReadFull(r, rest); err != nil {
		t.Fatalf("read reply: %v", err)
	}
	return bson.Raw(rest[5:]) // flags and the body's section kind
}

// Ensure that malformed messages sent to `mayfly serve` get MongoDB's
// answers and leave the server serving other clients.
func TestMongoMalformedInputKeepsServing(t *testing.T) {
	s := harness.Start(t)
	cl := mongoClient(t, s)
	dial := func() (net.Conn, *bufio.Reader) {
		nc, err := net.Dial("tcp", s.MongoAddr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { nc.Close() })
		nc.SetDeadline(time.Now().Add(20 * time.Second))
		return nc, bufio.NewReader(nc)
	}

	// A length over maxMessageSizeBytes: the connection is closed.
	nc, r := dial()
	hdr := make([]byte, 16)
	binary.LittleEndian.PutUint32(hdr, 48_000_001)
	binary.LittleEndian.PutUint32(hdr[12:], 2013)
	nc.Write(hdr)
	if _, err := r.ReadByte(); err == nil {
		t.Fatal("oversized message got a reply")
	}

	// Malformed BSON: an InvalidBSON reply, and the connection serves on.
	nc, r = dial()
	bad := []byte{0x0f, 0, 0, 0, 0x02, 'a', 0, 0x03, 0, 0, 0, 'x', 'y', 'z', 0}
	nc.Write(rawFrame(t, 1, bad))
	if reply := readRawReply(t, r); reply.Lookup("code").Int32() != 22 || reply.Lookup("codeName").StringValue() != "InvalidBSON" {
		t.Fatalf("bad BSON reply %v", reply)
	}
	ping, _ := bson.Marshal(bson.D{{Key: "ping", Value: 1}, {Key: "$db", Value: "admin"}})
	nc.Write(rawFrame(t, 2, ping))
	if reply := readRawReply(t, r); reply.Lookup("ok").Double() != 1 {
		t.Fatalf("ping after bad BSON %v", reply)
	}

	// A truncated frame, then the client goes away.
	nc, _ = dial()
	frame := rawFrame(t, 3, ping)
	nc.Write(frame[:len(frame)-4])
	nc.Close()

	// An unknown opcode: no reply, the connection serves on.
	nc, r = dial()
	unknown := make([]byte, 20)
	binary.LittleEndian.PutUint32(unknown, 20)
	binary.LittleEndian.PutUint32(unknown[12:], 4242)
	nc.Write(unknown)
	nc.Write(rawFrame(t, 4, ping))
	if reply := readRawReply(t, r); reply.Lookup("ok").Double() != 1 {
		t.Fatalf("ping after unknown opcode %v", reply)
	}

	if err := cl.Ping(t.Context(), nil); err != nil {
		t.Fatalf("server stopped serving: %v", err)
	}
}
