package mongo

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
)

// recorded returns the frames recorded from mongosh 2.12 and the Go driver
// (testdata/recorded/*.hex), by file name.
func recorded(t testing.TB) map[string][]byte {
	t.Helper()
	files, err := filepath.Glob("testdata/recorded/*.hex")
	if err != nil || len(files) == 0 {
		t.Fatalf("no recorded frames: %v", err)
	}
	out := map[string][]byte{}
	for _, f := range files {
		text, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		b, err := hex.DecodeString(strings.Join(strings.Fields(string(text)), ""))
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		out[strings.TrimSuffix(filepath.Base(f), ".hex")] = b
	}
	return out
}

func mustMarshal(t testing.TB, v any) []byte {
	t.Helper()
	b, err := bson.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// msgBuilder builds OP_MSG frames for tests, malformed ones included.
type msgBuilder struct {
	flags uint32
	body  []byte // raw section bytes after the flags
}

func newMsg(flags uint32) *msgBuilder { return &msgBuilder{flags: flags} }

func (m *msgBuilder) kind0(doc []byte) *msgBuilder {
	m.body = append(append(m.body, 0), doc...)
	return m
}

func (m *msgBuilder) kind1(id string, docs ...[]byte) *msgBuilder {
	m.body = append(m.body, 1)
	start := len(m.body)
	m.body = append(m.body, 0, 0, 0, 0)
	m.body = append(append(m.body, id...), 0)
	for _, d := range docs {
		m.body = append(m.body, d...)
	}
	binary.LittleEndian.PutUint32(m.body[start:], uint32(len(m.body)-start))
	return m
}

func (m *msgBuilder) raw(b ...byte) *msgBuilder {
	m.body = append(m.body, b...)
	return m
}

func (m *msgBuilder) frame(requestID int32) []byte {
	out := appendHeader(nil, msgHeader{requestID: requestID, opCode: opCodeMsg})
	out = binary.LittleEndian.AppendUint32(out, m.flags)
	out = append(out, m.body...)
	if m.flags&flagChecksumPresent != 0 {
		binary.LittleEndian.PutUint32(out, uint32(len(out)+4))
		return binary.LittleEndian.AppendUint32(out, crc32.Checksum(out, castagnoli))
	}
	setLength(out)
	return out
}

func TestReadFrame(t *testing.T) {
	t.Parallel()
	valid := newMsg(0).kind0(mustMarshal(t, bson.D{{Key: "ping", Value: 1}, {Key: "$db", Value: "admin"}})).frame(1)
	hdr := func(n int32) []byte { return appendHeader(nil, msgHeader{length: n, opCode: opCodeMsg}) }
	cases := map[string]struct {
		in      []byte
		wantErr error
	}{
		"valid":           {in: valid},
		"empty":           {in: nil, wantErr: io.EOF},
		"short header":    {in: valid[:10], wantErr: io.ErrUnexpectedEOF},
		"truncated body":  {in: valid[:len(valid)-3], wantErr: io.ErrUnexpectedEOF},
		"length below 16": {in: hdr(15), wantErr: errFrameLength},
		"negative length": {in: hdr(-5), wantErr: errFrameLength},
		"length over max": {in: hdr(MaxMessageSizeBytes + 1), wantErr: errFrameLength},
		"max, no body":    {in: hdr(MaxMessageSizeBytes), wantErr: io.ErrUnexpectedEOF},
		"header only":     {in: hdr(16)},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			for _, r := range []io.Reader{bytes.NewReader(tc.in), iotest.OneByteReader(bytes.NewReader(tc.in))} {
				got, err := readFrame(bufio.NewReader(r))
				if !errors.Is(err, tc.wantErr) {
					t.Fatalf("err = %v, want %v", err, tc.wantErr)
				}
				if err == nil && !bytes.Equal(got, tc.in) {
					t.Fatalf("frame = %x, want %x", got, tc.in)
				}
			}
		})
	}
}

