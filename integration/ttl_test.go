package integration_test

import (
	"context"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/mayfly/mayfly/integration/harness"
)

// Black-box tests of MongoDB TTL indexes through the Go driver,
// against the real binary on a manual clock: expiry happens only when the
// test advances the server's clock, and a test waits for it as MongoDB's
// TTLUtil.waitForPass does, for two completed passes of the sweeper
// (metrics.ttl.passes), never for a fixed time.

// ttlEnv is one running server with a driver client.
type ttlEnv struct {
	t  *testing.T
	s  *harness.Server
	cl *mongo.Client
}

// ttlArgs are the flags of every TTL test server: the manual clock, and a
// sweeper that sleeps at most one second of server time between passes.
var ttlArgs = []string{"--manual-clock", "--set-parameter", "ttlMonitorSleepSecs=1"}

func startTTL(t *testing.T, args ...string) *ttlEnv {
	t.Helper()
	s := harness.Start(t, append(slices.Clone(ttlArgs), args...)...)
	return newTTLEnv(t, s)
}

func newTTLEnv(t *testing.T, s *harness.Server) *ttlEnv {
	t.Helper()
	cl, err := mongo.Connect(options.Client().ApplyURI("mongodb://" + s.MongoAddr + "/?directConnection=true").SetTimeout(30 * time.Second))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cl.Disconnect(context.Background()) })
	return &ttlEnv{t: t, s: s, cl: cl}
}

// stop disconnects the client, then stops the server gracefully (in that
// order: a client left connected to a stopped server spends its whole
// server selection timeout trying to end its sessions).
func (e *ttlEnv) stop() {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(e.t.Context(), 30*time.Second)
	defer cancel()
	if err := e.cl.Disconnect(ctx); err != nil {
		e.t.Fatal(err)
	}
	if err := e.s.Stop(ctx); err != nil {
		e.t.Fatal(err)
	}
}

// with returns e reporting to t, for use inside a subtest.
func (e *ttlEnv) with(t *testing.T) *ttlEnv {
	c := *e
	c.t = t
	return &c
}

// run runs a command on db and returns the raw reply.
func (e *ttlEnv) run(db string, cmd bson.D) (bson.Raw, error) {
	return e.cl.Database(db).RunCommand(e.t.Context(), cmd).Raw()
}

// mustRun runs a command that must succeed.
func (e *ttlEnv) mustRun(db string, cmd bson.D) bson.Raw {
	e.t.Helper()
	r, err := e.run(db, cmd)
	if err != nil {
		e.t.Fatalf("%v: %v", cmd, err)
	}
	return r
}

// now is the server's clock (hello's localTime).
func (e *ttlEnv) now() time.Time {
	e.t.Helper()
	r := e.mustRun("admin", bson.D{{Key: "hello", Value: 1}})
	return r.Lookup("localTime").Time().UTC()
}

// ttl returns serverStatus's metrics.ttl.
func (e *ttlEnv) ttl() bson.Raw {
	e.t.Helper()
	r := e.mustRun("admin", bson.D{{Key: "serverStatus", Value: 1}})
	doc, ok := r.Lookup("metrics", "ttl").DocumentOK()
	if !ok {
		e.t.Fatalf("serverStatus has no metrics.ttl: %v", r)
	}
	return doc
}

// counter reads one metrics.ttl counter, which must be an int64 (MongoDB's
// Counter64).
func (e *ttlEnv) counter(name string) int64 {
	e.t.Helper()
	v := e.ttl().Lookup(name)
	n, ok := v.Int64OK()
	if !ok {
		e.t.Fatalf("metrics.ttl.%s is %s %v, want an int64", name, v.Type, v)
	}
	return n
}

