package integration_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/mayfly/mayfly/integration/harness"
)

// The crash test drives the real binary: writers on both protocols record
// every write the server acknowledged, the server is killed with SIGKILL at
// a random moment (sometimes during a mass expiry or an index build), the
// data directory is checked offline (`mayfly check`: the documents and
// their indexes, and the Redis keyspace, whose collections an unrecorded
// writer changes meanwhile), the server restarts on it, and what it serves
// is compared with the record.
//
// The record keeps, per key (Redis key or document _id), the states the
// writes acknowledged in order, and the write in flight when the server
// died, which may or may not have been applied. Each key belongs to one
// writer, whose writes are sequential, so the order is exact. Expiry times
// are kept as an interval: the server computes a TTL from its own clock
// somewhere between the send and the acknowledgement.

// crashState is what a key holds after a write.
type crashState struct {
	value        string    // "" when the write removed the key
	expLo, expHi time.Time // zero when it does not expire
}

// visibleAt reports whether the state may still be visible to a read that
// started at start: it must not be if it expired before the read began.
func (s crashState) mayBeVisible(start time.Time) bool {
	return s.value != "" && (s.expHi.IsZero() || s.expHi.Add(time.Millisecond).After(start))
}

// mayBeAbsent reports whether a read that ended at end may find nothing.
func (s crashState) mayBeAbsent(end time.Time) bool {
	return s.value == "" || (!s.expLo.IsZero() && !s.expLo.After(end.Add(time.Millisecond)))
}

type crashWrite struct {
	state crashState
	acked time.Time
}

type crashKey struct {
	acked   []crashWrite
	pending *crashState // the write in flight when the server died
}

// crashRecord is the record of one data directory.
type crashRecord struct {
	mu   sync.Mutex
	keys map[string]*crashKey // "r:" + Redis key or "m:" + collection/_id
}

func newCrashRecord() *crashRecord { return &crashRecord{keys: map[string]*crashKey{}} }

func (r *crashRecord) key(k string) *crashKey {
	r.mu.Lock()
	defer r.mu.Unlock()
	ck := r.keys[k]
	if ck == nil {
		ck = &crashKey{}
		r.keys[k] = ck
	}
	return ck
}

// begin notes a write about to be sent; done records its acknowledgement.
func (r *crashRecord) begin(k string, s crashState) *crashKey {
	ck := r.key(k)
	r.mu.Lock()
	ck.pending = &s
	r.mu.Unlock()
	return ck
}

func (r *crashRecord) done(ck *crashKey, s crashState) {
	r.mu.Lock()
	ck.acked = append(ck.acked, crashWrite{state: s, acked: time.Now()})
	ck.pending = nil
	r.mu.Unlock()
}

// crashLoss is an acknowledged write that did not survive.
type crashLoss struct {
	key string
	age time.Duration // from its acknowledgement to the kill
}

// settle compares what the restarted server returned for key k (value "",
// nothing) with the record, between a read that started at start and
// ended at end. It returns the acknowledged writes lost (those after the
// state found) and collapses the record to the state found. A value that
// no write produced, or an expired one, is an error.
func (r *crashRecord) settle(k, got string, start, end, killed time.Time) ([]crashLoss, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	ck := r.keys[k]
	cands := append([]crashWrite{{}}, ck.acked...) // index 0: never written
	if ck.pending != nil {
		cands = append(cands, crashWrite{state: *ck.pending, acked: killed})
	}
	match := -1
	for i := len(cands) - 1; i >= 0; i-- {
		s := cands[i].state
		if (got == "" && s.mayBeAbsent(end)) || (got != "" && got == s.value && s.mayBeVisible(start)) {
			match = i
			break
		}
	}
	if match < 0 {
		var last crashState
		if len(ck.acked) > 0 {
			last = ck.acked[len(ck.acked)-1].state
		}
		if got != "" {
			for _, c := range cands {
				if c.state.value == got {
					return nil, fmt.Errorf("%s: %q is visible although it expired at %s (read began %s)",
						k, got, c.state.expHi.Format(time.StampMilli), start.Format(time.StampMilli))
				}
			}
			return nil, fmt.Errorf("%s: %q was never written (last acknowledged %+v)", k, got, last)
		}
		return nil, fmt.Errorf("%s: missing, although no write removed it (last acknowledged %+v)", k, last)
	}
	var lost []crashLoss
	for _, w := range cands[match+1:] {
		if w.acked != killed { // the write in flight was never acknowledged
			lost = append(lost, crashLoss{key: k, age: killed.Sub(w.acked)})
		}
	}
	ck.acked = []crashWrite{cands[match]}
	if match == 0 {
		ck.acked = nil
	}
	ck.pending = nil
	return lost, nil
}