// Ensure that a client announcing a huge message costs memory only as its
// bytes arrive.
func TestReadFrameAllocatesAsBytesArrive(t *testing.T) {
	hdr := appendHeader(nil, msgHeader{length: MaxMessageSizeBytes, opCode: opCodeMsg})
	in := append(hdr, make([]byte, 1000)...)
	before := memAlloc()
	for range 5 {
		if _, err := readFrame(bufio.NewReaderSize(bytes.NewReader(in), 16)); !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Fatalf("err = %v", err)
		}
	}
	if d := memAlloc() - before; d > 5*2*firstChunk {
		t.Fatalf("allocated %v bytes for 5 truncated frames", d)
	}
}

func TestDecodeOpMsg(t *testing.T) {
	t.Parallel()
	body := mustMarshal(t, bson.D{{Key: "insert", Value: "c"}, {Key: "$db", Value: "test"}})
	doc1 := mustMarshal(t, bson.D{{Key: "_id", Value: 1}})
	doc2 := mustMarshal(t, bson.D{{Key: "_id", Value: 2}})
	badString := []byte{0x0f, 0, 0, 0, 0x02, 'a', 0, 0x03, 0, 0, 0, 'x', 'y', 'z', 0} // string not null-terminated
	huge := binary.LittleEndian.AppendUint32(nil, uint32(maxBSONInternalSize+1))
	huge = append(huge, 0x10, 'a', 0, 1, 0, 0, 0, 0)
	withChecksum := newMsg(flagChecksumPresent).kind0(body).frame(1)
	corrupted := bytes.Clone(withChecksum)
	corrupted[len(corrupted)-1] ^= 0xff

	cases := map[string]struct {
		frame     []byte
		wantCode  mongoerr.Code // 0: success
		wantFatal bool
		wantSeqs  int
	}{
		"body only":          {frame: newMsg(0).kind0(body).frame(1)},
		"body and sequence":  {frame: newMsg(0).kind0(body).kind1("documents", doc1, doc2).frame(1), wantSeqs: 1},
		"sequence first":     {frame: newMsg(0).kind1("documents", doc1).kind0(body).frame(1), wantSeqs: 1},
		"empty sequence":     {frame: newMsg(0).kind0(body).kind1("documents").frame(1), wantSeqs: 1},
		"checksum":           {frame: withChecksum},
		"exhaustAllowed":     {frame: newMsg(flagExhaustAllowed).kind0(body).frame(1)},
		"moreToCome":         {frame: newMsg(flagMoreToCome).kind0(body).frame(1)},
		"bad checksum":       {frame: corrupted, wantCode: mongoerr.ChecksumMismatch, wantFatal: true},
		"unknown flag":       {frame: newMsg(1 << 5).kind0(body).frame(1), wantCode: mongoerr.IllegalOpMsgFlag, wantFatal: true},
		"no flags room":      {frame: appendHeader(nil, msgHeader{length: 18, opCode: opCodeMsg}), wantCode: mongoerr.ProtocolError, wantFatal: true},
		"no body":            {frame: newMsg(0).kind1("documents", doc1).frame(1), wantCode: 40587},
		"empty message":      {frame: newMsg(0).frame(1), wantCode: 40587},
		"two bodies":         {frame: newMsg(0).kind0(body).kind0(body).frame(1), wantCode: 40430},
		"duplicate sequence": {frame: newMsg(0).kind0(body).kind1("d", doc1).kind1("d", doc2).frame(1), wantCode: 40431},
		"unknown kind":       {frame: newMsg(0).kind0(body).raw(2, 0).frame(1), wantCode: 40432},
		"field in both":      {frame: newMsg(0).kind0(body).kind1("insert", doc1).frame(1), wantCode: 40433},
		"bad bson body":      {frame: newMsg(0).kind0(badString).frame(1), wantCode: mongoerr.InvalidBSON},
		"bad bson in seq":    {frame: newMsg(0).kind0(body).kind1("documents", badString).frame(1), wantCode: mongoerr.InvalidBSON},
		"too large":          {frame: newMsg(0).raw(0).raw(huge...).frame(1), wantCode: mongoerr.BSONObjectTooLarge},
		"truncated body":     {frame: newMsg(0).raw(0).raw(body[:len(body)-2]...).frame(1), wantCode: mongoerr.InvalidBSON},
		"sequence overruns":  {frame: newMsg(0).kind0(body).raw(1, 0xff, 0, 0, 0, 'd', 0).frame(1), wantCode: mongoerr.ProtocolError},
		"sequence no ident":  {frame: newMsg(0).kind0(body).raw(1, 6, 0, 0, 0, 'd', 'x').frame(1), wantCode: mongoerr.ProtocolError},
		"trailing garbage":   {frame: newMsg(0).kind0(body).raw(0).frame(1), wantCode: 40430},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			m, perr := decodeOpMsg(tc.frame)
			if tc.wantCode == 0 {
				if perr != nil {
					t.Fatalf("decode: %v", perr)
				}
				if got := m.encode(); !bytes.Equal(got, tc.frame) {
					t.Fatalf("re-encoded\n%x\nwant\n%x", got, tc.frame)
				}
				seqs := 0
				for _, s := range m.sections {
					if s.kind == sectionSequence {
						seqs++
					}
				}
				if seqs != tc.wantSeqs {
					t.Fatalf("sequences = %d, want %d", seqs, tc.wantSeqs)
				}
				return
			}
			if perr == nil {
				t.Fatalf("decoded, want code %d", tc.wantCode)
			}
			if perr.err.Code != tc.wantCode || perr.fatal != tc.wantFatal {
				t.Fatalf("got %v (fatal %v), want code %d fatal %v", perr, perr.fatal, tc.wantCode, tc.wantFatal)
			}
		})
	}
}

