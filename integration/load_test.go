package integration_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/mayfly/mayfly/integration/harness"
)

// loadStats collects the latencies of one protocol's operations.
type loadStats struct {
	mu   sync.Mutex
	lat  []time.Duration
	errs atomic.Int64
	last atomic.Value // the last error, for the failure message
}

func (s *loadStats) observe(d time.Duration, err error) {
	if err != nil {
		s.errs.Add(1)
		s.last.Store(err.Error())
		return
	}
	s.mu.Lock()
	s.lat = append(s.lat, d)
	s.mu.Unlock()
}

func (s *loadStats) summary(elapsed time.Duration) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	slices.Sort(s.lat)
	q := func(p float64) time.Duration {
		if len(s.lat) == 0 {
			return 0
		}
		return s.lat[min(int(p*float64(len(s.lat))), len(s.lat)-1)]
	}
	return fmt.Sprintf("%d ops (%.0f/s), p50 %s, p99 %s, max %s, %d errors",
		len(s.lat), float64(len(s.lat))/elapsed.Seconds(), q(0.5), q(0.99), q(1), s.errs.Load())
}

// metricValue reads one unlabelled metric from /metrics.
func metricValue(t testing.TB, s *harness.Server, name string) float64 {
	t.Helper()
	for _, line := range strings.Split(scrapeMetrics(t, s), "\n") {
		if v, ok := strings.CutPrefix(line, name+" "); ok {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				t.Fatalf("metrics line %q", line)
			}
			return f
		}
	}
	t.Fatalf("/metrics has no %s", name)
	return 0
}

// Ensure that the server carries 200 concurrent clients on each protocol
// with mixed reads, writes and expiries: no errors, its goroutines return
// to their number before the load once the clients leave, and its memory
// stays bounded (the peak resident size is reported). The normal suite
// runs 5 s; MAYFLY_LOAD=1 runs 60 s.
func TestLoadBothProtocols(t *testing.T) {
	duration := 5 * time.Second
	if os.Getenv("MAYFLY_LOAD") == "1" {
		duration = 60 * time.Second
	}
	const clients = 200
	s := harness.Start(t)
	ctx := t.Context()

	setup := connectMongo(t, s)
	coll := setup.Database("load").Collection("sessions")
	if _, err := coll.Indexes().CreateMany(ctx, []mongo.IndexModel{
		{Keys: bson.D{{Key: "exp", Value: 1}}, Options: options.Index().SetExpireAfterSeconds(0)},
		{Keys: bson.D{{Key: "user", Value: 1}}},
	}); err != nil {
		t.Fatal(err)
	}
	baseGoroutines := metricValue(t, s, "go_goroutines")
	baseRSS := metricValue(t, s, "process_resident_memory_bytes")

	rc := redis.NewClient(&redis.Options{Addr: s.RespAddr, PoolSize: clients, MinIdleConns: clients,
		MaxRetries: -1, ReadTimeout: 30 * time.Second, WriteTimeout: 30 * time.Second, PoolTimeout: 30 * time.Second})
	mc, err := mongo.Connect(options.Client().ApplyURI("mongodb://" + s.MongoAddr + "/?directConnection=true").
		SetMaxPoolSize(clients).SetRetryWrites(false).SetTimeout(30 * time.Second))
	if err != nil {
		t.Fatal(err)
	}
	mcoll := mc.Database("load").Collection("sessions")

	var rstats, mstats loadStats
	var peakRSS atomic.Int64
	peakRSS.Store(int64(baseRSS))
	// The run ends by cancellation, not a deadline: the MongoDB driver fails
	// requests early when a context deadline is near, which would count as
	// errors of the server.
	runCtx, stop := context.WithCancel(ctx)
	defer stop()
	time.AfterFunc(duration, stop)
	var wg sync.WaitGroup
	wg.Go(func() {
		tick := time.NewTicker(250 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-runCtx.Done():
				return
			case <-tick.C:
				if v := int64(metricValue(t, s, "process_resident_memory_bytes")); v > peakRSS.Load() {
					peakRSS.Store(v)
				}
			}
		}
	})
	start := time.Now()
	for c := range clients {
		wg.Go(func() { loadRedisClient(runCtx, rc, c, &rstats) })
		wg.Go(func() { loadMongoClient(runCtx, mcoll, c, &mstats) })
	}
	wg.Wait()
	elapsed := time.Since(start)
	rc.Close()
	dctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	mc.Disconnect(dctx)
	cancel()

	t.Logf("RESP, %d clients, %s: %s", clients, elapsed.Round(time.Millisecond), rstats.summary(elapsed))
	t.Logf("MongoDB, %d clients, %s: %s", clients, elapsed.Round(time.Millisecond), mstats.summary(elapsed))
	t.Logf("resident memory: %d MiB before, peak %d MiB", int64(baseRSS)>>20, peakRSS.Load()>>20)
	for name, st := range map[string]*loadStats{"RESP": &rstats, "MongoDB": &mstats} {
		if n := st.errs.Load(); n > 0 {
			t.Errorf("%s: %d errors, the last: %v", name, n, st.last.Load())
		}
	}
	if peakRSS.Load() > 2<<30 {
		t.Errorf("peak resident memory %d MiB, over 2 GiB", peakRSS.Load()>>20)
	}
	var after float64
	eventually(t, 30*time.Second, "the server's goroutines return to their number before the load", func() bool {
		after = metricValue(t, s, "go_goroutines")
		return after <= baseGoroutines+5
	})
	t.Logf("server goroutines: %.0f before, %.0f after", baseGoroutines, after)
}

