package resp

import (
	"bytes"
	"errors"
	"math"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/mayfly/mayfly/internal/kv"
)

var cmdBLPop = def(cmdSpec{
	Name: "blpop", Arity: -3, Flags: "write noscript blocking", FirstKey: 1, LastKey: -2, Step: 1,
	ACL: "write list slow blocking", Group: "list", Since: "2.0.0",
	Summary:    "Removes and returns the first element in a list. Blocks until an element is available otherwise. Deletes the list if the last element was popped.",
	Complexity: "O(N) where N is the number of provided keys.",
	Handler:    func(x *cmdCtx) error { return blockingPop(x, kv.ListLeft) },
})

// Blocking commands (BLPOP, BRPOP, BLMOVE, BRPOPLPUSH, BLMPOP on lists;
// BZPOPMIN, BZPOPMAX, BZMPOP on sorted sets).
//
// A command that finds nothing to pop registers a waiter on its keys, in
// arrival order per key, flushes the replies before it, and waits with the
// store released (kv.Tx.Yield), so other clients run. Every command that
// can make a key a non-empty list or sorted set calls serveBlocked on it
// before it returns, as Redis signals such a key ready: the pushes (LPUSH,
// RPUSH, LPUSHX, RPUSHX), LMOVE's and RPOPLPUSH's destination (and
// BLMOVE's, by the waiter it serves), SORT ... STORE, ZADD, ZINCRBY, the
// sorted set *STORE commands, RENAME and RENAMENX (the destination), COPY
// and MOVE (the key in the target database, serveBlockedIn), and SWAPDB
// (every key waited on in either database, serveBlockedDB, as Redis's
// scanDatabaseForReadyKeys). Inside the command's transaction the waiters
// of that key that wait for its type are served first come, first served,
// each popping (or moving) what its command takes, so a blocked client is
// served before any other command runs, as in Redis, and its pop commits
// with the command. A waiter for the other type stays blocked, as in
// Redis. The waiter wakes, waits for that commit (it needs the store
// again) and replies. Waiters register and leave only while holding the
// store, so a push can never slip between "the list is empty" and
// "registered". The same calls run for these commands queued in MULTI/EXEC
// or called from a script.
//
// A waiter also wakes at its deadline (the server clock: Options.Now,
// checked at least every Options.BlockPoll) and every Options.BlockPoll to
// retry by itself: a safety net only, since every command above serves
// waiters at once. It gives up when its connection is closed or the
// server shuts down (watchConn). Inside MULTI/EXEC the commands do not
// block: an empty result is returned at once; the waiters of the keys
// its commands fill are served after the whole EXEC (serveDeferred). CLIENT
// UNBLOCK releases a waiter as if its deadline had passed, or with an
// error. One departure from Redis: if the command's commit failed, a
// waiter would already have replied with an element that was never stored
// (the store is then failing anyway).

// DefaultBlockPoll is Options.BlockPoll when zero: how long a blocked
// client sleeps at most without re-checking its deadline, its connection
// and its keys.
const DefaultBlockPoll = time.Second

// blockKey names the keys clients block on.
type blockKey struct {
	srv *Server
	db  int
	key string
}

// blockResult is what a blocked command gets: the key popped from and the
// element (vals for BLMPOP, zels for the sorted set pops), or an error
// (BLMOVE's destination of another type).
type blockResult struct {
	key, val []byte
	vals     [][]byte
	zels     []kv.ZMember
	entries  []kv.StreamEntry // XREAD, XREADGROUP
	err      error
	timedOut bool // CLIENT UNBLOCK TIMEOUT: answer as at the deadline
}

// serveFunc pops (or moves) what a waiter's command takes from key in tx
// (one element, or up to COUNT for BLMPOP and BZMPOP): ok is false when
// there is nothing to take; ready names a key that became a non-empty
// list by it (BLMOVE's destination), whose waiters are served next.
type serveFunc func(tx *kv.Tx, key []byte) (r blockResult, ok bool, ready []byte, err error)

