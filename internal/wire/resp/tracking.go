package resp

import (
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/mayfly/mayfly/internal/kv"
)

// tracker is server-assisted client-side caching (CLIENT TRACKING). In the
// default mode it remembers, per key name, the clients that read it while
// tracking; the first change of the key sends each of them one
// invalidation and forgets the key, until a client reads it again. In
// BCAST mode a client names prefixes instead, and every change of a key
// under one of them is sent, the keys of one commit in one message per
// prefix. Key names are tracked without their database, as Redis does.
//
// Reads and changes both reach it through kv's touches (the observer), in
// the order each commit made them: a key read after its own change in the
// same pipeline stays remembered, one read before is invalidated. Every
// source of change is covered that way: commands, scripts, EXEC, the
// expiry engine and lazy expiry, field expiry, flushes.
//
// An invalidation goes to the client itself when it speaks RESP3 (a push
// ["invalidate", [keys]], or a null for a flush), or to the client it
// redirects to: as a push when that one speaks RESP3, as a message on
// __redis__:invalidate when it is in RESP2 pub/sub mode. A client whose
// redirection target is gone gets ["tracking-redir-broken", id] instead.
// Messages are queued like pub/sub messages, so the current client gets
// them after its replies.
//
// Every field is guarded by mu; active lets a commit that nobody tracks
// skip it with one load.
type tracker struct {
	s      *Server
	active atomic.Bool // some client tracks, or the table holds keys (refresh)

	mu      sync.Mutex
	clients int                            // clients with tracking on
	keys    map[string]map[uint64]struct{} // key name -> ids of the clients that read it
	items   int                            // entries of keys, over all keys
	// prefixes are the BCAST prefixes, by prefix.
	prefixes map[string]*bcastPrefix
	maxKeys  int64 // tracking-table-max-keys, 0 for no limit
}

// bcastPrefix is one BCAST prefix: its clients and the keys under it that
// the commit being handled changed, each with who changed it last (zero
// for the expiry engine), for NOLOOP.
type bcastPrefix struct {
	clients map[*client]struct{}
	changed map[string]uint64
}

// tracking is one client's CLIENT TRACKING state, written with the
// tracker's lock held: by its own connection, but for broken, which the
// tracker sets when it finds the redirection target gone.
type tracking struct {
	on, bcast, optin, optout, noloop bool
	// caching is CLIENT CACHING YES (OPTIN) or NO (OPTOUT) for the next
	// command or transaction.
	caching bool
	// broken: the redirection target was gone when a message was due.
	broken   bool
	redirect uint64
	prefixes []string // BCAST prefixes, sorted
}

func newTracker(s *Server) *tracker {
	return &tracker{
		s:        s,
		keys:     make(map[string]map[uint64]struct{}),
		prefixes: make(map[string]*bcastPrefix),
		maxKeys:  1000000,
	}
}

// Tracking option errors, in Redis's words.
var (
	errPrefixNeedsBcast = replyErr("ERR PREFIX option requires BCAST mode to be enabled")
	errBcastSwitch      = replyErr("ERR You can't switch BCAST mode on/off before disabling tracking for this client, and then re-enabling it with a different mode.")
	errOptBcast         = replyErr("ERR OPTIN and OPTOUT are not compatible with BCAST")
	errOptBoth          = replyErr("ERR You can't specify both OPTIN mode and OPTOUT mode")
	errOptSwitch        = replyErr("ERR You can't switch OPTIN/OPTOUT mode before disabling tracking for this client, and then re-enabling it with a different mode.")
	errRedirNotFound    = replyErr("ERR The client ID you want redirect to does not exist")
	errRedirTwice       = replyErr("ERR A client can only redirect to a single other client")
	errCachingMode      = replyErr("ERR CLIENT CACHING can be called only when the client is in tracking mode with OPTIN or OPTOUT mode enabled")
	errCachingYes       = replyErr("ERR CLIENT CACHING YES is only valid when tracking is enabled in OPTIN mode.")
	errCachingNo        = replyErr("ERR CLIENT CACHING NO is only valid when tracking is enabled in OPTOUT mode.")
)

// trackOptions are the options of one CLIENT TRACKING ON.
type trackOptions struct {
	redirect                     uint64
	bcast, optin, optout, noloop bool
	prefixes                     []string
}