// loadRedisClient runs a mix of writes with and without TTLs (many expire
// during the run), reads, deletes and counters until ctx ends.
func loadRedisClient(ctx context.Context, rc *redis.Client, c int, st *loadStats) {
	rng := rand.New(rand.NewPCG(uint64(c), 7))
	for ctx.Err() == nil {
		key := fmt.Sprintf("load:%d:%d", c, rng.IntN(100))
		start := time.Now()
		var err error
		switch p := rng.IntN(10); {
		case p < 3:
			err = rc.Set(ctx, key, strconv.Itoa(rng.Int()), time.Duration(50+rng.IntN(2000))*time.Millisecond).Err()
		case p < 4:
			err = rc.Set(ctx, key, "v", 0).Err()
		case p < 7:
			err = rc.Get(ctx, key).Err()
			if errors.Is(err, redis.Nil) {
				err = nil
			}
		case p < 8:
			err = rc.Del(ctx, key).Err()
		case p < 9:
			err = rc.Incr(ctx, fmt.Sprintf("load:ctr:%d", c%10)).Err()
		default:
			err = rc.Expire(ctx, key, time.Duration(1+rng.IntN(3))*time.Second).Err()
		}
		if ctx.Err() != nil {
			return // the run ended during the request
		}
		st.observe(time.Since(start), err)
	}
}

// loadMongoClient runs inserts of expiring documents, point and index
// reads, updates and deletes until ctx ends.
func loadMongoClient(ctx context.Context, coll *mongo.Collection, c int, st *loadStats) {
	rng := rand.New(rand.NewPCG(uint64(c), 8))
	for seq := 0; ctx.Err() == nil; seq++ {
		id := fmt.Sprintf("%d:%d", c, rng.IntN(100))
		start := time.Now()
		var err error
		switch p := rng.IntN(10); {
		case p < 3:
			exp := time.Now().Add(time.Duration(50+rng.IntN(2000)) * time.Millisecond)
			_, err = coll.ReplaceOne(ctx, bson.D{{Key: "_id", Value: id}},
				bson.D{{Key: "user", Value: rng.IntN(500)}, {Key: "exp", Value: exp}, {Key: "n", Value: seq}},
				options.Replace().SetUpsert(true))
		case p < 6:
			err = coll.FindOne(ctx, bson.D{{Key: "_id", Value: id}}).Err()
			if errors.Is(err, mongo.ErrNoDocuments) {
				err = nil
			}
		case p < 8:
			var cur *mongo.Cursor
			cur, err = coll.Find(ctx, bson.D{{Key: "user", Value: rng.IntN(500)}}, options.Find().SetLimit(10))
			if err == nil {
				err = cur.All(ctx, &[]bson.Raw{})
			}
		case p < 9:
			_, err = coll.UpdateOne(ctx, bson.D{{Key: "_id", Value: id}}, bson.D{{Key: "$inc", Value: bson.D{{Key: "n", Value: 1}}}})
		default:
			_, err = coll.DeleteOne(ctx, bson.D{{Key: "_id", Value: id}})
		}
		if ctx.Err() != nil {
			return
		}
		st.observe(time.Since(start), err)
	}
}
