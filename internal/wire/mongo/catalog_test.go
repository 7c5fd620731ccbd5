package mongo_test

import (
	"encoding/hex"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

func TestCollectionCommands(t *testing.T) {
	t.Parallel()
	ts := startServer(t)
	cl := ts.client(t)
	db := cl.Database("test")
	admin := cl.Database("admin")

	mustRun(t, db, bson.D{{Key: "create", Value: "a"}})
	mustRun(t, db, bson.D{{Key: "create", Value: "a"}}) // the same options: ok, as in 7.0
	uuid := lookup(t, mustRun(t, db, bson.D{{Key: "listCollections", Value: 1}, {Key: "filter", Value: bson.D{{Key: "name", Value: "a"}}}}), "cursor", "firstBatch", "0", "info", "uuid")
	cmdError(t, db, bson.D{{Key: "create", Value: "a"}, {Key: "capped", Value: true}, {Key: "size", Value: 1024}}, 48, "NamespaceExists",
		"namespace test.a already exists, but with different options: { uuid: UUID(\""+uuidHex(uuid)+"\") }")
	cmdError(t, db, bson.D{{Key: "create", Value: 5}}, 73, "InvalidNamespace", "collection name has invalid type int")
	insertN(t, db.Collection("b"), 3)

	names, err := db.ListCollectionNames(bg, bson.D{})
	if err != nil || len(names) != 2 || names[0] != "a" || names[1] != "b" {
		t.Fatalf("listCollections %v %v", names, err)
	}
	r := mustRun(t, db, bson.D{{Key: "listCollections", Value: 1}, {Key: "filter", Value: bson.D{{Key: "name", Value: "b"}}}, {Key: "nameOnly", Value: true}})
	if lookup(t, r, "cursor", "ns").StringValue() != "test.$cmd.listCollections" {
		t.Fatalf("ns %v", r)
	}
	entries, _ := lookup(t, r, "cursor", "firstBatch").Array().Values()
	if len(entries) != 1 || lookup(t, entries[0].Document(), "name").StringValue() != "b" {
		t.Fatalf("filtered %v", r)
	}
	r = mustRun(t, db, bson.D{{Key: "listCollections", Value: 1}, {Key: "cursor", Value: bson.D{{Key: "batchSize", Value: 1}}}})
	id := lookup(t, r, "cursor", "id").Int64()
	if id == 0 {
		t.Fatalf("batchSize 1 should leave a cursor: %v", r)
	}
	r = mustRun(t, db, bson.D{{Key: "getMore", Value: id}, {Key: "collection", Value: "$cmd.listCollections"}})
	if v, _ := lookup(t, r, "cursor", "nextBatch").Array().Values(); len(v) != 1 {
		t.Fatalf("getMore on listCollections %v", r)
	}

	mustRun(t, admin, bson.D{{Key: "renameCollection", Value: "test.b"}, {Key: "to", Value: "test.c"}})
	if n, _ := db.Collection("c").CountDocuments(bg, bson.D{}); n != 3 {
		t.Fatalf("renamed collection holds %d", n)
	}
	cmdError(t, admin, bson.D{{Key: "renameCollection", Value: "test.nope"}, {Key: "to", Value: "test.d"}}, 26, "NamespaceNotFound", "Source collection test.nope does not exist")
	cmdError(t, admin, bson.D{{Key: "renameCollection", Value: "nodot"}, {Key: "to", Value: "test.d"}}, 73, "InvalidNamespace", "Invalid source namespace: nodot")
	cmdError(t, admin, bson.D{{Key: "renameCollection", Value: "test.c"}, {Key: "to", Value: "x"}}, 73, "InvalidNamespace", "Invalid target namespace: x")
	cmdError(t, admin, bson.D{{Key: "renameCollection", Value: "test.c"}}, 40414, "IDLFailedToParse", "BSON field 'renameCollection.to' is missing but a required field")
	cmdError(t, admin, bson.D{{Key: "renameCollection", Value: "test.c"}, {Key: "to", Value: "test.a"}}, 48, "NamespaceExists", "")

	r = mustRun(t, db, bson.D{{Key: "drop", Value: "c"}})
	if lookup(t, r, "nIndexesWas").Int32() != 1 || lookup(t, r, "ns").StringValue() != "test.c" {
		t.Fatalf("drop %v", r)
	}
	r = mustRun(t, db, bson.D{{Key: "drop", Value: "c"}})
	if _, err := r.LookupErr("nIndexesWas"); err == nil {
		t.Fatalf("dropping a missing collection %v", r)
	}

	cmdError(t, db, bson.D{{Key: "listCollections", Value: 1}, {Key: "filter", Value: 1}}, 14, "TypeMismatch", "BSON field 'listCollections.filter' is the wrong type 'int', expected type 'object'")
	cmdError(t, db, bson.D{{Key: "listCollections", Value: 1}, {Key: "cursor", Value: bson.D{{Key: "bogus", Value: 1}}}}, 40415, "IDLUnknownField", "BSON field 'listCollections.cursor.bogus' is an unknown field.")
	cmdError(t, db, bson.D{{Key: "drop", Value: "a"}, {Key: "bogus", Value: 1}}, 40415, "IDLUnknownField", "BSON field 'drop.bogus' is an unknown field.")
	cmdError(t, db, bson.D{{Key: "dropDatabase", Value: 1}, {Key: "bogus", Value: 1}}, 40415, "IDLUnknownField", "BSON field 'dropDatabase.bogus' is an unknown field.")
	cmdError(t, db, bson.D{{Key: "collMod", Value: "nope"}, {Key: "validator", Value: bson.D{}}}, 26, "NamespaceNotFound", "")
	mustRun(t, db, bson.D{{Key: "collMod", Value: "a"}, {Key: "validator", Value: bson.D{{Key: "x", Value: bson.D{{Key: "$exists", Value: true}}}}}})
	_, err = db.Collection("a").InsertOne(bg, bson.D{{Key: "y", Value: 1}})
	wantError(t, err, 121, "DocumentValidationFailure", "Document failed validation")
}

func TestIndexCommands(t *testing.T) {
	t.Parallel()
	ts := startServer(t)
	db := ts.client(t).Database("test")
	c := db.Collection("c")

	r := mustRun(t, db, bson.D{{Key: "createIndexes", Value: "c"}, {Key: "indexes", Value: bson.A{
		bson.D{{Key: "key", Value: bson.D{{Key: "a", Value: 1}}}, {Key: "name", Value: "a_1"}},
		bson.D{{Key: "key", Value: bson.D{{Key: "t", Value: 1}}}, {Key: "name", Value: "t_1"}, {Key: "expireAfterSeconds", Value: 60}},
	}}})
	if !lookup(t, r, "createdCollectionAutomatically").Boolean() || lookup(t, r, "numIndexesBefore").Int32() != 1 || lookup(t, r, "numIndexesAfter").Int32() != 3 {
		t.Fatalf("createIndexes %v", r)
	}
	r = mustRun(t, db, bson.D{{Key: "createIndexes", Value: "c"}, {Key: "indexes", Value: bson.A{
		bson.D{{Key: "key", Value: bson.D{{Key: "a", Value: 1}}}, {Key: "name", Value: "a_1"}},
	}}})
	if lookup(t, r, "note").StringValue() != "all indexes already exist" {
		t.Fatalf("existing index %v", r)
	}
	cmdError(t, db, bson.D{{Key: "createIndexes", Value: "c"}, {Key: "indexes", Value: bson.A{
		bson.D{{Key: "key", Value: bson.D{{Key: "t", Value: 1}}}, {Key: "name", Value: "t_1"}, {Key: "expireAfterSeconds", Value: 120}},
	}}}, 85, "IndexOptionsConflict", "")
	cmdError(t, db, bson.D{{Key: "createIndexes", Value: "c"}}, 40414, "IDLFailedToParse", "BSON field 'createIndexes.indexes' is missing but a required field")
	cmdError(t, db, bson.D{{Key: "createIndexes", Value: "c"}, {Key: "indexes", Value: bson.A{}}}, 2, "BadValue", "Must specify at least one index to create")
	cmdError(t, db, bson.D{{Key: "createIndexes", Value: "c"}, {Key: "indexes", Value: bson.A{1}}}, 14, "TypeMismatch", "BSON field 'createIndexes.indexes.0' is the wrong type 'int', expected type 'object'")

	specs, err := c.Indexes().ListSpecifications(bg)
	if err != nil || len(specs) != 3 || specs[2].Name != "t_1" || specs[2].ExpireAfterSeconds == nil || *specs[2].ExpireAfterSeconds != 60 {
		t.Fatalf("listIndexes %v %v", specs, err)
	}
	cmdError(t, db, bson.D{{Key: "listIndexes", Value: "nope"}}, 26, "NamespaceNotFound", "ns does not exist: test.nope")

	r = mustRun(t, db, bson.D{{Key: "dropIndexes", Value: "c"}, {Key: "index", Value: "a_1"}})
	if lookup(t, r, "nIndexesWas").Int32() != 3 {
		t.Fatalf("dropIndexes %v", r)
	}
	cmdError(t, db, bson.D{{Key: "dropIndexes", Value: "c"}}, 40414, "IDLFailedToParse", "BSON field 'dropIndexes.index' is missing but a required field")
	cmdError(t, db, bson.D{{Key: "dropIndexes", Value: "c"}, {Key: "index", Value: "nope"}}, 27, "IndexNotFound", "")
	r = mustRun(t, db, bson.D{{Key: "dropIndexes", Value: "c"}, {Key: "index", Value: "*"}})
	if lookup(t, r, "nIndexesWas").Int32() != 2 {
		t.Fatalf("dropIndexes * %v", r)
	}
}

func TestDatabaseCommands(t *testing.T) {
	t.Parallel()
	ts := startServer(t)
	cl := ts.client(t)
	admin := cl.Database("admin")
	insertN(t, cl.Database("one").Collection("c"), 10)
	insertN(t, cl.Database("two").Collection("c"), 1)

	r := mustRun(t, admin, bson.D{{Key: "listDatabases", Value: 1}})
	dbs, _ := lookup(t, r, "databases").Array().Values()
	if len(dbs) != 2 || lookup(t, dbs[0].Document(), "name").StringValue() != "one" || lookup(t, dbs[0].Document(), "sizeOnDisk").Int64() <= 0 {
		t.Fatalf("listDatabases %v", r)
	}
	if lookup(t, r, "totalSize").Int64() <= 0 {
		t.Fatalf("totalSize %v", r)
	}
	names, err := cl.ListDatabaseNames(bg, bson.D{{Key: "name", Value: bson.D{{Key: "$regex", Value: "^t"}}}})
	if err != nil || len(names) != 1 || names[0] != "two" {
		t.Fatalf("filtered names %v %v", names, err)
	}
	r = mustRun(t, admin, bson.D{{Key: "listDatabases", Value: 1}, {Key: "nameOnly", Value: true}})
	if _, err := r.LookupErr("totalSize"); err == nil {
		t.Fatalf("nameOnly %v", r)
	}

	one := cl.Database("one")
	r = mustRun(t, one, bson.D{{Key: "dbStats", Value: 1}, {Key: "scale", Value: 1}})
	if lookup(t, r, "objects").Int64() != 10 || lookup(t, r, "collections").Int64() != 1 || lookup(t, r, "db").StringValue() != "one" {
		t.Fatalf("dbStats %v", r)
	}
	cmdError(t, one, bson.D{{Key: "dbStats", Value: 1}, {Key: "scale", Value: 0}}, 2, "BadValue", "scale has to be a number > 0")
	r = mustRun(t, one, bson.D{{Key: "collStats", Value: "c"}})
	if lookup(t, r, "count").Int32() != 10 || lookup(t, r, "ns").StringValue() != "one.c" || lookup(t, r, "nindexes").Int32() != 1 {
		t.Fatalf("collStats %v", r)
	}
	cmdError(t, one, bson.D{{Key: "collStats", Value: "c"}, {Key: "scale", Value: "x"}}, 14, "TypeMismatch", "BSON field 'collStats.scale' is the wrong type 'string', expected types '[long, int, decimal, double']")
	cmdError(t, one, bson.D{{Key: "collStats", Value: "c"}, {Key: "scale", Value: 0}}, 51024, "Location51024", "BSON field 'scale' value must be >= 1, actual value '0'")

	r = mustRun(t, one, bson.D{{Key: "dropDatabase", Value: 1}})
	if lookup(t, r, "dropped").StringValue() != "one" {
		t.Fatalf("dropDatabase %v", r)
	}
	names, _ = cl.ListDatabaseNames(bg, bson.D{})
	if len(names) != 1 || names[0] != "two" {
		t.Fatalf("after dropDatabase %v", names)
	}
}

func TestExplain(t *testing.T) {
	t.Parallel()
	ts := startServer(t)
	db := ts.client(t).Database("test")
	insertN(t, db.Collection("c"), 5)
	for name, inner := range map[string]bson.D{
		"find":          {{Key: "find", Value: "c"}, {Key: "filter", Value: bson.D{{Key: "x", Value: 1}}}},
		"aggregate":     {{Key: "aggregate", Value: "c"}, {Key: "pipeline", Value: bson.A{bson.D{{Key: "$match", Value: bson.D{}}}}}, {Key: "cursor", Value: bson.D{}}},
		"count":         {{Key: "count", Value: "c"}},
		"distinct":      {{Key: "distinct", Value: "c"}, {Key: "key", Value: "x"}},
		"update":        {{Key: "update", Value: "c"}, {Key: "updates", Value: bson.A{bson.D{{Key: "q", Value: bson.D{}}, {Key: "u", Value: bson.D{{Key: "$set", Value: bson.D{{Key: "y", Value: 1}}}}}}}}},
		"delete":        {{Key: "delete", Value: "c"}, {Key: "deletes", Value: bson.A{bson.D{{Key: "q", Value: bson.D{}}, {Key: "limit", Value: 0}}}}},
		"findAndModify": {{Key: "findAndModify", Value: "c"}, {Key: "remove", Value: true}},
	} {
		t.Run(name, func(t *testing.T) {
			r := mustRun(t, db, bson.D{{Key: "explain", Value: inner}, {Key: "verbosity", Value: "executionStats"}})
			if name == "aggregate" {
				lookup(t, r, "stages")
			} else {
				lookup(t, r, "queryPlanner")
			}
			if lookup(t, r, "command", "$db").StringValue() != "test" || lookup(t, r, "serverInfo", "version").StringValue() == "" {
				t.Fatalf("explain %v", r)
			}
		})
	}
	if n, _ := db.Collection("c").CountDocuments(bg, bson.D{}); n != 5 {
		t.Fatalf("explain wrote: %d documents left", n)
	}
	r := mustRun(t, db, bson.D{{Key: "aggregate", Value: "c"}, {Key: "pipeline", Value: bson.A{}}, {Key: "explain", Value: true}})
	lookup(t, r, "serverInfo")
	cmdError(t, db, bson.D{{Key: "explain", Value: bson.D{{Key: "find", Value: "c"}}}, {Key: "verbosity", Value: "loud"}}, 2, "BadValue",
		"Enumeration value 'loud' for field 'explain.verbosity' is not a valid value.")
	cmdError(t, db, bson.D{{Key: "explain", Value: bson.D{{Key: "nope", Value: "c"}}}}, 59, "CommandNotFound", "Explain failed due to unknown command: nope")
	cmdError(t, db, bson.D{{Key: "explain", Value: bson.D{{Key: "find", Value: "c"}, {Key: "bogus", Value: 1}}}}, 40415, "IDLUnknownField", "BSON field 'find.bogus' is an unknown field.")
}

// uuidHex is a UUID value as 8-4-4-4-12 hex digits.
func uuidHex(v bson.RawValue) string {
	_, d := v.Binary()
	h := hex.EncodeToString(d)
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}
