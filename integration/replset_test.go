package integration_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/readpref"
	"go.mongodb.org/mongo-driver/v2/mongo/writeconcern"

	"github.com/mayfly/mayfly/integration/harness"
)

// setClient connects the Go driver to the whole set, as an application
// does, with majority writes.
func setClient(t *testing.T, set *harness.Set) *mongo.Client {
	t.Helper()
	cl, err := mongo.Connect(options.Client().ApplyURI(set.MongoURI()).
		SetWriteConcern(writeconcern.Majority()).SetTimeout(20 * time.Second))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cl.Disconnect(context.Background()) })
	return cl
}

// memberClient connects the Go driver to one member only.
func memberClient(t *testing.T, m *harness.Member) *mongo.Client {
	t.Helper()
	cl, err := mongo.Connect(options.Client().ApplyURI("mongodb://" + m.MongoAddr + "/?directConnection=true").
		SetReadPreference(readpref.SecondaryPreferred()).SetTimeout(10 * time.Second))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cl.Disconnect(context.Background()) })
	return cl
}

// hello runs hello on member m.
func hello(t *testing.T, m *harness.Member) bson.M {
	t.Helper()
	var out bson.M
	if err := memberClient(t, m).Database("admin").RunCommand(t.Context(), bson.D{{Key: "hello", Value: 1}}).Decode(&out); err != nil {
		t.Fatal(err)
	}
	return out
}

