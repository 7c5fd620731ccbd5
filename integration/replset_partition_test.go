package integration_test

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/writeconcern"

	"github.com/mayfly/mayfly/integration/harness"
)

// leaseBound is how long after losing its majority a deposed primary may
// still acknowledge a write: raft's leader lease and heartbeat timeout
// with the defaults, with room for a loaded machine. Every write it
// acknowledges must be majority-committed anyway; this bounds when.
const leaseBound = 3 * time.Second

// writerPace spaces the writes of a writer whose writes may fail at once
// (on a member that is no longer primary), so that it does not spin.
const writerPace = 5 * time.Millisecond

// memberClients connects one client to each member alone, for the
// whole test: a client of a member that has stopped takes its server
// selection timeout to disconnect, so the tests disconnect these before
// stopping members (disconnect) and never open one per poll.
type memberClients []*mongo.Client

func connectMembers(t *testing.T, set *harness.Set) memberClients {
	t.Helper()
	var out memberClients
	for _, m := range set.Members {
		out = append(out, memberClient(t, m))
	}
	return out
}

// disconnect closes member i's client (every member's when i < 0).
func (mc memberClients) disconnect(i int) {
	for j, c := range mc {
		if i < 0 || i == j {
			c.Disconnect(context.Background())
		}
	}
}

// hello runs hello on member i.
func (mc memberClients) hello(t *testing.T, i int) bson.M {
	var out bson.M
	if err := mc[i].Database("admin").RunCommand(t.Context(), bson.D{{Key: "hello", Value: 1}}).Decode(&out); err != nil {
		return bson.M{}
	}
	return out
}

// hashesAgree reports whether every running member answers the same
// dbHash md5 for db, and returns it.
func hashesAgree(t *testing.T, set *harness.Set, mc memberClients, db string) (string, bool) {
	t.Helper()
	want := ""
	for i, m := range set.Members {
		if m.Server == nil {
			continue
		}
		var h bson.M
		err := mc[i].Database(db).RunCommand(t.Context(), bson.D{{Key: "dbHash", Value: 1}}).Decode(&h)
		if err != nil {
			return "", false
		}
		md5, _ := h["md5"].(string)
		if want == "" {
			want = md5
		} else if md5 != want {
			return "", false
		}
	}
	return want, want != ""
}

// checkStopped stops every member and runs `mayfly check` on each data
// directory.
func checkStopped(t *testing.T, set *harness.Set) {
	t.Helper()
	for i, m := range set.Members {
		if m.Server == nil {
			continue
		}
		began := time.Now()
		ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
		err := m.Stop(ctx)
		cancel()
		if err != nil {
			t.Fatalf("stop member %d: %v", i, err)
		}
		m.Server = nil
		stopped := time.Now()
		if out, err := exec.Command(harness.Binary(t), "check", "--dir", m.Dir).CombinedOutput(); err != nil {
			t.Fatalf("mayfly check of member %d: %v\n%s", i, err, out)
		}
		t.Logf("member %d stopped in %v, checked in %v", i, stopped.Sub(began).Round(time.Millisecond), time.Since(stopped).Round(time.Millisecond))
	}
}

// roleOf returns ROLE's first word on member m, "" when it does not answer.
func roleOf(t *testing.T, m *harness.Member) string {
	rc := redis.NewClient(&redis.Options{Addr: m.RespAddr, MaxRetries: -1,
		DialTimeout: 200 * time.Millisecond, ReadTimeout: 500 * time.Millisecond})
	defer rc.Close()
	r, err := rc.Do(t.Context(), "ROLE").Slice()
	if err != nil || len(r) == 0 {
		return ""
	}
	s, _ := r[0].(string)
	return s
}

