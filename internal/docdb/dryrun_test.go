package docdb

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/catalog"
	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
	"github.com/mayfly/mayfly/internal/docdb/policy"
)

// estimatingRegistry is a fakeRegistry that also estimates deletion times
// as the expiry engine does: per item.
type estimatingRegistry struct {
	*fakeRegistry
	per time.Duration
}

func (r estimatingRegistry) EstimateDuration(n int64) time.Duration { return time.Duration(n) * r.per }

// minuteDocs inserts n documents whose "at" is 0, 1, ..., n-1 minutes
// before now, with _id equal to the age in minutes.
func minuteDocs(te *testEngine, db, coll string, n int, extra ...bson.D) {
	now := te.clock.Now()
	var docs []bson.D
	for i := 0; i < n; i++ {
		docs = append(docs, d("_id", int32(i), "at", date(now.Add(-time.Duration(i)*time.Minute)), "tur", []string{"tiklama", "goruntuleme"}[i%2]))
	}
	te.mustInsert(db, coll, append(docs, extra...)...)
}

// Ensure that a collMod dry run counts exactly the documents the change
// would expire at once, gives their due-time range and the engine's
// estimate, replies the real command's fields too, and changes nothing.
func TestCollModDryRun(t *testing.T) {
	reg := estimatingRegistry{newFakeRegistry(), time.Millisecond}
	te := newTestEngine(t, func(o *Options) { o.Expiry = reg })
	ctx := t.Context()
	now := te.clock.Now()
	ms := func(t time.Time) string { return "new Date(" + itoa64(t.UnixMilli()) + ")" }
	te.mustCreateIndexes("app", "s", d("key", d("at", int32(1)), "name", "at_1", "expireAfterSeconds", int32(3600)))
	minuteDocs(te, "app", "s", 60,
		d("_id", "expired", "at", date(now.Add(-2*time.Hour))),                       // already expired: the sweeper's backlog, not the change's
		d("_id", "text", "at", "2026-11-07"),                                         // not a Date: never
		d("_id", "missing"),                                                          // no field: never
		d("_id", "array", "at", bson.A{date(now), date(now.Add(-30 * time.Minute))}), // earliest counts: 30 min old
	)
	before := te.indexList("app", "s")
	wakes := len(reg.wakes)

	tests := []struct {
		name string
		cmd  CollModRequest
		want string
	}{
		{"lowering expires the older documents", modTTL("at_1", 600, true),
			// ages 10..59 minutes (50) and the array: due 600 s after their dates.
			"{ dryRun: true, wouldExpire: 51, oldestDue: " + ms(now.Add(-49*time.Minute)) + ", newestDue: " + ms(now) +
				", estimatedDeleteMillis: 51, expireAfterSeconds_old: 3600, expireAfterSeconds_new: 600 }"},
		{"zero expires every dated document", CollModRequest{Index: &CollModIndex{KeyPattern: d("at", int32(1)), ExpireAfterSeconds: ptr(int64(0))}, DryRun: true},
			"{ dryRun: true, wouldExpire: 61, oldestDue: " + ms(now.Add(-59*time.Minute)) + ", newestDue: " + ms(now) +
				", estimatedDeleteMillis: 61, expireAfterSeconds_old: 3600, expireAfterSeconds_new: 0 }"},
		{"raising expires nothing", modTTL("at_1", 7200, true),
			"{ dryRun: true, wouldExpire: 0, oldestDue: null, newestDue: null, estimatedDeleteMillis: 0, expireAfterSeconds_old: 3600, expireAfterSeconds_new: 7200 }"},
		{"hiding changes no expiry", modHidden("at_1", true, true),
			"{ dryRun: true, wouldExpire: 0, oldestDue: null, newestDue: null, estimatedDeleteMillis: 0, hidden_old: false, hidden_new: true }"},
		{"a validator change expires nothing", CollModRequest{Validation: ValidationOptions{Level: "moderate"}, DryRun: true},
			"{ dryRun: true, wouldExpire: 0, oldestDue: null, newestDue: null, estimatedDeleteMillis: 0 }"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			reply, err := te.CollMod(ctx, "app", "s", tc.cmd)
			if err != nil {
				t.Fatal(err)
			}
			if got := fmtDoc(reply); got != tc.want {
				t.Fatalf("reply\n  %s\nwant\n  %s", got, tc.want)
			}
			for _, f := range []string{"wouldExpire", "estimatedDeleteMillis"} {
				if v, _ := catalog.FieldOf(reply, f); v != nil {
					if _, ok := v.(int64); !ok {
						t.Fatalf("%s is %T, want int64", f, v)
					}
				}
			}
			if got := te.indexList("app", "s"); got != before {
				t.Fatalf("a dry run changed the index:\n%s", got)
			}
			if n, _ := te.Count(ctx, "app", "s", CountRequest{}); n != 63 {
				t.Fatalf("a dry run changed visibility: count %d", n)
			}
			if len(reg.wakes) != wakes {
				t.Fatal("a dry run woke the sweeper")
			}
		})
	}
	t.Run("dryRun false applies the change", func(t *testing.T) {
		reply, err := te.CollMod(ctx, "app", "s", modTTL("at_1", 600, false))
		if err != nil || fmtDoc(reply) != "{ expireAfterSeconds_old: 3600, expireAfterSeconds_new: 600 }" {
			t.Fatalf("%s %v", fmtDoc(reply), err)
		}
		// The preview said 51 would go: 63 visible, 12 left.
		if n, _ := te.Count(ctx, "app", "s", CountRequest{}); n != 12 {
			t.Fatalf("count %d", n)
		}
	})
}