type blockWaiter struct {
	keys  []blockKey
	typ   kv.Type // what the waiter pops from: kv.TypeList or kv.TypeZSet
	serve serveFunc
	done  chan blockResult // one result, sent once by a server
	// nudge makes the waiter try its keys again now (nudgeWaiters).
	nudge chan struct{}
	// groupRead marks an XREADGROUP, whose wait ends when its stream goes
	// (stream_block.go).
	groupRead bool
}

// blocking is the registry of waiters of every server in the process,
// first come, first served per key.
var blocking = struct {
	mu sync.Mutex
	m  map[blockKey][]*blockWaiter
}{m: make(map[blockKey][]*blockWaiter)}

func (w *blockWaiter) register() {
	blocking.mu.Lock()
	for _, k := range w.keys {
		blocking.m[k] = append(blocking.m[k], w)
	}
	blocking.mu.Unlock()
	w.changed()
}

// changed wakes the waiters on the server's changed channel: a client
// started or stopped blocking.
func (w *blockWaiter) changed() {
	if len(w.keys) == 0 {
		return
	}
	s := w.keys[0].srv
	s.mu.Lock()
	s.changedLocked()
	s.mu.Unlock()
}

func (w *blockWaiter) unregister() {
	defer w.changed()
	blocking.mu.Lock()
	defer blocking.mu.Unlock()
	for _, k := range w.keys {
		q := blocking.m[k]
		out := q[:0]
		for _, o := range q {
			if o != w {
				out = append(out, o)
			}
		}
		if len(out) == 0 {
			delete(blocking.m, k)
		} else {
			blocking.m[k] = out
		}
	}
}

// registered reports whether w still waits: no server served it and no
// CLIENT UNBLOCK released it.
func (w *blockWaiter) registered() bool {
	blocking.mu.Lock()
	defer blocking.mu.Unlock()
	for _, k := range w.keys {
		if slices.Contains(blocking.m[k], w) {
			return true
		}
	}
	return false
}

// hasWaiters reports whether any client is blocked on k.
func hasWaiters(k blockKey) bool {
	blocking.mu.Lock()
	defer blocking.mu.Unlock()
	return len(blocking.m[k]) > 0
}

// blockedClients returns how many clients of srv are blocked (INFO's
// blocked_clients): each waiter once, however many keys it waits on.
func blockedClients(srv *Server) int {
	blocking.mu.Lock()
	defer blocking.mu.Unlock()
	seen := make(map[*blockWaiter]struct{})
	for k, q := range blocking.m {
		if k.srv != srv {
			continue
		}
		for _, w := range q {
			seen[w] = struct{}{}
		}
	}
	return len(seen)
}

// firstWaiter returns the first client blocked on k for type t.
func firstWaiter(k blockKey, t kv.Type) *blockWaiter {
	blocking.mu.Lock()
	defer blocking.mu.Unlock()
	for _, w := range blocking.m[k] {
		if w.typ == t {
			return w
		}
	}
	return nil
}

// serveBlocked serves the clients blocked on keys, which the current
// command may just have made non-empty lists or sorted sets, in x's
// transaction.
func serveBlocked(x *cmdCtx, keys ...[]byte) {
	if x.c.deferServe {
		for _, k := range keys {
			rk := readyKey{db: x.tx.DB(), key: string(k)}
			if !slices.Contains(x.c.ready, rk) {
				x.c.ready = append(x.c.ready, rk)
			}
		}
		return
	}
	ready := append([][]byte{}, keys...)
	for len(ready) > 0 {
		k := ready[0]
		ready = ready[1:]
		bk := blockKey{srv: x.s, db: x.tx.DB(), key: string(k)}
		for {
			if !hasWaiters(bk) {
				break
			}
			m, found, err := x.tx.Lookup(k)
			if err != nil || !found {
				break
			}
			if m.Type == kv.TypeStream {
				serveStreamWaiters(x, bk, k)
				break
			}
			w := firstWaiter(bk, m.Type)
			if w == nil {
				break
			}
			r, ok, next, err := w.serve(x.tx, k)
			if err != nil {
				r, ok = blockResult{err: err}, true
			}
			if !ok {
				break
			}
			w.unregister()
			w.done <- r
			if next != nil {
				ready = append(ready, next)
			}
		}
	}
}

