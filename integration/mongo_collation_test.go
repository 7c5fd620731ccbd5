package integration_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/mayfly/mayfly/integration/harness"
)

// collationNames returns the "name" field of each document, in order.
func collationNames(t *testing.T, cur *mongo.Cursor, err error) []string {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	var docs []bson.M
	if err := cur.All(t.Context(), &docs); err != nil {
		t.Fatal(err)
	}
	out := make([]string, len(docs))
	for i, d := range docs {
		out[i], _ = d["name"].(string)
	}
	return out
}

func wantNames(t *testing.T, what string, got []string, want ...string) {
	t.Helper()
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("%s = %v, want %v", what, got, want)
	}
}

var (
	enStrength2 = &options.Collation{Locale: "en", Strength: 2}
	enUpper     = &options.Collation{Locale: "en", CaseFirst: "upper"}
)

// Ensure that sorts, later pipeline stages and $group compare strings by
// the command's collation, as MongoDB 7 does.
func TestMongoCollationSortsAndPipelines(t *testing.T) {
	s := harness.Start(t)
	ctx := t.Context()
	c := mongoClient(t, s).Database("coll").Collection("words")
	words := []string{"b", "B", "a", "A", "c", "é", "e"}
	for i, w := range words {
		if _, err := c.InsertOne(ctx, bson.D{{Key: "_id", Value: i}, {Key: "name", Value: w}}); err != nil {
			t.Fatal(err)
		}
	}
	byName := bson.D{{Key: "name", Value: 1}, {Key: "_id", Value: 1}}

	cur, err := c.Find(ctx, bson.D{}, options.Find().SetSort(byName))
	wantNames(t, "find sort, simple collation", collationNames(t, cur, err), "A", "B", "a", "b", "c", "e", "é")
	cur, err = c.Find(ctx, bson.D{}, options.Find().SetSort(byName).SetCollation(&options.Collation{Locale: "en"}))
	wantNames(t, "find sort, en", collationNames(t, cur, err), "a", "A", "b", "B", "c", "e", "é")
	cur, err = c.Find(ctx, bson.D{}, options.Find().SetSort(byName).SetCollation(enUpper))
	wantNames(t, "find sort, en caseFirst upper", collationNames(t, cur, err), "A", "a", "B", "b", "c", "e", "é")

	// An index on name (simple collation) does not give the collated order.
	if _, err := c.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: "name", Value: 1}}}); err != nil {
		t.Fatal(err)
	}
	cur, err = c.Find(ctx, bson.D{}, options.Find().SetSort(bson.D{{Key: "name", Value: 1}}).SetCollation(enUpper))
	wantNames(t, "find sort over a simple index, en caseFirst upper", collationNames(t, cur, err), "A", "a", "B", "b", "c", "e", "é")

	// $sort and a $match after another stage use the collation.
	pipe := mongo.Pipeline{
		{{Key: "$project", Value: bson.D{{Key: "name", Value: 1}}}},
		{{Key: "$match", Value: bson.D{{Key: "name", Value: bson.D{{Key: "$in", Value: bson.A{"a", "B"}}}}}}},
		{{Key: "$sort", Value: byName}},
	}
	cur, err = c.Aggregate(ctx, pipe, options.Aggregate().SetCollation(enStrength2))
	wantNames(t, "aggregate $match and $sort, strength 2", collationNames(t, cur, err), "a", "A", "b", "B")

	// $group keys equal under the collation form one group, named by the
	// first document met.
	group := mongo.Pipeline{
		{{Key: "$sort", Value: bson.D{{Key: "_id", Value: 1}}}},
		{{Key: "$group", Value: bson.D{{Key: "_id", Value: "$name"}, {Key: "n", Value: bson.D{{Key: "$sum", Value: 1}}}}}},
		{{Key: "$sort", Value: bson.D{{Key: "_id", Value: 1}}}},
	}
	cur, err = c.Aggregate(ctx, group, options.Aggregate().SetCollation(enStrength2))
	if err != nil {
		t.Fatal(err)
	}
	var groups []bson.M
	if err := cur.All(ctx, &groups); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, g := range groups {
		got = append(got, g["_id"].(string)+"="+string(rune('0'+g["n"].(int32))))
	}
	wantNames(t, "$group at strength 2", got, "a=2", "b=2", "c=1", "e=1", "é=1")

	// Comparison expressions in later stages compare by the collation.
	expr := mongo.Pipeline{
		{{Key: "$match", Value: bson.D{{Key: "_id", Value: bson.D{{Key: "$lt", Value: 4}}}}}},
		{{Key: "$project", Value: bson.D{
			{Key: "name", Value: bson.D{{Key: "$concat", Value: bson.A{"$name", bson.D{{Key: "$cond", Value: bson.A{bson.D{{Key: "$eq", Value: bson.A{"$name", "a"}}}, "=a", ""}}}}}}},
		}}},
		{{Key: "$sort", Value: bson.D{{Key: "_id", Value: 1}}}},
	}
	cur, err = c.Aggregate(ctx, expr, options.Aggregate().SetCollation(enStrength2))
	wantNames(t, "$eq in $project at strength 2", collationNames(t, cur, err), "b", "B", "a=a", "A=a")

	// $sortByCount groups the same way.
	cur, err = c.Aggregate(ctx, mongo.Pipeline{{{Key: "$sortByCount", Value: "$name"}}}, options.Aggregate().SetCollation(&options.Collation{Locale: "en", Strength: 1}))
	if err != nil {
		t.Fatal(err)
	}
	groups = nil
	if err := cur.All(ctx, &groups); err != nil {
		t.Fatal(err)
	}
	if len(groups) != 4 || groups[0]["count"] != int32(2) || groups[3]["count"] != int32(1) {
		t.Errorf("$sortByCount at strength 1 = %v, want a, b and e (with é) twice and c once", groups)
	}
}