// Ensure that the recorded handshakes of mongosh and the Go driver decode
// and re-encode to the same bytes.
func TestRecordedRoundTrip(t *testing.T) {
	t.Parallel()
	for name, frame := range recorded(t) {
		t.Run(name, func(t *testing.T) {
			switch h := readHeader(frame); h.opCode {
			case opCodeMsg:
				m, perr := decodeOpMsg(frame)
				if perr != nil {
					t.Fatal(perr)
				}
				if !bytes.Equal(m.encode(), frame) {
					t.Fatal("re-encoding differs")
				}
			case opCodeQuery:
				q, perr := decodeOpQuery(frame)
				if perr != nil {
					t.Fatal(perr)
				}
				if !bytes.Equal(q.encode(), frame) {
					t.Fatal("re-encoding differs")
				}
				if db, ok := q.commandDB(); !ok || db != "admin" {
					t.Fatalf("commandDB = %q, %v", db, ok)
				}
			default:
				t.Fatalf("unexpected opcode %v", h.opCode)
			}
		})
	}
}

func TestMergeSequences(t *testing.T) {
	t.Parallel()
	body := mustMarshal(t, bson.D{{Key: "insert", Value: "c"}, {Key: "$db", Value: "test"}})
	doc1 := mustMarshal(t, bson.D{{Key: "_id", Value: 1}, {Key: "d", Value: bson.NewDecimal128(1, 2)}})
	doc2 := mustMarshal(t, bson.D{{Key: "_id", Value: int64(2)}})
	m, perr := decodeOpMsg(newMsg(0).kind0(body).kind1("documents", doc1, doc2).kind1("other").frame(1))
	if perr != nil {
		t.Fatal(perr)
	}
	got := mergeSequences(m.body(), m.sections)
	if err := validateDocument(got, 0); err != nil {
		t.Fatalf("merged document is invalid: %v", err)
	}
	want := mustMarshal(t, bson.D{
		{Key: "insert", Value: "c"}, {Key: "$db", Value: "test"},
		{Key: "documents", Value: bson.A{bson.Raw(doc1), bson.Raw(doc2)}},
		{Key: "other", Value: bson.A{}},
	})
	if !bytes.Equal(got, want) {
		t.Fatalf("merged\n%v\nwant\n%v", got, bson.Raw(want))
	}
}