// Ensure that a primary cut off from the other two members by a network
// partition stops acknowledging writes within its lease and steps down,
// that the majority elects a new primary whose majority writes survive
// the healing, and that afterwards every member's dbHash agrees and
// `mayfly check` finds every data directory sound.
func TestReplSetPartitionedPrimary(t *testing.T) {
	began := time.Now()
	ps := harness.StartProxiedSet(t, "rs0", 3)
	set := ps.Set
	p := waitPrimary(t, set, 20*time.Second)
	t.Logf("primary %d elected %v into the test", p, time.Since(began).Round(time.Millisecond))
	ctx := t.Context()
	mcs := connectMembers(t, set)
	cl := setClient(t, set)
	coll := cl.Database("app").Collection("events")
	for i := 0; i < 20; i++ {
		if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: fmt.Sprintf("before-%d", i)}}); err != nil {
			t.Fatal(err)
		}
	}
	eventually(t, 15*time.Second, "members' dbHash agree before the partition", func() bool {
		_, ok := hashesAgree(t, set, mcs, "app")
		return ok
	})

	// A writer on the old primary alone, with w:1, records what it
	// acknowledges and when.
	old := set.Members[p]
	direct, err := mongo.Connect(options.Client().ApplyURI("mongodb://" + old.MongoAddr + "/?directConnection=true").
		SetWriteConcern(writeconcern.W1()).SetTimeout(2 * time.Second).SetRetryWrites(false))
	if err != nil {
		t.Fatal(err)
	}
	defer direct.Disconnect(context.Background())
	type ack struct {
		id string
		at time.Time
	}
	var (
		mu      sync.Mutex
		oldAcks []ack
	)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		dc := direct.Database("app").Collection("events")
		pace := time.NewTicker(writerPace)
		defer pace.Stop()
		for n := 0; ; n++ {
			select {
			case <-stop:
				return
			case <-pace.C:
			}
			id := fmt.Sprintf("old-%d", n)
			wctx, cancel := context.WithTimeout(ctx, 2*time.Second)
			_, err := dc.InsertOne(wctx, bson.D{{Key: "_id", Value: id}})
			cancel()
			if err == nil {
				mu.Lock()
				oldAcks = append(oldAcks, ack{id, time.Now()})
				mu.Unlock()
			}
		}
	}()
	eventually(t, 10*time.Second, "the writer on the primary is acknowledged", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(oldAcks) > 0
	})

	cutAt := time.Now()
	ps.Isolate(p)
	eventually(t, 15*time.Second, "the isolated primary steps down", func() bool {
		return mcs.hello(t, p)["isWritablePrimary"] == false
	})
	var np int
	eventually(t, 15*time.Second, "the majority elects a new primary", func() bool {
		for i, m := range set.Members {
			if i != p && roleOf(t, m) == "master" {
				np = i
				return true
			}
		}
		return false
	})
	// Majority writes through the new primary during the partition.
	nc, err := mongo.Connect(options.Client().ApplyURI("mongodb://" + set.Members[np].MongoAddr + "/?directConnection=true").
		SetWriteConcern(writeconcern.Majority()).SetTimeout(10 * time.Second))
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Disconnect(context.Background())
	var during []string
	for i := 0; i < 20; i++ {
		id := fmt.Sprintf("during-%d", i)
		if _, err := nc.Database("app").Collection("events").InsertOne(ctx, bson.D{{Key: "_id", Value: id}}); err != nil {
			t.Fatalf("majority write on the new primary: %v", err)
		}
		during = append(during, id)
	}
	close(stop)
	wg.Wait()
	t.Logf("partition writes done %v into the test", time.Since(began).Round(time.Millisecond))
	mu.Lock()
	for _, a := range oldAcks {
		if a.at.After(cutAt.Add(leaseBound)) {
			t.Fatalf("the isolated primary acknowledged %s %v after the cut", a.id, a.at.Sub(cutAt))
		}
	}
	acked := append([]ack(nil), oldAcks...)
	mu.Unlock()

	ps.Heal()
	eventually(t, 20*time.Second, "the old primary rejoins as a secondary", func() bool {
		return roleOf(t, old) == "slave" && mcs.hello(t, p)["secondary"] == true
	})
	var md5 string
	eventually(t, 20*time.Second, "members' dbHash agree after healing", func() bool {
		var ok bool
		md5, ok = hashesAgree(t, set, mcs, "app")
		return ok
	})
	// Every write either side acknowledged is on every member.
	for i := range set.Members {
		mc := mcs[i].Database("app").Collection("events")
		for _, id := range during {
			if n, err := mc.CountDocuments(ctx, bson.D{{Key: "_id", Value: id}}); err != nil || n != 1 {
				t.Fatalf("member %d lacks %s written during the partition (%d, %v)", i, id, n, err)
			}
		}
		for _, a := range acked {
			if n, err := mc.CountDocuments(ctx, bson.D{{Key: "_id", Value: a.id}}); err != nil || n != 1 {
				t.Fatalf("member %d lacks %s acknowledged by the old primary (%d, %v)", i, a.id, n, err)
			}
		}
	}
	t.Logf("old primary acknowledged %d writes, the last %v after the cut; dbHash %s on every member (%v into the test)",
		len(acked), lastAfter(acked[len(acked)-1].at, cutAt), md5, time.Since(began).Round(time.Millisecond))
	direct.Disconnect(ctx)
	nc.Disconnect(ctx)
	cl.Disconnect(ctx)
	mcs.disconnect(-1)
	checkStopped(t, set)
}

// lastAfter is how long after cut at was, negative when before.
func lastAfter(at, cut time.Time) time.Duration { return at.Sub(cut).Round(time.Millisecond) }