// enable turns tracking on for c with opts, or changes its options, after
// Redis's checks against each other and against c's current mode.
func (t *tracker) enable(c *client, o trackOptions) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	cur := c.track
	if !o.bcast && len(o.prefixes) > 0 {
		return errPrefixNeedsBcast
	}
	if cur != nil && cur.on && cur.bcast != o.bcast {
		return errBcastSwitch
	}
	if o.bcast && (o.optin || o.optout) {
		return errOptBcast
	}
	if o.optin && o.optout {
		return errOptBoth
	}
	if cur != nil && cur.on && ((o.optin && cur.optout) || (o.optout && cur.optin)) {
		return errOptSwitch
	}
	if o.bcast {
		if err := prefixCollision(cur, o.prefixes); err != nil {
			return err
		}
	}
	if cur == nil {
		cur = &tracking{}
		c.track = cur
	}
	if !cur.on {
		t.clients++
		t.refresh()
	}
	caching := cur.caching
	prefixes := cur.prefixes
	*cur = tracking{on: true, bcast: o.bcast, optin: o.optin, optout: o.optout, noloop: o.noloop,
		redirect: o.redirect, caching: caching, prefixes: prefixes}
	if o.bcast {
		if len(o.prefixes) == 0 {
			t.addPrefix(c, "")
		}
		for _, p := range o.prefixes {
			t.addPrefix(c, p)
		}
	}
	if o.redirect == 0 && c.proto() >= 3 {
		c.startPusher()
	}
	return nil
}

// prefixCollision is Redis's check that no new prefix is a prefix of, or
// has as prefix, one the client has or another new one.
func prefixCollision(cur *tracking, prefixes []string) error {
	overlap := func(a, b string) bool { return strings.HasPrefix(a, b) || strings.HasPrefix(b, a) }
	for i, p := range prefixes {
		if cur != nil {
			for _, q := range cur.prefixes {
				if overlap(q, p) {
					return replyErr("ERR Prefix '" + p + "' overlaps with an existing prefix '" + q + "'. Prefixes for a single client must not overlap.")
				}
			}
		}
		for _, q := range prefixes[i+1:] {
			if overlap(p, q) {
				return replyErr("ERR Prefix '" + p + "' overlaps with another provided prefix '" + q + "'. Prefixes for a single client must not overlap.")
			}
		}
	}
	return nil
}

// addPrefix subscribes c to BCAST prefix p; t.mu is held.
func (t *tracker) addPrefix(c *client, p string) {
	bp := t.prefixes[p]
	if bp == nil {
		bp = &bcastPrefix{clients: map[*client]struct{}{}, changed: map[string]uint64{}}
		t.prefixes[p] = bp
	}
	if _, ok := bp.clients[c]; ok {
		return
	}
	bp.clients[c] = struct{}{}
	i := sort.SearchStrings(c.track.prefixes, p)
	c.track.prefixes = append(c.track.prefixes, "")
	copy(c.track.prefixes[i+1:], c.track.prefixes[i:])
	c.track.prefixes[i] = p
}

// disable turns tracking off for c (CLIENT TRACKING OFF, RESET, or c
// closing). The keys c read stay in the table until they change, as in
// Redis.
func (t *tracker) disable(c *client) {
	t.mu.Lock()
	defer t.mu.Unlock()
	cur := c.track
	if cur == nil || !cur.on {
		return
	}
	for _, p := range cur.prefixes {
		bp := t.prefixes[p]
		delete(bp.clients, c)
		if len(bp.clients) == 0 {
			delete(t.prefixes, p)
		}
	}
	*cur = tracking{}
	t.clients--
	t.refresh()
}

// refresh sets active, and with it kv's recording of touches: on while a
// client tracks or the table remembers keys (their changes still drop
// them, as in Redis); t.mu is held.
func (t *tracker) refresh() {
	on := t.clients > 0 || len(t.keys) > 0
	if on != t.active.Load() {
		t.active.Store(on)
		t.s.updateTouches()
	}
}

