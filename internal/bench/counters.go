package bench

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// ErrNoCounter reports a server that does not expose the deletion figure
// a workload needs.
var ErrNoCounter = errors.New("bench: server exposes no deletion counter")

// Counters are a server's own figures of physical deletion.
type Counters struct {
	// Deleted is the server's count of expiry deletions since it started
	// (Redis expired_keys, MongoDB metrics.ttl.deletedDocuments).
	Deleted int64
	// Present is the number of items physically stored (Redis keys= of the
	// benchmark's db), or -1 where the server gives no such figure.
	Present int64
	// Reads is the server's own histogram of read latencies since it
	// started (MongoDB opLatencies.reads), nil where it gives none.
	Reads []LatencyBucket
}

// ParseInfo parses the text of a Redis INFO reply into its fields
// ("section" headers and blank lines are skipped).
func ParseInfo(text string) map[string]string {
	out := map[string]string{}
	sc := bufio.NewScanner(strings.NewReader(text))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		k, v, ok := strings.Cut(line, ":")
		if ok {
			out[k] = v
		}
	}
	return out
}

// KeyspaceKeys returns keys= from an INFO keyspace line such as
// "keys=10,expires=5,avg_ttl=0"; a missing db line means 0 keys.
func KeyspaceKeys(info map[string]string, db int) (int64, error) {
	line, ok := info["db"+strconv.Itoa(db)]
	if !ok {
		return 0, nil
	}
	for _, f := range strings.Split(line, ",") {
		if v, ok := strings.CutPrefix(f, "keys="); ok {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				return 0, fmt.Errorf("parse INFO keyspace %q: %w", line, err)
			}
			return n, nil
		}
	}
	return 0, fmt.Errorf("parse INFO keyspace %q: no keys=", line)
}

func (c *conn) counters(ctx context.Context) (Counters, error) {
	switch c.Protocol {
	case RESP:
		return c.respCounters(ctx)
	default:
		return c.mongoCounters(ctx)
	}
}

func (c *conn) respCounters(ctx context.Context) (Counters, error) {
	stats, err := c.rdb.Info(ctx, "stats").Result()
	if err != nil {
		return Counters{}, fmt.Errorf("INFO stats: %w", err)
	}
	v, ok := ParseInfo(stats)["expired_keys"]
	if !ok {
		return Counters{}, fmt.Errorf("%w: INFO stats has no expired_keys", ErrNoCounter)
	}
	deleted, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return Counters{}, fmt.Errorf("parse expired_keys %q: %w", v, err)
	}
	ks, err := c.rdb.Info(ctx, "keyspace").Result()
	if err != nil {
		return Counters{}, fmt.Errorf("INFO keyspace: %w", err)
	}
	present, err := KeyspaceKeys(ParseInfo(ks), c.db)
	if err != nil {
		return Counters{}, err
	}
	return Counters{Deleted: deleted, Present: present}, nil
}

func (c *conn) mongoCounters(ctx context.Context) (Counters, error) {
	var status bson.Raw
	cmd := bson.D{{Key: "serverStatus", Value: 1}, {Key: "opLatencies", Value: bson.D{{Key: "histograms", Value: true}}}}
	err := c.mongo.Database("admin").RunCommand(ctx, cmd).Decode(&status)
	if err != nil {
		return Counters{}, fmt.Errorf("serverStatus: %w", err)
	}
	v, err := status.LookupErr("metrics", "ttl", "deletedDocuments")
	if err != nil {
		return Counters{}, fmt.Errorf("%w: serverStatus has no metrics.ttl.deletedDocuments", ErrNoCounter)
	}
	n, ok := v.AsInt64OK()
	if !ok {
		return Counters{}, fmt.Errorf("%w: metrics.ttl.deletedDocuments is %s", ErrNoCounter, v.Type)
	}
	cs := Counters{Deleted: n, Present: -1}
	if h, err := status.LookupErr("opLatencies", "reads", "histogram"); err == nil {
		if cs.Reads, err = parseLatencyHistogram(h); err != nil {
			return Counters{}, fmt.Errorf("serverStatus opLatencies.reads: %w", err)
		}
	}
	return cs, nil
}
