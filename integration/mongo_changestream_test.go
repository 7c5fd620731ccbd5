package integration_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/event"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/mayfly/mayfly/integration/harness"
)

// Black-box tests of change streams (watch) through the Go driver against
// the real binary: events of every kind and option, invalidation, resume
// (across a restart too), lost history, expiry deletions marked with
// expiredBy.

// nextEvent reads the stream's next event, failing after 10 seconds.
func nextEvent(t *testing.T, cs *mongo.ChangeStream) bson.Raw {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	if !cs.Next(ctx) {
		t.Fatalf("no event: %v", cs.Err())
	}
	return append(bson.Raw(nil), cs.Current...)
}

// str returns a string field by dotted path, or "".
func str(ev bson.Raw, path ...string) string {
	v, err := ev.LookupErr(path...)
	if err != nil {
		return ""
	}
	s, _ := v.StringValueOK()
	return s
}

// i32 returns an int32 field by dotted path, or -1.
func i32(ev bson.Raw, path ...string) int32 {
	v, err := ev.LookupErr(path...)
	if err != nil {
		return -1
	}
	n, ok := v.Int32OK()
	if !ok {
		return -1
	}
	return n
}

// watch opens a change stream on c.
func watch(t *testing.T, c *mongo.Collection, pipeline any, opts ...options.Lister[options.ChangeStreamOptions]) *mongo.ChangeStream {
	t.Helper()
	if pipeline == nil {
		pipeline = mongo.Pipeline{}
	}
	cs, err := c.Watch(t.Context(), pipeline, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close(context.Background()) })
	return cs
}

