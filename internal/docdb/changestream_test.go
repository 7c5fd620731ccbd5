package docdb

import (
	"testing"
)

// Ensure that a collection created with pre- and post-images gives them in
// its update events, and one without does not.
func TestChangeStreamImages(t *testing.T) {
	te := newTestEngine(t)
	ctx := t.Context()
	on := true
	if err := te.CreateCollection(ctx, "app", "img", CreateCollectionRequest{PreAndPostImages: &on}); err != nil {
		t.Fatal(err)
	}
	cs, err := te.WatchChanges(ctx, ChangeStreamRequest{DB: "app", Coll: "img", FullDocument: FullDocumentWhenAvailable, FullDocumentBeforeChange: FullDocumentWhenAvailable})
	if err != nil {
		t.Fatal(err)
	}
	te.mustInsert("app", "img", d("_id", int32(1), "n", int32(1)))
	te.mustUpdate("app", "img", UpdateStatement{Filter: d("_id", int32(1)), Update: d("$set", d("n", int32(2)))})
	batch, err := cs.NextBatch(ctx, -1, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(batch) != 2 {
		t.Fatalf("batch %v", batch)
	}
	upd := batch[1]
	if v, err := upd.LookupErr("fullDocumentBeforeChange", "n"); err != nil || v.Int32() != 1 {
		t.Fatalf("update event %s", upd)
	}
	if v, err := upd.LookupErr("fullDocument", "n"); err != nil || v.Int32() != 2 {
		t.Fatalf("update event %s", upd)
	}
}