// state returns a copy of c's tracking state.
func (t *tracker) state(c *client) tracking {
	t.mu.Lock()
	defer t.mu.Unlock()
	if c.track == nil {
		return tracking{}
	}
	st := *c.track
	st.prefixes = append([]string(nil), st.prefixes...)
	return st
}

// setCaching records CLIENT CACHING YES (yes) or NO for c's next command.
func (t *tracker) setCaching(c *client, yes bool) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	cur := c.track
	if cur == nil || !cur.on {
		return errCachingMode
	}
	if yes && !cur.optin {
		return errCachingYes
	}
	if !yes && !cur.optout {
		return errCachingNo
	}
	cur.caching = true
	return nil
}

// endCommand clears CLIENT CACHING after the command that follows it, or
// after the transaction it precedes; CLIENT subcommands keep it. It is
// called only for clients that have tracked.
func (t *tracker) endCommand(c *client, cmd *command) {
	// Only c's own connection writes caching, and this is it: it is read
	// without the lock.
	if !c.track.caching || c.multi != nil || (cmd != nil && (strings.HasPrefix(cmd.name, "client|") || cmd.name == "client")) {
		return
	}
	t.mu.Lock()
	c.track.caching = false
	t.mu.Unlock()
}

// remember notes, after a read-only command of c, the keys it read: in
// the default mode, unless OPTIN without CACHING YES or OPTOUT with
// CACHING NO says otherwise. keysOf are the command and arguments whose
// key arguments are remembered (a script's, when the read is its call).
func (t *tracker) remember(c *client, tx *kv.Tx, cmd *command, args [][]byte) {
	if tx == nil {
		return
	}
	t.mu.Lock()
	cur := *c.track
	t.mu.Unlock()
	if !cur.on || cur.bcast || (cur.optin && !cur.caching) || (cur.optout && cur.caching) {
		return
	}
	if hasFlag(cmd, "pubsub") {
		return
	}
	idx, _ := commandKeyIndexes(cmd, args)
	for _, i := range idx {
		tx.NoteRead(args[i], c.id)
	}
}

// committed handles one commit's touches in their order: reads are
// remembered, changed keys invalidated, flushes invalidate everything.
func (t *tracker) committed(touches []kv.Touch) {
	t.mu.Lock()
	defer t.mu.Unlock()
	read := false
	for _, tc := range touches {
		switch {
		case tc.Read:
			ids := t.keys[tc.Key]
			if ids == nil {
				ids = make(map[uint64]struct{})
				t.keys[tc.Key] = ids
			}
			if _, ok := ids[tc.Origin]; !ok {
				ids[tc.Origin] = struct{}{}
				t.items++
			}
			read = true
		case tc.Flushed:
			t.flushed()
		case tc.All:
			// Only an observer that watches no single keys gets these.
		default:
			changer := tc.Origin
			if tc.Expired {
				changer = 0
			}
			for p, bp := range t.prefixes {
				if strings.HasPrefix(tc.Key, p) {
					bp.changed[tc.Key] = changer
				}
			}
			t.invalidate(tc.Key, tc.Origin)
		}
	}
	t.broadcast()
	if read {
		t.limit()
	}
	t.refresh()
}

// invalidate sends key's invalidation to the clients that read it, but to
// a NOLOOP one that changed it itself (origin), and forgets the key; t.mu
// is held.
func (t *tracker) invalidate(key string, origin uint64) {
	ids, ok := t.keys[key]
	if !ok {
		return
	}
	var msg []byte
	for id := range ids {
		c := t.s.clientByID(id)
		if c == nil || c.track == nil || !c.track.on || c.track.bcast {
			continue
		}
		if c.track.noloop && id == origin {
			continue
		}
		if msg == nil {
			w := NewWriter(2)
			w.Array(1)
			w.BulkString(key)
			msg = w.Bytes()
		}
		t.send(c, msg)
	}
	t.items -= len(ids)
	delete(t.keys, key)
}

// flushed tells every tracking client that everything changed (a null
// instead of keys) and empties the table; t.mu is held.
func (t *tracker) flushed() {
	t.s.mu.Lock()
	clients := make([]*client, 0, len(t.s.clients))
	for _, c := range t.s.clients {
		clients = append(clients, c)
	}
	t.s.mu.Unlock()
	for _, c := range clients {
		if c.track == nil || !c.track.on {
			continue
		}
		w := NewWriter(c.proto())
		w.Null()
		t.send(c, w.Bytes())
	}
	clear(t.keys)
	t.items = 0
}

