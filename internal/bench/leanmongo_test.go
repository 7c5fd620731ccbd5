package bench

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

func mustMarshal(t *testing.T, v any) []byte {
	t.Helper()
	b, err := bson.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// frame builds a whole message: header, then payload (flags and sections).
func frame(requestID, responseTo, opCode int32, payload []byte) []byte {
	b := binary.LittleEndian.AppendUint32(nil, uint32(16+len(payload)))
	b = binary.LittleEndian.AppendUint32(b, uint32(requestID))
	b = binary.LittleEndian.AppendUint32(b, uint32(responseTo))
	b = binary.LittleEndian.AppendUint32(b, uint32(opCode))
	return append(b, payload...)
}

// msgPayload builds flags and sections: a body (kind 0) and optional
// document sequences (kind 1).
func msgPayload(flags uint32, sections ...[]byte) []byte {
	b := binary.LittleEndian.AppendUint32(nil, flags)
	for _, s := range sections {
		b = append(b, s...)
	}
	return b
}

func bodySection(doc []byte) []byte { return append([]byte{0}, doc...) }

func sequenceSection(id string, docs ...[]byte) []byte {
	var body []byte
	body = append(body, id...)
	body = append(body, 0)
	for _, d := range docs {
		body = append(body, d...)
	}
	b := []byte{1}
	b = binary.LittleEndian.AppendUint32(b, uint32(4+len(body)))
	return append(b, body...)
}

// Ensure that appendOpMsg writes MongoDB's framing: length, requestID,
// responseTo 0, opcode 2013, flagBits 0, one kind 0 section.
func TestAppendOpMsg(t *testing.T) {
	doc := mustMarshal(t, bson.D{{Key: "hello", Value: int32(1)}, {Key: "$db", Value: "admin"}})
	got := appendOpMsg([]byte("junk"), 7, doc)[4:]
	want := frame(7, 0, 2013, msgPayload(0, bodySection(doc)))
	if !bytes.Equal(got, want) {
		t.Fatalf("got % x\nwant % x", got, want)
	}
}

// Ensure that replies are read whole, document sequences and the checksum
// skipped, and that malformed and short frames are refused.
func TestReadOpMsg(t *testing.T) {
	body := mustMarshal(t, bson.D{{Key: "ok", Value: 1.0}, {Key: "n", Value: int32(1)}})
	seqDoc := mustMarshal(t, bson.D{{Key: "x", Value: int32(1)}})
	withChecksum := func(f []byte) []byte {
		return binary.LittleEndian.AppendUint32(f, crc32.Checksum(f, crc32.MakeTable(crc32.Castagnoli)))
	}
	checksummed := frame(5, 9, 2013, msgPayload(opMsgChecksumFlag, bodySection(body)))
	binary.LittleEndian.PutUint32(checksummed, uint32(len(checksummed)+4))
	checksummed = withChecksum(checksummed)
	badSection := append(msgPayload(0, bodySection(body)), 1)
	badSection = binary.LittleEndian.AppendUint32(badSection, 100)
	tooBig := frame(5, 9, 2013, msgPayload(0, bodySection(body)))
	binary.LittleEndian.PutUint32(tooBig, 60_000_000)
	tests := []struct {
		name  string
		in    []byte
		want  []byte // the body, when it reads
		proto bool
		eof   error
	}{
		{name: "body", in: frame(5, 9, 2013, msgPayload(0, bodySection(body))), want: body},
		{name: "sequence then body", in: frame(5, 9, 2013, msgPayload(0, sequenceSection("documents", seqDoc, seqDoc), bodySection(body))), want: body},
		{name: "checksum", in: checksummed, want: body},
		{name: "wrong responseTo", in: frame(5, 8, 2013, msgPayload(0, bodySection(body))), proto: true},
		{name: "OP_REPLY", in: frame(5, 9, 1, msgPayload(0, bodySection(body))), proto: true},
		{name: "length below the minimum", in: frame(5, 9, 2013, []byte{0, 0, 0, 0, 0}), proto: true},
		{name: "length too big", in: tooBig, proto: true},
		{name: "no body", in: frame(5, 9, 2013, msgPayload(0, sequenceSection("documents", seqDoc))), proto: true},
		{name: "two bodies", in: frame(5, 9, 2013, msgPayload(0, bodySection(body), bodySection(body))), proto: true},
		{name: "unknown section kind", in: frame(5, 9, 2013, msgPayload(0, bodySection(body), []byte{2, 5, 0, 0, 0, 0})), proto: true},
		{name: "section longer than the message", in: frame(5, 9, 2013, badSection), proto: true},
		{name: "section cut short", in: frame(5, 9, 2013, msgPayload(0, bodySection(body), []byte{1, 5})), proto: true},
		{name: "body not terminated", in: frame(5, 9, 2013, msgPayload(0, bodySection(append(body[:len(body)-1:len(body)-1], 1)))), proto: true},
		{name: "moreToCome", in: frame(5, 9, 2013, msgPayload(opMsgMoreToCome, bodySection(body))), proto: true},
		{name: "nothing", in: nil, eof: io.EOF},
		{name: "header cut short", in: frame(5, 9, 2013, nil)[:10], eof: io.ErrUnexpectedEOF},
		{name: "message cut short", in: frame(5, 9, 2013, msgPayload(0, bodySection(body)))[:30], eof: io.ErrUnexpectedEOF},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _, err := readOpMsg(bytes.NewReader(tt.in), nil, 9)
			switch {
			case tt.proto:
				if !errors.Is(err, ErrMongoProtocol) {
					t.Fatalf("err = %v, want ErrMongoProtocol", err)
				}
			case tt.eof != nil:
				if !errors.Is(err, tt.eof) {
					t.Fatalf("err = %v, want %v", err, tt.eof)
				}
			case err != nil:
				t.Fatal(err)
			case !bytes.Equal(got, tt.want):
				t.Fatalf("body %v, want %v", got, bson.Raw(tt.want))
			}
		})
	}
}