func itoa64(n int64) string { return strconv.FormatInt(n, 10) }

// Ensure that converting a normal index, a partial TTL index and a
// clustered collection's own TTL are previewed by their exact rules.
func TestCollModDryRunRules(t *testing.T) {
	te := newTestEngine(t) // no expiry engine: no estimate
	ctx := t.Context()
	now := te.clock.Now()
	t.Run("converting a normal index", func(t *testing.T) {
		te.mustCreateIndexes("app", "c", d("key", d("at", int32(1)), "name", "at_1"))
		minuteDocs(te, "app", "c", 10)
		reply, err := te.CollMod(ctx, "app", "c", modTTL("at_1", 300, true))
		if err != nil {
			t.Fatal(err)
		}
		// ages 5..9 minutes; no engine, so no estimate; only _new, as collMod
		// reports a change of expireAfterSeconds.
		if got := fmtDoc(reply); !strings.HasPrefix(got, "{ dryRun: true, wouldExpire: 5, ") ||
			!strings.HasSuffix(got, "estimatedDeleteMillis: null, expireAfterSeconds_new: 300 }") {
			t.Fatalf("reply %s", got)
		}
		if strings.Contains(te.indexList("app", "c"), "expireAfterSeconds") {
			t.Fatal("the dry run converted the index")
		}
	})
	t.Run("partial TTL index counts matching documents only", func(t *testing.T) {
		te.mustCreateIndexes("app", "p", d("key", d("at", int32(1)), "name", "at_1", "expireAfterSeconds", int32(86400),
			"partialFilterExpression", d("tur", "tiklama")))
		minuteDocs(te, "app", "p", 10) // even ages are clicks
		reply, err := te.CollMod(ctx, "app", "p", modTTL("at_1", 0, true))
		if err != nil {
			t.Fatal(err)
		}
		if n, _ := catalog.FieldOf(reply, "wouldExpire"); n != int64(5) {
			t.Fatalf("reply %s", fmtDoc(reply))
		}
	})
	t.Run("a document expired by another TTL index is not counted", func(t *testing.T) {
		te.mustCreateIndexes("app", "two",
			d("key", d("at", int32(1)), "name", "at_1", "expireAfterSeconds", int32(3600)),
			d("key", d("other", int32(1)), "name", "other_1", "expireAfterSeconds", int32(0)))
		te.mustInsert("app", "two",
			d("_id", int32(1), "at", date(now.Add(-time.Hour+time.Second))),
			d("_id", int32(2), "at", date(now.Add(-time.Hour+time.Second)), "other", date(now.Add(-time.Second))))
		reply, err := te.CollMod(ctx, "app", "two", modTTL("at_1", 60, true))
		if err != nil {
			t.Fatal(err)
		}
		if n, _ := catalog.FieldOf(reply, "wouldExpire"); n != int64(1) {
			t.Fatalf("reply %s", fmtDoc(reply))
		}
	})
	t.Run("clustered collection TTL", func(t *testing.T) {
		if err := te.CreateCollection(ctx, "app", "events", clusteredTTL(3600)); err != nil {
			t.Fatal(err)
		}
		te.mustInsert("app", "events",
			d("_id", date(now.Add(-30*time.Minute))),
			d("_id", date(now.Add(-10*time.Minute))),
			d("_id", bson.NewObjectIDFromTimestamp(now.Add(-24*time.Hour)))) // ObjectId _ids never expire
		reply, err := te.CollMod(ctx, "app", "events", CollModRequest{ExpireAfterSeconds: &CollectionExpiry{Seconds: 900}, DryRun: true})
		if err != nil {
			t.Fatal(err)
		}
		if got := fmtDoc(reply); !strings.HasPrefix(got, "{ dryRun: true, wouldExpire: 1, oldestDue: new Date("+itoa64(now.Add(-15*time.Minute).UnixMilli())+")") {
			t.Fatalf("reply %s", got)
		}
		if n, _ := te.Count(ctx, "app", "events", CountRequest{}); n != 3 {
			t.Fatalf("count %d", n)
		}
	})
}