// crashConfig sizes a crash run.
type crashConfig struct {
	rounds     int
	durability string // "sync" or "group"
	writers    int    // per protocol
	keys       int    // per writer
	maxRun     time.Duration
}

// Ensure crash safety: under --durability=sync every acknowledged write
// survives a SIGKILL, nothing is deleted before it is due, everything that
// fell due (during the downtime too) is invisible at once after the
// restart and then deleted, and the secondary indexes agree with the
// documents (`mayfly check` on the stopped server). Under the default
// durability it measures which acknowledged writes a kill loses: only
// those of the last moments, which the group commit had not yet written.
// MAYFLY_CRASH_ROUNDS sets the number of sync rounds (default 20).
func TestCrashSafety(t *testing.T) {
	rounds := 20
	if v := os.Getenv("MAYFLY_CRASH_ROUNDS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			t.Fatalf("MAYFLY_CRASH_ROUNDS=%q", v)
		}
		rounds = n
	}
	t.Run("sync", func(t *testing.T) {
		runCrash(t, crashConfig{rounds: rounds, durability: "sync", writers: 3, keys: 30, maxRun: 1200 * time.Millisecond})
	})
	t.Run("group", func(t *testing.T) {
		runCrash(t, crashConfig{rounds: max(rounds/4, 3), durability: "group", writers: 3, keys: 30, maxRun: 1200 * time.Millisecond})
	})
}

// crashRun is the state of one crash run across its rounds.
type crashRun struct {
	t      *testing.T
	cfg    crashConfig
	dir    string
	rec    *crashRecord
	rng    *rand.Rand
	losses []crashLoss
	writes int // acknowledged writes
}

func runCrash(t *testing.T, cfg crashConfig) {
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	run := &crashRun{t: t, cfg: cfg, dir: t.TempDir(), rec: newCrashRecord(), rng: rand.New(rand.NewPCG(seed, 0))}
	args := []string{"--durability", cfg.durability}
	// Each round restarts the server on the directory the last kill left,
	// verifies it, writes again and kills it; the offline check runs on
	// every stopped directory.
	s := harness.StartDir(t, run.dir, args...)
	start := time.Now() // after the first start, which may build the binary
	run.setup(s)
	var killed time.Time
	for round := range cfg.rounds {
		began := time.Now()
		if round > 0 {
			run.verify(s, killed, round-1)
		}
		verified := time.Now()
		switch round % 5 {
		case 2:
			killed = run.writeAndKill(s, round, run.massExpiry)
		case 4:
			killed = run.writeAndKill(s, round, run.indexBuild)
		default:
			killed = run.writeAndKill(s, round, nil)
		}
		run.check()
		checked := time.Now()
		s = harness.StartDir(t, run.dir, args...)
		t.Logf("round %d: verify %s, write and kill %s, check %s, restart %s", round,
			verified.Sub(began).Round(time.Millisecond), killed.Sub(verified).Round(time.Millisecond),
			checked.Sub(killed).Round(time.Millisecond), time.Since(checked).Round(time.Millisecond))
	}
	run.verify(s, killed, cfg.rounds-1)
	// A last clean stop, and the offline check of what it left.
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	if err := s.Stop(ctx); err != nil {
		t.Fatalf("clean stop: %v", err)
	}
	run.check()

	var maxAge time.Duration
	for _, l := range run.losses {
		maxAge = max(maxAge, l.age)
	}
	t.Logf("%s: %d rounds in %s, %d acknowledged writes, %d lost, the oldest %s before the kill",
		cfg.durability, cfg.rounds, time.Since(start).Round(time.Millisecond), run.writes, len(run.losses), maxAge)
	if cfg.durability == "sync" && len(run.losses) > 0 {
		t.Fatalf("durability=sync lost %d acknowledged writes, e.g. %s acknowledged %s before the kill",
			len(run.losses), run.losses[0].key, run.losses[0].age)
	}
	// Group commit writes the log out at least every 100 ms; allow for a
	// loaded machine, but a loss older than that is a bug.
	if maxAge > 2*time.Second {
		t.Fatalf("durability=%s lost a write acknowledged %s before the kill", cfg.durability, maxAge)
	}
}