func TestDecodeOpQuery(t *testing.T) {
	t.Parallel()
	query := mustMarshal(t, bson.D{{Key: "$query", Value: bson.D{{Key: "isMaster", Value: 1}}}, {Key: "$readPreference", Value: bson.D{{Key: "mode", Value: "primary"}}}})
	sel := mustMarshal(t, bson.D{{Key: "a", Value: 1}})
	build := func(ns string, docs ...[]byte) []byte {
		out := appendHeader(nil, msgHeader{requestID: 7, opCode: opCodeQuery})
		out = binary.LittleEndian.AppendUint32(out, 4)
		out = append(append(out, ns...), 0)
		out = binary.LittleEndian.AppendUint32(out, 0)
		out = binary.LittleEndian.AppendUint32(out, uint32(0xffffffff))
		for _, d := range docs {
			out = append(out, d...)
		}
		setLength(out)
		return out
	}
	t.Run("wrapped query", func(t *testing.T) {
		frame := build("admin.$cmd", query)
		q, perr := decodeOpQuery(frame)
		if perr != nil {
			t.Fatal(perr)
		}
		if k := q.command().Index(0).Key(); k != "isMaster" {
			t.Fatalf("command = %s", k)
		}
		if !bytes.Equal(q.encode(), frame) {
			t.Fatal("re-encoding differs")
		}
	})
	t.Run("with selector", func(t *testing.T) {
		frame := build("test.$cmd", query, sel)
		q, perr := decodeOpQuery(frame)
		if perr != nil {
			t.Fatal(perr)
		}
		if !bytes.Equal(q.returnFieldsSelector, sel) || !bytes.Equal(q.encode(), frame) {
			t.Fatal("selector lost")
		}
	})
	for name, frame := range map[string][]byte{
		"trailing bytes":  append(build("admin.$cmd", query, sel), 1, 2, 3),
		"no namespace":    append(appendHeader(nil, msgHeader{opCode: opCodeQuery}), 0, 0, 0, 0, 'a', 'b'),
		"no counts":       append(appendHeader(nil, msgHeader{opCode: opCodeQuery}), 0, 0, 0, 0, 'a', 0, 1),
		"no query":        build("admin.$cmd"),
		"bad query":       build("admin.$cmd", []byte{6, 0, 0, 0, 0x13, 0}),
		"too short flags": appendHeader(nil, msgHeader{opCode: opCodeQuery}),
	} {
		t.Run(name, func(t *testing.T) {
			setLength(frame)
			if _, perr := decodeOpQuery(frame); perr == nil || perr.fatal {
				t.Fatalf("got %v, want a non-fatal error", perr)
			}
		})
	}
}

func TestOpReplyRoundTrip(t *testing.T) {
	t.Parallel()
	doc := mustMarshal(t, bson.D{{Key: "ok", Value: 1.0}})
	frame := appendOpReply(nil, 3, 9, replyAwaitCapable, doc)
	r, perr := decodeOpReply(frame)
	if perr != nil {
		t.Fatal(perr)
	}
	if r.header.responseTo != 9 || r.flags != replyAwaitCapable || len(r.documents) != 1 || !bytes.Equal(r.documents[0], doc) {
		t.Fatalf("decoded %+v", r)
	}
	if !bytes.Equal(r.appendTo(nil), frame) {
		t.Fatal("re-encoding differs")
	}
}