// waitPasses polls metrics.ttl.passes until it reaches n.
func (e *ttlEnv) waitPasses(n int64) {
	e.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for e.counter("passes") < n {
		if time.Now().After(deadline) {
			e.t.Fatalf("metrics.ttl.passes did not reach %d within 20s", n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// sweep advances the server's clock by d and waits for two more completed
// passes (TTLUtil.waitForPass: the first may have begun before the
// advance, the second began after it). On the manual clock the sweeper
// sleeps in server time, so each of the two passes is prompted by moving
// the clock on by 20ms (more than the sweeper's minimum period of 10ms).
func (e *ttlEnv) sweep(d time.Duration) {
	e.t.Helper()
	if d > 0 {
		e.s.Advance(e.t, d)
	}
	for range 2 {
		p := e.counter("passes")
		e.s.Advance(e.t, 20*time.Millisecond)
		e.waitPasses(p + 1)
	}
}

// ids returns the _id values of the documents find returns, sorted by
// _id, as strings.
func (e *ttlEnv) ids(c *mongo.Collection) []string {
	e.t.Helper()
	cur, err := c.Find(e.t.Context(), bson.D{}, options.Find().SetSort(bson.D{{Key: "_id", Value: 1}}))
	if err != nil {
		e.t.Fatal(err)
	}
	var docs []bson.Raw
	if err := cur.All(e.t.Context(), &docs); err != nil {
		e.t.Fatal(err)
	}
	out := []string{}
	for _, d := range docs {
		out = append(out, rawString(d.Lookup("_id")))
	}
	return out
}

func rawString(v bson.RawValue) string {
	if s, ok := v.StringValueOK(); ok {
		return s
	}
	return v.String()
}

// wantIDs asserts the documents find returns.
func (e *ttlEnv) wantIDs(c *mongo.Collection, want ...string) {
	e.t.Helper()
	if want == nil {
		want = []string{}
	}
	if got := e.ids(c); !slices.Equal(got, want) {
		e.t.Fatalf("%s holds %v, want %v", c.Name(), got, want)
	}
}

// wantCmdErr asserts a command error's code and, when msg is not empty,
// its message.
func wantCmdErr(t *testing.T, err error, code int32, msg string) {
	t.Helper()
	var ce mongo.CommandError
	if !errors.As(err, &ce) {
		t.Fatalf("error = %v, want a command error with code %d", err, code)
	}
	if ce.Code != code || (msg != "" && ce.Message != msg) {
		t.Fatalf("error = %d %q\nwant    %d %q", ce.Code, ce.Message, code, msg)
	}
}

func dt(t time.Time) bson.DateTime { return bson.NewDateTimeFromTime(t) }

func createIndexesCmd(coll string, specs ...bson.D) bson.D {
	a := bson.A{}
	for _, s := range specs {
		a = append(a, s)
	}
	return bson.D{{Key: "createIndexes", Value: coll}, {Key: "indexes", Value: a}}
}

// Ensure that createIndex validates expireAfterSeconds with MongoDB's codes
// and messages (an invalid value, and an existing index with other
// options), truncates non-integers, and that
// listIndexes shows the stored value.
func TestTTLCreateIndexValidation(t *testing.T) {
	e := startTTL(t)
	spec := func(key bson.D, name string, exp any) bson.D {
		return bson.D{{Key: "key", Value: key}, {Key: "expireAfterSeconds", Value: exp}, {Key: "name", Value: name}}
	}
	w := bson.D{{Key: "w", Value: int32(1)}}
	cannot := func(s string) string { return `. Index spec: ` + s + ` :: caused by :: ` }
	tests := []struct {
		name string
		spec bson.D
		code int32
		msg  string
	}{
		{"string", spec(w, "w_1", "abc"), 67, cannot(`{ key: { w: 1 }, expireAfterSeconds: "abc", name: "w_1" }`) +
			`TTL index 'expireAfterSeconds' option must be numeric, but received a type of 'string`},
		{"null", spec(w, "w_1", nil), 67, cannot(`{ key: { w: 1 }, expireAfterSeconds: null, name: "w_1" }`) +
			`TTL index 'expireAfterSeconds' option must be numeric, but received a type of 'null`},
		{"object", spec(w, "w_1", bson.D{}), 67, cannot(`{ key: { w: 1 }, expireAfterSeconds: {}, name: "w_1" }`) +
			`TTL index 'expireAfterSeconds' option must be numeric, but received a type of 'object`},
		{"NaN", spec(w, "w_1", math.NaN()), 67, cannot(`{ key: { w: 1 }, expireAfterSeconds: nan.0, name: "w_1" }`) +
			`TTL index 'expireAfterSeconds' option must not be NaN`},
		{"2^31", spec(w, "w_1", int64(2147483648)), 67, cannot(`{ key: { w: 1 }, expireAfterSeconds: 2147483648, name: "w_1" }`) +
			`TTL index 'expireAfterSeconds' must be within the range of a 32-bit integer`},
		{"huge double", spec(w, "w_1", 999999999999999.0), 67, ""},
		{"int64 max", spec(w, "w_1", int64(math.MaxInt64)), 67, ""},
		{"negative", spec(w, "w_1", int32(-1)), 67, cannot(`{ key: { w: 1 }, expireAfterSeconds: -1, name: "w_1" }`) +
			`TTL index 'expireAfterSeconds' option cannot be less than 0`},
		{"compound", spec(bson.D{{Key: "a", Value: int32(1)}, {Key: "b", Value: int32(1)}}, "a_1_b_1", int32(60)), 67,
			`TTL indexes are single-field indexes, compound indexes do not support TTL. Index spec: { key: { a: 1, b: 1 }, expireAfterSeconds: 60, name: "a_1_b_1" }`},
		{"_id", spec(bson.D{{Key: "_id", Value: int32(1)}}, "_id_", int32(60)), 197,
			`The field 'expireAfterSeconds' is not valid for an _id index specification. Specification: { v: 2, key: { _id: 1 }, expireAfterSeconds: 60, name: "_id_" }`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := e.with(t)
			_, err := e.run("app", createIndexesCmd("v", tc.spec))
			wantCmdErr(t, err, tc.code, tc.msg)
			if tc.code == 67 && tc.msg == "" {
				var ce mongo.CommandError
				errors.As(err, &ce)
				if !strings.HasSuffix(ce.Message, "TTL index 'expireAfterSeconds' must be within the range of a 32-bit integer") {
					t.Fatalf("message %q", ce.Message)
				}
			}
		})
	}

	c := e.cl.Database("app").Collection("v")
	t.Run("a non-integer is truncated and listed", func(t *testing.T) {
		e := e.with(t)
		e.mustRun("app", createIndexesCmd("v", spec(bson.D{{Key: "t", Value: int32(1)}}, "t_1", 10000.7)))
		specs, err := c.Indexes().ListSpecifications(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if len(specs) != 2 || specs[1].Name != "t_1" || specs[1].ExpireAfterSeconds == nil || *specs[1].ExpireAfterSeconds != 10000 {
			t.Fatalf("listIndexes %+v", specs)
		}
		raw, _ := c.Indexes().List(t.Context())
		var docs []bson.Raw
		raw.All(t.Context(), &docs)
		if v := docs[1].Lookup("expireAfterSeconds"); v.Type != bson.TypeInt32 || v.Int32() != 10000 {
			t.Fatalf("stored expireAfterSeconds %v (%s)", v, v.Type)
		}
	})
	t.Run("zero and past-epoch values are accepted", func(t *testing.T) {
		e := e.with(t)
		e.mustRun("app", createIndexesCmd("v", spec(bson.D{{Key: "z", Value: int32(1)}}, "z_1", int32(0))))
		e.mustRun("app", createIndexesCmd("v", spec(bson.D{{Key: "e", Value: int32(1)}}, "e_1", int32(time.Now().Unix()+1000))))
		// A key field named expireAfterSeconds is an ordinary compound index.
		e.mustRun("app", createIndexesCmd("v", bson.D{{Key: "key", Value: bson.D{{Key: "x", Value: int32(1)}, {Key: "expireAfterSeconds", Value: int32(1)}}}, {Key: "name", Value: "x_e"}}))
	})
	t.Run("the same index again is a note", func(t *testing.T) {
		e := e.with(t)
		r := e.mustRun("app", createIndexesCmd("v", spec(bson.D{{Key: "t", Value: int32(1)}}, "t_1", int32(10000))))
		if r.Lookup("note").StringValue() != "all indexes already exist" ||
			r.Lookup("numIndexesBefore").Int32() != r.Lookup("numIndexesAfter").Int32() {
			t.Fatalf("reply %v", r)
		}
	})
	e.mustRun("app", createIndexesCmd("v", bson.D{{Key: "key", Value: bson.D{{Key: "n", Value: int32(1)}}}, {Key: "name", Value: "n_1"}}))
	conflicts := []struct {
		name string
		spec bson.D
		code int32
		msg  string
	}{
		{"same name and key, other TTL", spec(bson.D{{Key: "t", Value: int32(1)}}, "t_1", int32(60)), 85,
			`An equivalent index already exists with the same name but different options. Requested index: { v: 2, expireAfterSeconds: 60, key: { t: 1 }, name: "t_1" }, existing index: { v: 2, expireAfterSeconds: 10000, key: { t: 1 }, name: "t_1" }`},
		{"TTL added to a normal index", spec(bson.D{{Key: "n", Value: int32(1)}}, "n_1", int32(60)), 85,
			`An equivalent index already exists with the same name but different options. Requested index: { v: 2, expireAfterSeconds: 60, key: { n: 1 }, name: "n_1" }, existing index: { v: 2, key: { n: 1 }, name: "n_1" }`},
		{"other name, other TTL", spec(bson.D{{Key: "t", Value: int32(1)}}, "other", int32(60)), 85,
			`An equivalent index already exists with a different name and options. Requested index: { v: 2, expireAfterSeconds: 60, key: { t: 1 }, name: "other" }, existing index: { v: 2, expireAfterSeconds: 10000, key: { t: 1 }, name: "t_1" }`},
		{"other name, same index", spec(bson.D{{Key: "t", Value: int32(1)}}, "other", int32(10000)), 85,
			`Index already exists with a different name: t_1`},
		{"same name, other key", spec(bson.D{{Key: "u", Value: int32(1)}}, "t_1", int32(60)), 86,
			`An existing index has the same name as the requested index. When index names are not specified, they are auto generated and can cause conflicts. Please refer to our documentation. Requested index: { v: 2, expireAfterSeconds: 60, key: { u: 1 }, name: "t_1" }, existing index: { v: 2, expireAfterSeconds: 10000, key: { t: 1 }, name: "t_1" }`},
	}
	for _, tc := range conflicts {
		t.Run(tc.name, func(t *testing.T) {
			e := e.with(t)
			_, err := e.run("app", createIndexesCmd("v", tc.spec))
			wantCmdErr(t, err, tc.code, tc.msg)
			// A dry run fails the same way.
			_, err = e.run("app", append(createIndexesCmd("v", tc.spec), bson.E{Key: "dryRun", Value: true}))
			wantCmdErr(t, err, tc.code, tc.msg)
		})
	}
	t.Run("the Go driver's helper", func(t *testing.T) {
		e := e.with(t)
		name, err := e.cl.Database("app").Collection("h").Indexes().CreateOne(t.Context(), mongo.IndexModel{
			Keys: bson.D{{Key: "createdAt", Value: 1}}, Options: options.Index().SetExpireAfterSeconds(3600)})
		if err != nil || name != "createdAt_1" {
			t.Fatalf("%q %v", name, err)
		}
	})
}

// Ensure which documents a TTL index deletes, by MongoDB's TTL rule: Dates,
// and arrays by their earliest Date; strings, numbers, null and missing
// fields never; with expireAfterSeconds 0 each document at its own time; a
// partial index only matching documents; a hidden index still deletes.
func TestTTLWhatExpires(t *testing.T) {
	e := startTTL(t)
	db := e.cl.Database("app")
	t0 := e.now()
	c := db.Collection("s")
	if _, err := c.Indexes().CreateOne(t.Context(), mongo.IndexModel{Keys: bson.D{{Key: "at", Value: 1}}, Options: options.Index().SetExpireAfterSeconds(60)}); err != nil {
		t.Fatal(err)
	}
	docs := []any{
		bson.D{{Key: "_id", Value: "date"}, {Key: "at", Value: dt(t0)}},
		bson.D{{Key: "_id", Value: "array"}, {Key: "at", Value: bson.A{dt(t0.Add(time.Hour)), dt(t0), "x"}}},
		bson.D{{Key: "_id", Value: "later-array"}, {Key: "at", Value: bson.A{dt(t0.Add(time.Hour)), dt(t0.Add(2 * time.Hour))}}},
		bson.D{{Key: "_id", Value: "string"}, {Key: "at", Value: t0.Format(time.RFC3339)}},
		bson.D{{Key: "_id", Value: "number"}, {Key: "at", Value: t0.UnixMilli()}},
		bson.D{{Key: "_id", Value: "null"}, {Key: "at", Value: nil}},
		bson.D{{Key: "_id", Value: "timestamp"}, {Key: "at", Value: bson.Timestamp{T: uint32(t0.Unix()), I: 1}}},
		bson.D{{Key: "_id", Value: "missing"}},
	}
	if _, err := c.InsertMany(t.Context(), docs); err != nil {
		t.Fatal(err)
	}
	all := []string{"array", "date", "later-array", "missing", "null", "number", "string", "timestamp"}
	deleted0, keys0 := e.counter("deletedDocuments"), e.counter("deletedKeys")
	e.sweep(59 * time.Second)
	e.wantIDs(c, all...)
	e.sweep(time.Second)
	e.wantIDs(c, "later-array", "missing", "null", "number", "string", "timestamp")
	if got := e.counter("deletedDocuments") - deleted0; got != 2 {
		t.Fatalf("deletedDocuments moved by %d, want 2", got)
	}
	// "date" has an _id key and one at key, "array" an _id key and three
	// (one per distinct element).
	if got := e.counter("deletedKeys") - keys0; got != 6 {
		t.Fatalf("deletedKeys moved by %d, want 6", got)
	}
	// TTL deletions are batched deletes, as in MongoDB's serverStatus.
	status := e.mustRun("admin", bson.D{{Key: "serverStatus", Value: 1}})
	batches, okB := status.Lookup("batchedDeletes", "batches").Int64OK()
	bdocs, okD := status.Lookup("batchedDeletes", "docs").Int64OK()
	if !okB || !okD || batches < 1 || bdocs != e.counter("deletedDocuments") {
		t.Fatalf("batchedDeletes = {batches: %v, docs: %v}, want int64s with docs = deletedDocuments %d",
			status.Lookup("batchedDeletes", "batches"), status.Lookup("batchedDeletes", "docs"), e.counter("deletedDocuments"))
	}
	e.sweep(2 * time.Hour)
	e.wantIDs(c, "missing", "null", "number", "string", "timestamp")

	t.Run("expireAfterSeconds 0: each document at its own time", func(t *testing.T) {
		e := e.with(t)
		t0 := e.now()
		k := db.Collection("kupon")
		if _, err := k.Indexes().CreateOne(t.Context(), mongo.IndexModel{Keys: bson.D{{Key: "expiresAt", Value: 1}}, Options: options.Index().SetExpireAfterSeconds(0)}); err != nil {
			t.Fatal(err)
		}
		var docs []any
		for i, d := range []time.Duration{-time.Second, 10 * time.Second, time.Minute, time.Hour} {
			docs = append(docs, bson.D{{Key: "_id", Value: string(rune('a' + i))}, {Key: "expiresAt", Value: dt(t0.Add(d))}})
		}
		if _, err := k.InsertMany(t.Context(), docs); err != nil {
			t.Fatal(err)
		}
		e.sweep(0)
		e.wantIDs(k, "b", "c", "d")
		e.sweep(10 * time.Second)
		e.wantIDs(k, "c", "d")
		e.sweep(time.Minute)
		e.wantIDs(k, "d")
	})
	t.Run("a partial TTL index deletes only matching documents", func(t *testing.T) {
		e := e.with(t)
		t0 := e.now()
		p := db.Collection("partial")
		_, err := p.Indexes().CreateOne(t.Context(), mongo.IndexModel{Keys: bson.D{{Key: "x", Value: 1}},
			Options: options.Index().SetExpireAfterSeconds(0).SetPartialFilterExpression(bson.D{{Key: "z", Value: bson.D{{Key: "$exists", Value: true}}}})})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := p.InsertMany(t.Context(), []any{
			bson.D{{Key: "_id", Value: "z"}, {Key: "x", Value: dt(t0)}, {Key: "z", Value: 2}},
			bson.D{{Key: "_id", Value: "no-z"}, {Key: "x", Value: dt(t0)}},
		}); err != nil {
			t.Fatal(err)
		}
		e.sweep(time.Second)
		e.wantIDs(p, "no-z")
	})
	t.Run("a hidden TTL index still deletes", func(t *testing.T) {
		e := e.with(t)
		t0 := e.now()
		h := db.Collection("hidden")
		_, err := h.Indexes().CreateOne(t.Context(), mongo.IndexModel{Keys: bson.D{{Key: "x", Value: 1}},
			Options: options.Index().SetExpireAfterSeconds(5).SetHidden(true)})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := h.InsertOne(t.Context(), bson.D{{Key: "_id", Value: "a"}, {Key: "x", Value: dt(t0)}}); err != nil {
			t.Fatal(err)
		}
		e.sweep(5 * time.Second)
		e.wantIDs(h)
	})
}

// Ensure that dropping a TTL index stops deletion, renaming the collection
// keeps it, dropping a collection or a database with TTL indexes stops
// cleanly, and a restart keeps TTL working, as in MongoDB.
func TestTTLIndexLifecycle(t *testing.T) {
	e := startTTL(t)
	db := e.cl.Database("app")
	ttlIndex := func(c *mongo.Collection, secs int32) {
		t.Helper()
		if _, err := c.Indexes().CreateOne(t.Context(), mongo.IndexModel{Keys: bson.D{{Key: "at", Value: 1}}, Options: options.Index().SetExpireAfterSeconds(secs)}); err != nil {
			t.Fatal(err)
		}
	}
	insertAt := func(c *mongo.Collection, id string, at time.Time) {
		t.Helper()
		if _, err := c.InsertOne(t.Context(), bson.D{{Key: "_id", Value: id}, {Key: "at", Value: dt(at)}}); err != nil {
			t.Fatal(err)
		}
	}
	t.Run("dropping the index stops deletion", func(t *testing.T) {
		e := e.with(t)
		c := db.Collection("dropidx")
		ttlIndex(c, 60)
		insertAt(c, "a", e.now())
		if err := c.Indexes().DropOne(t.Context(), "at_1"); err != nil {
			t.Fatal(err)
		}
		e.sweep(time.Hour)
		e.wantIDs(c, "a")
	})
	t.Run("renaming the collection keeps it", func(t *testing.T) {
		e := e.with(t)
		c := db.Collection("before")
		ttlIndex(c, 60)
		insertAt(c, "a", e.now())
		insertAt(c, "b", e.now().Add(1000*time.Hour))
		e.mustRun("admin", bson.D{{Key: "renameCollection", Value: "app.before"}, {Key: "to", Value: "other.after"}})
		e.sweep(61 * time.Second)
		e.wantIDs(e.cl.Database("other").Collection("after"), "b")
	})
	t.Run("dropping a collection or a database stops cleanly", func(t *testing.T) {
		e := e.with(t)
		for _, name := range []string{"gone1", "gone2"} {
			c := e.cl.Database("dropme").Collection(name)
			ttlIndex(c, 60)
			insertAt(c, "a", e.now())
		}
		c := db.Collection("dropcoll")
		ttlIndex(c, 60)
		insertAt(c, "a", e.now())
		deleted := e.counter("deletedDocuments")
		if err := c.Drop(t.Context()); err != nil {
			t.Fatal(err)
		}
		if err := e.cl.Database("dropme").Drop(t.Context()); err != nil {
			t.Fatal(err)
		}
		e.sweep(time.Hour)
		if got := e.counter("deletedDocuments"); got != deleted {
			t.Fatalf("deletedDocuments moved from %d to %d after the drops", deleted, got)
		}
		sources, _ := e.ttl().Lookup("sources").DocumentOK()
		for _, name := range []string{"app.dropcoll", "dropme.gone1", "dropme.gone2"} {
			if strings.Contains(sources.String(), name) {
				t.Fatalf("metrics.ttl.sources still lists %s: %v", name, sources)
			}
		}
		if strings.Contains(e.s.Logs(), `"level":"ERROR"`) {
			t.Fatalf("errors logged:\n%s", e.s.Logs())
		}
	})
	t.Run("a restart keeps it", func(t *testing.T) {
		e := e.with(t)
		c := db.Collection("restart")
		ttlIndex(c, 3600)
		at := e.now()
		insertAt(c, "a", at)
		e.stop()
		// The new server's manual clock starts at the real time again.
		e2 := newTTLEnv(t, harness.StartDir(t, e.s.Dir, ttlArgs...))
		c = e2.cl.Database("app").Collection("restart")
		e2.wantIDs(c, "a")
		due := at.Add(time.Hour)
		specs, err := c.Indexes().ListSpecifications(t.Context())
		if err != nil || len(specs) != 2 || specs[1].ExpireAfterSeconds == nil || *specs[1].ExpireAfterSeconds != 3600 {
			t.Fatalf("indexes after restart %+v %v", specs, err)
		}
		e2.sweep(due.Sub(e2.now()) - time.Second)
		e2.wantIDs(c, "a")
		e2.sweep(time.Second)
		e2.wantIDs(c)
		if e2.counter("deletedDocuments") != 1 {
			t.Fatalf("deletedDocuments %d after restart", e2.counter("deletedDocuments"))
		}
	})
}

// Ensure that collMod changes a TTL (reply fields as int64), converts a
// normal index, takes effect for old documents at once, can be dry-run,
// and fails with MongoDB's codes and messages in every case collMod
// rejects.
func TestTTLCollMod(t *testing.T) {
	e := startTTL(t)
	db := e.cl.Database("app")
	c := db.Collection("oturumlar")
	t0 := e.now()
	if _, err := c.Indexes().CreateMany(t.Context(), []mongo.IndexModel{
		{Keys: bson.D{{Key: "olusturma", Value: 1}}, Options: options.Index().SetExpireAfterSeconds(3600)},
		{Keys: bson.D{{Key: "son", Value: 1}}},
		{Keys: bson.D{{Key: "a", Value: 1}, {Key: "b", Value: 1}}},
		{Keys: bson.D{{Key: "k", Value: 1}}},
		{Keys: bson.D{{Key: "k", Value: 1}}, Options: options.Index().SetName("k_partial").SetPartialFilterExpression(bson.D{{Key: "k", Value: bson.D{{Key: "$gt", Value: 5}}}})},
	}); err != nil {
		t.Fatal(err)
	}
	var docs []any
	for i := range 10 { // ages 0, 10, ..., 90 minutes
		docs = append(docs, bson.D{{Key: "_id", Value: string(rune('a' + i))}, {Key: "olusturma", Value: dt(t0.Add(-time.Duration(i) * 10 * time.Minute))},
			{Key: "son", Value: dt(t0.Add(-time.Duration(i) * 10 * time.Minute))}})
	}
	if _, err := c.InsertMany(t.Context(), docs); err != nil {
		t.Fatal(err)
	}
	e.wantIDs(c, "a", "b", "c", "d", "e", "f")
	e.sweep(0) // the four older than an hour go
	collMod := func(index bson.D, extra ...bson.E) bson.D {
		return append(bson.D{{Key: "collMod", Value: "oturumlar"}, {Key: "index", Value: index}}, extra...)
	}
	byKey := bson.D{{Key: "keyPattern", Value: bson.D{{Key: "olusturma", Value: 1}}}, {Key: "expireAfterSeconds", Value: 1800}}

	t.Run("dry run", func(t *testing.T) {
		e := e.with(t)
		// At the engine's rate limit the estimate is exact: 3 documents
		// at 100 per second.
		e.mustRun("admin", bson.D{{Key: "setParameter", Value: 1}, {Key: "ttlMaxDeletesPerSecond", Value: int64(100)}})
		defer e.mustRun("admin", bson.D{{Key: "setParameter", Value: 1}, {Key: "ttlMaxDeletesPerSecond", Value: int64(0)}})
		r := e.mustRun("app", collMod(byKey, bson.E{Key: "dryRun", Value: true}))
		if !r.Lookup("dryRun").Boolean() || r.Lookup("wouldExpire").Int64() != 3 ||
			r.Lookup("oldestDue").Time().UTC() != t0.Add(-20*time.Minute) || r.Lookup("newestDue").Time().UTC() != t0 ||
			r.Lookup("estimatedDeleteMillis").Int64() != 30 ||
			r.Lookup("expireAfterSeconds_old").Int64() != 3600 || r.Lookup("expireAfterSeconds_new").Int64() != 1800 {
			t.Fatalf("dry run reply %v", r)
		}
		e.wantIDs(c, "a", "b", "c", "d", "e", "f")
		specs, _ := c.Indexes().ListSpecifications(t.Context())
		if *specs[1].ExpireAfterSeconds != 3600 {
			t.Fatalf("the dry run changed the index: %+v", specs[1])
		}
		r = e.mustRun("app", append(createIndexesCmd("oturumlar", bson.D{{Key: "key", Value: bson.D{{Key: "son", Value: 1}}}, {Key: "name", Value: "son_ttl"},
			{Key: "expireAfterSeconds", Value: 0}, {Key: "partialFilterExpression", Value: bson.D{{Key: "son", Value: bson.D{{Key: "$exists", Value: true}}}}}}),
			bson.E{Key: "dryRun", Value: true}))
		if r.Lookup("wouldExpire").Int64() != 6 || r.Lookup("numIndexesBefore").Int32() != 6 || r.Lookup("numIndexesAfter").Int32() != 7 {
			t.Fatalf("createIndexes dry run reply %v", r)
		}
		if n, _ := c.Indexes().ListSpecifications(t.Context()); len(n) != 6 {
			t.Fatalf("the dry run created an index: %d indexes", len(n))
		}
	})
	t.Run("lowering expires old documents at once", func(t *testing.T) {
		e := e.with(t)
		r := e.mustRun("app", collMod(byKey))
		for _, f := range []string{"expireAfterSeconds_old", "expireAfterSeconds_new"} {
			if r.Lookup(f).Type != bson.TypeInt64 {
				t.Fatalf("%s is %s, want long: %v", f, r.Lookup(f).Type, r)
			}
		}
		if r.Lookup("expireAfterSeconds_old").Int64() != 3600 || r.Lookup("expireAfterSeconds_new").Int64() != 1800 {
			t.Fatalf("reply %v", r)
		}
		e.wantIDs(c, "a", "b", "c") // strict visibility: before any sweep
		deleted := e.counter("deletedDocuments")
		e.sweep(0)
		if got := e.counter("deletedDocuments") - deleted; got != 3 {
			t.Fatalf("swept %d, want 3", got)
		}
		// The same value again still answers both fields.
		r = e.mustRun("app", collMod(byKey))
		if r.Lookup("expireAfterSeconds_old").Int64() != 1800 || r.Lookup("expireAfterSeconds_new").Int64() != 1800 {
			t.Fatalf("reply %v", r)
		}
	})
	t.Run("converting a normal index", func(t *testing.T) {
		e := e.with(t)
		r := e.mustRun("app", collMod(bson.D{{Key: "name", Value: "son_1"}, {Key: "expireAfterSeconds", Value: 300}}))
		if _, err := r.LookupErr("expireAfterSeconds_old"); err == nil || r.Lookup("expireAfterSeconds_new").Int64() != 300 {
			t.Fatalf("reply %v", r)
		}
		e.wantIDs(c, "a")
		e.sweep(0)
		e.wantIDs(c, "a")
		specs, _ := c.Indexes().ListSpecifications(t.Context())
		if specs[2].Name != "son_1" || specs[2].ExpireAfterSeconds == nil || *specs[2].ExpireAfterSeconds != 300 {
			t.Fatalf("listIndexes %+v", specs[2])
		}
	})
	tests := []struct {
		name  string
		index bson.D
		code  int32
		msg   string
	}{
		{"string", bson.D{{Key: "name", Value: "olusturma_1"}, {Key: "expireAfterSeconds", Value: "100"}}, 14,
			"BSON field 'collMod.index.expireAfterSeconds' is the wrong type 'string', expected types '[long, int, decimal, double]'"},
		{"negative", bson.D{{Key: "name", Value: "olusturma_1"}, {Key: "expireAfterSeconds", Value: -1}}, 72,
			"TTL index 'expireAfterSeconds' option cannot be less than 0"},
		{"beyond int32", bson.D{{Key: "name", Value: "olusturma_1"}, {Key: "expireAfterSeconds", Value: int64(2147483648)}}, 72,
			"TTL index 'expireAfterSeconds' option cannot be greater than max int32_t (2147483647) for secondary indexes, found 2147483648"},
		{"compound", bson.D{{Key: "name", Value: "a_1_b_1"}, {Key: "expireAfterSeconds", Value: 60}}, 72,
			"TTL indexes are single-field indexes, compound indexes do not support TTL"},
		{"_id", bson.D{{Key: "name", Value: "_id_"}, {Key: "expireAfterSeconds", Value: 60}}, 72,
			"the _id field does not support TTL indexes"},
		{"name and keyPattern", bson.D{{Key: "name", Value: "son_1"}, {Key: "keyPattern", Value: bson.D{{Key: "son", Value: 1}}}, {Key: "expireAfterSeconds", Value: 60}}, 72,
			"Cannot specify both key pattern and name."},
		{"neither", bson.D{{Key: "expireAfterSeconds", Value: 60}}, 72, "Must specify either index name or key pattern."},
		{"nothing to change", bson.D{{Key: "name", Value: "son_1"}}, 72, "no expireAfterSeconds, hidden, unique, or prepareUnique field"},
		{"no such name", bson.D{{Key: "name", Value: "zz_1"}, {Key: "expireAfterSeconds", Value: 60}}, 27, "cannot find index zz_1 for ns app.oturumlar"},
		{"no such key", bson.D{{Key: "keyPattern", Value: bson.D{{Key: "zz", Value: 1}}}, {Key: "expireAfterSeconds", Value: 60}}, 27,
			"cannot find index { zz: 1 } for ns app.oturumlar"},
		{"ambiguous key pattern", bson.D{{Key: "keyPattern", Value: bson.D{{Key: "k", Value: 1}}}, {Key: "expireAfterSeconds", Value: 60}}, 181,
			`index keyPattern { k: 1 } matches 2 indexes, must use index name. Conflicting indexes: { v: 2, key: { k: 1 }, name: "k_1" }, { v: 2, key: { k: 1 }, name: "k_partial", partialFilterExpression: { k: { $gt: 5 } } }`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := e.with(t)
			_, err := e.run("app", collMod(tc.index))
			wantCmdErr(t, err, tc.code, tc.msg)
			_, err = e.run("app", collMod(tc.index, bson.E{Key: "dryRun", Value: true}))
			wantCmdErr(t, err, tc.code, tc.msg)
		})
	}
	t.Run("collection-level TTL on a normal collection", func(t *testing.T) {
		e := e.with(t)
		_, err := e.run("app", bson.D{{Key: "collMod", Value: "oturumlar"}, {Key: "expireAfterSeconds", Value: 60}})
		wantCmdErr(t, err, 72, "")
	})
	t.Run("missing collection", func(t *testing.T) {
		e := e.with(t)
		_, err := e.run("app", bson.D{{Key: "collMod", Value: "nothere"}, {Key: "index", Value: bson.D{{Key: "name", Value: "x_1"}, {Key: "hidden", Value: true}}}})
		wantCmdErr(t, err, 26, "ns does not exist: app.nothere")
	})
}

// Ensure the TTL parameters through getParameter and setParameter, with
// MongoDB's validation errors, and that ttlMonitorEnabled stops and
// resumes deletion.
func TestTTLParameters(t *testing.T) {
	e := startTTL(t)
	get := func(name string) bson.RawValue {
		t.Helper()
		return e.mustRun("admin", bson.D{{Key: "getParameter", Value: 1}, {Key: name, Value: 1}}).Lookup(name)
	}
	set := func(name string, v any) (bson.Raw, error) {
		return e.run("admin", bson.D{{Key: "setParameter", Value: 1}, {Key: name, Value: v}})
	}
	defaults := []struct {
		name string
		want string
	}{
		{"ttlMonitorEnabled", "true"},
		{"ttlMonitorSleepSecs", `{"$numberInt":"1"}`}, // set at startup
		{"ttlMonitorBatchDeletes", "true"},
		{"ttlIndexDeleteTargetDocs", `{"$numberLong":"50000"}`},
		{"ttlIndexDeleteTargetTimeMS", `{"$numberInt":"1000"}`},
		{"ttlMonitorSubPassTargetSecs", `{"$numberInt":"60"}`},
	}
	for _, d := range defaults {
		if got := get(d.name).String(); got != d.want {
			t.Errorf("getParameter %s = %s, want %s", d.name, got, d.want)
		}
	}
	r, err := set("ttlIndexDeleteTargetDocs", int64(10))
	if err != nil || r.Lookup("was").Int64() != 50000 || get("ttlIndexDeleteTargetDocs").Int64() != 10 {
		t.Fatalf("setParameter %v %v", r, err)
	}
	bad := []struct {
		name string
		v    any
		code int32
		msg  string
	}{
		{"ttlMonitorSleepSecs", int32(0), 2, "Invalid value for parameter ttlMonitorSleepSecs: 0 is not greater than 0"},
		{"ttlIndexDeleteTargetDocs", int64(-1), 2, ""},
		{"ttlIndexDeleteTargetTimeMS", int32(-1), 2, ""},
		{"ttlMonitorSubPassTargetSecs", int32(-1), 2, ""},
		{"ttlMonitorSleepSecs", "ten", 2, ""},
	}
	for _, b := range bad {
		_, err := set(b.name, b.v)
		wantCmdErr(t, err, b.code, b.msg)
	}
	_, err = e.run("admin", bson.D{{Key: "getParameter", Value: 1}, {Key: "noSuchTTLParameter", Value: 1}})
	wantCmdErr(t, err, 72, "no option found to get")

	t.Run("ttlMonitorEnabled", func(t *testing.T) {
		e := e.with(t)
		c := e.cl.Database("app").Collection("m")
		if _, err := c.Indexes().CreateOne(t.Context(), mongo.IndexModel{Keys: bson.D{{Key: "at", Value: 1}}, Options: options.Index().SetExpireAfterSeconds(0)}); err != nil {
			t.Fatal(err)
		}
		var docs []any
		for i := range 25 {
			docs = append(docs, bson.D{{Key: "_id", Value: i}, {Key: "at", Value: dt(e.now())}})
		}
		if _, err := c.InsertMany(t.Context(), docs); err != nil {
			t.Fatal(err)
		}
		if _, err := set("ttlMonitorEnabled", false); err != nil {
			t.Fatal(err)
		}
		passes, deleted := e.counter("passes"), e.counter("deletedDocuments")
		e.s.Advance(t, time.Hour)
		if n, _ := c.CountDocuments(t.Context(), bson.D{}); n != 0 {
			t.Fatalf("count %d: expired documents visible", n)
		}
		// Give a disabled sweeper its chance to (wrongly) run: one more
		// advance past ttlMonitorSleepSecs, then a getParameter round trip.
		e.s.Advance(t, 2*time.Second)
		get("ttlMonitorEnabled")
		if p, d := e.counter("passes"), e.counter("deletedDocuments"); p != passes || d != deleted {
			t.Fatalf("a disabled monitor ran: passes %d -> %d, deleted %d -> %d", passes, p, deleted, d)
		}
		if _, err := set("ttlMonitorEnabled", true); err != nil {
			t.Fatal(err)
		}
		e.sweep(0)
		// With ttlIndexDeleteTargetDocs 10 the 25 documents take three
		// visits of the source, all within the pass.
		if got := e.counter("deletedDocuments") - deleted; got != 25 {
			t.Fatalf("deleted %d, want 25", got)
		}
	})
}

// Ensure serverStatus's metrics.ttl: MongoDB's five counters as NumberLong,
// plus mayfly's lag quantiles and backlog.
func TestTTLServerStatusMetrics(t *testing.T) {
	e := startTTL(t)
	c := e.cl.Database("app").Collection("lag")
	if _, err := c.Indexes().CreateOne(t.Context(), mongo.IndexModel{Keys: bson.D{{Key: "at", Value: 1}}, Options: options.Index().SetExpireAfterSeconds(0)}); err != nil {
		t.Fatal(err)
	}
	t0 := e.now()
	var docs []any
	for i := range 100 {
		docs = append(docs, bson.D{{Key: "_id", Value: i}, {Key: "at", Value: dt(t0.Add(time.Duration(i) * time.Second))}})
	}
	if _, err := c.InsertMany(t.Context(), docs); err != nil {
		t.Fatal(err)
	}
	if _, err := e.run("admin", bson.D{{Key: "setParameter", Value: 1}, {Key: "ttlMonitorEnabled", Value: false}}); err != nil {
		t.Fatal(err)
	}
	// Documents 0..50 fall due while the sweeper is off; once it is back
	// their lags run from 50 s down to 0 s of server time.
	e.s.Advance(t, 50*time.Second)
	e.mustRun("admin", bson.D{{Key: "setParameter", Value: 1}, {Key: "ttlMonitorEnabled", Value: true}})
	e.sweep(0)
	m := e.ttl()
	for _, name := range []string{"passes", "subPasses", "deletedDocuments", "deletedKeys", "invalidTTLIndexSkips", "backlog"} {
		if v := m.Lookup(name); v.Type != bson.TypeInt64 {
			t.Fatalf("metrics.ttl.%s is %s, want long", name, v.Type)
		}
	}
	if m.Lookup("deletedDocuments").Int64() != 51 || m.Lookup("deletedKeys").Int64() != 102 || m.Lookup("invalidTTLIndexSkips").Int64() != 0 ||
		m.Lookup("backlog").Int64() != 0 || m.Lookup("passes").Int64() < 2 {
		t.Fatalf("metrics.ttl %v", m)
	}
	lag := m.Lookup("lagMillis").Document()
	if lag.Lookup("count").Int64() != 51 || lag.Lookup("max").Int64() < 50_000 || lag.Lookup("max").Int64() > 51_000 ||
		lag.Lookup("p50").Int64() < 20_000 || lag.Lookup("p50").Int64() > 32_000 {
		t.Fatalf("lagMillis %v", lag)
	}
	src := m.Lookup("sources", "ttl_index:app.lag.at_1").Document()
	if src.Lookup("deletedDocuments").Int64() != 51 || src.Lookup("backlog").Int64() != 0 {
		t.Fatalf("sources %v", src)
	}
}

// Ensure strict visibility (expired means invisible on every read path,
// whether or not the sweeper has deleted it yet): once the server's clock
// passes a document's expiry, find, count, aggregate, distinct, update,
// delete and findAndModify ignore it before the sweeper deletes it, and a
// unique key held only by an expired document is free; lazy visibility
// restores MongoDB's behaviour on the same data.
func TestTTLStrictVisibility(t *testing.T) {
	e := startTTL(t, "--set-parameter", "ttlMonitorEnabled=false")
	ctx := t.Context()
	db := e.cl.Database("app")
	c := db.Collection("codes")
	if _, err := c.Indexes().CreateMany(ctx, []mongo.IndexModel{
		{Keys: bson.D{{Key: "exp", Value: 1}}, Options: options.Index().SetExpireAfterSeconds(0)},
		{Keys: bson.D{{Key: "code", Value: 1}}, Options: options.Index().SetUnique(true)},
	}); err != nil {
		t.Fatal(err)
	}
	t0 := e.now()
	if _, err := c.InsertMany(ctx, []any{
		bson.D{{Key: "_id", Value: "old"}, {Key: "code", Value: "ABC"}, {Key: "g", Value: 1}, {Key: "exp", Value: dt(t0.Add(time.Minute))}},
		bson.D{{Key: "_id", Value: "live"}, {Key: "code", Value: "DEF"}, {Key: "g", Value: 2}, {Key: "exp", Value: dt(t0.Add(time.Hour))}},
	}); err != nil {
		t.Fatal(err)
	}
	_, err := c.InsertOne(ctx, bson.D{{Key: "_id", Value: "new"}, {Key: "code", Value: "ABC"}})
	var we mongo.WriteException
	if !errors.As(err, &we) || we.WriteErrors[0].Code != 11000 {
		t.Fatalf("a live unique key was not enforced: %v", err)
	}
	e.s.Advance(t, time.Minute)

	e.wantIDs(c, "live")
	if err := c.FindOne(ctx, bson.D{{Key: "_id", Value: "old"}}).Err(); !errors.Is(err, mongo.ErrNoDocuments) {
		t.Fatalf("findOne by _id: %v", err)
	}
	if n, err := c.CountDocuments(ctx, bson.D{}); err != nil || n != 1 {
		t.Fatalf("countDocuments %d %v", n, err)
	}
	r := e.mustRun("app", bson.D{{Key: "count", Value: "codes"}})
	if n, _ := r.Lookup("n").AsInt64OK(); n != 1 {
		t.Fatalf("count %v", r)
	}
	cur, err := c.Aggregate(ctx, mongo.Pipeline{{{Key: "$group", Value: bson.D{{Key: "_id", Value: nil}, {Key: "n", Value: bson.D{{Key: "$sum", Value: 1}}}}}}})
	if err != nil {
		t.Fatal(err)
	}
	var agg []bson.Raw
	if err := cur.All(ctx, &agg); err != nil || len(agg) != 1 || agg[0].Lookup("n").Int32() != 1 {
		t.Fatalf("aggregate %v %v", agg, err)
	}
	var codes []string
	if err := c.Distinct(ctx, "code", bson.D{}).Decode(&codes); err != nil || !slices.Equal(codes, []string{"DEF"}) {
		t.Fatalf("distinct %v %v", codes, err)
	}
	if u, err := c.UpdateMany(ctx, bson.D{}, bson.D{{Key: "$set", Value: bson.D{{Key: "seen", Value: true}}}}); err != nil || u.MatchedCount != 1 {
		t.Fatalf("updateMany %+v %v", u, err)
	}
	if d, err := c.DeleteOne(ctx, bson.D{{Key: "_id", Value: "old"}}); err != nil || d.DeletedCount != 0 {
		t.Fatalf("deleteOne of an expired document %+v %v", d, err)
	}
	if err := c.FindOneAndUpdate(ctx, bson.D{{Key: "_id", Value: "old"}}, bson.D{{Key: "$set", Value: bson.D{{Key: "x", Value: 1}}}}).Err(); !errors.Is(err, mongo.ErrNoDocuments) {
		t.Fatalf("findOneAndUpdate: %v", err)
	}
	if e.counter("deletedDocuments") != 0 {
		t.Fatal("the disabled sweeper deleted something")
	}

	// Lazy visibility on the same data directory: the expired document is
	// back until the sweeper deletes it, and its unique key is held.
	e.stop()
	lazy := newTTLEnv(t, harness.StartDir(t, e.s.Dir, append(slices.Clone(ttlArgs), "--expiry-visibility=lazy", "--set-parameter", "ttlMonitorEnabled=false")...))
	lc := lazy.cl.Database("app").Collection("codes")
	lazy.s.Advance(t, time.Hour+time.Minute) // both are expired now
	lazy.wantIDs(lc, "live", "old")
	_, err = lc.InsertOne(ctx, bson.D{{Key: "_id", Value: "new"}, {Key: "code", Value: "ABC"}})
	if !errors.As(err, &we) || we.WriteErrors[0].Code != 11000 {
		t.Fatalf("lazy: a unique key held by an expired document: %v", err)
	}
	lazy.mustRun("admin", bson.D{{Key: "setParameter", Value: 1}, {Key: "ttlMonitorEnabled", Value: true}})
	lazy.sweep(0)
	lazy.wantIDs(lc)
	if lazy.counter("deletedDocuments") != 2 {
		t.Fatalf("lazy: deletedDocuments %d", lazy.counter("deletedDocuments"))
	}

	t.Run("strict: the unique key of an expired document is free", func(t *testing.T) {
		e := e.with(t)
		lazy.stop()
		s := newTTLEnv(t, harness.StartDir(t, e.s.Dir, append(slices.Clone(ttlArgs), "--set-parameter", "ttlMonitorEnabled=false")...))
		sc := s.cl.Database("app").Collection("codes")
		if _, err := sc.InsertOne(ctx, bson.D{{Key: "_id", Value: "held"}, {Key: "code", Value: "XYZ"}, {Key: "exp", Value: dt(s.now().Add(time.Second))}}); err != nil {
			t.Fatal(err)
		}
		s.s.Advance(t, time.Second)
		if _, err := sc.InsertOne(ctx, bson.D{{Key: "_id", Value: "taker"}, {Key: "code", Value: "XYZ"}}); err != nil {
			t.Fatalf("insert over an expired unique key: %v", err)
		}
		s.wantIDs(sc, "taker")
	})
}
