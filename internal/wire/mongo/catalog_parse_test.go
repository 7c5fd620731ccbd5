package mongo_test

import (
	"math"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// The command shapes of create, collMod and createIndexes are parsed by the
// wire layer; these tests pin their errors, codes and messages as MongoDB
// gives them, and that a dry run fails exactly as the real command does.

// parseCase is a command's fields after its name and the error they get.
type parseCase struct {
	fields bson.D
	code   int32
	name   string
	msg    string
}

// fieldsOf builds a document from key, value pairs.
func fieldsOf(kv ...any) bson.D {
	out := bson.D{}
	for i := 0; i+1 < len(kv); i += 2 {
		out = append(out, bson.E{Key: kv[i].(string), Value: kv[i+1]})
	}
	return out
}

func TestCreateOptionErrors(t *testing.T) {
	t.Parallel()
	d := fieldsOf
	db := startServer(t).client(t).Database("db")
	for _, tc := range []parseCase{
		{d("capped", true), 72, "InvalidOptions", "the 'size' field is required when 'capped' is true"},
		{d("capped", true, "max", 5), 72, "InvalidOptions", "the 'size' field is required when 'capped' is true"},
		{d("size", 100), 72, "InvalidOptions", "the 'capped' field needs to be true when either the 'size' or 'max' fields are present"},
		{d("capped", false, "max", 5), 72, "InvalidOptions", "the 'capped' field needs to be true when either the 'size' or 'max' fields are present"},
		{d("capped", true, "size", 0), 51024, "Location51024", "BSON field 'size' value must be >= 1, actual value '0'"},
		{d("capped", true, "size", -500), 51024, "Location51024", "BSON field 'size' value must be >= 1, actual value '-500'"},
		{d("capped", true, "size", int64(1)<<62), 51024, "Location51024", "BSON field 'size' value must be <= 1125899906842624, actual value '4611686018427387904'"},
		{d("capped", true, "size", 1000, "max", int64(1)<<31), 51024, "Location51024", "BSON field 'max' value must be < 2147483648, actual value '2147483648'"},
		{d("capped", true, "size", "foo"), 14, "TypeMismatch", "BSON field 'create.size' is the wrong type 'string', expected types '[long, int, decimal, double']"},
		{d("capped", true, "size", 500, "max", "foo"), 14, "TypeMismatch", "BSON field 'create.max' is the wrong type 'string', expected types '[long, int, decimal, double']"},
		{d("capped", "foo"), 14, "TypeMismatch", "BSON field 'create.capped' is the wrong type 'string', expected types '[bool, long, int, decimal, double']"},
		{d("bogus", 1), 40415, "IDLUnknownField", "BSON field 'create.bogus' is an unknown field."},
		{d("validator", d("a", 1), "validationLevel", "loose"), 2, "BadValue", "Enumeration value 'loose' for field 'validationLevel' is not a valid value."},
		{d("expireAfterSeconds", 10), 72, "InvalidOptions", "'expireAfterSeconds' is only supported on time-series collections or when the 'clusteredIndex' option is specified"},
		{d("clusteredIndex", d("key", d("a", 1), "unique", true)), 197, "InvalidIndexSpecificationOption", "The clusteredIndex option is only supported for key: {_id: 1}"},
		{d("validator", 1), 14, "TypeMismatch", "BSON field 'validator' is the wrong type 'int', expected type 'object'"},
		{d("validationAction", 3), 14, "TypeMismatch", "BSON field 'validationAction' is the wrong type 'int', expected type 'string'"},
		{d("clusteredIndex", false), 2, "BadValue", "clusteredIndex: false is not supported"},
		{d("clusteredIndex", "x"), 14, "TypeMismatch", "BSON field 'clusteredIndex' is the wrong type 'string', expected types '[bool, object]'"},
		{d("clusteredIndex", d("key", d("_id", 1))), 197, "InvalidIndexSpecificationOption", "The clusteredIndex option requires unique: true"},
		{d("clusteredIndex", d("key", d("_id", 1), "unique", true, "name", 3)), 14, "TypeMismatch", "BSON field 'clusteredIndex.name' is the wrong type 'int', expected type 'string'"},
		{d("clusteredIndex", d("key", d("_id", 1), "unique", true, "bogus", 3)), 40415, "IDLUnknownField", "BSON field 'clusteredIndex.bogus' is an unknown field."},
		{d("clusteredIndex", true, "expireAfterSeconds", "x"), 14, "TypeMismatch", "BSON field 'expireAfterSeconds' is the wrong type 'string', expected types '[long, int, decimal, double]'"},
		{d("clusteredIndex", true, "expireAfterSeconds", -1), 72, "InvalidOptions", "TTL index 'expireAfterSeconds' option cannot be less than 0"},
		{d("clusteredIndex", true, "expireAfterSeconds", 1e19), 72, "InvalidOptions", "TTL index 'expireAfterSeconds' option cannot overflow int64_t when cast as milliseconds, found 1e+19"},
		{d("timeseries", d()), 40414, "IDLFailedToParse", "BSON field 'timeseries.timeField' is missing but a required field"},
		{d("timeseries", 1), 14, "TypeMismatch", "BSON field 'create.timeseries' is the wrong type 'int', expected type 'object'"},
		{d("timeseries", d("timeField", 1)), 14, "TypeMismatch", "BSON field 'timeseries.timeField' is the wrong type 'int', expected type 'string'"},
		{d("timeseries", d("timeField", "t", "granularity", "days")), 2, "BadValue", "Enumeration value 'days' for field 'timeseries.granularity' is not a valid value."},
		{d("timeseries", d("timeField", "t", "bucketMaxSpanSeconds", 0)), 51024, "Location51024", "BSON field 'timeseries.bucketMaxSpanSeconds' value must be >= 1, actual value '0'"},
		{d("timeseries", d("timeField", "t", "bucketRoundingSeconds", 31536001)), 51024, "Location51024", "BSON field 'timeseries.bucketRoundingSeconds' value must be <= 31536000, actual value '31536001'"},
		{d("timeseries", d("timeField", "t", "size", 1)), 40415, "IDLUnknownField", "BSON field 'timeseries.size' is an unknown field."},
		{d("viewOn", "x"), 238, "NotImplemented", "views are not supported"},
		{d("encryptedFields", d()), 238, "NotImplemented", "queryable encryption is not supported"},
		{d("collation", 1), 14, "TypeMismatch", "BSON field 'create.collation' is the wrong type 'int', expected type 'object'"},
		{d("validator", d("$where", "x")), 224, "QueryFeatureNotAllowed", "$where is not allowed in collection validators"},
	} {
		cmdError(t, db, append(d("create", "x"), tc.fields...), tc.code, tc.name, tc.msg)
	}
	if names, err := db.ListCollectionNames(bg, bson.D{}); err != nil || len(names) != 0 {
		t.Fatalf("a failed create left %v (%v)", names, err)
	}
	mustRun(t, db, d("create", "ok", "capped", false, "collation", d("locale", "simple")))
}

func TestCollModParseErrors(t *testing.T) {
	t.Parallel()
	d := fieldsOf
	db := startServer(t).client(t).Database("db")
	mustRun(t, db, d("createIndexes", "c", "indexes", bson.A{
		d("key", d("a", 1), "name", "a_1"),
		d("key", d("a", 1, "b", 1), "name", "a_1_b_1"),
		d("key", d("t", 1), "name", "t_1", "expireAfterSeconds", 5),
	}))
	for _, tc := range []parseCase{
		{d("index", d("name", "t_1", "expireAfterSeconds", "100")), 14, "TypeMismatch", "BSON field 'collMod.index.expireAfterSeconds' is the wrong type 'string', expected types '[long, int, decimal, double]'"},
		{d("index", d("name", "t_1", "expireAfterSeconds", -1)), 72, "InvalidOptions", "TTL index 'expireAfterSeconds' option cannot be less than 0"},
		{d("index", d("name", "t_1", "expireAfterSeconds", math.NaN())), 72, "InvalidOptions", "TTL index 'expireAfterSeconds' option must not be NaN"},
		{d("index", d("name", "t_1", "expireAfterSeconds", int64(2147483648))), 72, "InvalidOptions", "TTL index 'expireAfterSeconds' option cannot be greater than max int32_t (2147483647) for secondary indexes, found 2147483648"},
		{d("index", d("name", "a_1", "keyPattern", d("a", 1), "hidden", true)), 72, "InvalidOptions", "Cannot specify both key pattern and name."},
		{d("index", d("hidden", true)), 72, "InvalidOptions", "Must specify either index name or key pattern."},
		{d("index", d("name", "a_1")), 72, "InvalidOptions", "no expireAfterSeconds, hidden, unique, or prepareUnique field"},
		{d("bogus", 1), 40415, "IDLUnknownField", "BSON field 'collMod.bogus' is an unknown field."},
		{d("index", "t_1"), 14, "TypeMismatch", "BSON field 'collMod.index' is the wrong type 'string', expected type 'object'"},
		{d("index", d("name", 1, "hidden", true)), 14, "TypeMismatch", "BSON field 'collMod.index.name' is the wrong type 'int', expected type 'string'"},
		{d("index", d("keyPattern", 1, "hidden", true)), 14, "TypeMismatch", "BSON field 'collMod.index.keyPattern' is the wrong type 'int', expected type 'object'"},
		{d("index", d("name", "a_1", "hidden", 1)), 14, "TypeMismatch", "BSON field 'collMod.index.hidden' is the wrong type 'int', expected type 'bool'"},
		{d("index", d("name", "a_1", "unique", true)), 238, "NotImplemented", "collMod index unique is not supported"},
		{d("index", d("name", "a_1", "bogus", true)), 40415, "IDLUnknownField", "BSON field 'collMod.index.bogus' is an unknown field."},
		{d("dryRun", "yes"), 14, "TypeMismatch", "BSON field 'collMod.dryRun' is the wrong type 'string', expected type 'bool'"},
		{d("viewOn", "x"), 238, "NotImplemented", "collMod viewOn is not supported"},
		{d("validationLevel", "loose"), 2, "BadValue", "Enumeration value 'loose' for field 'validationLevel' is not a valid value."},
		{d("validator", 1), 14, "TypeMismatch", "BSON field 'validator' is the wrong type 'int', expected type 'object'"},
		{d("expireAfterSeconds", "on"), 72, "InvalidOptions", "collMod: expireAfterSeconds is only supported on clustered and time-series collections"},
	} {
		cmdError(t, db, append(d("collMod", "c"), tc.fields...), tc.code, tc.name, tc.msg)
		if tc.fields[0].Key != "dryRun" {
			cmdError(t, db, append(append(d("collMod", "c"), tc.fields...), bson.E{Key: "dryRun", Value: true}), tc.code, tc.name, tc.msg)
		}
	}
	// A non-clustered collection refuses expireAfterSeconds whatever its value.
	cmdError(t, db, d("collMod", "c", "expireAfterSeconds", "on"), 72, "InvalidOptions",
		"collMod: expireAfterSeconds is only supported on clustered and time-series collections")
}

func TestIndexSpecErrors(t *testing.T) {
	t.Parallel()
	d := fieldsOf
	db := startServer(t).client(t).Database("db")
	for _, tc := range []parseCase{
		{d("key", d("w", 1), "expireAfterSeconds", "abc", "name", "w_1"), 67, "CannotCreateIndex",
			`. Index spec: { key: { w: 1 }, expireAfterSeconds: "abc", name: "w_1" } :: caused by :: TTL index 'expireAfterSeconds' option must be numeric, but received a type of 'string`},
		{d("key", d("w", 1), "expireAfterSeconds", -1, "name", "w_1"), 67, "CannotCreateIndex",
			`. Index spec: { key: { w: 1 }, expireAfterSeconds: -1, name: "w_1" } :: caused by :: TTL index 'expireAfterSeconds' option cannot be less than 0`},
		{d("key", d("w", 1), "expireAfterSeconds", int64(2147483648), "name", "w_1"), 67, "CannotCreateIndex",
			`. Index spec: { key: { w: 1 }, expireAfterSeconds: 2147483648, name: "w_1" } :: caused by :: TTL index 'expireAfterSeconds' must be within the range of a 32-bit integer`},
		{d("key", d("a", 1, "b", 1), "expireAfterSeconds", 5, "name", "ab"), 67, "CannotCreateIndex",
			`TTL indexes are single-field indexes, compound indexes do not support TTL. Index spec: { key: { a: 1, b: 1 }, expireAfterSeconds: 5, name: "ab" }`},
		{d("key", d("_id", 1), "expireAfterSeconds", 5, "name", "_id_"), 197, "InvalidIndexSpecificationOption",
			`The field 'expireAfterSeconds' is not valid for an _id index specification. Specification: { v: 2, key: { _id: 1 }, expireAfterSeconds: 5, name: "_id_" }`},
		{d("key", d("a", 0), "name", "x"), 67, "CannotCreateIndex",
			`Error in specification { key: { a: 0 }, name: "x" } :: caused by :: Values in the index key pattern cannot be 0.`},
		{d("key", d("a", 1), "name", "*"), 2, "BadValue", "The index name '*' is not valid."},
		{d("key", d("w", 1), "expireAfterSeconds", math.NaN(), "name", "w_1"), 67, "CannotCreateIndex", ". Index spec: { key: { w: 1 }, expireAfterSeconds: nan.0, name: \"w_1\" } :: caused by :: TTL index 'expireAfterSeconds' option must not be NaN"},
		{d("key", d(), "name", "x"), 67, "CannotCreateIndex", "Error in specification { key: {}, name: \"x\" } :: caused by :: Index keys cannot be empty."},
		{d("key", d("a", true), "name", "x"), 67, "CannotCreateIndex", "Error in specification { key: { a: true }, name: \"x\" } :: caused by :: Values in v:2 index key pattern cannot be of type bool. Only numbers > 0, numbers < 0, and strings are allowed."},
		{d("key", d("a", 1), "name", "x", "bogus", true), 197, "InvalidIndexSpecificationOption", "Error in specification { key: { a: 1 }, name: \"x\", bogus: true } :: caused by :: The field 'bogus' is not valid for an index specification. Specification: { key: { a: 1 }, name: \"x\", bogus: true }"},
		{d("key", d("a", 1), "name", "x", "sparse", true, "partialFilterExpression", d("a", 1)), 67, "CannotCreateIndex", "Error in specification { v: 2, key: { a: 1 }, name: \"x\", sparse: true, partialFilterExpression: { a: 1 } } :: caused by :: cannot mix \"partialFilterExpression\" and \"sparse\" options"},
		{d("key", d("a", 1), "name", "x", "partialFilterExpression", d("a", d("$not", d("$eq", 1)))), 67, "CannotCreateIndex", "Error in specification { v: 2, key: { a: 1 }, name: \"x\", partialFilterExpression: { a: { $not: { $eq: 1 } } } } :: caused by :: Expression not supported in partial index: { a: { $not: { $eq: 1 } } }"},
		{d("key", d("a", "text"), "name", "t"), 238, "NotImplemented", "text indexes are not supported"},
		{d("name", "x"), 9, "FailedToParse", "Error in specification { name: \"x\" } :: caused by :: The 'key' field is a required property of an index specification"},
		{d("key", 1), 14, "TypeMismatch", "Error in specification { key: 1 } :: caused by :: The field 'key' must be an object, but got int"},
		{d("key", d("a", 1), "name", 1), 14, "TypeMismatch", "Error in specification { key: { a: 1 }, name: 1 } :: caused by :: The field 'name' must be a string, but got int"},
		{d("key", d("a", 1), "name", ""), 67, "CannotCreateIndex", "Error in specification { v: 2, key: { a: 1 }, name: \"\" } :: caused by :: index name cannot be empty"},
		{d("key", d("a", 1), "v", 3), 67, "CannotCreateIndex", "Error in specification { key: { a: 1 }, v: 3 } :: caused by :: Invalid index specification { key: { a: 1 }, v: 3 }; cannot create an index with v=3"},
		{d("key", d("_id", -1)), 2, "BadValue", "The field 'key' for an _id index must be {_id: 1}, but got { _id: -1 }"},
		{d("key", d("a", 1), "unique", "yes"), 14, "TypeMismatch", "Error in specification { key: { a: 1 }, unique: \"yes\" } :: caused by :: The field 'unique' must be a bool, but got string"},
		{d("key", d("a", 1), "partialFilterExpression", 1), 14, "TypeMismatch", "Error in specification { key: { a: 1 }, partialFilterExpression: 1 } :: caused by :: The field 'partialFilterExpression' must be an object, but got int"},
		{d("key", d("a", 1), "partialFilterExpression", d("a", d("$bogus", 1))), 67, "CannotCreateIndex", "Error in specification { v: 2, key: { a: 1 }, partialFilterExpression: { a: { $bogus: 1 } } } :: caused by :: Expression not supported in partial index: { a: { $bogus: 1 } }"},
		{d("key", d("$a", 1)), 67, "CannotCreateIndex", "Error in specification { key: { $a: 1 } } :: caused by :: Index key contains an illegal field name: field name starts with '$'."},
		{d("key", d("a..b", 1)), 67, "CannotCreateIndex", "Error in specification { key: { a..b: 1 } } :: caused by :: Index keys cannot be an empty field."},
		{d("key", d("a", "foo")), 67, "CannotCreateIndex", "Error in specification { key: { a: \"foo\" } } :: caused by :: Unknown index plugin 'foo'"},
		{d("key", d("a", math.NaN())), 67, "CannotCreateIndex", "Error in specification { key: { a: nan.0 } } :: caused by :: Values in the index key pattern cannot be NaN."},
		{d("key", d("a.$**", 1)), 238, "NotImplemented", "wildcard indexes are not supported"},
	} {
		cmd := d("createIndexes", "c", "indexes", bson.A{tc.fields})
		cmdError(t, db, cmd, tc.code, tc.name, tc.msg)
		cmdError(t, db, append(cmd, bson.E{Key: "dryRun", Value: true}), tc.code, tc.name, tc.msg)
	}
	if names, err := db.ListCollectionNames(bg, bson.D{}); err != nil || len(names) != 0 {
		t.Fatalf("a failed createIndexes left %v (%v)", names, err)
	}
}

// Ensure that index options are stored as mongod stores them: booleans
// only when true, expireAfterSeconds truncated to an int32, no ns.
func TestIndexSpecStored(t *testing.T) {
	t.Parallel()
	d := fieldsOf
	db := startServer(t).client(t).Database("db")
	mustRun(t, db, d("createIndexes", "c", "indexes", bson.A{
		d("key", d("a", 1), "name", "a_1", "unique", true, "hidden", false),
		d("key", d("b", -1, "c", 1), "sparse", int32(1), "ns", "db.c"),
		d("key", d("t", 1), "name", "t_1", "expireAfterSeconds", 3600.7),
	}))
	r := mustRun(t, db, d("listIndexes", "c"))
	specs, _ := lookup(t, r, "cursor", "firstBatch").Array().Values()
	want := []string{
		`{"v": {"$numberInt":"2"},"key": {"_id": {"$numberInt":"1"}},"name": "_id_"}`,
		`{"v": {"$numberInt":"2"},"key": {"a": {"$numberInt":"1"}},"name": "a_1","unique": true}`,
		`{"v": {"$numberInt":"2"},"key": {"b": {"$numberInt":"-1"},"c": {"$numberInt":"1"}},"name": "b_-1_c_1","sparse": true}`,
		`{"v": {"$numberInt":"2"},"key": {"t": {"$numberInt":"1"}},"name": "t_1","expireAfterSeconds": {"$numberInt":"3600"}}`,
	}
	if len(specs) != len(want) {
		t.Fatalf("listIndexes %v", r)
	}
	for i, s := range specs {
		if got := s.Document().String(); got != want[i] {
			t.Fatalf("index %d\n got %s\nwant %s", i, got, want[i])
		}
	}
}

func TestDropIndexesParseErrors(t *testing.T) {
	t.Parallel()
	d := fieldsOf
	db := startServer(t).client(t).Database("db")
	mustRun(t, db, d("createIndexes", "c", "indexes", bson.A{d("key", d("a", 1), "name", "a_1")}))
	for _, tc := range []parseCase{
		{d("index", 3), 14, "TypeMismatch", "BSON field 'dropIndexes.index' is the wrong type 'int', expected types '[string, object, array]'"},
		{d("index", bson.A{"a_1", 3}), 14, "TypeMismatch", "BSON field 'dropIndexes.index.1' is the wrong type 'int', expected type 'string'"},
		{d("index", "a_1", "bogus", 1), 40415, "IDLUnknownField", "BSON field 'dropIndexes.bogus' is an unknown field."},
		{d("index", bson.A{"a_1", "_id_"}), 72, "InvalidOptions", "cannot drop _id index"},
		{d("index", d("z", 1)), 27, "IndexNotFound", "can't find index with key: { z: 1 }"},
	} {
		cmdError(t, db, append(d("dropIndexes", "c"), tc.fields...), tc.code, tc.name, tc.msg)
	}
	r := mustRun(t, db, d("dropIndexes", "c", "index", bson.A{"a_1"}))
	if n := lookup(t, r, "nIndexesWas").Int32(); n != 2 {
		t.Fatalf("nIndexesWas %d", n)
	}
}