// waitPrimary waits until one live member says it is the writable
// primary and every live member names it, and returns its position.
func waitPrimary(t *testing.T, set *harness.Set, timeout time.Duration) int {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		primary, agreed := -1, true
		for i, m := range set.Members {
			if m.Server == nil {
				continue
			}
			rc := redis.NewClient(&redis.Options{Addr: m.RespAddr, MaxRetries: -1,
				DialTimeout: 200 * time.Millisecond, ReadTimeout: 200 * time.Millisecond})
			role, err := rc.Do(t.Context(), "ROLE").Slice()
			rc.Close()
			if err != nil {
				agreed = false
				continue
			}
			switch role[0] {
			case "master":
				if primary >= 0 {
					agreed = false
				}
				primary = i
			case "slave":
				if len(role) < 4 || role[3] != "connected" {
					agreed = false
				}
			}
		}
		if primary >= 0 && agreed {
			return primary
		}
		if time.Now().After(deadline) {
			t.Fatalf("no agreed primary within %v", timeout)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Ensure that three `mayfly serve --replica-set` processes form a set the
// Go driver uses as a MongoDB replica set: hello describes it, writes go
// to the primary, a secondary refuses them with NotWritablePrimary and
// serves reads, and after SIGKILL of the primary a new one serves writes
// within 5 s with no majority-acknowledged write lost.
func TestReplSetMongoDriverFailover(t *testing.T) {
	set := harness.StartSet(t, "rs0", 3)
	p := waitPrimary(t, set, 20*time.Second)
	h := hello(t, set.Members[p])
	if h["setName"] != "rs0" || h["isWritablePrimary"] != true || h["primary"] != set.Members[p].MongoAddr || h["me"] != set.Members[p].MongoAddr {
		t.Fatalf("primary's hello: %v", h)
	}
	hosts, _ := h["hosts"].(bson.A)
	if len(hosts) != 3 {
		t.Fatalf("hello hosts %v, want the 3 members", hosts)
	}
	if _, ok := h["electionId"].(bson.ObjectID); !ok {
		t.Fatalf("primary's hello has no electionId: %v", h)
	}
	f := (p + 1) % 3
	hf := hello(t, set.Members[f])
	if hf["isWritablePrimary"] != false || hf["secondary"] != true || hf["primary"] != set.Members[p].MongoAddr {
		t.Fatalf("secondary's hello: %v", hf)
	}

	cl := setClient(t, set)
	ctx := t.Context()
	coll := cl.Database("app").Collection("orders")
	for i := 0; i < 50; i++ {
		if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: i}, {Key: "n", Value: i}}); err != nil {
			t.Fatalf("insert %d: %v", i, err)
		}
	}

	// A secondary refuses writes and serves reads.
	sec := memberClient(t, set.Members[f]).Database("app").Collection("orders")
	_, err := sec.InsertOne(ctx, bson.D{{Key: "_id", Value: "x"}})
	wantCommandError(t, err, 10107, "not primary")
	// The error names the member's topologyVersion, so the driver, which
	// already knows it from the member's hello, keeps the member as a
	// secondary (the count below selects it at once) instead of marking it
	// unknown until its next streamed hello.
	var ce mongo.CommandError
	if err := sec.Database().RunCommand(ctx, bson.D{{Key: "insert", Value: "orders"}, {Key: "documents", Value: bson.A{bson.D{{Key: "_id", Value: "y"}}}}}).Err(); !errors.As(err, &ce) {
		t.Fatalf("insert on a secondary: %v, want a command error", err)
	} else if _, lerr := ce.Raw.LookupErr("topologyVersion", "processId"); lerr != nil {
		t.Fatalf("NotWritablePrimary reply without topologyVersion: %v", ce.Raw)
	}
	waitCount(t, sec, 50)

	var st struct {
		Set     string `bson:"set"`
		Members []struct {
			StateStr string `bson:"stateStr"`
		} `bson:"members"`
	}
	if err := cl.Database("admin").RunCommand(ctx, bson.D{{Key: "replSetGetStatus", Value: 1}}).Decode(&st); err != nil {
		t.Fatal(err)
	}
	var states []string
	for _, m := range st.Members {
		states = append(states, m.StateStr)
	}
	slices.Sort(states)
	if st.Set != "rs0" || !slices.Equal(states, []string{"PRIMARY", "SECONDARY", "SECONDARY"}) {
		t.Fatalf("replSetGetStatus: set %v, states %v", st.Set, states)
	}

	// SIGKILL the primary: a new one takes writes within 5 s.
	set.Kill(p)
	killed := time.Now()
	for i := 50; ; i++ {
		_, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: i}, {Key: "n", Value: i}})
		if err == nil {
			break
		}
		if time.Since(killed) > 15*time.Second {
			t.Fatalf("no write acknowledged within 15 s of the kill: %v", err)
		}
	}
	failover := time.Since(killed)
	t.Logf("failover: first write acknowledged %v after SIGKILL of the primary", failover)
	if failover > 5*time.Second {
		t.Errorf("failover took %v, want within 5 s", failover)
	}
	np := waitPrimary(t, set, 10*time.Second)
	if np == p {
		t.Fatal("the killed member is primary")
	}
	// Every majority-acknowledged write survived.
	n, err := coll.CountDocuments(ctx, bson.D{{Key: "n", Value: bson.D{{Key: "$lt", Value: 50}}}})
	if err != nil || n != 50 {
		t.Fatalf("after failover %d of the 50 acknowledged documents (%v)", n, err)
	}
	// The killed member rejoins and catches up.
	set.Restart(p)
	total, err := coll.CountDocuments(ctx, bson.D{})
	if err != nil {
		t.Fatal(err)
	}
	waitCount(t, memberClient(t, set.Members[p]).Database("app").Collection("orders"), total)
}

// waitCount waits until coll, read on one member, holds want documents.
func waitCount(t *testing.T, coll *mongo.Collection, want int64) {
	t.Helper()
	eventually(t, 10*time.Second, fmt.Sprintf("the member holds %d documents", want), func() bool {
		n, err := coll.CountDocuments(t.Context(), bson.D{})
		return err == nil && n == want
	})
}