// Ensure that ok: 0, write errors and write concern errors are errors with
// the server's code and message, and that a reply without a numeric ok is
// malformed.
func TestCheckMongoReply(t *testing.T) {
	tests := []struct {
		name    string
		doc     bson.D
		code    int32  // a *MongoCommandError with this code
		msg     string // and message
		proto   bool
		success bool
	}{
		{name: "ok double", doc: bson.D{{Key: "ok", Value: 1.0}}, success: true},
		{name: "ok int32", doc: bson.D{{Key: "n", Value: int32(1)}, {Key: "ok", Value: int32(1)}}, success: true},
		{name: "ok bool", doc: bson.D{{Key: "ok", Value: true}}, success: true},
		{name: "empty writeErrors", doc: bson.D{{Key: "ok", Value: 1.0}, {Key: "writeErrors", Value: bson.A{}}}, success: true},
		{name: "ok 0", doc: bson.D{{Key: "ok", Value: 0.0}, {Key: "errmsg", Value: "ns does not exist"}, {Key: "code", Value: int32(26)}, {Key: "codeName", Value: "NamespaceNotFound"}}, code: 26, msg: "ns does not exist"},
		{name: "ok false", doc: bson.D{{Key: "ok", Value: false}, {Key: "errmsg", Value: "no"}, {Key: "code", Value: int32(2)}}, code: 2, msg: "no"},
		{name: "write error", doc: bson.D{{Key: "n", Value: int32(0)}, {Key: "writeErrors", Value: bson.A{bson.D{{Key: "index", Value: int32(0)}, {Key: "code", Value: int32(11000)}, {Key: "errmsg", Value: "E11000 duplicate key error"}}}}, {Key: "ok", Value: 1.0}}, code: 11000, msg: "E11000 duplicate key error"},
		{name: "write concern error", doc: bson.D{{Key: "ok", Value: 1.0}, {Key: "writeConcernError", Value: bson.D{{Key: "code", Value: int32(64)}, {Key: "errmsg", Value: "waiting for replication timed out"}}}}, code: 64, msg: "waiting for replication timed out"},
		{name: "no ok", doc: bson.D{{Key: "n", Value: int32(1)}}, proto: true},
		{name: "ok string", doc: bson.D{{Key: "ok", Value: "1"}}, proto: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := checkMongoReply(mustMarshal(t, tt.doc))
			var ce *MongoCommandError
			switch {
			case tt.success:
				if err != nil {
					t.Fatalf("err = %v", err)
				}
			case tt.proto:
				if !errors.Is(err, ErrMongoProtocol) {
					t.Fatalf("err = %v, want ErrMongoProtocol", err)
				}
			default:
				if !errors.As(err, &ce) || ce.Code != tt.code || ce.Message != tt.msg {
					t.Fatalf("err = %v, want code %d %q", err, tt.code, tt.msg)
				}
			}
		})
	}
	if err := checkMongoReply(bson.Raw{1, 2}); !errors.Is(err, ErrMongoProtocol) {
		t.Errorf("a truncated document: err = %v", err)
	}
}