// crashClients connects both protocols with no retries, so that a write
// that fails is never silently re-sent.
func crashClients(t *testing.T, s *harness.Server) (*redis.Client, *mongo.Client) {
	rc := redis.NewClient(&redis.Options{Addr: s.RespAddr, MaxRetries: -1, PoolSize: 16,
		DialTimeout: 5 * time.Second, ReadTimeout: 10 * time.Second, WriteTimeout: 10 * time.Second})
	cl, err := mongo.Connect(options.Client().ApplyURI("mongodb://" + s.MongoAddr + "/?directConnection=true").
		SetRetryWrites(false).SetRetryReads(false).SetTimeout(10 * time.Second))
	if err != nil {
		t.Fatal(err)
	}
	return rc, cl
}

func closeClients(rc *redis.Client, cl *mongo.Client) {
	rc.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	cl.Disconnect(ctx)
}

// setup creates the indexes once: a TTL index on exp (absolute expiry
// times), an ordinary and a multikey index on the writers' collection.
func (run *crashRun) setup(s *harness.Server) {
	rc, cl := crashClients(run.t, s)
	defer closeClients(rc, cl)
	ctx := run.t.Context()
	for _, name := range []string{"items", "mass"} {
		_, err := cl.Database("crash").Collection(name).Indexes().CreateMany(ctx, []mongo.IndexModel{
			{Keys: bson.D{{Key: "exp", Value: 1}}, Options: options.Index().SetExpireAfterSeconds(0)},
			{Keys: bson.D{{Key: "g", Value: 1}}},
			{Keys: bson.D{{Key: "tags", Value: 1}}},
		})
		if err != nil {
			run.t.Fatal(err)
		}
	}
}

// writeAndKill runs the writers, and extra (a mass expiry or an index
// build) which returns the moment to kill; without it the kill comes at a
// random moment. It returns the time of the kill.
func (run *crashRun) writeAndKill(s *harness.Server, round int, extra func(*harness.Server, *redis.Client, *mongo.Client, int) time.Time) time.Time {
	rc, cl := crashClients(run.t, s)
	defer closeClients(rc, cl)
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	var wg sync.WaitGroup
	var mu sync.Mutex
	for w := range run.cfg.writers {
		seed := run.rng.Uint64()
		wg.Go(func() {
			n := run.redisWriter(ctx, rc, round, w, rand.New(rand.NewPCG(seed, 1)))
			mu.Lock()
			run.writes += n
			mu.Unlock()
		})
		seed = run.rng.Uint64()
		wg.Go(func() {
			n := run.mongoWriter(ctx, cl, round, w, rand.New(rand.NewPCG(seed, 2)))
			mu.Lock()
			run.writes += n
			mu.Unlock()
		})
	}
	seed := run.rng.Uint64()
	wg.Go(func() { collectionWriter(ctx, rc, rand.New(rand.NewPCG(seed, 3))) })
	killAt := time.Now().Add(time.Duration(run.rng.Int64N(int64(run.cfg.maxRun-100*time.Millisecond))) + 100*time.Millisecond)
	if extra != nil {
		killAt = extra(s, rc, cl, round)
	}
	time.Sleep(time.Until(killAt))
	s.Kill()
	killed := time.Now()
	stop()
	wg.Wait()
	return killed
}

func (run *crashRun) redisWriter(ctx context.Context, rc *redis.Client, round, w int, rng *rand.Rand) int {
	n := 0
	for seq := 0; ctx.Err() == nil; seq++ {
		key := fmt.Sprintf("crash:%d:%d", w, rng.IntN(run.cfg.keys))
		value := fmt.Sprintf("r%d.%d.%d", round, w, seq)
		var err error
		var s crashState
		var ck *crashKey
		sent := time.Now()
		switch p := rng.IntN(10); {
		case p < 5:
			s = crashState{value: value}
			ck = run.rec.begin("r:"+key, s)
			err = rc.Set(ctx, key, value, 0).Err()
		case p < 8:
			ttl := time.Duration(300+rng.IntN(2700)) * time.Millisecond
			s = crashState{value: value, expLo: sent.Add(ttl)}
			pend := s
			pend.expHi = sent.Add(ttl + 5*time.Second) // the server's clock at receipt is not known
			ck = run.rec.begin("r:"+key, pend)
			err = rc.Set(ctx, key, value, ttl).Err()
			s.expHi = time.Now().Add(ttl)
		default:
			ck = run.rec.begin("r:"+key, s)
			err = rc.Del(ctx, key).Err()
		}
		if err != nil {
			return n // the server is gone; the write stays in flight
		}
		run.rec.done(ck, s)
		n++
	}
	return n
}