func TestValidateDocument(t *testing.T) {
	t.Parallel()
	all := mustMarshal(t, bson.D{
		{Key: "double", Value: 1.5}, {Key: "string", Value: "s"}, {Key: "doc", Value: bson.D{{Key: "a", Value: 1}}},
		{Key: "array", Value: bson.A{1, "x"}}, {Key: "bin", Value: bson.Binary{Subtype: 0, Data: []byte{1}}},
		{Key: "oldbin", Value: bson.Binary{Subtype: 2, Data: []byte{1, 2}}},
		{Key: "undef", Value: bson.Undefined{}}, {Key: "oid", Value: bson.NewObjectID()}, {Key: "bool", Value: true},
		{Key: "date", Value: bson.DateTime(5)}, {Key: "null", Value: nil}, {Key: "regex", Value: bson.Regex{Pattern: "a", Options: "i"}},
		{Key: "dbptr", Value: bson.DBPointer{DB: "x", Pointer: bson.NewObjectID()}}, {Key: "js", Value: bson.JavaScript("f()")},
		{Key: "sym", Value: bson.Symbol("s")}, {Key: "cws", Value: bson.CodeWithScope{Code: "c", Scope: bson.D{{Key: "x", Value: 1}}}},
		{Key: "int", Value: int32(1)}, {Key: "ts", Value: bson.Timestamp{T: 1, I: 2}}, {Key: "long", Value: int64(3)},
		{Key: "dec", Value: bson.NewDecimal128(1, 1)}, {Key: "min", Value: bson.MinKey{}}, {Key: "max", Value: bson.MaxKey{}},
	})
	if _, _, err := readDocument(all, maxBSONInternalSize); err != nil {
		t.Fatalf("every type: %v", err)
	}
	deep := bson.D{{Key: "x", Value: 1}}
	for range maxBSONDepth + 1 {
		deep = bson.D{{Key: "x", Value: deep}}
	}
	bad := map[string][]byte{
		"unknown type":      {8, 0, 0, 0, 0x20, 'a', 0, 0},
		"bool 2":            {9, 0, 0, 0, 0x08, 'a', 0, 2, 0},
		"no terminator":     {8, 0, 0, 0, 0x0a, 'a', 0, 1},
		"key unterminated":  {7, 0, 0, 0, 0x0a, 'a', 'b'},
		"string len 0":      {13, 0, 0, 0, 0x02, 'a', 0, 0, 0, 0, 0, 0, 0},
		"string overruns":   {14, 0, 0, 0, 0x02, 'a', 0, 9, 0, 0, 0, 'x', 0, 0},
		"nested overruns":   {13, 0, 0, 0, 0x03, 'a', 0, 0x20, 0, 0, 0, 0, 0},
		"nested bad":        {16, 0, 0, 0, 0x03, 'a', 0, 8, 0, 0, 0, 0x20, 'b', 0, 0, 0},
		"old binary length": {20, 0, 0, 0, 0x05, 'a', 0, 6, 0, 0, 0, 2, 9, 0, 0, 0, 1, 2, 0, 0},
		"truncated int":     {9, 0, 0, 0, 0x10, 'a', 0, 1, 0},
		"regex unterm":      {9, 0, 0, 0, 0x0b, 'a', 0, 'x', 0},
		"too deep":          mustMarshal(t, deep),
		"length 4":          {4, 0, 0, 0},
	}
	for name, doc := range bad {
		t.Run(name, func(t *testing.T) {
			_, _, err := readDocument(doc, maxBSONInternalSize)
			if mongoerr.CodeOf(err) != mongoerr.InvalidBSON {
				t.Fatalf("err = %v, want InvalidBSON", err)
			}
		})
	}
}

