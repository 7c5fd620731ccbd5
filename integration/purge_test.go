package integration_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/mayfly/mayfly/integration/harness"
)

// connectMongo connects the Go driver to s; the client is closed when the
// test ends.
func connectMongo(t testing.TB, s *harness.Server) *mongo.Client {
	t.Helper()
	cl, err := mongo.Connect(options.Client().ApplyURI("mongodb://" + s.MongoAddr + "/?directConnection=true").
		SetTimeout(30 * time.Second))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cl.Disconnect(context.Background()) })
	return cl
}

// connectRedis connects go-redis to s; the client is closed when the test
// ends.
func connectRedis(t testing.TB, s *harness.Server) *redis.Client {
	t.Helper()
	rc := redis.NewClient(&redis.Options{Addr: s.RespAddr, MaxRetries: -1})
	t.Cleanup(func() { rc.Close() })
	return rc
}

// markerValue returns 48 random bytes and the 32 in their middle that the
// grep looks for. Random bytes do not compress, so a compressed sstable
// block holds the middle verbatim; the ends are padding, because a
// compressor may fold a value's first or last bytes into a copy of the
// framing around it.
func markerValue(t testing.TB) (value, core []byte) {
	t.Helper()
	v := make([]byte, 48)
	if _, err := rand.Read(v); err != nil {
		t.Fatal(err)
	}
	return v, v[8:40]
}

// filesWith returns the files under dir (relative paths) that contain m,
// reading every file byte-wise.
func filesWith(t testing.TB, dir string, m []byte) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if os.IsNotExist(err) {
				return nil // removed while we walked
			}
			return err
		}
		if d.IsDir() {
			return nil
		}
		b, err := os.ReadFile(path)
		if os.IsNotExist(err) {
			return nil
		}
		if err != nil {
			return err
		}
		if containsAcrossChunks(b, m) {
			rel, _ := filepath.Rel(dir, path)
			out = append(out, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// serverStatusPath reads one numeric field of serverStatus by its dotted
// path.
func serverStatusPath(t testing.TB, cl *mongo.Client, path string) int64 {
	t.Helper()
	raw, err := cl.Database("admin").RunCommand(context.Background(), bson.D{{Key: "serverStatus", Value: 1}}).Raw()
	if err != nil {
		t.Fatal(err)
	}
	v, err := raw.LookupErr(strings.Split(path, ".")...)
	if err != nil {
		t.Fatalf("serverStatus has no %s: %v", path, err)
	}
	n, ok := v.AsInt64OK()
	if !ok {
		t.Fatalf("serverStatus %s = %v, not a number", path, v)
	}
	return n
}

// redisInfoField reads one numeric field of INFO.
func redisInfoField(t testing.TB, rc *redis.Client, section, field string) int64 {
	t.Helper()
	info, err := rc.Info(context.Background(), section).Result()
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(info, "\r\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				t.Fatalf("INFO %s = %q", field, v)
			}
			return n
		}
	}
	t.Fatalf("INFO %s has no %s", section, field)
	return 0
}

// Pebble's write-ahead log cuts records into 32 KiB blocks, each piece
// after a chunk header of 7, 11 or 19 bytes (and a block ends with up to 6
// bytes of padding), so a value written across a block's end is two pieces
// with up to maxChunkGap bytes between them.
const maxChunkGap = 6 + 19

// containsAcrossChunks reports whether b holds m whole, or cut in two with
// at most maxChunkGap bytes between its pieces as the write-ahead log cuts
// a value at a block's end.
func containsAcrossChunks(b, m []byte) bool {
	if bytes.Contains(b, m) {
		return true
	}
	for k := 1; k < len(m); k++ {
		head, tail := m[:k], m[k:]
		if len(head) >= len(tail) {
			for i := 0; ; {
				j := bytes.Index(b[i:], head)
				if j < 0 {
					break
				}
				end := i + j + len(head)
				for gap := 1; gap <= maxChunkGap && end+gap+len(tail) <= len(b); gap++ {
					if bytes.Equal(b[end+gap:end+gap+len(tail)], tail) {
						return true
					}
				}
				i += j + 1
			}
			continue
		}
		for i := 0; ; {
			j := bytes.Index(b[i:], tail)
			if j < 0 {
				break
			}
			start := i + j
			for gap := 1; gap <= maxChunkGap && start-gap-len(head) >= 0; gap++ {
				if bytes.Equal(b[start-gap-len(head):start-gap], head) {
					return true
				}
			}
			i += j + 1
		}
	}
	return false
}