// Ensure that a dry run fails exactly as the real collMod does.
func TestCollModDryRunErrors(t *testing.T) {
	te := newTestEngine(t)
	ctx := t.Context()
	te.mustCreateIndexes("db", "c",
		d("key", d("a", int32(1)), "name", "a_1"),
		d("key", d("a", int32(1), "b", int32(1)), "name", "a_1_b_1"),
		d("key", d("t", int32(1)), "name", "t_1", "expireAfterSeconds", int32(5)))
	tests := []struct {
		name string
		cmd  CollModRequest
	}{
		{"compound", modTTL("a_1_b_1", 1, false)},
		{"_id", modTTL("_id_", 1, false)},
		{"hide _id", modHidden("_id_", true, false)},
		{"missing index", modHidden("zz", true, false)},
		{"missing key pattern", CollModRequest{Index: &CollModIndex{KeyPattern: d("zz", int32(1)), ExpireAfterSeconds: ptr(int64(1))}}},
		{"collection TTL on a normal collection", CollModRequest{ExpireAfterSeconds: &CollectionExpiry{Seconds: 10}}},
		{"validator that does not parse", CollModRequest{Validation: ValidationOptions{Validator: d("a", d("$bogus", int32(1)))}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, realErr := te.CollMod(ctx, "db", "c", tc.cmd)
			me, ok := mongoerr.As(realErr)
			if !ok {
				t.Fatalf("the real command did not fail with a code: %v", realErr)
			}
			dry := tc.cmd
			dry.DryRun = true
			_, err := te.CollMod(ctx, "db", "c", dry)
			wantCode(t, err, me.Code, me.Message)
		})
	}
	_, err := te.CollMod(ctx, "db", "missing", modHidden("a_1", true, true))
	wantCode(t, err, mongoerr.NamespaceNotFound, "ns does not exist: db.missing")
}

// Ensure that a createIndexes dry run previews new TTL indexes over the
// existing documents, replies what createIndexes would, fails as it would
// (including the build's duplicate keys) and creates nothing.
func TestCreateIndexesDryRun(t *testing.T) {
	reg := estimatingRegistry{newFakeRegistry(), 2 * time.Millisecond}
	te := newTestEngine(t, func(o *Options) { o.Expiry = reg })
	ctx := t.Context()
	now := te.clock.Now()
	minuteDocs(te, "app", "s", 60, d("_id", "text", "at", "2026-11-07"))
	ttl := func(secs int32, more ...any) bson.D {
		return append(d("key", d("at", int32(1)), "name", "at_1", "expireAfterSeconds", secs), d(more...)...)
	}
	before := te.indexList("app", "s")

	t.Run("a TTL index on a populated collection", func(t *testing.T) {
		res, dr, err := te.CreateIndexesDryRun(ctx, "app", "s", indexSpecs(ttl(1800), d("key", d("tur", int32(1)), "name", "tur_1")))
		if err != nil {
			t.Fatal(err)
		}
		if res != (CreateIndexesResult{NumIndexesBefore: 1, NumIndexesAfter: 3}) {
			t.Fatalf("result %+v", res)
		}
		want := policy.DryRun{At: now, WouldExpire: 30, OldestDue: now.Add(-29 * time.Minute), NewestDue: now,
			EstimatedDelete: 60 * time.Millisecond, Estimated: true}
		if dr != want {
			t.Fatalf("dry run\n  %+v\nwant\n  %+v", dr, want)
		}
		if got := te.indexList("app", "s"); got != before {
			t.Fatalf("the dry run created an index:\n%s", got)
		}
		if len(reg.names()) != 0 {
			t.Fatalf("the dry run registered %v", reg.names())
		}
	})
	t.Run("a partial TTL index", func(t *testing.T) {
		_, dr, err := te.CreateIndexesDryRun(ctx, "app", "s", indexSpecs(ttl(0, "partialFilterExpression", d("tur", "tiklama"))))
		if err != nil || dr.WouldExpire != 30 { // even ages, 0..58
			t.Fatalf("%+v %v", dr, err)
		}
	})
	t.Run("two TTL indexes count a document once", func(t *testing.T) {
		_, dr, err := te.CreateIndexesDryRun(ctx, "app", "s", indexSpecs(ttl(600),
			d("key", d("at", int32(-1)), "name", "at_-1", "expireAfterSeconds", int32(1200))))
		if err != nil || dr.WouldExpire != 50 {
			t.Fatalf("%+v %v", dr, err)
		}
	})
	t.Run("an existing identical index", func(t *testing.T) {
		te.mustCreateIndexes("app", "same", ttl(60))
		minuteDocs(te, "app", "same", 5)
		res, dr, err := te.CreateIndexesDryRun(ctx, "app", "same", indexSpecs(ttl(60)))
		if err != nil || res.Note != "all indexes already exist" || res.NumIndexesAfter != 2 || dr.WouldExpire != 0 {
			t.Fatalf("%+v %+v %v", res, dr, err)
		}
	})
	t.Run("a missing collection is not created", func(t *testing.T) {
		res, dr, err := te.CreateIndexesDryRun(ctx, "app", "nothere", indexSpecs(ttl(60)))
		if err != nil || res != (CreateIndexesResult{NumIndexesBefore: 1, NumIndexesAfter: 2, CreatedCollectionAutomatically: true}) || dr.WouldExpire != 0 {
			t.Fatalf("%+v %+v %v", res, dr, err)
		}
		if te.lookupColl("app", "nothere") != nil {
			t.Fatal("the dry run created the collection")
		}
	})
	t.Run("reply fields", func(t *testing.T) {
		_, dr, _ := te.CreateIndexesDryRun(ctx, "app", "s", indexSpecs(ttl(1800)))
		got := fmtDoc(dr.Fields())
		want := "{ dryRun: true, wouldExpire: 30, oldestDue: new Date(" + itoa64(now.Add(-29*time.Minute).UnixMilli()) +
			"), newestDue: new Date(" + itoa64(now.UnixMilli()) + "), estimatedDeleteMillis: 60 }"
		if got != want {
			t.Fatalf("fields\n  %s\nwant\n  %s", got, want)
		}
	})
}

