package docdb

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// Ensure that DDL that fails or only previews gives no expanded event,
// that what commits gives one, and that a stream resumed after one of them
// goes on from the next.
func TestChangeStreamDDLOnlyWhatCommits(t *testing.T) {
	te := newTestEngine(t, withChangeLog)
	ctx := t.Context()
	te.mustInsert("app", "c", d("_id", int32(1)))
	cs, err := te.WatchChanges(ctx, ChangeStreamRequest{DB: "app", Coll: "c", ShowExpandedEvents: true})
	if err != nil {
		t.Fatal(err)
	}
	hide := true
	// A dry run, an unknown index and an existing index commit nothing.
	if _, err := te.CollMod(ctx, "app", "c", CollModRequest{DryRun: true, Validation: ValidationOptions{Level: "moderate"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := te.CollMod(ctx, "app", "c", CollModRequest{Index: &CollModIndex{Name: "nope", Hidden: &hide}}); err == nil {
		t.Fatal("collMod of an unknown index succeeded")
	}
	if _, err := te.DropIndexes(ctx, "app", "c", DropIndexesRequest{Names: []string{"nope"}}); err == nil {
		t.Fatal("dropIndexes of an unknown index succeeded")
	}
	if _, err := te.CreateIndexes(ctx, "app", "c", indexSpecs(d("key", d("_id", int32(1)), "name", "_id_"))); err != nil {
		t.Fatal(err)
	}
	if _, err := te.CreateIndexes(ctx, "app", "c", indexSpecs(d("key", d("n", int32(1)), "name", "n_1"))); err != nil {
		t.Fatal(err)
	}
	if _, err := te.CollMod(ctx, "app", "c", CollModRequest{Validation: ValidationOptions{Level: "moderate"}}); err != nil {
		t.Fatal(err)
	}
	batch, err := cs.NextBatch(ctx, -1, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(batch) != 2 || batch[0].Lookup("operationType").StringValue() != "createIndexes" || batch[1].Lookup("operationType").StringValue() != "modify" {
		t.Fatalf("events %v", batch)
	}
	if lvl, err := batch[1].LookupErr("operationDescription", "validationLevel"); err != nil || lvl.StringValue() != "moderate" {
		t.Fatalf("modify event %s", batch[1])
	}
	// Resuming after the createIndexes gives the modify, then nothing more.
	again, err := te.WatchChanges(ctx, ChangeStreamRequest{DB: "app", Coll: "c", ShowExpandedEvents: true, ResumeAfter: bson.Raw(batch[0].Lookup("_id").Document())})
	if err != nil {
		t.Fatal(err)
	}
	rest, err := again.NextBatch(ctx, -1, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(rest) != 1 || string(rest[0].Lookup("_id").Value) != string(batch[1].Lookup("_id").Value) {
		t.Fatalf("resumed after createIndexes: %v", rest)
	}
}