// Ensure the physical purge bound: values written through both protocols
// that expire or are deleted by a user leave every file of the data
// directory (write-ahead logs, sstables, everything) once the bound has
// passed on the server's clock, while the values still live stay on disk.
func TestPurgeErasesDeletedBytesFromEveryFile(t *testing.T) {
	testPurgeErasesDeletedBytes(t, "--change-streams=false")
}

// The same with the change log on: it keeps no copy of a deleted
// document's bytes past the bound either.
func TestPurgeErasesDeletedBytesFromEveryFileWithChangeStreams(t *testing.T) {
	testPurgeErasesDeletedBytes(t, "--change-streams")
}

func testPurgeErasesDeletedBytes(t *testing.T, changeStreams string) {
	const bound = 4 * time.Second
	s := harness.Start(t, "--manual-clock", "--purge-after", bound.String(), changeStreams)
	ctx := t.Context()
	rc := connectRedis(t, s)
	cl := connectMongo(t, s)
	coll := cl.Database("purge").Collection("sessions")
	if _, err := coll.Indexes().CreateOne(ctx, mongo.IndexModel{
		Keys:    bson.D{{Key: "at", Value: 1}},
		Options: options.Index().SetExpireAfterSeconds(1),
	}); err != nil {
		t.Fatal(err)
	}

	// A time-series collection and a clustered collection, whose expired
	// buckets and documents go as range deletions.
	if err := cl.Database("purge").RunCommand(ctx, bson.D{{Key: "create", Value: "metrics"},
		{Key: "timeseries", Value: bson.D{{Key: "timeField", Value: "t"}}}, {Key: "expireAfterSeconds", Value: 1}}).Err(); err != nil {
		t.Fatal(err)
	}
	if err := cl.Database("purge").RunCommand(ctx, bson.D{{Key: "create", Value: "events"},
		{Key: "clusteredIndex", Value: bson.D{{Key: "key", Value: bson.D{{Key: "_id", Value: 1}}}, {Key: "unique", Value: true}}},
		{Key: "expireAfterSeconds", Value: 1}}).Err(); err != nil {
		t.Fatal(err)
	}
	metrics := cl.Database("purge").Collection("metrics")
	events := cl.Database("purge").Collection("events")

	const n = 20
	var gone, live [][]byte
	mark := func(keep bool) []byte {
		v, core := markerValue(t)
		if keep {
			live = append(live, core)
		} else {
			gone = append(gone, core)
		}
		return v
	}
	// The server's manual clock started at the real time of startup.
	at := time.Now().Add(-time.Second)
	for i := range n {
		// Redis: expiring, deleted by the user, and kept.
		if err := rc.Set(ctx, fmt.Sprintf("exp:%d", i), mark(false), time.Second).Err(); err != nil {
			t.Fatal(err)
		}
		if err := rc.Set(ctx, fmt.Sprintf("del:%d", i), mark(false), 0).Err(); err != nil {
			t.Fatal(err)
		}
		if err := rc.Set(ctx, fmt.Sprintf("keep:%d", i), mark(true), 0).Err(); err != nil {
			t.Fatal(err)
		}
		// MongoDB: expiring by the TTL index, deleted by the user, kept.
		docs := []any{
			bson.D{{Key: "_id", Value: "exp" + strconv.Itoa(i)}, {Key: "at", Value: at}, {Key: "v", Value: bson.Binary{Data: mark(false)}}},
			bson.D{{Key: "_id", Value: "del" + strconv.Itoa(i)}, {Key: "v", Value: bson.Binary{Data: mark(false)}}},
			bson.D{{Key: "_id", Value: "keep" + strconv.Itoa(i)}, {Key: "v", Value: bson.Binary{Data: mark(true)}}},
		}
		if _, err := coll.InsertMany(ctx, docs); err != nil {
			t.Fatal(err)
		}
		// Time series: measurements two hours old, whose bucket is due
		// before the clock moves, and one an hour ahead, kept.
		if _, err := metrics.InsertMany(ctx, []any{
			bson.D{{Key: "t", Value: at.Add(-2 * time.Hour)}, {Key: "v", Value: bson.Binary{Data: mark(false)}}},
			bson.D{{Key: "t", Value: at.Add(time.Hour)}, {Key: "v", Value: bson.Binary{Data: mark(true)}}},
		}); err != nil {
			t.Fatal(err)
		}
		// Clustered: a Date _id that expires, an ObjectId that never does.
		if _, err := events.InsertMany(ctx, []any{
			bson.D{{Key: "_id", Value: at.Add(time.Duration(i) * time.Millisecond)}, {Key: "v", Value: bson.Binary{Data: mark(false)}}},
			bson.D{{Key: "_id", Value: bson.NewObjectID()}, {Key: "v", Value: bson.Binary{Data: mark(true)}}},
		}); err != nil {
			t.Fatal(err)
		}
	}
	// The grep can see what was written: in the write-ahead log, once the
	// group commit has written it out (at most 100 ms later).
	eventually(t, 10*time.Second, "every marker is on disk after the writes", func() bool {
		for _, m := range append(append([][]byte(nil), gone...), live...) {
			if len(filesWith(t, s.Dir, m)) == 0 {
				return false
			}
		}
		return true
	})

	// User deletions.
	cycles := serverStatusPath(t, cl, "metrics.purge.cycles")
	for i := range n {
		if err := rc.Del(ctx, fmt.Sprintf("del:%d", i)).Err(); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := coll.DeleteMany(ctx, bson.D{{Key: "_id", Value: bson.D{{Key: "$regex", Value: "^del"}}}}); err != nil {
		t.Fatal(err)
	}
	// Expiry: the sweeper deletes what fell due once the clock moves.
	s.Advance(t, 2*time.Second)
	eventually(t, 20*time.Second, "the sweeper deletes the expired keys and documents", func() bool {
		return redisInfoField(t, rc, "stats", "expired_keys") == n &&
			serverStatusPath(t, cl, "metrics.ttl.deletedDocuments") == n+1+n // the TTL index's, one bucket, the clustered ones
	})
	if got := serverStatusPath(t, cl, "metrics.purge.purgeAfterMillis"); got != bound.Milliseconds() {
		t.Fatalf("metrics.purge.purgeAfterMillis = %d, want %d", got, bound.Milliseconds())
	}
	if got := serverStatusPath(t, cl, "metrics.purge.oldestPendingMillis"); got < 0 || got >= bound.Milliseconds() {
		t.Fatalf("metrics.purge.oldestPendingMillis = %d before the bound passed", got)
	}

	// Past the bound on the server's clock, the purge loop runs by itself.
	// A cycle may already have run once the user deletions were half the
	// bound old, so the count to beat is the one before any deletion.
	s.Advance(t, bound)
	eventually(t, 30*time.Second, "a purge cycle runs and leaves nothing pending", func() bool {
		return serverStatusPath(t, cl, "metrics.purge.cycles") > cycles &&
			serverStatusPath(t, cl, "metrics.purge.oldestPendingMillis") == 0
	})
	eventually(t, 10*time.Second, "no file holds a deleted marker", func() bool {
		for _, m := range gone {
			if len(filesWith(t, s.Dir, m)) > 0 {
				return false
			}
		}
		return true
	})
	for i, m := range gone {
		if f := filesWith(t, s.Dir, m); len(f) > 0 {
			t.Fatalf("deleted marker %d is still in %v", i, f)
		}
	}
	for i, m := range live {
		if len(filesWith(t, s.Dir, m)) == 0 {
			t.Fatalf("live marker %d is not on disk after the purge: the grep cannot see sstables", i)
		}
	}
	// The live values are intact.
	if got, err := rc.DBSize(ctx).Result(); err != nil || got != n {
		t.Fatalf("DBSIZE = %d, %v; want %d", got, err, n)
	}
	if got, err := coll.CountDocuments(ctx, bson.D{}); err != nil || got != n {
		t.Fatalf("documents = %d, %v; want %d", got, err, n)
	}
	if got, err := metrics.CountDocuments(ctx, bson.D{}); err != nil || got != n {
		t.Fatalf("measurements = %d, %v; want %d", got, err, n)
	}
	if got, err := events.CountDocuments(ctx, bson.D{}); err != nil || got != n {
		t.Fatalf("clustered documents = %d, %v; want %d", got, err, n)
	}
}
