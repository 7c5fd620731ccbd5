package integration_test

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// nextOps reads one event per operation type in ops from cs, failing at
// the first that differs, and returns them.
func nextOps(t *testing.T, what string, cs *mongo.ChangeStream, ops ...string) []bson.Raw {
	t.Helper()
	var got []string
	var out []bson.Raw
	for _, want := range ops {
		ev := nextEvent(t, cs)
		got = append(got, str(ev, "operationType"))
		out = append(out, ev)
		if got[len(got)-1] != want {
			t.Fatalf("%s: operation types %v, want %v; last event %s", what, got, ops, ev)
		}
	}
	return out
}

// Ensure that catalog changes give MongoDB 7's expanded events to streams
// opened with showExpandedEvents (create, createIndexes, dropIndexes,
// modify, with collectionUUID and operationDescription, rename's
// dropTarget, updateDescription.disambiguatedPaths) at collection,
// database and cluster level, and nothing new to other streams.
func TestChangeStreamExpandedEvents(t *testing.T) {
	e := startTTL(t, "--change-streams")
	ctx := t.Context()
	db := e.cl.Database("ddl")
	expanded := options.ChangeStream().SetShowExpandedEvents(true)
	all, err := e.cl.Watch(ctx, mongo.Pipeline{}, expanded)
	if err != nil {
		t.Fatal(err)
	}
	defer all.Close(ctx)
	dbs, err := db.Watch(ctx, mongo.Pipeline{}, expanded)
	if err != nil {
		t.Fatal(err)
	}
	defer dbs.Close(ctx)
	plain, err := db.Watch(ctx, mongo.Pipeline{})
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close(ctx)
	elsewhere := e.cl.Database("elsewhere")
	other, err := elsewhere.Watch(ctx, mongo.Pipeline{}, expanded)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close(ctx)

	if err := db.CreateCollection(ctx, "x"); err != nil {
		t.Fatal(err)
	}
	x := db.Collection("x")
	xs := watch(t, x, nil, expanded)
	if _, err := x.Indexes().CreateMany(ctx, []mongo.IndexModel{
		{Keys: bson.D{{Key: "a", Value: 1}}},
		{Keys: bson.D{{Key: "b", Value: 1}}, Options: options.Index().SetName("b_idx")},
	}); err != nil {
		t.Fatal(err)
	}
	// On a collection the command creates, one event per index.
	if _, err := db.Collection("y").Indexes().CreateMany(ctx, []mongo.IndexModel{
		{Keys: bson.D{{Key: "c", Value: 1}}}, {Keys: bson.D{{Key: "d", Value: 1}}},
	}); err != nil {
		t.Fatal(err)
	}
	doc := bson.D{{Key: "_id", Value: 1}, {Key: "m", Value: bson.D{{Key: "1", Value: 1}}}, {Key: "arr", Value: bson.A{bson.D{{Key: "1", Value: 1}}, 5}}}
	if _, err := x.InsertOne(ctx, doc); err != nil {
		t.Fatal(err)
	}
	if _, err := x.UpdateOne(ctx, bson.D{{Key: "_id", Value: 1}}, bson.D{{Key: "$set", Value: bson.D{
		{Key: "m.1", Value: 2}, {Key: "arr.0.1", Value: 3}, {Key: "arr.1", Value: 6},
	}}}); err != nil {
		t.Fatal(err)
	}
	if err := db.RunCommand(ctx, bson.D{{Key: "collMod", Value: "x"}, {Key: "index", Value: bson.D{{Key: "name", Value: "b_idx"}, {Key: "hidden", Value: true}}}}).Err(); err != nil {
		t.Fatal(err)
	}
	validator := bson.D{{Key: "a", Value: bson.D{{Key: "$exists", Value: true}}}}
	if err := db.RunCommand(ctx, bson.D{{Key: "collMod", Value: "x"}, {Key: "validator", Value: validator}, {Key: "validationLevel", Value: "moderate"}}).Err(); err != nil {
		t.Fatal(err)
	}
	if err := x.Indexes().DropAll(ctx); err != nil {
		t.Fatal(err)
	}
	if err := e.cl.Database("admin").RunCommand(ctx, bson.D{{Key: "renameCollection", Value: "ddl.y"}, {Key: "to", Value: "ddl.x"}, {Key: "dropTarget", Value: true}}).Err(); err != nil {
		t.Fatal(err)
	}
	if _, err := elsewhere.Collection("e").InsertOne(ctx, bson.D{{Key: "_id", Value: 1}}); err != nil {
		t.Fatal(err)
	}

	evs := nextOps(t, "database stream", dbs, "create", "createIndexes", "create", "createIndexes", "createIndexes",
		"insert", "update", "modify", "modify", "dropIndexes", "dropIndexes", "drop", "rename")
	create := evs[0]
	if str(create, "operationDescription", "idIndex", "name") != "_id_" || str(create, "ns", "coll") != "x" {
		t.Fatalf("create event %s", create)
	}
	if v := create.Lookup("collectionUUID"); v.Type != bson.TypeBinary {
		t.Fatalf("create event without collectionUUID: %s", create)
	}
	if create.Lookup("documentKey").Type != 0 {
		t.Fatalf("a catalog event with a documentKey: %s", create)
	}
	if ix, _ := evs[1].Lookup("operationDescription", "indexes").ArrayOK(); len(mustValues(t, ix)) != 2 ||
		str(evs[1], "operationDescription", "indexes", "1", "name") != "b_idx" {
		t.Fatalf("createIndexes of two indexes on an existing collection: %s", evs[1])
	}
	for i, want := range []string{"c_1", "d_1"} {
		ev := evs[3+i]
		if ix, _ := ev.Lookup("operationDescription", "indexes").ArrayOK(); len(mustValues(t, ix)) != 1 ||
			str(ev, "operationDescription", "indexes", "0", "name") != want || str(ev, "ns", "coll") != "y" {
			t.Fatalf("createIndexes %d on a collection the command created: %s", i, ev)
		}
	}
	upd := evs[6]
	dp, err := upd.LookupErr("updateDescription", "disambiguatedPaths")
	if err != nil {
		t.Fatalf("update without disambiguatedPaths: %s", upd)
	}
	want, _ := bson.Marshal(bson.D{
		{Key: "m.1", Value: bson.A{"m", "1"}},
		{Key: "arr.0.1", Value: bson.A{"arr", int32(0), "1"}},
	})
	if string(dp.Document()) != string(want) {
		t.Fatalf("disambiguatedPaths %s, want %s", dp.Document(), bson.Raw(want))
	}
	mod := evs[7]
	if str(mod, "operationDescription", "index", "name") != "b_idx" {
		t.Fatalf("modify event %s", mod)
	}
	if h, ok := mod.Lookup("operationDescription", "index", "hidden").BooleanOK(); !ok || !h {
		t.Fatalf("modify event without index.hidden: %s", mod)
	}
	if h, ok := mod.Lookup("stateBeforeChange", "indexOptions", "hidden").BooleanOK(); !ok || h {
		t.Fatalf("modify event without indexOptions.hidden false before: %s", mod)
	}
	if mod.Lookup("stateBeforeChange", "collectionOptions", "uuid").Type != bson.TypeBinary {
		t.Fatalf("modify event without the collection's options before: %s", mod)
	}
	val := evs[8]
	wantVal, _ := bson.Marshal(bson.D{{Key: "validator", Value: validator}, {Key: "validationLevel", Value: "moderate"}})
	if string(val.Lookup("operationDescription").Document()) != string(wantVal) {
		t.Fatalf("modify of the validator: %s, want operationDescription %s", val, bson.Raw(wantVal))
	}
	if opts, _ := val.Lookup("stateBeforeChange", "collectionOptions").Document().Elements(); len(opts) != 1 {
		t.Fatalf("options before the validator: %s", val)
	}
	if val.Lookup("stateBeforeChange", "indexOptions").Type != 0 {
		t.Fatalf("indexOptions in a collection's modify: %s", val)
	}
	if str(evs[9], "operationDescription", "indexes", "0", "name") != "a_1" || str(evs[10], "operationDescription", "indexes", "0", "name") != "b_idx" {
		t.Fatalf("dropIndexes events %s %s", evs[9], evs[10])
	}
	ren := evs[12]
	if str(ren, "operationDescription", "to", "coll") != "x" || ren.Lookup("operationDescription", "dropTarget").Type != bson.TypeBinary {
		t.Fatalf("rename event %s", ren)
	}
	if xuuid := create.Lookup("collectionUUID"); string(ren.Lookup("operationDescription", "dropTarget").Value) != string(xuuid.Value) {
		t.Fatalf("rename's dropTarget %s is not x's UUID %s", ren.Lookup("operationDescription", "dropTarget"), xuuid)
	}

	// The cluster stream shows the same events in the same order.
	for i, ev := range nextOps(t, "cluster stream", all, "create", "createIndexes", "create", "createIndexes", "createIndexes",
		"insert", "update", "modify", "modify", "dropIndexes", "dropIndexes", "drop", "rename", "create", "insert") {
		if i < len(evs) && string(ev.Lookup("_id").Value) != string(evs[i].Lookup("_id").Value) {
			t.Fatalf("cluster stream event %d %s, database stream %s", i, ev, evs[i])
		}
	}
	// The collection stream shows x's events only.
	nextOps(t, "collection stream", xs, "createIndexes", "insert", "update", "modify", "modify", "dropIndexes", "dropIndexes")
	// Without showExpandedEvents: no expanded event, no expanded field.
	for _, ev := range nextOps(t, "stream without showExpandedEvents", plain, "insert", "update", "drop", "rename") {
		for _, f := range []string{"collectionUUID", "operationDescription"} {
			if ev.Lookup(f).Type != 0 {
				t.Fatalf("%s without showExpandedEvents: %s", f, ev)
			}
		}
		if ev.Lookup("updateDescription", "disambiguatedPaths").Type != 0 {
			t.Fatalf("disambiguatedPaths without showExpandedEvents: %s", ev)
		}
	}
	// Another database's stream saw none of it.
	nextOps(t, "other database's stream", other, "create", "insert")
}

// mustValues returns an array's values.
func mustValues(t *testing.T, a bson.RawArray) []bson.RawValue {
	t.Helper()
	if a == nil {
		return nil
	}
	vs, err := a.Values()
	if err != nil {
		t.Fatal(err)
	}
	return vs
}