func (run *crashRun) mongoWriter(ctx context.Context, cl *mongo.Client, round, w int, rng *rand.Rand) int {
	coll := cl.Database("crash").Collection("items")
	n := 0
	for seq := 0; ctx.Err() == nil; seq++ {
		id := fmt.Sprintf("%d:%d", w, rng.IntN(run.cfg.keys))
		value := fmt.Sprintf("m%d.%d.%d", round, w, seq)
		g := rng.IntN(50)
		doc := bson.D{{Key: "_id", Value: id}, {Key: "v", Value: value}, {Key: "g", Value: g},
			{Key: "tags", Value: bson.A{g % 3, g % 5, "t" + strconv.Itoa(g%7)}}}
		var s crashState
		var err error
		var ck *crashKey
		switch p := rng.IntN(10); {
		case p < 4:
			s = crashState{value: value}
			ck = run.rec.begin("m:items/"+id, s)
			_, err = coll.ReplaceOne(ctx, bson.D{{Key: "_id", Value: id}}, doc, options.Replace().SetUpsert(true))
		case p < 7:
			exp := time.Now().Add(time.Duration(300+rng.IntN(2700)) * time.Millisecond).Truncate(time.Millisecond)
			s = crashState{value: value, expLo: exp, expHi: exp}
			ck = run.rec.begin("m:items/"+id, s)
			_, err = coll.ReplaceOne(ctx, bson.D{{Key: "_id", Value: id}}, append(doc, bson.E{Key: "exp", Value: exp}), options.Replace().SetUpsert(true))
		case p < 9:
			ck = run.rec.begin("m:items/"+id, s)
			_, err = coll.DeleteOne(ctx, bson.D{{Key: "_id", Value: id}})
		default:
			// Moves index entries without changing what the record checks.
			_, err = coll.UpdateOne(ctx, bson.D{{Key: "_id", Value: id}}, bson.D{{Key: "$set", Value: bson.D{{Key: "g", Value: g}}}})
			if err != nil {
				return n
			}
			n++
			continue
		}
		if err != nil {
			return n
		}
		run.rec.done(ck, s)
		n++
	}
	return n
}

// collectionWriter changes lists, sets, hashes (with expiring fields) and
// sorted sets, and deletes, expires and renames them, until ctx ends or
// the server is gone. It records nothing: what a kill leaves of these keys
// is judged by the offline check alone (element counts, list bounds, score
// and field expiry indexes, the expiry index, garbage of old versions),
// which runs on the Redis keyspace as well as the documents.
func collectionWriter(ctx context.Context, rc *redis.Client, rng *rand.Rand) {
	for seq := 0; ctx.Err() == nil; seq++ {
		i := rng.IntN(12)
		list, set, hash, zset := fmt.Sprintf("cl:%d", i), fmt.Sprintf("cs:%d", i), fmt.Sprintf("ch:%d", i), fmt.Sprintf("cz:%d", i)
		elems := []any{fmt.Sprint("e", rng.IntN(8)), fmt.Sprint("e", rng.IntN(8)), fmt.Sprint("e", rng.IntN(8))}
		ttl := time.Duration(200+rng.IntN(2800)) * time.Millisecond
		var err error
		switch rng.IntN(14) {
		case 0:
			err = rc.RPush(ctx, list, elems...).Err()
		case 1:
			err = rc.LPush(ctx, list, elems...).Err()
		case 2:
			err = rc.LPopCount(ctx, list, 2).Err()
		case 3:
			err = rc.LTrim(ctx, list, 1, -2).Err()
		case 4:
			err = rc.SAdd(ctx, set, elems...).Err()
		case 5:
			err = rc.SRem(ctx, set, elems...).Err()
		case 6:
			err = rc.HSet(ctx, hash, elems[0], seq, elems[1], seq, elems[2], seq).Err()
		case 7:
			err = rc.HPExpire(ctx, hash, ttl, elems[0].(string), elems[1].(string)).Err()
		case 8:
			err = rc.HDel(ctx, hash, elems[2].(string)).Err()
		case 9:
			err = rc.ZAdd(ctx, zset, redis.Z{Score: float64(rng.IntN(5)), Member: elems[0]}, redis.Z{Score: float64(-rng.IntN(5)), Member: elems[1]}).Err()
		case 10:
			err = rc.ZRem(ctx, zset, elems[2]).Err()
		case 11:
			err = rc.PExpire(ctx, []string{list, set, hash, zset}[rng.IntN(4)], ttl).Err()
		case 12:
			err = rc.Del(ctx, []string{list, set, hash, zset}[rng.IntN(4)]).Err()
		default:
			err = rc.Rename(ctx, hash, fmt.Sprintf("ch:%d", rng.IntN(12))).Err()
		}
		var reply redis.Error
		if err != nil && !errors.As(err, &reply) {
			return // the server is gone
		}
	}
}