// Ensure that replSetFreeze keeps a secondary from becoming primary and
// replSetStepDown, with secondaryCatchUpPeriodSecs, hands the role to the
// caught-up secondary that is not frozen, answering MongoDB's errors.
func TestReplSetFreezeAndStepDown(t *testing.T) {
	set := harness.StartSet(t, "rs0", 3)
	p := waitPrimary(t, set, 20*time.Second)
	f1, f2 := (p+1)%3, (p+2)%3
	mcs := connectMembers(t, set)
	admin := func(i int) *mongo.Database { return mcs[i].Database("admin") }
	run := func(i int, cmd bson.D) (bson.M, error) {
		var out bson.M
		err := admin(i).RunCommand(t.Context(), cmd).Decode(&out)
		return out, err
	}
	wantErr := func(err error, code int32, msg string) {
		t.Helper()
		var ce mongo.CommandError
		if !errors.As(err, &ce) || ce.Code != code || !strings.Contains(ce.Message, msg) {
			t.Fatalf("got %v, want code %d %q", err, code, msg)
		}
	}
	_, err := run(p, bson.D{{Key: "replSetFreeze", Value: 30}})
	wantErr(err, 95, "cannot freeze node when primary or running for election. state: Primary")
	_, err = run(p, bson.D{{Key: "replSetStepDown", Value: 5}})
	wantErr(err, 2, "stepdown period must be longer than secondaryCatchUpPeriodSecs")
	_, err = run(f1, bson.D{{Key: "replSetStepDown", Value: 60}})
	wantErr(err, 10107, "not primary so can't step down")
	_, err = run(p, bson.D{{Key: "replSetStepDown", Value: -1}})
	wantErr(err, 2, "stepdown period must be a positive integer")

	if r, err := run(f2, bson.D{{Key: "replSetFreeze", Value: 1}}); err != nil || r["warning"] != "you really want to freeze for only 1 second?" {
		t.Fatalf("freeze 1: %v %v", r, err)
	}
	for _, f := range []int{f1, f2} {
		if _, err := run(f, bson.D{{Key: "replSetFreeze", Value: 120}}); err != nil {
			t.Fatal(err)
		}
	}
	_, err = run(p, bson.D{{Key: "replSetStepDown", Value: 60}, {Key: "secondaryCatchUpPeriodSecs", Value: 1}})
	wantErr(err, 262, "No electable secondaries caught up as of")
	if roleOf(t, set.Members[p]) != "master" {
		t.Fatal("a refused step down changed the primary")
	}
	if r, err := run(f1, bson.D{{Key: "replSetFreeze", Value: 0}}); err != nil || r["info"] != "unfreezing" {
		t.Fatalf("unfreeze: %v %v", r, err)
	}
	if _, err := run(p, bson.D{{Key: "replSetStepDown", Value: 60}, {Key: "secondaryCatchUpPeriodSecs", Value: 5}}); err != nil {
		t.Fatalf("step down: %v", err)
	}
	eventually(t, 10*time.Second, "the unfrozen secondary becomes primary", func() bool {
		return roleOf(t, set.Members[f1]) == "master" && roleOf(t, set.Members[p]) == "slave"
	})
	// The old primary is frozen for 60 s and f2 for 120 s: when f1 dies no
	// one becomes primary until f2 is unfrozen, which then does.
	if _, err := run(f2, bson.D{{Key: "replSetFreeze", Value: 0}}); err != nil {
		t.Fatal(err)
	}
	mcs.disconnect(f1)
	set.Kill(f1)
	eventually(t, 15*time.Second, "the unfrozen survivor becomes primary", func() bool {
		return roleOf(t, set.Members[f2]) == "master"
	})
	if roleOf(t, set.Members[p]) == "master" {
		t.Fatal("the member frozen by its step down became primary")
	}
}

// Ensure that writeConcern j: true under --durability=group is answered
// once a majority has the write fsynced: with one follower paused the
// primary and the other follower make the majority, and every write is on
// every member once the paused one resumes.
func TestReplSetJournaledWrites(t *testing.T) {
	set := harness.StartSet(t, "rs0", 3, "--durability", "group")
	p := waitPrimary(t, set, 20*time.Second)
	f := (p + 1) % 3
	cl, err := mongo.Connect(options.Client().ApplyURI(set.MongoURI()).
		SetWriteConcern(writeconcern.Journaled()).SetTimeout(20 * time.Second))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Disconnect(context.Background())
	coll := cl.Database("app").Collection("journaled")
	ctx := t.Context()
	for i := 0; i < 10; i++ {
		if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: i}}); err != nil {
			t.Fatalf("j: true write: %v", err)
		}
	}
	if err := set.Pause(f); err != nil {
		t.Fatal(err)
	}
	// A loaded machine may move the primary meanwhile: a write refused as
	// not primary is sent again; one that then finds its document had
	// committed before the refusal, and is on the member it reads below.
	for i := 10; i < 20; i++ {
		eventually(t, 20*time.Second, fmt.Sprintf("j: true write %d with a follower paused", i), func() bool {
			_, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: i}})
			if err != nil && !mongo.IsDuplicateKeyError(err) && !strings.Contains(err.Error(), "not primary") &&
				!mongo.IsTimeout(err) && !mongo.IsNetworkError(err) {
				t.Fatalf("j: true write with a follower paused: %v", err)
			}
			return err == nil || mongo.IsDuplicateKeyError(err)
		})
	}
	if err := set.Resume(f); err != nil {
		t.Fatal(err)
	}
	mcs := connectMembers(t, set)
	eventually(t, 15*time.Second, "every member holds the journaled writes", func() bool {
		_, ok := hashesAgree(t, set, mcs, "app")
		return ok
	})
	for i := range set.Members {
		if n, err := mcs[i].Database("app").Collection("journaled").CountDocuments(ctx, bson.D{}); err != nil || n != 20 {
			t.Fatalf("member %d has %d journaled documents (%v)", i, n, err)
		}
	}
}