// Ensure that a createIndexes dry run fails exactly as createIndexes does:
// conflicts (85, 86) and build failures (11000, 171), except for the
// build's random UUID.
func TestCreateIndexesDryRunErrors(t *testing.T) {
	te := newTestEngine(t)
	ctx := t.Context()
	now := te.clock.Now()
	te.mustCreateIndexes("db", "c",
		d("key", d("x", int32(1)), "name", "x_1", "expireAfterSeconds", int32(60)),
		d("key", d("y", int32(1)), "name", "y_1"))
	te.mustInsert("db", "c",
		d("_id", int32(1), "u", int32(7), "p", bson.A{int32(1)}, "q", bson.A{int32(2)}),
		d("_id", int32(2), "u", int32(7)))
	tests := []struct {
		name string
		spec bson.D
		code mongoerr.Code
	}{
		{"same name, other TTL", d("key", d("x", int32(1)), "name", "x_1", "expireAfterSeconds", int32(61)), mongoerr.IndexOptionsConflict},
		{"TTL on an indexed field", d("key", d("y", int32(1)), "name", "y_1", "expireAfterSeconds", int32(61)), mongoerr.IndexOptionsConflict},
		{"same name, other key", d("key", d("z", int32(1)), "name", "x_1"), mongoerr.IndexKeySpecsConflict},
		{"other name, same index", d("key", d("x", int32(1)), "name", "other", "expireAfterSeconds", int32(60)), mongoerr.IndexOptionsConflict},
		{"unique over duplicates", d("key", d("u", int32(1)), "name", "u_1", "unique", true), mongoerr.DuplicateKey},
		{"parallel arrays", d("key", d("p", int32(1), "q", int32(1)), "name", "p_1_q_1"), mongoerr.CannotIndexParallelArrays},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := te.CreateIndexesDryRun(ctx, "db", "c", indexSpecs(tc.spec))
			me := wantCode(t, err, tc.code, "")
			_, realErr := te.CreateIndexes(ctx, "db", "c", indexSpecs(tc.spec))
			real := wantCode(t, realErr, tc.code, "")
			if tail(me.Message) != tail(real.Message) {
				t.Fatalf("dry run\n  %s\nreal\n  %s", me.Message, real.Message)
			}
		})
	}
	t.Run("a duplicate held by an expired document is no conflict", func(t *testing.T) {
		te.mustInsert("db", "c", d("_id", int32(3), "v", int32(9), "x", date(now.Add(-time.Hour))), d("_id", int32(4), "v", int32(9)))
		spec := d("key", d("v", int32(1)), "name", "v_1", "unique", true, "sparse", true)
		if _, _, err := te.CreateIndexesDryRun(ctx, "db", "c", indexSpecs(spec)); err != nil {
			t.Fatal(err)
		}
		te.mustCreateIndexes("db", "c", spec)
	})
}

// tail drops the part of a build failure that names the random build UUID.
func tail(msg string) string {
	if i := strings.LastIndex(msg, " :: caused by :: "); i >= 0 {
		return msg[i:]
	}
	return msg
}