// Ensure that a $regex under a collation matches the documents' text, not
// their collation keys.
func TestMongoCollationRegexMatchesText(t *testing.T) {
	s := harness.Start(t)
	ctx := t.Context()
	c := mongoClient(t, s).Database("coll").Collection("re")
	for i, w := range []string{"ping", "PING", "pong"} {
		if _, err := c.InsertOne(ctx, bson.D{{Key: "_id", Value: i}, {Key: "name", Value: w}}); err != nil {
			t.Fatal(err)
		}
	}
	opts := options.Find().SetCollation(enStrength2).SetSort(bson.D{{Key: "_id", Value: 1}})
	cur, err := c.Find(ctx, bson.D{{Key: "name", Value: bson.Regex{Pattern: "^p"}}}, opts)
	wantNames(t, "regex value", collationNames(t, cur, err), "ping", "pong")
	cur, err = c.Find(ctx, bson.D{{Key: "name", Value: bson.D{{Key: "$regex", Value: "^P"}, {Key: "$ne", Value: "pong"}}}}, opts)
	wantNames(t, "$regex with $ne", collationNames(t, cur, err), "PING")
	cur, err = c.Find(ctx, bson.D{{Key: "$or", Value: bson.A{
		bson.D{{Key: "name", Value: bson.D{{Key: "$regex", Value: "ng$"}, {Key: "$options", Value: "i"}}}},
	}}}, opts)
	wantNames(t, "$regex with $options under $or", collationNames(t, cur, err), "ping", "PING", "pong")
}