// broadcast sends each BCAST prefix's changed keys to its clients, one
// message per prefix, without the keys a NOLOOP client changed itself;
// t.mu is held.
func (t *tracker) broadcast() {
	for _, bp := range t.prefixes {
		if len(bp.changed) == 0 {
			continue
		}
		keys := make([]string, 0, len(bp.changed))
		for k := range bp.changed {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		all := encodeKeys(keys)
		for c := range bp.clients {
			if !c.track.noloop {
				t.send(c, all)
				continue
			}
			var own []string
			for _, k := range keys {
				if bp.changed[k] != c.id {
					own = append(own, k)
				}
			}
			if len(own) > 0 {
				t.send(c, encodeKeys(own))
			}
		}
		clear(bp.changed)
	}
}

func encodeKeys(keys []string) []byte {
	w := NewWriter(2)
	w.Array(len(keys))
	for _, k := range keys {
		w.BulkString(k)
	}
	return w.Bytes()
}

// send delivers an invalidation whose value (an array of keys, or a null)
// is encoded in msg, for tracking client c: to c itself in RESP3, or to
// the client it redirects to; t.mu is held.
func (t *tracker) send(c *client, value []byte) {
	to := c
	redirected := false
	if id := c.track.redirect; id != 0 {
		to = t.s.clientByID(id)
		if to == nil || to.leaving.Load() {
			c.track.broken = true
			if c.proto() >= 3 {
				w := NewWriter(3)
				w.Push(2)
				w.BulkString("tracking-redir-broken")
				w.Int(int64(id))
				c.startPusher()
				c.deliver(w.Bytes())
			}
			return
		}
		redirected = true
	}
	var w *Writer
	switch {
	case to.proto() >= 3:
		w = NewWriter(3)
		w.Push(2)
		w.BulkString("invalidate")
	case redirected && to.subscriptions() > 0:
		w = NewWriter(2)
		w.Push(3)
		w.BulkString("message")
		w.BulkString(invalidateChannel)
	default:
		return // RESP2 has no pushes outside pub/sub
	}
	w.Raw(value)
	to.startPusher()
	// A blocked client served by this commit answers its command next:
	// the invalidation follows that reply, as in Redis. The store is held,
	// so its waiter cannot change meanwhile.
	served := to.blocked != nil && !to.blocked.registered()
	to.queuePush(w.Bytes(), !served)
}

// invalidateChannel is the channel a RESP2 redirection target gets
// invalidations on.
const invalidateChannel = "__redis__:invalidate"

// setMaxKeys applies tracking-table-max-keys: past it, keys are forgotten
// at once, each with its invalidation.
func (t *tracker) setMaxKeys(n int64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.maxKeys = n
	t.limit()
	t.refresh()
}

// limit forgets keys, in no particular order, until the table holds no
// more than maxKeys, sending their invalidations as a change would; t.mu
// is held.
func (t *tracker) limit() {
	if t.maxKeys <= 0 {
		return
	}
	for key := range t.keys {
		if int64(len(t.keys)) <= t.maxKeys {
			return
		}
		t.invalidate(key, 0)
	}
}

// counts returns INFO's tracking_clients, tracking_total_keys,
// tracking_total_items and tracking_total_prefixes.
func (t *tracker) counts() (clients, keys, items, prefixes int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.clients, len(t.keys), t.items, len(t.prefixes)
}

// scriptRunner reports whether cmd is a read-only script runner
// (EVAL_RO, EVALSHA_RO, FCALL_RO): the commands its script calls are
// tracked, not the runner itself.
func scriptRunner(cmd *command) bool {
	switch cmd.name {
	case "eval_ro", "evalsha_ro", "fcall_ro":
		return true
	}
	return false
}

// clientByID returns the connected client with id, or nil.
func (s *Server) clientByID(id uint64) *client {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.clients[id]
}

// updateTouches has kv record touched keys while WATCH or client-side
// caching needs them.
func (s *Server) updateTouches() {
	s.kv.SetTrackTouches(!s.watches.empty() || s.tracking.active.Load())
}