// Ensure that the builder writes the bytes bson.Marshal writes for the
// same document, and that doc's lean commands are the documents the
// workload means.
func TestBSONBuilder(t *testing.T) {
	at := time.UnixMilli(1_800_000_000_123).UTC()
	var b bsonBuilder
	b.start([]byte("prefix"))
	b.string("insert", "doc")
	b.array("documents")
	b.document("0")
	b.int64("_id", 42)
	b.dateTime("expireAt", at)
	b.int32("n", -3)
	b.boolean("f", false)
	b.close()
	b.close()
	b.boolean("ordered", true)
	got := b.end()[len("prefix"):]
	want := mustMarshal(t, bson.D{
		{Key: "insert", Value: "doc"},
		{Key: "documents", Value: bson.A{bson.D{{Key: "_id", Value: int64(42)}, {Key: "expireAt", Value: at}, {Key: "n", Value: int32(-3)}, {Key: "f", Value: false}}}},
		{Key: "ordered", Value: true},
	})
	if !bytes.Equal(got, want) {
		t.Fatalf("got %v\nwant %v", bson.Raw(got), bson.Raw(want))
	}
}

// fakeMongo answers each OP_MSG on conn with the next of replies (built
// for the request's id), and records the request bodies.
func fakeMongo(t *testing.T, conn net.Conn, replies []bson.D, got chan<- bson.Raw) {
	r := bufio.NewReader(conn)
	defer conn.Close()
	defer close(got)
	for _, reply := range replies {
		var hdr [16]byte
		if _, err := io.ReadFull(r, hdr[:]); err != nil {
			return
		}
		rest := make([]byte, binary.LittleEndian.Uint32(hdr[:])-16)
		if _, err := io.ReadFull(r, rest); err != nil {
			return
		}
		body, err := opMsgBody(rest)
		if err != nil {
			t.Errorf("request: %v", err)
			return
		}
		got <- body
		id := int32(binary.LittleEndian.Uint32(hdr[4:]))
		doc, err := bson.Marshal(reply)
		if err != nil {
			t.Error(err)
			return
		}
		if _, err := conn.Write(frame(100+id, id, 2013, msgPayload(0, bodySection(doc)))); err != nil {
			return
		}
	}
}