// Ensure that an index with a collation stores collation keys: a unique
// index at strength 2 refuses case-only duplicates with MongoDB's
// message, listIndexes shows the full collation, and only queries with the
// same collation get bounds from it.
func TestMongoCollationIndexes(t *testing.T) {
	s := harness.Start(t)
	ctx := t.Context()
	db := mongoClient(t, s).Database("coll")
	c := db.Collection("users")
	_, err := c.Indexes().CreateOne(ctx, mongo.IndexModel{
		Keys:    bson.D{{Key: "name", Value: 1}},
		Options: options.Index().SetUnique(true).SetCollation(enStrength2),
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.InsertOne(ctx, bson.D{{Key: "_id", Value: 1}, {Key: "name", Value: "Ann"}}); err != nil {
		t.Fatal(err)
	}
	_, err = c.InsertOne(ctx, bson.D{{Key: "_id", Value: 2}, {Key: "name", Value: "ANN"}})
	var we mongo.WriteException
	if !errors.As(err, &we) || we.WriteErrors[0].Code != 11000 {
		t.Fatalf("case-only duplicate under a strength 2 unique index: %v", err)
	}
	msg := we.WriteErrors[0].Message
	wantPrefix := `E11000 duplicate key error collection: coll.users index: name_1 collation: { locale: "en", caseLevel: false, caseFirst: "off", strength: 2, numericOrdering: false, alternate: "non-ignorable", maxVariable: "punct", normalization: false, backwards: false, version: "57.1" } dup key: { name: "0x`
	if !strings.HasPrefix(msg, wantPrefix) {
		t.Errorf("duplicate key message = %q, want prefix %q", msg, wantPrefix)
	}
	if _, err := c.InsertOne(ctx, bson.D{{Key: "_id", Value: 3}, {Key: "name", Value: "Anne"}}); err != nil {
		t.Fatal(err)
	}

	_, err = c.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: "x", Value: 1}}, Options: options.Index().SetCollation(&options.Collation{Locale: "en", Strength: 9})})
	wantCommandError(t, err, 2, "Enumeration value '9' for field 'strength' is not a valid value.")
	err = db.RunCommand(ctx, bson.D{{Key: "createIndexes", Value: "users"}, {Key: "indexes", Value: bson.A{
		bson.D{{Key: "key", Value: bson.D{{Key: "x", Value: 1}}}, {Key: "name", Value: "x_1"}, {Key: "collation", Value: "en"}},
	}}}).Err()
	wantCommandError(t, err, 14, "The field 'collation' must be an object, but got string")

	cur, err := c.Indexes().List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var specs []bson.D
	if err := cur.All(ctx, &specs); err != nil {
		t.Fatal(err)
	}
	var coll bson.D
	for _, e := range specs[1] {
		if e.Key == "collation" {
			coll, _ = e.Value.(bson.D)
		}
	}
	var keys []string
	for _, e := range coll {
		keys = append(keys, e.Key)
	}
	wantNames(t, "listIndexes collation fields", keys, "locale", "caseLevel", "caseFirst", "strength", "numericOrdering", "alternate", "maxVariable", "normalization", "backwards", "version")

	// The same collation uses the index; the simple one scans and matches
	// bytewise.
	explain := func(collation bson.D) string {
		cmd := bson.D{{Key: "explain", Value: bson.D{{Key: "find", Value: "users"}, {Key: "filter", Value: bson.D{{Key: "name", Value: "ann"}}}}}}
		if collation != nil {
			cmd[0].Value = append(cmd[0].Value.(bson.D), bson.E{Key: "collation", Value: collation})
		}
		var out bson.M
		if err := db.RunCommand(ctx, cmd).Decode(&out); err != nil {
			t.Fatal(err)
		}
		return bsonString(out["queryPlanner"])
	}
	if p := explain(bson.D{{Key: "locale", Value: "en"}, {Key: "strength", Value: 2}}); !strings.Contains(p, "IXSCAN") {
		t.Errorf("a query with the index's collation does not use it: %s", p)
	}
	if p := explain(nil); strings.Contains(p, "IXSCAN") {
		t.Errorf("a simple-collation query uses the collated index: %s", p)
	}
	cur, err = c.Find(ctx, bson.D{{Key: "name", Value: "ann"}}, options.Find().SetCollation(enStrength2))
	wantNames(t, "find through the collated index", collationNames(t, cur, err), "Ann")
	cur, err = c.Find(ctx, bson.D{{Key: "name", Value: "ann"}})
	wantNames(t, "find with the simple collation", collationNames(t, cur, err))
}

func bsonString(v any) string {
	b, err := bson.MarshalExtJSON(bson.M{"v": v}, false, false)
	if err != nil {
		return err.Error()
	}
	return string(b)
}

