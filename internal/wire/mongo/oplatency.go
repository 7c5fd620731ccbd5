package mongo

import (
	"math/bits"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// Operation latencies: serverStatus's opLatencies and $collStats's
// latencyStats, kept as MongoDB keeps them. Every command's time from
// dispatch to reply adds to one of four classes, each a total of
// microseconds, a count and a histogram whose buckets double, with half
// steps from 2,048 µs to 2 s; reads and writes add to their collection's
// too.

// latencyClass is the opLatencies class a command counts in. The zero
// value is commands, the class of every command not named a read or a
// write.
type latencyClass int

const (
	latencyCommands latencyClass = iota
	latencyReads
	latencyWrites
	latencyTransactions
	latencyClasses
)

// latencyLowerBounds are the inclusive lower bounds, in microseconds, of
// the histogram's buckets, as MongoDB reports them in "micros".
var latencyLowerBounds = [...]uint64{
	0, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024,
	2048, 3072, 4096, 6144, 8192, 12288, 16384, 24576, 32768, 49152, 65536, 98304,
	131072, 196608, 262144, 393216, 524288, 786432, 1048576, 1572864,
	1 << 21, 1 << 22, 1 << 23, 1 << 24, 1 << 25, 1 << 26, 1 << 27, 1 << 28, 1 << 29, 1 << 30,
	1 << 31, 1 << 32, 1 << 33, 1 << 34, 1 << 35, 1 << 36, 1 << 37, 1 << 38, 1 << 39, 1 << 40,
}

// latencyBucket is the bucket of a latency of micros microseconds: its
// base-2 logarithm below 2^11, one of two halves of each doubling from 2^11
// to 2^21, the logarithm plus the ten half steps above.
func latencyBucket(micros uint64) int {
	if micros == 0 {
		return 0
	}
	log2 := bits.Len64(micros) - 1
	switch {
	case log2 < 11:
		return log2
	case log2 < 21:
		b := log2 + log2 - 11
		if micros >= 3<<(log2-1) {
			b++
		}
		return b
	default:
		return min(log2+10, len(latencyLowerBounds)-1)
	}
}

// latencyHistogram is one class's latencies; safe for concurrent use.
type latencyHistogram struct {
	buckets [len(latencyLowerBounds)]atomic.Int64
	micros  atomic.Int64
	ops     atomic.Int64
}

func (h *latencyHistogram) record(d time.Duration) {
	us := max(d.Microseconds(), 0)
	h.buckets[latencyBucket(uint64(us))].Add(1)
	h.micros.Add(us)
	h.ops.Add(1)
}

// doc is the class's {histogram?, latency, ops}; the histogram lists only
// the buckets that counted something.
func (h *latencyHistogram) doc(withHistogram bool) bson.D {
	d := make(bson.D, 0, 3)
	if withHistogram {
		hist := bson.A{}
		for i := range h.buckets {
			if n := h.buckets[i].Load(); n > 0 {
				hist = append(hist, bson.D{{Key: "micros", Value: int64(latencyLowerBounds[i])}, {Key: "count", Value: n}})
			}
		}
		d = append(d, bson.E{Key: "histogram", Value: hist})
	}
	return append(d, bson.E{Key: "latency", Value: h.micros.Load()}, bson.E{Key: "ops", Value: h.ops.Load()})
}

// opLatencies are the server's latencies by class.
type opLatencies [latencyClasses]latencyHistogram

// doc is serverStatus's opLatencies section.
func (l *opLatencies) doc(withHistograms bool) bson.D {
	return bson.D{
		{Key: "reads", Value: l[latencyReads].doc(withHistograms)},
		{Key: "writes", Value: l[latencyWrites].doc(withHistograms)},
		{Key: "commands", Value: l[latencyCommands].doc(withHistograms)},
		{Key: "transactions", Value: l[latencyTransactions].doc(withHistograms)},
	}
}

// maxLatencyNamespaces bounds how many namespaces keep latencies for
// $collStats, so that commands naming ever new collections cannot grow
// memory without end; past it new namespaces are not tracked.
const maxLatencyNamespaces = 10_000

// collectionLatencies are each namespace's latencies ($collStats
// latencyStats), kept for reads and writes; safe for concurrent use.
type collectionLatencies struct {
	mu   sync.RWMutex
	byNS map[string]*opLatencies
}

// record adds a read's or write's time to its namespace, found in the
// request: the collection the command names first, or getMore's
// "collection". scratch is the caller's buffer for the namespace, so that
// a namespace already tracked costs no allocation.
func (c *collectionLatencies) record(req *request, class latencyClass, d time.Duration, scratch *[]byte) {
	if class != latencyReads && class != latencyWrites {
		return
	}
	v := req.first()
	if req.name == "getMore" {
		v = req.cmd.Lookup("collection")
	}
	// A BSON string is its length, its bytes and a NUL.
	if v.Type != bson.TypeString || len(v.Value) < 6 {
		return // aggregate: 1 runs on the database; an empty name names nothing
	}
	ns := append(append(append((*scratch)[:0], req.db...), '.'), v.Value[4:len(v.Value)-1]...)
	*scratch = ns
	c.mu.RLock()
	l := c.byNS[string(ns)]
	c.mu.RUnlock()
	if l == nil {
		l = c.of(string(ns))
	}
	if l != nil {
		l[class].record(d)
	}
}

// of returns ns's latencies, creating them unless maxLatencyNamespaces are
// tracked already; nil then.
func (c *collectionLatencies) of(ns string) *opLatencies {
	c.mu.Lock()
	defer c.mu.Unlock()
	if l, ok := c.byNS[ns]; ok {
		return l
	}
	if len(c.byNS) >= maxLatencyNamespaces {
		return nil
	}
	if c.byNS == nil {
		c.byNS = make(map[string]*opLatencies)
	}
	l := new(opLatencies)
	c.byNS[ns] = l
	return l
}

// doc is $collStats latencyStats for ns: zeros when nothing was recorded.
func (c *collectionLatencies) doc(ns string, withHistograms bool) bson.D {
	c.mu.RLock()
	l := c.byNS[ns]
	c.mu.RUnlock()
	if l == nil {
		l = new(opLatencies)
	}
	return l.doc(withHistograms)
}

// forget drops the latencies of ns, or of every namespace of a database
// when ns ends with a dot, as MongoDB does when collections are dropped
// or renamed.
func (c *collectionLatencies) forget(ns string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for name := range c.byNS {
		if name == ns || (strings.HasSuffix(ns, ".") && strings.HasPrefix(name, ns)) {
			delete(c.byNS, name)
		}
	}
}
