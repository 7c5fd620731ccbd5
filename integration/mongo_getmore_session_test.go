package integration_test

import (
	"bufio"
	"crypto/rand"
	"net"
	"strconv"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/mayfly/mayfly/integration/harness"
)

// Ensure that a getMore is refused on a cursor opened in another session
// (50738) or, without a session, on one opened in a session (50737), with
// MongoDB's words; the refused cursor stays open for its own session, and
// a cursor opened without a session may be read from any.
func TestMongoGetMoreOtherSession(t *testing.T) {
	s := harness.Start(t)
	cl := mongoClient(t, s)
	ctx := t.Context()
	db := cl.Database("sess")
	fillCollection(t, db.Collection("c"), 10)
	lsid := func() bson.D {
		var u [16]byte
		rand.Read(u[:])
		u[6] = u[6]&0x0f | 0x40
		u[8] = u[8]&0x3f | 0x80
		return bson.D{{Key: "id", Value: bson.Binary{Subtype: bson.TypeBinaryUUID, Data: u[:]}}}
	}
	// The driver gives every command a session; the raw connection sends
	// commands without one.
	nc, err := net.Dial("tcp", s.MongoAddr)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	r := bufio.NewReader(nc)
	reqID := int32(0)
	rawCommand := func(cmd bson.D) bson.Raw {
		body, err := bson.Marshal(append(cmd, bson.E{Key: "$db", Value: "sess"}))
		if err != nil {
			t.Fatal(err)
		}
		reqID++
		if _, err := nc.Write(rawFrame(t, reqID, body)); err != nil {
			t.Fatal(err)
		}
		return readRawReply(t, r)
	}
	getMore := func(id int64, sess bson.D) error {
		cmd := bson.D{{Key: "getMore", Value: id}, {Key: "collection", Value: "c"}, {Key: "batchSize", Value: 1}}
		if sess != nil {
			return db.RunCommand(ctx, append(cmd, bson.E{Key: "lsid", Value: sess})).Err()
		}
		reply := rawCommand(cmd)
		if code, ok := reply.Lookup("code").Int32OK(); ok {
			return mongo.CommandError{Code: code, Message: reply.Lookup("errmsg").StringValue()}
		}
		return nil
	}
	a, b := lsid(), lsid()
	id := openCursor(t, db, "c", a)
	name := `[0-9a-f-]{36} - [A-Za-z0-9+/]{43}= -  - `
	wantCommandErrorMatching(t, getMore(id, b), 50738,
		`^Cannot run getMore on cursor `+strconv.FormatInt(id, 10)+`, which was created in session `+name+`, in session `+name+`$`)
	wantCommandErrorMatching(t, getMore(id, nil), 50737,
		`^Cannot run getMore on cursor `+strconv.FormatInt(id, 10)+`, which was created in session `+name+`, without an lsid$`)
	if err := getMore(id, a); err != nil {
		t.Fatalf("getMore in the cursor's own session: %v", err)
	}

	reply := rawCommand(bson.D{{Key: "find", Value: "c"}, {Key: "batchSize", Value: 2}})
	free, ok := reply.Lookup("cursor", "id").AsInt64OK()
	if !ok || free == 0 {
		t.Fatalf("find without a session: %v", reply)
	}
	if err := getMore(free, b); err != nil {
		t.Fatalf("getMore in a session on a cursor opened without one: %v", err)
	}
}