// Ensure that a collection's default collation applies to its queries and
// new indexes, that {locale: "simple"} overrides it, and that
// listCollections reports it in full.
func TestMongoCollationCollectionDefault(t *testing.T) {
	s := harness.Start(t)
	ctx := t.Context()
	db := mongoClient(t, s).Database("coll")
	if err := db.CreateCollection(ctx, "people", options.CreateCollection().SetCollation(enStrength2)); err != nil {
		t.Fatal(err)
	}
	c := db.Collection("people")
	for i, w := range []string{"bob", "Bob", "al"} {
		if _, err := c.InsertOne(ctx, bson.D{{Key: "_id", Value: i}, {Key: "name", Value: w}}); err != nil {
			t.Fatal(err)
		}
	}
	if n, err := c.CountDocuments(ctx, bson.D{{Key: "name", Value: "BOB"}}); err != nil || n != 2 {
		t.Errorf("count under the default collation = %d, %v; want 2", n, err)
	}
	if n, err := c.CountDocuments(ctx, bson.D{{Key: "name", Value: "BOB"}}, options.Count().SetCollation(&options.Collation{Locale: "simple"})); err != nil || n != 0 {
		t.Errorf("count with the simple collation = %d, %v; want 0", n, err)
	}
	res, err := c.UpdateMany(ctx, bson.D{{Key: "name", Value: "BOB"}}, bson.D{{Key: "$set", Value: bson.D{{Key: "seen", Value: true}}}})
	if err != nil || res.MatchedCount != 2 {
		t.Errorf("updateMany under the default collation = %+v, %v; want 2 matched", res, err)
	}
	cur, err := c.Find(ctx, bson.D{}, options.Find().SetSort(bson.D{{Key: "name", Value: -1}, {Key: "_id", Value: 1}}))
	wantNames(t, "find sort under the default collation", collationNames(t, cur, err), "bob", "Bob", "al")

	// An index created without a collation takes the collection's.
	if _, err := c.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: "name", Value: 1}}, Options: options.Index().SetUnique(true).SetName("u")}); err == nil {
		t.Errorf("unique index at the default strength 2 built over bob and Bob")
	}
	if _, err := c.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: "name", Value: -1}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: "seen", Value: 1}}, Options: options.Index().SetCollation(&options.Collation{Locale: "simple"})}); err != nil {
		t.Fatal(err)
	}
	cur, err = c.Indexes().List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var specs []bson.Raw
	if err := cur.All(ctx, &specs); err != nil {
		t.Fatal(err)
	}
	for _, sp := range specs {
		strength, has := sp.Lookup("collation", "strength").Int32OK()
		switch sp.Lookup("name").StringValue() {
		case "name_-1":
			if !has || strength != 2 {
				t.Errorf("index without a collation did not take the default: %v", sp)
			}
		case "seen_1":
			if _, err := sp.LookupErr("collation"); err == nil {
				t.Errorf("index with {locale: simple} has a collation: %v", sp)
			}
		}
	}

	specsCur, err := db.ListCollections(ctx, bson.D{{Key: "name", Value: "people"}})
	if err != nil {
		t.Fatal(err)
	}
	var colls []bson.Raw
	if err := specsCur.All(ctx, &colls); err != nil || len(colls) != 1 {
		t.Fatalf("listCollections: %v %v", colls, err)
	}
	got := colls[0].Lookup("options", "collation")
	want := `{"locale": "en","caseLevel": false,"caseFirst": "off","strength": {"$numberInt":"2"},"numericOrdering": false,"alternate": "non-ignorable","maxVariable": "punct","normalization": false,"backwards": false,"version": "57.1"}`
	if got.String() != want {
		t.Errorf("listCollections options.collation = %s, want %s", got, want)
	}
}