// Ensure that go-redis sees each member as Redis sees a master and its
// replicas: ROLE and INFO replication describe the set, writes on a
// replica get READONLY, WAIT counts the replicas that applied the write,
// and an expired key is deleted once, by the primary's sweeper, and is
// invisible everywhere.
func TestReplSetRedisMembers(t *testing.T) {
	set := harness.StartSet(t, "rs0", 3, "--manual-clock")
	p := waitPrimary(t, set, 20*time.Second)
	ctx := t.Context()
	clients := make([]*redis.Client, 3)
	for i, m := range set.Members {
		clients[i] = redis.NewClient(&redis.Options{Addr: m.RespAddr})
		t.Cleanup(func() { clients[i].Close() })
	}
	pc := clients[p]
	if err := pc.Set(ctx, "k", "v", 0).Err(); err != nil {
		t.Fatal(err)
	}
	if n, err := pc.Wait(ctx, 2, 5000).Result(); err != nil || n != 2 {
		t.Fatalf("WAIT 2 = %d, %v", n, err)
	}
	for i, c := range clients {
		info, err := c.Info(ctx, "replication").Result()
		if err != nil {
			t.Fatal(err)
		}
		if i == p {
			if !strings.Contains(info, "role:master") || !strings.Contains(info, "connected_slaves:2") {
				t.Fatalf("primary's INFO replication:\n%s", info)
			}
			continue
		}
		if !strings.Contains(info, "role:slave") || !strings.Contains(info, "master_link_status:up") ||
			!strings.Contains(info, "master_port:"+set.Members[p].RespAddr[strings.LastIndex(set.Members[p].RespAddr, ":")+1:]) {
			t.Fatalf("replica %d's INFO replication:\n%s", i, info)
		}
		err = c.Set(ctx, "k", "w", 0).Err()
		if err == nil || err.Error() != "READONLY You can't write against a read only replica." {
			t.Fatalf("SET on replica %d: %v", i, err)
		}
		if err := c.Do(ctx, "WAIT", 1, 0).Err(); err == nil || !strings.HasPrefix(err.Error(), "ERR WAIT cannot be used with replica instances") {
			t.Fatalf("WAIT on replica %d: %v", i, err)
		}
		if err := c.ReadOnly(ctx).Err(); err != nil {
			t.Fatalf("READONLY on replica %d: %v", i, err)
		}
		waitGet(t, c, "k", "v")
	}

	// A key with a TTL: the primary deletes it once; replicas apply the
	// deletion and never expire a key themselves.
	if err := pc.Set(ctx, "ttl", "x", 200*time.Millisecond).Err(); err != nil {
		t.Fatal(err)
	}
	if n, _ := pc.Wait(ctx, 2, 5000).Result(); n != 2 {
		t.Fatalf("WAIT after the TTL write = %d", n)
	}
	// Every member's clock passes the key's expiry; only the primary's
	// sweeper deletes it, and the deletion reaches the others.
	for _, m := range set.Members {
		m.Advance(t, time.Second)
	}
	eventually(t, 10*time.Second, "the expired key is gone from every member", func() bool {
		gone := 0
		for _, c := range clients {
			if n, err := c.DBSize(ctx).Result(); err == nil && n == 1 {
				gone++
			}
		}
		return gone == 3
	})
	for i, c := range clients {
		if err := c.Get(ctx, "ttl").Err(); !errors.Is(err, redis.Nil) {
			t.Fatalf("member %d GET ttl: %v", i, err)
		}
		expired := infoField(t, c, "stats", "expired_keys")
		if i == p && expired != "1" || i != p && expired != "0" {
			t.Fatalf("member %d (primary %d) expired_keys = %s", i, p, expired)
		}
	}
}

func waitGet(t *testing.T, c *redis.Client, key, want string) {
	t.Helper()
	eventually(t, 10*time.Second, fmt.Sprintf("GET %s = %q", key, want), func() bool {
		got, err := c.Get(t.Context(), key).Result()
		return err == nil && got == want
	})
}

func infoField(t *testing.T, c *redis.Client, section, field string) string {
	t.Helper()
	info, err := c.Info(t.Context(), section).Result()
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(info, "\r\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			return v
		}
	}
	t.Fatalf("INFO %s has no %s:\n%s", section, field, info)
	return ""
}