// readyKey is a key that a command of an EXEC may have filled for blocked
// clients: they are served after the EXEC.
type readyKey struct {
	db  int
	key string
}

// serveDeferred ends an EXEC's deferral and serves the clients blocked on
// the keys its commands made ready, in the order they were first made so.
func serveDeferred(x *cmdCtx) {
	c := x.c
	c.deferServe = false
	ready := c.ready
	c.ready = nil
	for _, rk := range ready {
		serveBlockedIn(x, rk.db, []byte(rk.key))
	}
}

// serveBlockedIn is serveBlocked for keys of logical database db (COPY ...
// DB, MOVE), which may be another than the current one.
func serveBlockedIn(x *cmdCtx, db int, keys ...[]byte) {
	cur := x.tx.DB()
	if db == cur {
		serveBlocked(x, keys...)
		return
	}
	if x.tx.Use(db) != nil {
		return
	}
	defer x.tx.Use(cur)
	serveBlocked(x, keys...)
}

// serveBlockedDB serves the clients of x's server blocked on any key of
// logical database db, in the order of the keys' names: after SWAPDB a key
// waited on may hold a list or sorted set of the other database.
func serveBlockedDB(x *cmdCtx, db int) {
	blocking.mu.Lock()
	var keys [][]byte
	for k := range blocking.m {
		if k.srv == x.s && k.db == db {
			keys = append(keys, []byte(k.key))
		}
	}
	blocking.mu.Unlock()
	slices.SortFunc(keys, bytes.Compare)
	serveBlockedIn(x, db, keys...)
}

// inExec reports whether x runs as a queued command of EXEC or inside a
// script, where blocking commands must not block.
func inExec(x *cmdCtx) bool {
	switch x.c.lastName {
	case "exec", "eval", "evalsha", "eval_ro", "evalsha_ro", "fcall", "fcall_ro":
		return true
	}
	return false
}

// parseTimeout parses a blocking timeout in seconds (decimals allowed) as
// Redis's getTimeoutFromObjectOrReply and returns the deadline on the
// server clock, the zero time for "forever".
func parseTimeout(x *cmdCtx, b []byte) (time.Time, error) {
	s := string(b)
	f, err := strconv.ParseFloat(s, 64)
	if s == "" || isSpace(s[0]) || err != nil || math.IsNaN(f) {
		return time.Time{}, replyErr("ERR timeout is not a float or out of range")
	}
	ms := math.Ceil(f * 1000)
	if ms > math.MaxInt64 {
		return time.Time{}, replyErr("ERR timeout is out of range")
	}
	if ms < 0 {
		return time.Time{}, replyErr("ERR timeout is negative")
	}
	if ms == 0 {
		return time.Time{}, nil
	}
	now := x.s.opts.Now()
	if int64(ms) > math.MaxInt64-now.UnixMilli() {
		return time.Time{}, replyErr("ERR timeout is out of range")
	}
	return now.Add(time.Duration(ms) * time.Millisecond), nil
}

// tryServe runs serve on keys in order until one gives an element.
func tryServe(x *cmdCtx, keys [][]byte, serve serveFunc) (blockResult, bool, error) {
	for _, k := range keys {
		r, ok, ready, err := serve(x.tx, k)
		if err != nil {
			return blockResult{}, false, err
		}
		if ok {
			if ready != nil {
				serveBlocked(x, ready)
			}
			return r, true, nil
		}
	}
	return blockResult{}, false, nil
}

type wakeReason uint8

const (
	wakeServed wakeReason = iota
	wakeTimeout
	wakePoll
	wakeGone
)

