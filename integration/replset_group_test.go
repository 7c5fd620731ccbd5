package integration_test

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/mayfly/mayfly/integration/harness"
)

// Ensure that concurrent single-document writes into one collection of a
// replica set, which the primary commits in groups, keep a unique index
// exact and lose no update: of several clients inserting the same email
// exactly one is acknowledged and the others get E11000, concurrent $inc
// of one document add up, and every acknowledged insert is on every
// member.
func TestReplSetConcurrentUniqueInserts(t *testing.T) {
	set := harness.StartSet(t, "rs0", 3)
	waitPrimary(t, set, 20*time.Second)
	ctx := t.Context()
	coll := setClient(t, set).Database("app").Collection("users")
	if _, err := coll.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: "email", Value: 1}},
		Options: options.Index().SetUnique(true)}); err != nil {
		t.Fatal(err)
	}
	if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: "counter"}, {Key: "email", Value: "counter"}, {Key: "n", Value: 0}}); err != nil {
		t.Fatal(err)
	}

	const (
		clients = 16
		perEach = 30
		emails  = 120 // each email is tried by clients*perEach/emails = 4 clients
	)
	var mu sync.Mutex
	acked := map[string][]string{} // email -> _ids acknowledged
	dups, incs := 0, 0
	var wg sync.WaitGroup
	errs := make(chan error, clients)
	for c := 0; c < clients; c++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < perEach; i++ {
				email := fmt.Sprintf("u%d@example.com", (c*perEach+i)%emails)
				id := fmt.Sprintf("c%d-%d", c, i)
				_, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: id}, {Key: "email", Value: email}})
				var we mongo.WriteException
				switch {
				case err == nil:
					mu.Lock()
					acked[email] = append(acked[email], id)
					mu.Unlock()
				case errors.As(err, &we) && we.HasErrorCode(11000):
					mu.Lock()
					dups++
					mu.Unlock()
				default:
					errs <- fmt.Errorf("insert %s: %w", id, err)
					return
				}
				if _, err := coll.UpdateOne(ctx, bson.D{{Key: "_id", Value: "counter"}},
					bson.D{{Key: "$inc", Value: bson.D{{Key: "n", Value: 1}}}}); err != nil {
					errs <- fmt.Errorf("update by client %d: %w", c, err)
					return
				}
				mu.Lock()
				incs++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	var want []string
	for e := 0; e < emails; e++ {
		ids := acked[fmt.Sprintf("u%d@example.com", e)]
		if len(ids) != 1 {
			t.Fatalf("email u%d@example.com: %d acknowledged inserts %v, want exactly 1", e, len(ids), ids)
		}
		want = append(want, ids[0])
	}
	if dups != clients*perEach-emails {
		t.Fatalf("%d duplicate key errors, want %d", dups, clients*perEach-emails)
	}
	want = append(want, "counter")
	slices.Sort(want)

	for j, m := range set.Members {
		mc := memberClient(t, m).Database("app").Collection("users")
		var got []string
		n := -1
		eventually(t, 10*time.Second, fmt.Sprintf("member %d holds the acknowledged writes", j), func() bool {
			got, n = nil, -1
			cur, err := mc.Find(ctx, bson.D{})
			if err != nil {
				return false
			}
			var docs []struct {
				ID string `bson:"_id"`
				N  int    `bson:"n"`
			}
			if err := cur.All(ctx, &docs); err != nil {
				return false
			}
			for _, d := range docs {
				got = append(got, d.ID)
				if d.ID == "counter" {
					n = d.N
				}
			}
			slices.Sort(got)
			return slices.Equal(got, want) && n == incs
		})
	}
}

// Ensure that concurrent findOneAndUpdate claims of a job queue on a
// replica set, which the primary commits in groups, hand each job to
// exactly one client and return that client's own update, and that every
// member ends holding each job as its claimer left it.
func TestReplSetConcurrentJobClaims(t *testing.T) {
	set := harness.StartSet(t, "rs0", 3)
	waitPrimary(t, set, 20*time.Second)
	ctx := t.Context()
	coll := setClient(t, set).Database("app").Collection("jobs")
	const jobs, clients = 100, 16
	docs := make([]any, jobs)
	for i := range docs {
		docs[i] = bson.D{{Key: "_id", Value: i}, {Key: "state", Value: "ready"}}
	}
	if _, err := coll.InsertMany(ctx, docs); err != nil {
		t.Fatal(err)
	}

	claimedBy := make([]int, jobs)
	var mu sync.Mutex
	var wg sync.WaitGroup
	errs := make(chan error, clients)
	for c := 1; c <= clients; c++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				var job struct {
					ID    int    `bson:"_id"`
					State string `bson:"state"`
					By    int    `bson:"by"`
				}
				err := coll.FindOneAndUpdate(ctx, bson.D{{Key: "state", Value: "ready"}},
					bson.D{{Key: "$set", Value: bson.D{{Key: "state", Value: "taken"}, {Key: "by", Value: c}}}},
					options.FindOneAndUpdate().SetSort(bson.D{{Key: "_id", Value: 1}}).SetReturnDocument(options.After)).Decode(&job)
				if errors.Is(err, mongo.ErrNoDocuments) {
					return
				}
				if err != nil {
					errs <- fmt.Errorf("claim by client %d: %w", c, err)
					return
				}
				if job.State != "taken" || job.By != c {
					errs <- fmt.Errorf("client %d's claim returned %+v, not its own update", c, job)
					return
				}
				mu.Lock()
				if prev := claimedBy[job.ID]; prev != 0 {
					errs <- fmt.Errorf("job %d claimed by client %d and by client %d", job.ID, prev, c)
				}
				claimedBy[job.ID] = c
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	for id, by := range claimedBy {
		if by == 0 {
			t.Fatalf("job %d was never claimed", id)
		}
	}

	for j, m := range set.Members {
		mc := memberClient(t, m).Database("app").Collection("jobs")
		eventually(t, 10*time.Second, fmt.Sprintf("member %d holds every claim", j), func() bool {
			cur, err := mc.Find(ctx, bson.D{}, options.Find().SetSort(bson.D{{Key: "_id", Value: 1}}))
			if err != nil {
				return false
			}
			var got []struct {
				ID    int    `bson:"_id"`
				State string `bson:"state"`
				By    int    `bson:"by"`
			}
			if err := cur.All(ctx, &got); err != nil || len(got) != jobs {
				return false
			}
			for _, d := range got {
				if d.State != "taken" || d.By != claimedBy[d.ID] {
					return false
				}
			}
			return true
		})
	}
}

