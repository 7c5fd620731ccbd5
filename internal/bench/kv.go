package bench

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
)

// kvKeyTTL is the EX of kv's keys: long enough that nothing expires during
// the workload.
const kvKeyTTL = time.Hour

// kvOps are kv's phases: one command each, then a mix of them
// (GET 60%, SET EX 20%, INCR 10%, HSET 10%).
var kvOps = []string{"set_ex", "get", "incr", "hset", "mix"}

func kvKey(i int) string { return "bench:kv:" + strconv.Itoa(i) }

// kvPick resolves kind ("mix" becomes one of the others by its share) and
// draws the key number of the next operation.
func kvPick(kind string, rng *rand.Rand, keys int) (string, int) {
	if kind == "mix" {
		switch x := rng.IntN(10); {
		case x < 6:
			kind = "get"
		case x < 8:
			kind = "set_ex"
		case x < 9:
			kind = "incr"
		default:
			kind = "hset"
		}
	}
	return kind, rng.IntN(keys)
}

// kvCmd queues (or sends, when p is the client) one operation of kind.
func kvCmd(ctx context.Context, p redis.Cmdable, kind string, rng *rand.Rand, keys int, val string) error {
	kind, i := kvPick(kind, rng, keys)
	var err error
	switch kind {
	case "set_ex":
		err = p.Set(ctx, kvKey(i), val, kvKeyTTL).Err()
	case "get":
		err = p.Get(ctx, kvKey(i)).Err()
		if errors.Is(err, redis.Nil) {
			err = nil
		}
	case "incr":
		err = p.Incr(ctx, "bench:ctr:"+strconv.Itoa(i)).Err()
	case "hset":
		err = p.HSet(ctx, "bench:h:"+strconv.Itoa(i%1024), "f"+strconv.Itoa(i), val).Err()
	}
	return err
}

// kvTTLSeconds is kvKeyTTL as SET's EX argument.
var kvTTLSeconds = strconv.Itoa(int(kvKeyTTL / time.Second))

// appendKVCmd appends, for the lean client, the command kvCmd would send
// for the same draw: the same keys, values and TTL.
func appendKVCmd(dst []byte, kind string, rng *rand.Rand, keys int, val string) []byte {
	kind, i := kvPick(kind, rng, keys)
	switch kind {
	case "set_ex":
		dst = appendRESPArray(dst, 5)
		dst = appendRESPBulk(dst, "SET")
		dst = appendRESPBulkNum(dst, "bench:kv:", i)
		dst = appendRESPBulk(dst, val)
		dst = appendRESPBulk(dst, "EX")
		return appendRESPBulk(dst, kvTTLSeconds)
	case "get":
		dst = appendRESPArray(dst, 2)
		dst = appendRESPBulk(dst, "GET")
		return appendRESPBulkNum(dst, "bench:kv:", i)
	case "incr":
		dst = appendRESPArray(dst, 2)
		dst = appendRESPBulk(dst, "INCR")
		return appendRESPBulkNum(dst, "bench:ctr:", i)
	default:
		dst = appendRESPArray(dst, 4)
		dst = appendRESPBulk(dst, "HSET")
		dst = appendRESPBulkNum(dst, "bench:h:", i%1024)
		dst = appendRESPBulkNum(dst, "f", i)
		return appendRESPBulk(dst, val)
	}
}

// kvDriverOp is a phase's request through go-redis: one command, or a
// pipeline of depth commands.
func kvDriverOp(rdb *redis.Client, kind string, depth, keys int, val string) op {
	return func(ctx context.Context, w int, rng *rand.Rand) (int, error) {
		if depth == 1 {
			return 1, kvCmd(ctx, rdb, kind, rng, keys, val)
		}
		pipe := rdb.Pipeline()
		for range depth {
			_ = kvCmd(ctx, pipe, kind, rng, keys, val)
		}
		cmds, err := pipe.Exec(ctx)
		if errors.Is(err, redis.Nil) {
			err = nil
		}
		if err == nil {
			for _, cmd := range cmds {
				if e := cmd.Err(); e != nil && !errors.Is(e, redis.Nil) {
					return 0, e
				}
			}
		}
		return depth, err
	}
}