// Ensure that the set loses nothing acknowledged and ends identical on
// every member through rounds of faults: SIGKILL of the primary, SIGKILL
// of a follower, a member paused with SIGSTOP, and a member restarted on a
// wiped data directory. Writers on both protocols run through each round;
// after it every acknowledged write is on every member and the members'
// data and dbHash agree; at the end `mayfly check` finds every member's
// data directory sound.
func TestReplSetFaultRounds(t *testing.T) {
	began := time.Now()
	set := harness.StartSet(t, "rs0", 3)
	waitPrimary(t, set, 20*time.Second)
	cl := setClient(t, set)
	coll := cl.Database("app").Collection("events")
	ctx := t.Context()
	mcs := connectMembers(t, set)
	var acked []int     // documents acknowledged by a majority
	var ackedKeys []int // Redis keys followed by a successful WAIT 1
	next := 0
	write := func(d time.Duration) {
		end := time.Now().Add(d)
		for time.Now().Before(end) {
			ictx, cancel := context.WithTimeout(ctx, 2*time.Second)
			_, err := coll.InsertOne(ictx, bson.D{{Key: "_id", Value: next}})
			cancel()
			if err == nil {
				acked = append(acked, next)
			}
			p := -1
			for i, m := range set.Members {
				if m.Server != nil {
					rc := redis.NewClient(&redis.Options{Addr: m.RespAddr, MaxRetries: -1,
						DialTimeout: 200 * time.Millisecond, ReadTimeout: 200 * time.Millisecond})
					if r, err := rc.Do(ctx, "ROLE").Slice(); err == nil && r[0] == "master" {
						p = i
					}
					rc.Close()
				}
			}
			if p >= 0 {
				rc := redis.NewClient(&redis.Options{Addr: set.Members[p].RespAddr, MaxRetries: -1})
				if rc.Set(ctx, fmt.Sprintf("k%d", next), next, 0).Err() == nil {
					if n, err := rc.Wait(ctx, 1, 2000).Result(); err == nil && n >= 1 {
						ackedKeys = append(ackedKeys, next)
					}
				}
				rc.Close()
			}
			next++
		}
	}
	check := func(round string) {
		t.Helper()
		p := waitPrimary(t, set, 20*time.Second)
		// A majority write now makes every earlier entry committed.
		if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: fmt.Sprintf("barrier-%s", round)}}); err != nil {
			t.Fatalf("%s: barrier write: %v", round, err)
		}
		want := dumpMember(t, set.Members[p])
		for _, id := range acked {
			if !strings.Contains(want.docs, fmt.Sprintf("[%d]", id)) {
				t.Fatalf("%s: acknowledged document %d lost", round, id)
			}
		}
		for _, k := range ackedKeys {
			if !strings.Contains(want.keys, fmt.Sprintf("k%d=%d\n", k, k)) {
				t.Fatalf("%s: key k%d acknowledged by WAIT lost", round, k)
			}
		}
		for i, m := range set.Members {
			if m.Server == nil || i == p {
				continue
			}
			deadline := time.Now().Add(15 * time.Second)
			for {
				got := dumpMember(t, m)
				if got == want {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("%s: member %d differs from the primary %d:\n%d docs, %d keys vs %d docs, %d keys",
						round, i, p, strings.Count(got.docs, "\n"), strings.Count(got.keys, "\n"), strings.Count(want.docs, "\n"), strings.Count(want.keys, "\n"))
				}
				time.Sleep(50 * time.Millisecond)
			}
		}
		eventually(t, 15*time.Second, round+": every member's dbHash agrees", func() bool {
			_, ok := hashesAgree(t, set, mcs, "app")
			return ok
		})
		t.Logf("%s: %d documents and %d keys acknowledged, every member agrees (%v into the test)", round, len(acked), len(ackedKeys), time.Since(began).Round(time.Millisecond))
	}

	write(500 * time.Millisecond)
	check("start")

	p := waitPrimary(t, set, 10*time.Second)
	set.Kill(p)
	write(2 * time.Second)
	set.Restart(p)
	check("kill primary")

	p = waitPrimary(t, set, 10*time.Second)
	f := (p + 1) % 3
	set.Kill(f)
	write(time.Second)
	set.Restart(f)
	check("kill follower")

	p = waitPrimary(t, set, 10*time.Second)
	f = (p + 2) % 3
	if err := set.Pause(f); err != nil {
		t.Fatal(err)
	}
	write(time.Second)
	if err := set.Resume(f); err != nil {
		t.Fatal(err)
	}
	check("pause follower")

	p = waitPrimary(t, set, 10*time.Second)
	f = (p + 1) % 3
	set.Kill(f)
	set.Wipe(f)
	write(500 * time.Millisecond)
	set.Restart(f)
	check("wipe follower")
	cl.Disconnect(ctx)
	mcs.disconnect(-1)
	checkStopped(t, set)
}