// Ensure that the stages reading another collection ($lookup in both forms,
// $graphLookup, $unionWith) match its documents by the command's
// collation, with an index on the foreign field that has none, that
// $sortArray sorts by it, and that $expr and find's projection see the
// documents' own strings, the let variables and the collation.
func TestMongoCollationForeignStagesAndExpressions(t *testing.T) {
	s := harness.Start(t)
	ctx := t.Context()
	db := mongoClient(t, s).Database("coll")
	local, foreign := db.Collection("local"), db.Collection("foreign")
	if _, err := local.InsertOne(ctx, bson.D{{Key: "_id", Value: 1}, {Key: "name", Value: "ping"}}); err != nil {
		t.Fatal(err)
	}
	for i, w := range []string{"PING", "pong", "Ping", "other"} {
		if _, err := foreign.InsertOne(ctx, bson.D{{Key: "_id", Value: i + 1}, {Key: "name", Value: w}, {Key: "to", Value: "Pong"}}); err != nil {
			t.Fatal(err)
		}
	}
	// A simple-collation index on the foreign field gives no bounds to
	// the collated lookups, which must still find every match.
	if _, err := foreign.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: "name", Value: 1}}}); err != nil {
		t.Fatal(err)
	}
	ids := func(what string, pipe mongo.Pipeline, want string) {
		t.Helper()
		cur, err := local.Aggregate(ctx, pipe, options.Aggregate().SetCollation(enStrength2))
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		var docs []bson.M
		if err := cur.All(ctx, &docs); err != nil || len(docs) != 1 {
			t.Fatalf("%s: %v, %v", what, docs, err)
		}
		arr, _ := docs[0]["ids"].(bson.A)
		var got []string
		for _, v := range arr {
			got = append(got, fmt.Sprint(v))
		}
		wantNames(t, what, got, strings.Split(want, ",")...)
	}
	sorted := func(path string) bson.D {
		return bson.D{{Key: "ids", Value: bson.D{{Key: "$sortArray", Value: bson.D{{Key: "input", Value: path}, {Key: "sortBy", Value: 1}}}}}}
	}
	ids("$lookup localField/foreignField", mongo.Pipeline{
		{{Key: "$lookup", Value: bson.D{{Key: "from", Value: "foreign"}, {Key: "localField", Value: "name"}, {Key: "foreignField", Value: "name"}, {Key: "as", Value: "m"}}}},
		{{Key: "$project", Value: sorted("$m._id")}},
	}, "1,3")
	ids("$lookup pipeline with let", mongo.Pipeline{
		{{Key: "$lookup", Value: bson.D{{Key: "from", Value: "foreign"}, {Key: "let", Value: bson.D{{Key: "n", Value: "$name"}}}, {Key: "pipeline", Value: mongo.Pipeline{
			{{Key: "$match", Value: bson.D{{Key: "$expr", Value: bson.D{{Key: "$eq", Value: bson.A{"$name", "$$n"}}}}}}},
		}}, {Key: "as", Value: "m"}}}},
		{{Key: "$project", Value: sorted("$m._id")}},
	}, "1,3")
	ids("$graphLookup", mongo.Pipeline{
		{{Key: "$graphLookup", Value: bson.D{{Key: "from", Value: "foreign"}, {Key: "startWith", Value: "$name"}, {Key: "connectFromField", Value: "to"}, {Key: "connectToField", Value: "name"}, {Key: "as", Value: "m"}}}},
		{{Key: "$project", Value: sorted("$m._id")}},
	}, "1,2,3")
	ids("$unionWith with a leading $match", mongo.Pipeline{
		{{Key: "$unionWith", Value: bson.D{{Key: "coll", Value: "foreign"}, {Key: "pipeline", Value: mongo.Pipeline{{{Key: "$match", Value: bson.D{{Key: "name", Value: "PING"}}}}}}}}},
		{{Key: "$group", Value: bson.D{{Key: "_id", Value: nil}, {Key: "ids", Value: bson.D{{Key: "$push", Value: "$_id"}}}}}},
		{{Key: "$project", Value: sorted("$ids")}},
	}, "1,1,3")
	ids("$sortArray of strings", mongo.Pipeline{
		{{Key: "$project", Value: bson.D{{Key: "ids", Value: bson.D{{Key: "$sortArray", Value: bson.D{{Key: "input", Value: bson.A{"b", "A", "a", "B"}}, {Key: "sortBy", Value: 1}}}}}}}},
	}, "A,a,b,B")

	// find: $expr with a let variable and $toUpper, and a projection
	// comparing by the collation.
	opts := options.Find().SetCollation(enStrength2).SetSort(bson.D{{Key: "_id", Value: 1}}).
		SetLet(bson.D{{Key: "n", Value: "ping"}}).
		SetProjection(bson.D{{Key: "name", Value: 1}, {Key: "same", Value: bson.D{{Key: "$eq", Value: bson.A{"$name", "$$n"}}}}})
	cur, err := foreign.Find(ctx, bson.D{{Key: "$expr", Value: bson.D{{Key: "$or", Value: bson.A{
		bson.D{{Key: "$eq", Value: bson.A{"$name", "$$n"}}},
		bson.D{{Key: "$eq", Value: bson.A{bson.D{{Key: "$toUpper", Value: "$name"}}, "pong"}}},
	}}}}}, opts)
	if err != nil {
		t.Fatal(err)
	}
	var docs []bson.M
	if err := cur.All(ctx, &docs); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range docs {
		got = append(got, fmt.Sprintf("%v=%v", d["name"], d["same"]))
	}
	wantNames(t, "find $expr with let and $toUpper, projection $eq", got, "PING=true", "pong=false", "Ping=true")
}