// Ensure that insert, update, replace and delete events are shaped as
// MongoDB shapes them, with the update description computed from the
// document before and after.
func TestChangeStreamEvents(t *testing.T) {
	e := startTTL(t, "--change-streams")
	ctx := t.Context()
	c := e.cl.Database("app").Collection("items")
	cs := watch(t, c, nil)
	if _, err := c.InsertOne(ctx, bson.D{{Key: "_id", Value: 1}, {Key: "a", Value: 1}, {Key: "arr", Value: bson.A{1, 2, 3}}, {Key: "gone", Value: true}}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.UpdateOne(ctx, bson.D{{Key: "_id", Value: 1}}, bson.D{
		{Key: "$set", Value: bson.D{{Key: "a", Value: 2}, {Key: "arr", Value: bson.A{1, 9}}}},
		{Key: "$unset", Value: bson.D{{Key: "gone", Value: ""}}},
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ReplaceOne(ctx, bson.D{{Key: "_id", Value: 1}}, bson.D{{Key: "b", Value: "new"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.DeleteOne(ctx, bson.D{{Key: "_id", Value: 1}}); err != nil {
		t.Fatal(err)
	}

	ins := nextEvent(t, cs)
	if str(ins, "operationType") != "insert" || str(ins, "ns", "db") != "app" || str(ins, "ns", "coll") != "items" {
		t.Fatalf("insert event %s", ins)
	}
	if v := i32(ins, "fullDocument", "a"); v != 1 {
		t.Fatalf("insert fullDocument %s", ins)
	}
	if i32(ins, "documentKey", "_id") != 1 {
		t.Fatalf("insert documentKey %s", ins)
	}
	if ins.Lookup("clusterTime").Type != bson.TypeTimestamp || ins.Lookup("wallTime").Type != bson.TypeDateTime {
		t.Fatalf("insert times %s", ins)
	}
	if str(ins, "_id", "_data") == "" {
		t.Fatalf("insert _id %s", ins)
	}

	upd := nextEvent(t, cs)
	if str(upd, "operationType") != "update" {
		t.Fatalf("update event %s", upd)
	}
	if _, err := upd.LookupErr("fullDocument"); err == nil {
		t.Fatalf("an update event has fullDocument by default: %s", upd)
	}
	ud := upd.Lookup("updateDescription").Document()
	if i32(ud, "updatedFields", "a") != 2 || i32(ud, "updatedFields", "arr.1") != 9 {
		t.Fatalf("updatedFields %s", ud)
	}
	if rf := ud.Lookup("removedFields").Array().String(); rf != `["gone"]` {
		t.Fatalf("removedFields %s", rf)
	}
	ta, _ := ud.Lookup("truncatedArrays").Array().Values()
	if len(ta) != 1 || str(ta[0].Document(), "field") != "arr" || ta[0].Document().Lookup("newSize").Int32() != 2 {
		t.Fatalf("truncatedArrays %s", ud)
	}

	rep := nextEvent(t, cs)
	if str(rep, "operationType") != "replace" || str(rep, "fullDocument", "b") != "new" {
		t.Fatalf("replace event %s", rep)
	}
	del := nextEvent(t, cs)
	if str(del, "operationType") != "delete" || i32(del, "documentKey", "_id") != 1 {
		t.Fatalf("delete event %s", del)
	}
	if _, err := del.LookupErr("expiredBy"); err == nil {
		t.Fatalf("a user delete carries expiredBy: %s", del)
	}
	if cs.ResumeToken() == nil {
		t.Fatal("no resume token")
	}
}

// Ensure that fullDocument: updateLookup gives the current document, and
// that the stages after $changeStream run on the events.
func TestChangeStreamOptionsAndStages(t *testing.T) {
	e := startTTL(t, "--change-streams")
	ctx := t.Context()
	c := e.cl.Database("app").Collection("opts")
	cs := watch(t, c, mongo.Pipeline{
		{{Key: "$match", Value: bson.D{{Key: "operationType", Value: "update"}}}},
		{{Key: "$addFields", Value: bson.D{{Key: "tag", Value: "seen"}}}},
		{{Key: "$project", Value: bson.D{{Key: "updateDescription", Value: 0}}}},
	}, options.ChangeStream().SetFullDocument(options.UpdateLookup))
	if _, err := c.InsertOne(ctx, bson.D{{Key: "_id", Value: 1}, {Key: "n", Value: 1}}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.UpdateOne(ctx, bson.D{{Key: "_id", Value: 1}}, bson.D{{Key: "$inc", Value: bson.D{{Key: "n", Value: 1}}}}); err != nil {
		t.Fatal(err)
	}
	ev := nextEvent(t, cs)
	if str(ev, "operationType") != "update" || str(ev, "tag") != "seen" || i32(ev, "fullDocument", "n") != 2 {
		t.Fatalf("event %s", ev)
	}
	if _, err := ev.LookupErr("updateDescription"); err == nil {
		t.Fatalf("$project did not run: %s", ev)
	}

	// A stage not allowed in a change stream, and one that changes _id.
	_, err := c.Watch(ctx, mongo.Pipeline{{{Key: "$sort", Value: bson.D{{Key: "x", Value: 1}}}}})
	wantCmdErr(t, err, 20, "$sort is not permitted in a $changeStream pipeline")
	bad := watch(t, c, mongo.Pipeline{{{Key: "$project", Value: bson.D{{Key: "_id", Value: 0}}}}})
	if _, err := c.InsertOne(ctx, bson.D{{Key: "_id", Value: 2}}); err != nil {
		t.Fatal(err)
	}
	tctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if bad.Next(tctx) {
		t.Fatalf("an event without its _id was handed out: %s", bad.Current)
	}
	var ce mongo.CommandError
	if !errors.As(bad.Err(), &ce) || ce.Code != 280 {
		t.Fatalf("a pipeline that drops _id: %v", bad.Err())
	}
}

// Ensure that dropping and renaming a watched collection give the drop or
// rename event and then invalidate, and that a database and the whole
// deployment can be watched.
func TestChangeStreamInvalidateAndScopes(t *testing.T) {
	e := startTTL(t, "--change-streams")
	ctx := t.Context()
	db := e.cl.Database("app")
	dbStream, err := db.Watch(ctx, mongo.Pipeline{})
	if err != nil {
		t.Fatal(err)
	}
	defer dbStream.Close(ctx)
	all, err := e.cl.Watch(ctx, mongo.Pipeline{})
	if err != nil {
		t.Fatal(err)
	}
	defer all.Close(ctx)

	a := db.Collection("a")
	if _, err := a.InsertOne(ctx, bson.D{{Key: "_id", Value: 1}}); err != nil {
		t.Fatal(err)
	}
	cs := watch(t, a, nil)
	if err := a.Drop(ctx); err != nil {
		t.Fatal(err)
	}
	if ev := nextEvent(t, cs); str(ev, "operationType") != "drop" || str(ev, "ns", "coll") != "a" {
		t.Fatalf("drop event %s", ev)
	}
	inv := nextEvent(t, cs)
	if str(inv, "operationType") != "invalidate" {
		t.Fatalf("after drop: %s", inv)
	}
	tctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if cs.Next(tctx) || cs.ID() != 0 {
		t.Fatalf("the stream goes on after invalidate: %s, id %d", cs.Current, cs.ID())
	}

	// startAfter the invalidate opens a new stream on the collection.
	again := watch(t, a, nil, options.ChangeStream().SetStartAfter(inv.Lookup("_id").Document()))
	b := db.Collection("b")
	if _, err := b.InsertOne(ctx, bson.D{{Key: "_id", Value: 1}}); err != nil {
		t.Fatal(err)
	}
	bs := watch(t, b, nil)
	if _, err := a.InsertOne(ctx, bson.D{{Key: "_id", Value: 2}}); err != nil {
		t.Fatal(err)
	}
	if ev := nextEvent(t, again); str(ev, "operationType") != "insert" {
		t.Fatalf("after startAfter: %s", ev)
	}
	if err := e.cl.Database("admin").RunCommand(ctx, bson.D{{Key: "renameCollection", Value: "app.b"}, {Key: "to", Value: "app.c"}}).Err(); err != nil {
		t.Fatal(err)
	}
	ren := nextEvent(t, bs)
	if str(ren, "operationType") != "rename" || str(ren, "to", "coll") != "c" {
		t.Fatalf("rename event %s", ren)
	}
	if ev := nextEvent(t, bs); str(ev, "operationType") != "invalidate" {
		t.Fatalf("after rename: %s", ev)
	}

	// The database stream saw every change of app, the cluster stream too.
	var ops []string
	for _, want := range []string{"insert", "drop", "insert", "insert", "rename"} {
		ev := nextEvent(t, dbStream)
		ops = append(ops, str(ev, "operationType"))
		if ops[len(ops)-1] != want {
			t.Fatalf("database stream: %v", ops)
		}
	}
	if ev := nextEvent(t, all); str(ev, "operationType") != "insert" || str(ev, "ns", "db") != "app" {
		t.Fatalf("cluster stream: %s", ev)
	}
}

// Ensure that a TTL deletion arrives as a delete event marked with
// expiredBy, and that a trigger can subscribe to expirations only.
func TestChangeStreamExpiredBy(t *testing.T) {
	e := startTTL(t, "--change-streams")
	ctx := t.Context()
	c := e.cl.Database("app").Collection("sessions")
	if _, err := c.Indexes().CreateOne(ctx, mongo.IndexModel{
		Keys: bson.D{{Key: "at", Value: 1}}, Options: options.Index().SetExpireAfterSeconds(60).SetName("at_ttl"),
	}); err != nil {
		t.Fatal(err)
	}
	cs := watch(t, c, mongo.Pipeline{{{Key: "$match", Value: bson.D{
		{Key: "operationType", Value: "delete"}, {Key: "expiredBy", Value: bson.D{{Key: "$exists", Value: true}}},
	}}}})
	now := e.now()
	if _, err := c.InsertMany(ctx, []any{
		bson.D{{Key: "_id", Value: "old"}, {Key: "at", Value: dt(now)}},
		bson.D{{Key: "_id", Value: "user"}, {Key: "at", Value: dt(now.Add(time.Hour))}},
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.DeleteOne(ctx, bson.D{{Key: "_id", Value: "user"}}); err != nil {
		t.Fatal(err)
	}
	e.sweep(2 * time.Minute)
	ev := nextEvent(t, cs)
	if str(ev, "operationType") != "delete" || str(ev, "documentKey", "_id") != "old" {
		t.Fatalf("event %s", ev)
	}
	if str(ev, "expiredBy", "source") != "ttl" || str(ev, "expiredBy", "index") != "at_ttl" {
		t.Fatalf("expiredBy %s", ev)
	}
	if due := ev.Lookup("expiredBy", "dueAt").Time(); !due.Equal(now.Add(time.Minute).Truncate(time.Millisecond)) {
		t.Fatalf("dueAt %v, want %v", due, now.Add(time.Minute))
	}
}

// Ensure that a stream resumed after a restart from the token of the last
// event it handed out gets every later event exactly once.
func TestChangeStreamResumeAfterRestart(t *testing.T) {
	dir := t.TempDir()
	s := harness.StartDir(t, dir, "--change-streams")
	e := newTTLEnv(t, s)
	ctx := t.Context()
	c := e.cl.Database("app").Collection("log")
	cs := watch(t, c, nil)
	for i := 1; i <= 3; i++ {
		if _, err := c.InsertOne(ctx, bson.D{{Key: "_id", Value: i}}); err != nil {
			t.Fatal(err)
		}
	}
	nextEvent(t, cs)
	second := nextEvent(t, cs)
	token := second.Lookup("_id").Document()
	cs.Close(ctx)
	e.stop()

	s2 := harness.StartDir(t, dir, "--change-streams")
	e2 := newTTLEnv(t, s2)
	c2 := e2.cl.Database("app").Collection("log")
	if _, err := c2.InsertOne(ctx, bson.D{{Key: "_id", Value: 4}}); err != nil {
		t.Fatal(err)
	}
	resumed := watch(t, c2, nil, options.ChangeStream().SetResumeAfter(token))
	for _, want := range []int32{3, 4} {
		ev := nextEvent(t, resumed)
		if got := i32(ev, "documentKey", "_id"); got != want {
			t.Fatalf("resumed event for _id %d, want %d", got, want)
		}
	}
	tctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	if resumed.TryNext(tctx) {
		t.Fatalf("an extra event after resume: %s", resumed.Current)
	}

	// startAtOperationTime from the first event's clusterTime.
	first := nextEventAt(t, c2, second)
	if first != 2 {
		t.Fatalf("startAtOperationTime gave _id %d first", first)
	}
}

// nextEventAt opens a stream at the clusterTime of ev and returns the
// _id of its first event's document.
func nextEventAt(t *testing.T, c *mongo.Collection, ev bson.Raw) int32 {
	t.Helper()
	ts, i := ev.Lookup("clusterTime").Timestamp()
	cs := watch(t, c, nil, options.ChangeStream().SetStartAtOperationTime(&bson.Timestamp{T: ts, I: i}))
	return nextEvent(t, cs).Lookup("documentKey", "_id").Int32()
}

// Ensure that a token older than what the log keeps gives
// ChangeStreamHistoryLost.
func TestChangeStreamHistoryLost(t *testing.T) {
	e := startTTL(t, "--change-streams", "--events-retention", "1m")
	ctx := t.Context()
	c := e.cl.Database("app").Collection("h")
	cs := watch(t, c, nil)
	if _, err := c.InsertOne(ctx, bson.D{{Key: "_id", Value: 1}}); err != nil {
		t.Fatal(err)
	}
	token := nextEvent(t, cs).Lookup("_id").Document()
	e.s.Advance(t, time.Hour)
	// Another record, so the first is no longer the last one kept.
	if _, err := c.InsertOne(ctx, bson.D{{Key: "_id", Value: 2}}); err != nil {
		t.Fatal(err)
	}
	e.s.Advance(t, 0) // trims the log at the new time
	_, err := c.Watch(ctx, mongo.Pipeline{}, options.ChangeStream().SetResumeAfter(token))
	var ce mongo.CommandError
	if !errors.As(err, &ce) || ce.Code != 286 {
		t.Fatalf("resume from a trimmed token: %v, want ChangeStreamHistoryLost (286)", err)
	}
}

// Ensure that a waiting getMore returns as soon as a commit brings an
// event, well before its maxAwaitTimeMS.
func TestChangeStreamAwaitWokenByCommit(t *testing.T) {
	e := startTTL(t, "--change-streams")
	ctx := t.Context()
	// A client that says when it sends its first getMore, so the insert
	// below comes while that getMore waits.
	getMoreSent := make(chan struct{})
	var once sync.Once
	monitor := &event.CommandMonitor{Started: func(_ context.Context, ev *event.CommandStartedEvent) {
		if ev.CommandName == "getMore" {
			once.Do(func() { close(getMoreSent) })
		}
	}}
	cl, err := mongo.Connect(options.Client().ApplyURI("mongodb://" + e.s.MongoAddr + "/?directConnection=true").
		SetTimeout(30 * time.Second).SetMonitor(monitor))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cl.Disconnect(context.Background()) })
	c := cl.Database("app").Collection("wait")
	cs := watch(t, c, nil, options.ChangeStream().SetMaxAwaitTime(20*time.Second))
	done := make(chan time.Time, 1)
	go func() {
		if cs.Next(ctx) {
			done <- time.Now()
		}
		close(done)
	}()
	<-getMoreSent
	start := time.Now()
	if _, err := c.InsertOne(ctx, bson.D{{Key: "_id", Value: 1}}); err != nil {
		t.Fatal(err)
	}
	at, ok := <-done
	if !ok {
		t.Fatalf("no event: %v", cs.Err())
	}
	if d := at.Sub(start); d > 5*time.Second {
		t.Fatalf("the event came %v after the commit", d)
	}
}

// Ensure that a collection created with changeStreamPreAndPostImages gives
// the documents before and after a change, and that one without gives null
// for whenAvailable and fails the stream for required.
func TestChangeStreamPreAndPostImages(t *testing.T) {
	e := startTTL(t, "--change-streams")
	ctx := t.Context()
	db := e.cl.Database("app")
	if err := db.CreateCollection(ctx, "img", options.CreateCollection().SetChangeStreamPreAndPostImages(bson.D{{Key: "enabled", Value: true}})); err != nil {
		t.Fatal(err)
	}
	c := db.Collection("img")
	opts := options.ChangeStream().SetFullDocument(options.WhenAvailable).SetFullDocumentBeforeChange(options.Required)
	cs := watch(t, c, nil, opts)
	if _, err := c.InsertOne(ctx, bson.D{{Key: "_id", Value: 1}, {Key: "n", Value: 1}}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.UpdateOne(ctx, bson.D{{Key: "_id", Value: 1}}, bson.D{{Key: "$set", Value: bson.D{{Key: "n", Value: 2}}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.DeleteOne(ctx, bson.D{{Key: "_id", Value: 1}}); err != nil {
		t.Fatal(err)
	}
	nextEvent(t, cs) // insert
	upd := nextEvent(t, cs)
	if i32(upd, "fullDocument", "n") != 2 || i32(upd, "fullDocumentBeforeChange", "n") != 1 {
		t.Fatalf("update with images %s", upd)
	}
	del := nextEvent(t, cs)
	if str(del, "operationType") != "delete" || i32(del, "fullDocumentBeforeChange", "n") != 2 {
		t.Fatalf("delete with images %s", del)
	}

	// collMod turns images off: whenAvailable gives null.
	if err := db.RunCommand(ctx, bson.D{{Key: "collMod", Value: "img"}, {Key: "changeStreamPreAndPostImages", Value: bson.D{{Key: "enabled", Value: false}}}}).Err(); err != nil {
		t.Fatal(err)
	}
	soft := watch(t, c, nil, options.ChangeStream().SetFullDocumentBeforeChange(options.WhenAvailable))
	strict := watch(t, c, nil, opts)
	if _, err := c.InsertOne(ctx, bson.D{{Key: "_id", Value: 2}}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.DeleteOne(ctx, bson.D{{Key: "_id", Value: 2}}); err != nil {
		t.Fatal(err)
	}
	nextEvent(t, soft)
	if ev := nextEvent(t, soft); ev.Lookup("fullDocumentBeforeChange").Type != bson.TypeNull {
		t.Fatalf("whenAvailable without images: %s", ev)
	}
	nextEvent(t, strict)
	tctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if strict.Next(tctx) {
		t.Fatalf("required without images gave %s", strict.Current)
	}
	var ce mongo.CommandError
	if !errors.As(strict.Err(), &ce) || ce.Code != 47 {
		t.Fatalf("required without images: %v", strict.Err())
	}
}

// Ensure that mongosh's db.coll.watch() receives an insert made after it
// opened.
func TestChangeStreamMongosh(t *testing.T) {
	s := harness.Start(t, "--change-streams")
	out := mongosh(t, s, "shop",
		"const cs = db.items.watch([{$match: {operationType: 'insert'}}])\n"+
			"db.items.insertOne({_id: 5, name: 'kalem'})\n"+
			"const ev = cs.next()\n"+
			"print('EVENT', ev.operationType, ev.ns.coll, ev.documentKey._id, ev.fullDocument.name, typeof ev._id._data)\n"+
			"cs.close()\nexit\n")
	wantOutput(t, out, "EVENT insert items 5 kalem string")
}

// Ensure that after kill -9 the change log and the collection agree: every
// document the collection holds has exactly one insert event, no event
// names a document that is not there, and every acknowledged insert is in
// both (--durability=sync).
func TestChangeStreamKill9(t *testing.T) {
	dir := t.TempDir()
	s := harness.StartDir(t, dir, "--change-streams", "--durability", "sync")
	e := newTTLEnv(t, s)
	ctx := t.Context()
	c := e.cl.Database("app").Collection("crash")
	acked := map[int32]bool{}
	stop := make(chan struct{})
	done := make(chan struct{})
	running := make(chan struct{}) // closed once 100 inserts are acknowledged
	go func() {
		defer close(done)
		for i := int32(1); ; i++ {
			if i == 101 {
				close(running)
			}
			select {
			case <-stop:
				return
			default:
			}
			if _, err := c.InsertOne(ctx, bson.D{{Key: "_id", Value: i}}); err != nil {
				return
			}
			acked[i] = true
		}
	}()
	select {
	case <-running:
	case <-done:
		t.Fatal("the writer stopped before 100 inserts")
	}
	s.Kill()
	close(stop)
	<-done

	s2 := harness.StartDir(t, dir, "--change-streams", "--durability", "sync")
	e2 := newTTLEnv(t, s2)
	c2 := e2.cl.Database("app").Collection("crash")
	cur, err := c2.Find(ctx, bson.D{})
	if err != nil {
		t.Fatal(err)
	}
	stored := map[int32]bool{}
	for cur.Next(ctx) {
		stored[i32(cur.Current, "_id")] = true
	}
	cs := watch(t, c2, nil, options.ChangeStream().SetStartAtOperationTime(&bson.Timestamp{T: 1}))
	logged := map[int32]bool{}
	for {
		tctx, cancel := context.WithTimeout(ctx, 3*time.Second)
		ok := cs.TryNext(tctx)
		if !ok {
			ok = cs.Next(tctx)
		}
		cancel()
		if !ok {
			break
		}
		if str(cs.Current, "operationType") != "insert" {
			continue
		}
		id := i32(cs.Current, "documentKey", "_id")
		if logged[id] {
			t.Fatalf("two insert events for _id %d", id)
		}
		logged[id] = true
	}
	if len(acked) == 0 {
		t.Fatal("no insert was acknowledged before the kill")
	}
	for id := range acked {
		if !stored[id] || !logged[id] {
			t.Fatalf("acknowledged _id %d: stored %v, logged %v", id, stored[id], logged[id])
		}
	}
	for id := range stored {
		if !logged[id] {
			t.Fatalf("_id %d is stored but has no event", id)
		}
	}
	for id := range logged {
		if !stored[id] {
			t.Fatalf("_id %d has an event but is not stored", id)
		}
	}
	t.Logf("%d acknowledged, %d stored, %d logged", len(acked), len(stored), len(logged))
}
