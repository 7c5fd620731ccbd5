package docdb

import (
	"bytes"
	"errors"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/catalog"
	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
)

func TestCreateCollection(t *testing.T) {
	te := newTestEngine(t)
	ctx := t.Context()
	if err := te.CreateCollection(ctx, "app", "sessions", CreateCollectionRequest{}); err != nil {
		t.Fatal(err)
	}
	// MongoDB 7.0 rule: create of an existing collection with the same
	// options succeeds; with other options it is refused.
	if err := te.CreateCollection(ctx, "app", "sessions", CreateCollectionRequest{}); err != nil {
		t.Fatalf("create again with the same options: %v", err)
	}
	max := int64(10)
	err := te.CreateCollection(ctx, "app", "sessions", CreateCollectionRequest{Capped: &CappedOptions{Size: 4096, Max: max}})
	var exists *CollectionExistsError
	if !errors.As(err, &exists) || exists.DB != "app" || exists.Coll != "sessions" || len(exists.UUID.Data) != 16 {
		t.Fatalf("create with other options: %v", err)
	}

	colls, err := te.ListCollections(ctx, "app", nil, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(colls) != 1 {
		t.Fatalf("listCollections: %v", colls)
	}
	got := colls[0]
	if got[0].Value != "sessions" || got[1].Value != "collection" {
		t.Fatalf("entry %v", got)
	}
	info, _ := catalog.FieldOf(got, "info")
	uuid, _ := catalog.FieldOf(info.(bson.D), "uuid")
	if b, ok := uuid.(bson.Binary); !ok || b.Subtype != bson.TypeBinaryUUID || len(b.Data) != 16 {
		t.Fatalf("uuid %v", uuid)
	}
	if _, ok := catalog.FieldOf(got, "idIndex"); !ok {
		t.Fatalf("no idIndex in %v", got)
	}
}

func TestNamespaceValidation(t *testing.T) {
	te := newTestEngine(t)
	ctx := t.Context()
	tests := []struct {
		name     string
		db, coll string
		code     mongoerr.Code
		msg      string
	}{
		{"empty collection name", "app", "", mongoerr.InvalidNamespace, "Invalid namespace specified: app"},
		{"dollar in collection name", "app", "a$b", mongoerr.InvalidNamespace, "Invalid collection name: a$b"},
		{"leading dot", "app", ".a", mongoerr.InvalidNamespace, "Collection names cannot start with '.': .a"},
		{"null byte", "app", "a\x00b", mongoerr.InvalidNamespace, "namespaces cannot have embedded null characters"},
		{"system collection", "app", "system.foo", mongoerr.InvalidNamespace, "Invalid system namespace: app.system.foo"},
		{"space in database name", "a b", "c", mongoerr.InvalidNamespace, "Invalid database name: 'a b'"},
		{"dot in database name", "a.b", "c", mongoerr.InvalidNamespace, "Invalid database name: 'a.b'"},
		{"too long", "app", string(bytes.Repeat([]byte("x"), 260)), mongoerr.InvalidNamespace, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			wantCode(t, te.CreateCollection(ctx, tc.db, tc.coll, CreateCollectionRequest{}), tc.code, tc.msg)
		})
	}
	t.Run("insert into system.views is refused", func(t *testing.T) {
		_, err := te.Insert(ctx, "app", "system.views", InsertRequest{Documents: []bson.Raw{raw(t, bson.D{{Key: "a", Value: 1}})}})
		wantCode(t, err, mongoerr.InvalidNamespace, "cannot write to app.system.views")
	})
}

func TestCreateOptions(t *testing.T) {
	te := newTestEngine(t)
	ctx := t.Context()
	t.Run("a validator that does not parse", func(t *testing.T) {
		req := CreateCollectionRequest{Validation: ValidationOptions{Validator: d("a", d("$bogus", int32(1)))}}
		wantCode(t, te.CreateCollection(ctx, "app", "c", req), mongoerr.BadValue, "unknown operator: $bogus")
	})
	t.Run("options are stored and listed in MongoDB's order", func(t *testing.T) {
		ttl := int64(60)
		req := CreateCollectionRequest{
			Validation:         ValidationOptions{Validator: d("a", d("$exists", true)), Action: "warn"},
			Clustered:          true,
			ExpireAfterSeconds: &ttl,
		}
		if err := te.CreateCollection(ctx, "app", "clustered", req); err != nil {
			t.Fatal(err)
		}
		te.reopen()
		colls, err := te.ListCollections(ctx, "app", bson.D{{Key: "name", Value: "clustered"}}, false)
		if err != nil || len(colls) != 1 {
			t.Fatalf("%v %v", colls, err)
		}
		o, _ := catalog.FieldOf(colls[0], "options")
		want := "{ validator: { a: { $exists: true } }, validationAction: \"warn\", clusteredIndex: { v: 2, key: { _id: 1 }, name: \"_id_\", unique: true }, expireAfterSeconds: 60 }"
		if got := fmtDoc(o.(bson.D)); got != want {
			t.Fatalf("options\n got %s\nwant %s", got, want)
		}
		if _, ok := catalog.FieldOf(colls[0], "idIndex"); ok {
			t.Fatalf("clustered collection lists an idIndex")
		}
	})
}

