package events

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// Ensure that Diff gives the parts of exactly the ambiguous paths, as
// MongoDB's disambiguatedPaths does: a numeric field name after the first
// part or a dotted field name makes a path ambiguous, an array index alone
// does not, and array indexes come as int32.
func TestDiffDisambiguatedPaths(t *testing.T) {
	cases := []struct {
		name       string
		prev, next bson.D
		want       bson.D
	}{
		{
			name: "numeric field name",
			prev: bson.D{{Key: "_id", Value: 1}, {Key: "a", Value: bson.D{{Key: "1", Value: 1}}}},
			next: bson.D{{Key: "_id", Value: 1}, {Key: "a", Value: bson.D{{Key: "1", Value: 2}}}},
			want: bson.D{{Key: "a.1", Value: bson.A{"a", "1"}}},
		},
		{
			name: "array index then numeric field name",
			prev: bson.D{{Key: "_id", Value: 1}, {Key: "a", Value: bson.A{bson.D{{Key: "1", Value: 1}}}}},
			next: bson.D{{Key: "_id", Value: 1}, {Key: "a", Value: bson.A{bson.D{{Key: "1", Value: 2}}}}},
			want: bson.D{{Key: "a.0.1", Value: bson.A{"a", int32(0), "1"}}},
		},
		{
			name: "array index alone",
			prev: bson.D{{Key: "_id", Value: 1}, {Key: "a", Value: bson.A{1, 2}}},
			next: bson.D{{Key: "_id", Value: 1}, {Key: "a", Value: bson.A{1, 3}}},
		},
		{
			name: "numeric first part and leading zero",
			prev: bson.D{{Key: "_id", Value: 1}, {Key: "1", Value: bson.D{{Key: "01", Value: 1}}}},
			next: bson.D{{Key: "_id", Value: 1}, {Key: "1", Value: bson.D{{Key: "01", Value: 2}}}},
		},
		{
			name: "dotted field name, removed",
			prev: bson.D{{Key: "_id", Value: 1}, {Key: "x", Value: bson.D{{Key: "b.c", Value: 1}}}},
			next: bson.D{{Key: "_id", Value: 1}, {Key: "x", Value: bson.D{}}},
			want: bson.D{{Key: "x.b.c", Value: bson.A{"x", "b.c"}}},
		},
		{
			name: "truncated array under a numeric field name",
			prev: bson.D{{Key: "_id", Value: 1}, {Key: "o", Value: bson.D{{Key: "2", Value: bson.A{1, 2, 3}}}}},
			next: bson.D{{Key: "_id", Value: 1}, {Key: "o", Value: bson.D{{Key: "2", Value: bson.A{1}}}}},
			want: bson.D{{Key: "o.2", Value: bson.A{"o", "2"}}},
		},
		{
			name: "ambiguity carries to deeper parts",
			prev: bson.D{{Key: "_id", Value: 1}, {Key: "a", Value: bson.D{{Key: "7", Value: bson.A{bson.D{{Key: "z", Value: 1}}}}}}},
			next: bson.D{{Key: "_id", Value: 1}, {Key: "a", Value: bson.D{{Key: "7", Value: bson.A{bson.D{{Key: "z", Value: 2}}}}}}},
			want: bson.D{{Key: "a.7.0.z", Value: bson.A{"a", "7", int32(0), "z"}}},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			u := Diff(c.prev, c.next)
			got, _ := bson.Marshal(bson.D{{Key: "d", Value: u.DisambiguatedPaths}})
			want, _ := bson.Marshal(bson.D{{Key: "d", Value: c.want}})
			if c.want == nil {
				want, _ = bson.Marshal(bson.D{{Key: "d", Value: bson.D(nil)}})
			}
			if string(got) != string(want) {
				t.Fatalf("disambiguatedPaths %v, want %v (update %+v)", u.DisambiguatedPaths, c.want, u)
			}
		})
	}
}

// Ensure that a record's operation description and state before change
// survive encoding, and that a record without them encodes as before.
func TestDDLRecordRoundTrip(t *testing.T) {
	uuid := &bson.Binary{Subtype: 4, Data: make([]byte, 16)}
	desc := bson.D{{Key: "indexes", Value: bson.A{bson.D{{Key: "v", Value: int32(2)}, {Key: "key", Value: bson.D{{Key: "x", Value: int32(1)}}}, {Key: "name", Value: "x_1"}}}}}
	before := bson.D{{Key: "collectionOptions", Value: bson.D{{Key: "uuid", Value: *uuid}}}}
	raw, err := DDLRecord(Record{Op: OpModify, DB: "db", Coll: "c", UUID: uuid}, desc, before)
	if err != nil {
		t.Fatal(err)
	}
	r, err := DecodeRecord(raw)
	if err != nil {
		t.Fatal(err)
	}
	wantDesc, _ := bson.Marshal(desc)
	wantBefore, _ := bson.Marshal(before)
	if r.Op != OpModify || r.Coll != "c" || string(r.Desc) != string(wantDesc) || string(r.Before) != string(wantBefore) {
		t.Fatalf("decoded %+v", r)
	}
	plain, err := CatalogRecord(OpDrop, "db", "c", uuid, "", "")
	if err != nil {
		t.Fatal(err)
	}
	viaDDL, err := DDLRecord(Record{Op: OpDrop, DB: "db", Coll: "c", UUID: uuid}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	marshaled, _ := bson.Marshal(Record{Op: OpDrop, DB: "db", Coll: "c", UUID: uuid})
	if string(plain) != string(viaDDL) || string(plain) != string(marshaled) {
		t.Fatalf("a record without DDL fields changed its encoding:\n%x\n%x\n%x", plain, viaDDL, marshaled)
	}
	if !Expanded(OpCreateIndexes) || !Expanded(OpCreate) || Expanded(OpDrop) || Expanded(OpRename) {
		t.Fatal("Expanded")
	}
}