// Ensure that the lean connection sends hello to admin first, increments
// its request ids, and that doc's operations check their replies: an
// insert must say n: 1, a find or findAndModify that returns nothing is a
// miss, an error reply is an error.
func TestMongoConnCommands(t *testing.T) {
	client, srv := net.Pipe()
	replies := []bson.D{
		{{Key: "isWritablePrimary", Value: true}, {Key: "ok", Value: 1.0}},
		{{Key: "n", Value: int32(1)}, {Key: "ok", Value: 1.0}},
		{{Key: "cursor", Value: bson.D{{Key: "firstBatch", Value: bson.A{bson.D{{Key: "_id", Value: int64(3)}}}}, {Key: "id", Value: int64(0)}, {Key: "ns", Value: "b.doc"}}}, {Key: "ok", Value: 1.0}},
		{{Key: "cursor", Value: bson.D{{Key: "firstBatch", Value: bson.A{}}, {Key: "id", Value: int64(0)}, {Key: "ns", Value: "b.doc"}}}, {Key: "ok", Value: 1.0}},
		{{Key: "n", Value: int32(0)}, {Key: "ok", Value: 1.0}},
		{{Key: "ok", Value: 0.0}, {Key: "errmsg", Value: "boom"}, {Key: "code", Value: int32(8000)}},
		{{Key: "n", Value: int32(1)}, {Key: "nModified", Value: int32(1)}, {Key: "ok", Value: 1.0}},
		{{Key: "lastErrorObject", Value: bson.D{{Key: "n", Value: int32(1)}, {Key: "updatedExisting", Value: true}}}, {Key: "value", Value: bson.D{{Key: "_id", Value: int64(3)}}}, {Key: "ok", Value: 1.0}},
		{{Key: "lastErrorObject", Value: bson.D{{Key: "n", Value: int32(0)}, {Key: "updatedExisting", Value: false}}}, {Key: "value", Value: nil}, {Key: "ok", Value: 1.0}},
	}
	got := make(chan bson.Raw, len(replies))
	go fakeMongo(t, srv, replies, got)
	c := newMongoConn(client)
	defer c.close()
	var b bsonBuilder
	b.start(nil)
	b.int32("hello", 1)
	b.string("$db", "admin")
	c.doc = b.end()
	if _, err := c.command(); err != nil {
		t.Fatalf("hello: %v", err)
	}
	var misses atomic.Int64
	at := time.Now()
	ops := []struct {
		op      docOp
		wantErr bool
	}{
		{op: docOp{db: "b", kind: "insert", id: 3, payload: "p", expireAt: at}},
		{op: docOp{db: "b", kind: "find_id", id: 3}},
		{op: docOp{db: "b", kind: "find_indexed", email: "nobody@example.com"}},
		{op: docOp{db: "b", kind: "insert", id: 4, payload: "p", expireAt: at}, wantErr: true},
		{op: docOp{db: "b", kind: "find_id", id: 5}, wantErr: true},
		{op: docOp{db: "b", kind: "update", id: 3}},
		{op: docOp{db: "b", kind: "find_and_modify", id: 3}},
		{op: docOp{db: "b", kind: "find_and_modify", id: 9}},
	}
	for i, o := range ops {
		err := o.op.run(c, &misses)
		if (err != nil) != o.wantErr {
			t.Errorf("op %d (%s): err = %v, want an error: %v", i, o.op.kind, err, o.wantErr)
		}
	}
	if c.broken {
		t.Error("error replies marked the connection broken")
	}
	if m := misses.Load(); m != 2 {
		t.Errorf("misses = %d, want 2 (a find and a findAndModify)", m)
	}
	if c.requestID != int32(len(replies)) {
		t.Errorf("requestID = %d, want %d", c.requestID, len(replies))
	}
	first := <-got
	if v, _ := first.Lookup("hello").Int32OK(); v != 1 || first.Lookup("$db").StringValue() != "admin" {
		t.Errorf("first request %v, want hello to admin", first)
	}
	insert := <-got
	want := bson.D{{Key: "insert", Value: "doc"}, {Key: "documents", Value: bson.A{bson.D{
		{Key: "_id", Value: int64(3)}, {Key: "email", Value: docEmail(3)}, {Key: "expireAt", Value: bson.NewDateTimeFromTime(at)},
		{Key: "n", Value: int64(0)}, {Key: "payload", Value: "p"},
	}}}, {Key: "ordered", Value: true}, {Key: "$db", Value: "b"}}
	if !bytes.Equal(insert, mustMarshal(t, want)) {
		t.Errorf("insert sent %v", insert)
	}
	find := <-got
	if id, _ := find.Lookup("filter", "_id").Int64OK(); id != 3 || find.Lookup("find").StringValue() != "doc" {
		t.Errorf("find sent %v", find)
	}
}

// Ensure that only a plain one-host mongodb:// URI is taken by the lean
// client.
func TestMongoHostPort(t *testing.T) {
	tests := []struct {
		uri, want string
	}{
		{"mongodb://127.0.0.1:27117/", "127.0.0.1:27117"},
		{"mongodb://127.0.0.1:27117", "127.0.0.1:27117"},
		{"mongodb://localhost/db", "localhost:27017"},
		{"mongodb://[::1]:5/", "[::1]:5"},
		{"mongodb://h:1/?", "h:1"},
		{"mongodb://h:1/?tls=true", ""},
		{"mongodb://h:1?replicaSet=x", ""},
		{"mongodb://u:p@h:1/", ""},
		{"mongodb://a:1,b:2/", ""},
		{"mongodb+srv://x.example.com/", ""},
		{"mongodb:///", ""},
	}
	for _, tt := range tests {
		got, err := mongoHostPort(tt.uri)
		if tt.want == "" {
			if err == nil {
				t.Errorf("%s: got %q, want an error", tt.uri, got)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("%s: got %q, %v, want %q", tt.uri, got, err, tt.want)
		}
	}
}