// kvLeanOp is a phase's request through worker w's lean connection: depth
// commands written at once, then depth replies read. A connection an
// earlier phase left broken is replaced first, dialled with bctx.
func kvLeanOp(bctx context.Context, conns []*respConn, addr string, tlsCfg *tls.Config, db int, kind string, depth, keys int, val string) op {
	return func(ctx context.Context, w int, rng *rand.Rand) (int, error) {
		c, err := redialRESP(bctx, conns, w, addr, tlsCfg, db)
		if err != nil {
			return 0, err
		}
		c.out = c.out[:0]
		for range depth {
			c.out = appendKVCmd(c.out, kind, rng, keys, val)
		}
		if err := c.roundTrip(depth); err != nil {
			return 0, err
		}
		return depth, nil
	}
}

// dialLeanRESP opens n lean connections to addr (over TLS with tlsCfg
// when it is set), closed by the returned function.
func dialLeanRESP(ctx context.Context, addr string, tlsCfg *tls.Config, db, n int) ([]*respConn, func(), error) {
	conns := make([]*respConn, 0, n)
	closeAll := func() {
		for _, c := range conns {
			c.close()
		}
	}
	for range n {
		c, err := dialRESP(ctx, addr, tlsCfg, db)
		if err != nil {
			closeAll()
			return nil, nil, err
		}
		conns = append(conns, c)
	}
	return conns, closeAll, nil
}

// runKV measures SET EX, GET, INCR, HSET and their mix over opts.Clients
// connections, without pipelining and then with pipelines of
// opts.Pipeline commands. GETs read keys the SET phase wrote (the keyspace
// is filled first so a GET always finds its key).
func runKV(ctx context.Context, e *env, c *conn) Result {
	o := e.opts
	r := Result{Target: c.Label, Protocol: c.Protocol, Workload: "kv", Client: o.Client}
	if err := e.reset(ctx, c); err != nil {
		r.Error = err.Error()
		return r
	}
	val := string(value(o.ValueSize, 'v'))
	e.prog.Phase("kv on %s: filling %d keys", c, o.Keys)
	if err := fillKV(ctx, c.rdb, o.Keys, val); err != nil {
		r.Error = err.Error()
		return r
	}
	var (
		rdb   *redis.Client
		conns []*respConn
	)
	if o.Client == ClientDriver {
		rdb = respClient(c.Addr, c.TLS, o.DB, o.Clients)
		defer rdb.Close()
		if err := warmUp(ctx, o.Clients, func(ctx context.Context) error { return rdb.Ping(ctx).Err() }); err != nil {
			r.Error = err.Error()
			return r
		}
	} else {
		cs, closeAll, err := dialLeanRESP(ctx, c.Addr, c.TLS, o.DB, o.Clients)
		if err != nil {
			r.Error = err.Error()
			return r
		}
		defer closeAll()
		conns = cs
	}
	depths := []int{1}
	if o.Pipeline > 1 {
		depths = append(depths, o.Pipeline)
	}
	for _, depth := range depths {
		for _, kind := range kvOps {
			name := kind
			if depth > 1 {
				name = fmt.Sprintf("%s_p%d", kind, depth)
			}
			e.prog.Phase("kv %s on %s: %d %s clients for %s", name, c, o.Clients, o.Client, o.Duration)
			f := kvLeanOp(ctx, conns, c.Addr, c.TLS, o.DB, kind, depth, o.Keys, val)
			if rdb != nil {
				f = kvDriverOp(rdb, kind, depth, o.Keys, val)
			}
			ph, err := closedLoop(ctx, o.Clients, o.Duration, e.prog, "kv "+name, f)
			if err != nil {
				r.notef("%s: %v", name, err)
				continue
			}
			r.add(name+".ops", ph.throughput(), "ops/s", Higher)
			r.addLatencies(name, ph.lat.Summary())
		}
	}
	if err := e.reset(ctx, c); err != nil {
		r.notef("cleanup: %v", err)
	}
	return r
}

// fillKV writes keys 0..n-1 with EX in pipelines of 1,000.
func fillKV(ctx context.Context, rdb *redis.Client, n int, val string) error {
	const batch = 1000
	for from := 0; from < n; from += batch {
		pipe := rdb.Pipeline()
		for i := from; i < min(from+batch, n); i++ {
			pipe.Set(ctx, kvKey(i), val, kvKeyTTL)
		}
		if _, err := pipe.Exec(ctx); err != nil {
			return fmt.Errorf("fill kv keys: %w", err)
		}
	}
	return nil
}

// value returns n bytes of fill.
func value(n int, fill byte) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = fill
	}
	return b
}