// blockOn tries serve on keys and, when nothing is there, blocks until a
// pusher serves the client, the deadline passes (served false), or the
// connection goes away (served false, gone true: no reply is due). typ is
// the type of the keys serve pops from.
func blockOn(x *cmdCtx, keys [][]byte, deadline time.Time, typ kv.Type, serve serveFunc) (r blockResult, served, gone bool, err error) {
	if r, ok, err := tryServe(x, keys, serve); err != nil || ok {
		return r, ok, false, err
	}
	if inExec(x) {
		return blockResult{}, false, false, nil
	}
	c := x.c
	w := &blockWaiter{typ: typ, serve: serve, done: make(chan blockResult, 1), nudge: make(chan struct{}, 1), groupRead: x.cmd.name == "xreadgroup"}
	for _, k := range keys {
		w.keys = append(w.keys, blockKey{srv: x.s, db: x.tx.DB(), key: string(k)})
	}
	w.register()
	c.blocked = w
	defer func() { c.blocked = nil }()
	goneCh, stopWatch := watchConn(c)
	defer stopWatch()
	c.ncmu.Unlock() // pub/sub pushes may go out while the client waits
	defer c.ncmu.Lock()
	earlier := true // the replies of the commands before this one are unsent
	for {
		var reason wakeReason
		var got blockResult
		yerr := x.tx.Yield(func() {
			if earlier {
				// They go out now, as Redis sends them before the client
				// blocks: committed, and without holding the store, so a
				// client that does not read cannot stall the others.
				earlier = false
				c.ncmu.Lock()
				ok := c.flush()
				c.ncmu.Unlock()
				if !ok {
					reason = wakeGone
					return
				}
			}
			reason, got = waitBlocked(x, w, deadline, goneCh)
		})
		// The store is held again: no server can pick this waiter now.
		if reason != wakeServed {
			select {
			case got = <-w.done:
				reason = wakeServed
			default:
			}
		}
		if reason == wakeServed {
			if got.timedOut {
				return blockResult{}, false, false, yerr
			}
			return got, true, false, yerr
		}
		if yerr != nil {
			w.unregister()
			return blockResult{}, false, false, yerr
		}
		switch reason {
		case wakeGone:
			w.unregister()
			return blockResult{}, false, true, nil
		case wakeTimeout:
			w.unregister()
			return blockResult{}, false, false, nil
		}
		r, ok, err := tryServe(x, keys, serve)
		if errors.Is(err, kv.ErrWrongType) {
			continue // a key now holds another type: Redis keeps waiting too
		}
		if err != nil || ok {
			w.unregister()
			return r, ok, false, err
		}
	}
}

// waitBlocked sleeps until w is served, its deadline passes, its
// connection goes, or Options.BlockPoll elapses.
func waitBlocked(x *cmdCtx, w *blockWaiter, deadline time.Time, gone <-chan struct{}) (wakeReason, blockResult) {
	d := x.s.opts.BlockPoll
	if !deadline.IsZero() {
		rem := deadline.Sub(x.s.opts.Now())
		if rem <= 0 {
			return wakeTimeout, blockResult{}
		}
		d = min(d, rem)
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case r := <-w.done:
		return wakeServed, r
	case <-gone:
		return wakeGone, blockResult{}
	case <-w.nudge:
	case <-t.C:
	}
	switch {
	case x.c.stopping.Load() || x.c.dead.Load():
		return wakeGone, blockResult{}
	case !deadline.IsZero() && !x.s.opts.Now().Before(deadline):
		return wakeTimeout, blockResult{}
	}
	return wakePoll, blockResult{}
}

// popServe pops one element from an end of a list (BLPOP, BRPOP).
func popServe(end kv.ListEnd) serveFunc {
	return func(tx *kv.Tx, key []byte) (blockResult, bool, []byte, error) {
		_, v, ok, err := tx.PopFirst([][]byte{key}, end)
		// key may be another client's argument: the result outlives it.
		return blockResult{key: append([]byte(nil), key...), val: v}, ok, nil, err
	}
}

// blockingPop is BLPOP and BRPOP: [key, element], or a null array at the
// timeout.
func blockingPop(x *cmdCtx, end kv.ListEnd) error {
	deadline, err := parseTimeout(x, x.args[len(x.args)-1])
	if err != nil {
		return err
	}
	r, served, gone, err := blockOn(x, x.args[1:len(x.args)-1], deadline, kv.TypeList, popServe(end))
	switch {
	case err != nil:
		return err
	case gone:
		return nil
	case !served:
		x.w.NullArray()
	case r.err != nil:
		return r.err
	default:
		x.w.Array(2)
		x.w.Bulk(r.key)
		x.w.Bulk(r.val)
	}
	return nil
}