type memberDump struct{ docs, keys string }

// dumpMember lists a member's documents of app.events and its Redis keys
// with their values, sorted.
func dumpMember(t *testing.T, m *harness.Member) memberDump {
	t.Helper()
	ctx := t.Context()
	mc, err := mongo.Connect(options.Client().ApplyURI("mongodb://" + m.MongoAddr + "/?directConnection=true").
		SetReadPreference(readpref.SecondaryPreferred()).SetTimeout(10 * time.Second))
	if err != nil {
		t.Fatal(err)
	}
	defer mc.Disconnect(context.Background())
	cur, err := mc.Database("app").Collection("events").Find(ctx, bson.D{}, options.Find().SetSort(bson.D{{Key: "_id", Value: 1}}))
	if err != nil {
		t.Fatal(err)
	}
	var docs []struct {
		ID any `bson:"_id"`
	}
	if err := cur.All(ctx, &docs); err != nil {
		t.Fatal(err)
	}
	var d strings.Builder
	for _, doc := range docs {
		fmt.Fprintf(&d, "[%v]\n", doc.ID)
	}
	rc := redis.NewClient(&redis.Options{Addr: m.RespAddr})
	defer rc.Close()
	keys, err := rc.Keys(ctx, "*").Result()
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(keys)
	var k strings.Builder
	for _, key := range keys {
		v, _ := rc.Get(ctx, key).Result()
		fmt.Fprintf(&k, "%s=%s\n", key, v)
	}
	return memberDump{d.String(), k.String()}
}

// Ensure that mongosh, given the set with replicaSet=rs0, writes through
// the primary and prints rs.status(), rs.conf() and db.hello() as a
// replica set's.
func TestReplSetMongosh(t *testing.T) {
	set := harness.StartSet(t, "rs0", 3)
	p := waitPrimary(t, set, 20*time.Second)
	bin := harness.Tool(t, "mongosh")
	ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
	defer cancel()
	uri := strings.Replace(set.MongoURI(), "/?", "/app?", 1)
	script := `db.c.insertOne({_id: 1});
const h = db.hello();
print("hello", h.setName, h.primary, h.isWritablePrimary, h.hosts.length);
const st = rs.status();
print("status", st.set, st.members.map(m => m.stateStr).sort().join(","));
print("conf", rs.conf()._id, rs.conf().members.length);
print("count", db.c.countDocuments({}));`
	cmd := exec.CommandContext(ctx, bin, uri, "--quiet", "--eval", script)
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir(), "NO_COLOR=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("mongosh: %v\n%s", err, out)
	}
	for _, want := range []string{
		"hello rs0 " + set.Members[p].MongoAddr + " true 3",
		"status rs0 PRIMARY,SECONDARY,SECONDARY",
		"conf rs0 3",
		"count 1",
	} {
		if !strings.Contains(string(out), want) {
			t.Fatalf("mongosh output lacks %q:\n%s", want, out)
		}
	}
}