func TestOpCompressed(t *testing.T) {
	t.Parallel()
	inner := newMsg(0).kind0(mustMarshal(t, bson.D{{Key: "ping", Value: 1}, {Key: "$db", Value: "admin"}})).frame(5)
	wrap := func(id byte, size int32, payload []byte) []byte {
		out := appendHeader(nil, msgHeader{requestID: 5, opCode: opCodeCompressed})
		out = binary.LittleEndian.AppendUint32(out, uint32(opCodeMsg))
		out = binary.LittleEndian.AppendUint32(out, uint32(size))
		out = append(out, id)
		out = append(out, payload...)
		setLength(out)
		return out
	}
	c, perr := decodeOpCompressed(wrap(compressorNoop, int32(len(inner)-headerLen), inner[headerLen:]))
	if perr != nil {
		t.Fatal(perr)
	}
	got, perr := c.decompress()
	if perr != nil || !bytes.Equal(got, inner) {
		t.Fatalf("noop decompress = %x, %v", got, perr)
	}
	for name, frame := range map[string][]byte{
		"snappy":        wrap(1, int32(len(inner)-headerLen), inner[headerLen:]),
		"negative size": wrap(0, -1, inner[headerLen:]),
		"wrong size":    wrap(0, 3, inner[headerLen:]),
	} {
		c, perr := decodeOpCompressed(frame)
		if perr != nil {
			t.Fatalf("%s: %v", name, perr)
		}
		if _, perr := c.decompress(); perr == nil || perr.fatal {
			t.Fatalf("%s: got %v, want an answerable error", name, perr)
		}
	}
}

// fuzzSeeds returns the recorded frames and the table cases' frames.
func fuzzSeeds(f *testing.F) [][]byte {
	var seeds [][]byte
	for _, b := range recorded(f) {
		seeds = append(seeds, b)
	}
	body := mustMarshal(f, bson.D{{Key: "insert", Value: "c"}, {Key: "$db", Value: "test"}})
	doc := mustMarshal(f, bson.D{{Key: "_id", Value: 1}, {Key: "a", Value: bson.A{"x", bson.D{{Key: "b", Value: 2.5}}}}})
	seeds = append(seeds,
		newMsg(0).kind0(body).kind1("documents", doc, doc).frame(1),
		newMsg(flagChecksumPresent).kind0(body).frame(2),
		newMsg(flagMoreToCome|flagExhaustAllowed).kind0(body).frame(3),
		newMsg(0).kind0(body).raw(2, 0).frame(4),
	)
	return seeds
}

// FuzzOpMsg checks that decoding never panics and that whatever decodes
// re-encodes to the same bytes.
func FuzzOpMsg(f *testing.F) {
	for _, s := range fuzzSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		frame, err := readFrame(bufio.NewReader(bytes.NewReader(b)))
		if err != nil {
			return
		}
		if readHeader(frame).opCode != opCodeMsg {
			return
		}
		m, perr := decodeOpMsg(frame)
		if perr != nil {
			return
		}
		if got := m.encode(); !bytes.Equal(got, frame) {
			t.Fatalf("re-encoded\n%x\nwant\n%x", got, frame)
		}
		if len(m.sections) > 1 {
			merged := mergeSequences(m.body(), m.sections)
			if err := validateDocument(merged, -1); err != nil {
				t.Fatalf("merged document invalid: %v", err)
			}
		}
	})
}

// FuzzOpQuery checks the same for OP_QUERY.
func FuzzOpQuery(f *testing.F) {
	for _, s := range fuzzSeeds(f) {
		if readHeader(s).opCode == opCodeQuery {
			f.Add(s)
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		frame, err := readFrame(bufio.NewReader(bytes.NewReader(b)))
		if err != nil {
			return
		}
		if readHeader(frame).opCode != opCodeQuery {
			return
		}
		q, perr := decodeOpQuery(frame)
		if perr != nil {
			return
		}
		if got := q.encode(); !bytes.Equal(got, frame) {
			t.Fatalf("re-encoded\n%x\nwant\n%x", got, frame)
		}
		q.command()
		q.commandDB()
	})
}