func TestDropAndList(t *testing.T) {
	te := newTestEngine(t)
	ctx := t.Context()
	te.mustInsert("a", "x", bson.D{{Key: "_id", Value: 1}})
	te.mustInsert("a", "y", bson.D{{Key: "_id", Value: 1}})
	te.mustInsert("b", "z", bson.D{{Key: "_id", Value: 1}})

	dbs, err := te.ListDatabases(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(dbs) != 2 || dbs[0].Name != "a" || dbs[1].Name != "b" || dbs[0].SizeOnDisk <= 0 || dbs[0].Empty {
		t.Fatalf("listDatabases %+v", dbs)
	}
	existed, err := te.DropCollection(ctx, "a", "x")
	if err != nil || !existed {
		t.Fatalf("drop: %v %v", existed, err)
	}
	// MongoDB 7 rule: dropping a missing collection succeeds.
	existed, err = te.DropCollection(ctx, "a", "x")
	if err != nil || existed {
		t.Fatalf("second drop: %v %v", existed, err)
	}
	if docs := te.storedDocs("a", "x"); len(docs) != 0 {
		t.Fatalf("documents left: %v", docs)
	}
	if err := te.DropDatabase(ctx, "a"); err != nil {
		t.Fatal(err)
	}
	te.reopen()
	dbs, _ = te.ListDatabases(ctx)
	if len(dbs) != 1 || dbs[0].Name != "b" {
		t.Fatalf("after dropDatabase: %+v", dbs)
	}
	// The collection can be recreated after a drop and starts empty.
	te.mustInsert("a", "x", bson.D{{Key: "_id", Value: 1}})
	if n := len(te.storedDocs("a", "x")); n != 1 {
		t.Fatalf("recreated collection has %d documents", n)
	}
}

func TestListCollectionsFilter(t *testing.T) {
	te := newTestEngine(t)
	ctx := t.Context()
	for _, n := range []string{"c", "a", "b"} {
		if err := te.CreateCollection(ctx, "db", n, CreateCollectionRequest{}); err != nil {
			t.Fatal(err)
		}
	}
	all, _ := te.ListCollections(ctx, "db", nil, true)
	var names []string
	for _, c := range all {
		names = append(names, c[0].Value.(string))
	}
	if got := fmtValues(names); got != "a b c" {
		t.Fatalf("names %s", got)
	}
	some, err := te.ListCollections(ctx, "db", bson.D{{Key: "name", Value: bson.D{{Key: "$in", Value: bson.A{"a", "c"}}}}}, false)
	if err != nil || len(some) != 2 {
		t.Fatalf("filtered: %v %v", some, err)
	}
}

func fmtValues(s []string) string {
	var b bytes.Buffer
	for i, v := range s {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(v)
	}
	return b.String()
}

func TestRenameCollection(t *testing.T) {
	te := newTestEngine(t)
	ctx := t.Context()
	te.mustInsert("a", "src", bson.D{{Key: "_id", Value: 1}, {Key: "v", Value: "s"}})
	te.mustInsert("a", "dst", bson.D{{Key: "_id", Value: 1}, {Key: "v", Value: "d"}})

	tests := []struct {
		name                   string
		fromDB, from, toDB, to string
		dropTarget             bool
		code                   mongoerr.Code
		msg                    string
	}{
		{"to itself", "a", "src", "a", "src", true, mongoerr.IllegalOperation, "Can't rename a collection to itself"},
		{"missing source", "a", "nope", "a", "x", false, mongoerr.NamespaceNotFound, "Source collection a.nope does not exist"},
		{"target exists", "a", "src", "a", "dst", false, mongoerr.NamespaceExists, "target namespace exists"},
		{"invalid target", "a", "src", "a", "b$d", false, mongoerr.InvalidNamespace, "Invalid target namespace: a.b$d"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := te.RenameCollection(ctx, tc.fromDB, tc.from, tc.toDB, tc.to, tc.dropTarget)
			wantCode(t, err, tc.code, tc.msg)
		})
	}
	t.Run("dropTarget replaces the target", func(t *testing.T) {
		if err := te.RenameCollection(ctx, "a", "src", "a", "dst", true); err != nil {
			t.Fatal(err)
		}
		docs := te.storedDocs("a", "dst")
		if len(docs) != 1 || docs[0].Lookup("v").StringValue() != "s" {
			t.Fatalf("dst holds %v", docs)
		}
		if te.lookupColl("a", "src") != nil {
			t.Fatal("source still exists")
		}
	})
	t.Run("across databases", func(t *testing.T) {
		if err := te.RenameCollection(ctx, "a", "dst", "b", "moved", false); err != nil {
			t.Fatal(err)
		}
		te.reopen()
		if docs := te.storedDocs("b", "moved"); len(docs) != 1 {
			t.Fatalf("moved holds %v", docs)
		}
		dbs, _ := te.ListDatabases(ctx)
		if len(dbs) != 1 || dbs[0].Name != "b" {
			t.Fatalf("databases %+v", dbs)
		}
	})
}