// massExpiry writes thousands of keys and documents that all fall due at
// the same moment and returns a kill time while the sweeper deletes them.
func (run *crashRun) massExpiry(s *harness.Server, rc *redis.Client, cl *mongo.Client, round int) time.Time {
	ctx := run.t.Context()
	const keys, docs = 3000, 2000
	sent := time.Now()
	due := sent.Add(1500 * time.Millisecond).Truncate(time.Millisecond)
	ttl := due.Sub(sent)
	pipe := rc.Pipeline()
	for i := range keys {
		pipe.Set(ctx, fmt.Sprintf("mass:%d:%d", round, i), "x", ttl)
	}
	if _, err := pipe.Exec(ctx); err != nil {
		run.t.Fatalf("mass expiry: %v", err)
	}
	acked := time.Now()
	for i := range keys {
		k := fmt.Sprintf("mass:%d:%d", round, i)
		run.rec.done(run.rec.begin("r:"+k, crashState{}), crashState{value: "x", expLo: due, expHi: acked.Add(ttl)})
	}
	batch := make([]any, docs)
	for i := range docs {
		batch[i] = bson.D{{Key: "_id", Value: fmt.Sprintf("%d:%d", round, i)}, {Key: "v", Value: "x"}, {Key: "g", Value: i % 50}, {Key: "exp", Value: due}}
	}
	if _, err := cl.Database("crash").Collection("mass").InsertMany(ctx, batch); err != nil {
		run.t.Fatalf("mass expiry: %v", err)
	}
	for i := range docs {
		k := fmt.Sprintf("m:mass/%d:%d", round, i)
		run.rec.done(run.rec.begin(k, crashState{}), crashState{value: "x", expLo: due, expHi: due})
	}
	return due.Add(time.Duration(run.rng.Int64N(int64(400 * time.Millisecond))))
}

// indexBuild loads a collection once, then drops and rebuilds an index on
// it, returning a kill time during the build.
func (run *crashRun) indexBuild(s *harness.Server, rc *redis.Client, cl *mongo.Client, round int) time.Time {
	ctx := run.t.Context()
	coll := cl.Database("crash").Collection("build")
	if n, err := coll.EstimatedDocumentCount(ctx); err != nil {
		run.t.Fatal(err)
	} else if n == 0 {
		batch := make([]any, 0, 1000)
		for i := range 20000 {
			batch = append(batch, bson.D{{Key: "_id", Value: i}, {Key: "a", Value: i % 100}, {Key: "b", Value: bson.A{i, -i}}})
			if len(batch) == cap(batch) {
				if _, err := coll.InsertMany(ctx, batch); err != nil {
					run.t.Fatal(err)
				}
				batch = batch[:0]
			}
		}
	}
	_ = coll.Indexes().DropOne(ctx, "b_1_a_1") // absent after a kill mid-build
	started := time.Now()
	go func() {
		_, _ = coll.Indexes().CreateOne(context.Background(), mongo.IndexModel{Keys: bson.D{{Key: "b", Value: 1}, {Key: "a", Value: 1}}})
	}()
	return started.Add(time.Duration(run.rng.Int64N(int64(300 * time.Millisecond))))
}