// Ensure that concurrent writes to the elements of a few Redis collections
// on a replica set, whose reads the primary serves ahead of the proposals
// in flight where no proposal wrote the same collection, lose nothing:
// HINCRBY and ZINCRBY of shared fields add up, SADD's replies count the
// set's members, RPUSH's replies are the lengths one after another, and
// every member holds the same collections once WAIT says they applied them.
func TestReplSetConcurrentCollectionWrites(t *testing.T) {
	set := harness.StartSet(t, "rs0", 3)
	p := waitPrimary(t, set, 20*time.Second)
	ctx := t.Context()
	pc := redis.NewClient(&redis.Options{Addr: set.Members[p].RespAddr, PoolSize: 16})
	t.Cleanup(func() { pc.Close() })

	const (
		clients = 16
		perEach = 40
		keys    = 4 // each collection is written by every client
	)
	var mu sync.Mutex
	added := map[string]int64{}
	lengths := map[string][]int64{}
	var wg sync.WaitGroup
	errs := make(chan error, clients)
	for c := 0; c < clients; c++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < perEach; i++ {
				k := strconv.Itoa((c + i) % keys)
				if err := pc.HIncrBy(ctx, "h:"+k, "f"+strconv.Itoa(i%3), 1).Err(); err != nil {
					errs <- fmt.Errorf("HINCRBY: %w", err)
					return
				}
				if err := pc.ZIncrBy(ctx, "z:"+k, 1, "m"+strconv.Itoa(i%3)).Err(); err != nil {
					errs <- fmt.Errorf("ZINCRBY: %w", err)
					return
				}
				n, err := pc.SAdd(ctx, "s:"+k, "m"+strconv.Itoa((c*perEach+i)%50)).Result()
				if err != nil {
					errs <- fmt.Errorf("SADD: %w", err)
					return
				}
				l, err := pc.RPush(ctx, "l:"+k, c).Result()
				if err != nil {
					errs <- fmt.Errorf("RPUSH: %w", err)
					return
				}
				mu.Lock()
				added["s:"+k] += n
				lengths["l:"+k] = append(lengths["l:"+k], l)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if n, err := pc.Wait(ctx, 2, 10000).Result(); err != nil || n != 2 {
		t.Fatalf("WAIT 2 = %d, %v", n, err)
	}
	for key, ls := range lengths {
		slices.Sort(ls)
		for i, l := range ls {
			if l != int64(i+1) {
				t.Fatalf("RPUSH %s replied lengths %v, want 1 to %d once each", key, ls, len(ls))
			}
		}
	}

	for i, m := range set.Members {
		c := redis.NewClient(&redis.Options{Addr: m.RespAddr})
		defer c.Close()
		var hsum, zsum float64
		var llen int64
		for k := 0; k < keys; k++ {
			key := strconv.Itoa(k)
			h, err := c.HGetAll(ctx, "h:"+key).Result()
			if err != nil {
				t.Fatal(err)
			}
			for _, v := range h {
				n, _ := strconv.ParseFloat(v, 64)
				hsum += n
			}
			z, err := c.ZRangeWithScores(ctx, "z:"+key, 0, -1).Result()
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range z {
				zsum += e.Score
			}
			if n, err := c.SCard(ctx, "s:"+key).Result(); err != nil || n != added["s:"+key] {
				t.Fatalf("member %d: SCARD s:%s = %d, %v; SADD added %d", i, key, n, err, added["s:"+key])
			}
			n, err := c.LLen(ctx, "l:"+key).Result()
			if err != nil {
				t.Fatal(err)
			}
			llen += n
		}
		if want := float64(clients * perEach); hsum != want || zsum != want || llen != clients*perEach {
			t.Fatalf("member %d: HINCRBY sum %v, ZINCRBY sum %v, list lengths %d; want %v each", i, hsum, zsum, llen, want)
		}
	}
}