// check runs `mayfly check` on the stopped server's data directory. What
// it logs (such as the removal of an index build the kill interrupted) is
// not a verdict: only its exit status and "ok" are.
func (run *crashRun) check() {
	cmd := exec.Command(harness.Binary(run.t), "check", "--dir", run.dir)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil || strings.TrimSpace(string(out)) != "ok" {
		run.t.Fatalf("mayfly check: %v\n%s%s", err, out, stderr.String())
	}
	if log := strings.TrimSpace(stderr.String()); log != "" {
		run.t.Logf("mayfly check: %s", log)
	}
}

// verify reads every recorded key from the restarted server at once, then
// waits until everything that was due at the restart has been deleted.
func (run *crashRun) verify(s *harness.Server, killed time.Time, round int) {
	t := run.t
	restarted := time.Now()
	rc, cl := crashClients(t, s)
	defer closeClients(rc, cl)
	ctx := t.Context()

	run.rec.mu.Lock()
	var rkeys []string
	mcolls := map[string]bool{}
	for k := range run.rec.keys {
		if rk, ok := strings.CutPrefix(k, "r:"); ok {
			rkeys = append(rkeys, rk)
		} else {
			coll, _, _ := strings.Cut(strings.TrimPrefix(k, "m:"), "/")
			mcolls[coll] = true
		}
	}
	run.rec.mu.Unlock()
	slices.Sort(rkeys)

	start := time.Now()
	got := map[string]string{}
	for i := 0; i < len(rkeys); i += 500 {
		part := rkeys[i:min(i+500, len(rkeys))]
		vals, err := rc.MGet(ctx, part...).Result()
		if err != nil {
			t.Fatalf("round %d: MGET: %v", round, err)
		}
		for j, v := range vals {
			if v != nil {
				got["r:"+part[j]] = v.(string)
			}
		}
	}
	for coll := range mcolls {
		cur, err := cl.Database("crash").Collection(coll).Find(ctx, bson.D{})
		if err != nil {
			t.Fatalf("round %d: find: %v", round, err)
		}
		var docs []struct {
			ID string `bson:"_id"`
			V  string `bson:"v"`
		}
		if err := cur.All(ctx, &docs); err != nil {
			t.Fatalf("round %d: find: %v", round, err)
		}
		for _, d := range docs {
			got["m:"+coll+"/"+d.ID] = d.V
		}
	}
	phantoms, err := rc.Keys(ctx, "crash:*").Result()
	if err != nil {
		t.Fatal(err)
	}
	end := time.Now()

	run.rec.mu.Lock()
	all := make([]string, 0, len(run.rec.keys))
	for k := range run.rec.keys {
		all = append(all, k)
	}
	run.rec.mu.Unlock()
	for k := range got {
		if _, ok := run.rec.keys[k]; !ok {
			t.Fatalf("round %d: %s = %q was never written", round, k, got[k])
		}
	}
	for _, k := range phantoms {
		if _, ok := run.rec.keys["r:"+k]; !ok {
			t.Fatalf("round %d: KEYS returns %s, which was never written", round, k)
		}
	}
	for _, k := range all {
		lost, err := run.rec.settle(k, got[k], start, end, killed)
		if err != nil {
			t.Fatalf("round %d (%s): %v", round, run.cfg.durability, err)
		}
		run.losses = append(run.losses, lost...)
	}

	// Then deleted: every source's earliest item is due after the restart.
	eventually(t, 30*time.Second, fmt.Sprintf("round %d: everything due at the restart is deleted", round), func() bool {
		return earliestDue(t, s).After(restarted)
	})
}

// earliestDue returns the earliest due time over the expiry sources, from
// /metrics; the far future when nothing is pending.
func earliestDue(t *testing.T, s *harness.Server) time.Time {
	body := scrapeMetrics(t, s)
	earliest := time.Unix(1<<40, 0)
	for _, line := range strings.Split(body, "\n") {
		if !strings.HasPrefix(line, "mayfly_expiry_source_next_due_timestamp_seconds{") {
			continue
		}
		f := strings.Fields(line)
		v, err := strconv.ParseFloat(f[len(f)-1], 64)
		if err != nil {
			t.Fatalf("metrics line %q", line)
		}
		if due := time.UnixMilli(int64(v * 1000)); due.Before(earliest) {
			earliest = due
		}
	}
	return earliest
}

// scrapeMetrics returns the text of /metrics.
func scrapeMetrics(t testing.TB, s *harness.Server) string {
	t.Helper()
	resp, err := metricsClient.Get("http://" + s.HTTPAddr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

var metricsClient = &http.Client{Timeout: 10 * time.Second}
