package mongo

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"slices"
	"strconv"
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/mayfly/mayfly/internal/docdb"
	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
)

// Batch limits, as MongoDB applies them.
const (
	// defaultBatchSize is the first batch of find, aggregate and the list
	// commands when the client gives none.
	defaultBatchSize = 101
	// maxBatchBytes bounds the documents of one batch, so a reply stays
	// under the protocol's document limit (FindCommon's
	// kMaxBytesToReturnToClientAtOnce). A batch always holds at least one
	// document.
	maxBatchBytes = MaxBSONObjectSize
)

// cursor is an open server-side cursor: the rest of a find, aggregate or
// list command's results, read batch by batch with getMore.
type cursor struct {
	id   int64
	db   string
	ns   string // the namespace getMore must name: "db.coll", or "db.$cmd.listCollections"
	src  docdb.Cursor
	lsid []byte // the session's id, to end its cursors with endSessions
	// owner is the user that opened the cursor ("" without one): under
	// access control only that user may getMore it.
	owner string
	// noTimeout exempts the cursor from the idle timeout (noCursorTimeout).
	noTimeout bool

	// created is when the cursor was opened; origin is the command that
	// opened it (a copy), for currentOp's idle cursors.
	created time.Time
	origin  bson.Raw

	// Guarded by cursorRegistry.mu.
	lastUsed time.Time
	inUse    bool
	// docs and batches count what the cursor returned.
	docs, batches int64

	// pending is a document read ahead that did not fit in the last batch,
	// re-checked for expiry (docdb.Rechecker) before it is handed out. Only
	// the request holding the cursor (inUse) touches it.
	pending bson.Raw

	// killed, when set, is the error the next getMore fails with: the
	// collection was dropped or renamed (cursors_invalidate.go). Guarded
	// by cursorRegistry.mu.
	killed error
}

// cursorRegistry holds the open cursors by id. A cursor idle for longer than
// the timeout (on the injected clock) is closed by reap.
type cursorRegistry struct {
	now     func() time.Time
	timeout time.Duration

	mu       sync.Mutex
	cursors  map[int64]*cursor
	lastReap time.Time
}

func newCursorRegistry(now func() time.Time, timeout time.Duration) *cursorRegistry {
	return &cursorRegistry{now: now, timeout: timeout, cursors: map[int64]*cursor{}}
}

// add registers c under a new random id, held by the caller (inUse) until
// checkin.
func (r *cursorRegistry) add(c *cursor) {
	r.reapIfDue()
	r.mu.Lock()
	defer r.mu.Unlock()
	for {
		id := rand.Int64()
		if id == 0 {
			continue
		}
		if _, taken := r.cursors[id]; !taken {
			c.id = id
			break
		}
	}
	c.inUse = true
	c.lastUsed = r.now()
	r.cursors[c.id] = c
}

// checkout takes the cursor for one getMore by user owner. The errors are
// MongoDB's.
func (r *cursorRegistry) checkout(id int64, ns, owner string) (*cursor, error) {
	r.reapIfDue()
	r.mu.Lock()
	defer r.mu.Unlock()
	c, ok := r.cursors[id]
	if !ok {
		return nil, errorf(mongoerr.CursorNotFound, "cursor id %d not found", id)
	}
	if c.owner != owner {
		return nil, errorf(mongoerr.Unauthorized, "cursor id %d was not created by the authenticated user", id)
	}
	if c.ns != ns {
		return nil, errorf(mongoerr.Unauthorized, "Requested getMore on namespace '%s', but cursor belongs to a different namespace %s", ns, c.ns)
	}
	if c.inUse {
		return nil, errorf(mongoerr.CursorInUse, "Cursor already in use (namespace: '%s', id: %d).", c.ns, id)
	}
	if c.killed != nil {
		// Closing takes no registry lock; the cursor is gone from the
		// map, so nothing else reaches it.
		delete(r.cursors, id)
		c.src.Close()
		return nil, c.killed
	}
	c.inUse = true
	return c, nil
}

// checkin returns a cursor after a batch of n documents; it is idle from
// now on.
func (r *cursorRegistry) checkin(c *cursor, n int) {
	r.mu.Lock()
	c.inUse = false
	c.lastUsed = r.now()
	c.docs += int64(n)
	c.batches++
	r.mu.Unlock()
}

// release returns a cursor that a refused getMore checked out, unread.
func (r *cursorRegistry) release(c *cursor) {
	r.mu.Lock()
	c.inUse = false
	r.mu.Unlock()
}

// idleCursorOps returns currentOp's documents of the idle cursors (type
// "idleCursor"), in id order.
func (r *cursorRegistry) idleCursorOps(host string, now time.Time, keep func(owner string) bool) []bson.D {
	r.mu.Lock()
	defer r.mu.Unlock()
	var idle []*cursor
	for _, c := range r.cursors {
		if !c.inUse && keep(c.owner) {
			idle = append(idle, c)
		}
	}
	slices.SortFunc(idle, func(a, b *cursor) int { return cmp.Compare(a.id, b.id) })
	out := make([]bson.D, 0, len(idle))
	for _, c := range idle {
		d := bson.D{{Key: "type", Value: "idleCursor"}, {Key: "host", Value: host}, {Key: "ns", Value: c.ns}}
		if c.lsid != nil {
			d = append(d, bson.E{Key: "lsid", Value: bson.D{{Key: "id", Value: bson.Binary{Subtype: bson.TypeBinaryUUID, Data: c.lsid}}}})
		}
		d = append(d, bson.E{Key: "cursor", Value: bson.D{
			{Key: "cursorId", Value: c.id},
			{Key: "createdDate", Value: bson.NewDateTimeFromTime(c.created)},
			{Key: "lastAccessDate", Value: bson.NewDateTimeFromTime(c.lastUsed)},
			{Key: "nDocsReturned", Value: c.docs},
			{Key: "nBatchesReturned", Value: c.batches},
			{Key: "noCursorTimeout", Value: c.noTimeout},
			{Key: "tailable", Value: false},
			{Key: "awaitData", Value: false},
			{Key: "originatingCommand", Value: c.origin},
		}})
		out = append(out, d)
	}
	return out
}

// remove unregisters and closes a cursor its holder exhausted or failed.
func (r *cursorRegistry) remove(c *cursor) {
	r.mu.Lock()
	delete(r.cursors, c.id)
	r.mu.Unlock()
	c.src.Close()
}

// kill closes the cursor with that id in ns; false if there is none. A
// cursor in use by another request is not killed (MongoDB reports it in
// cursorsAlive... only when the kill fails; mayfly reports it not found).
// owner returns the user that opened cursor id of namespace ns, and
// whether there is such a cursor.
func (r *cursorRegistry) owner(id int64, ns string) (string, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	c, ok := r.cursors[id]
	if !ok || c.ns != ns {
		return "", false
	}
	return c.owner, true
}

func (r *cursorRegistry) kill(id int64, ns string) bool {
	r.mu.Lock()
	c, ok := r.cursors[id]
	if !ok || c.ns != ns || c.inUse {
		r.mu.Unlock()
		return false
	}
	delete(r.cursors, id)
	r.mu.Unlock()
	c.src.Close()
	return true
}

// killSessions closes the idle cursors of the given sessions.
func (r *cursorRegistry) killSessions(ids [][]byte) {
	var victims []*cursor
	r.mu.Lock()
	for id, c := range r.cursors {
		if c.inUse || c.lsid == nil {
			continue
		}
		for _, s := range ids {
			if bytes.Equal(c.lsid, s) {
				victims = append(victims, c)
				delete(r.cursors, id)
				break
			}
		}
	}
	r.mu.Unlock()
	for _, c := range victims {
		c.src.Close()
	}
}

// reapIfDue reaps at most once a second of the injected clock, so that
// cursor commands pay for it rarely.
func (r *cursorRegistry) reapIfDue() {
	now := r.now()
	r.mu.Lock()
	due := now.Sub(r.lastReap) >= time.Second
	if due {
		r.lastReap = now
	}
	r.mu.Unlock()
	if due {
		r.reap(now)
	}
}

// reap closes the cursors idle for longer than the timeout at now.
func (r *cursorRegistry) reap(now time.Time) int {
	var victims []*cursor
	r.mu.Lock()
	for id, c := range r.cursors {
		if !c.inUse && !c.noTimeout && now.Sub(c.lastUsed) > r.timeout {
			victims = append(victims, c)
			delete(r.cursors, id)
		}
	}
	r.mu.Unlock()
	for _, c := range victims {
		c.src.Close()
	}
	return len(victims)
}

// open returns the number of open cursors.
func (r *cursorRegistry) open() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.cursors)
}

// closeAll closes every cursor (Shutdown).
func (r *cursorRegistry) closeAll() {
	r.mu.Lock()
	all := r.cursors
	r.cursors = map[int64]*cursor{}
	r.mu.Unlock()
	for _, c := range all {
		c.src.Close()
	}
}

// reapCursors runs until Shutdown, reaping idle cursors every few seconds
// of real time (MongoDB's clientCursorMonitorFrequencySecs is 4). The
// timeout itself is measured on the injected clock.
func (s *Server) reapCursors() {
	t := time.NewTicker(4 * time.Second)
	defer t.Stop()
	for {
		select {
		case <-s.closed:
			return
		case <-t.C:
			if n := s.cursors.reap(s.now()); n > 0 {
				s.log.Info("Cursors timed out", "numTimedOut", n)
			}
			s.reapSessions()
			s.reapTxns()
		}
	}
}

// nextBatch reads the next batch of c: at most n documents (n < 0: no
// count limit) and about maxBatchBytes. exhausted is true when the source
// reached its end while the batch was read, or knows without reading that
// it has (docdb.Finisher), as MongoDB closes a cursor; a batch full by
// count otherwise leaves it open, and the next getMore finds the end. A
// document read that did not fit the bytes is kept for the next batch.
func nextBatch(ctx context.Context, c *cursor, n int64) (batch []bson.Raw, exhausted bool, err error) {
	next := func() (bson.Raw, error) {
		if c.pending != nil {
			d := c.pending
			c.pending = nil
			// The document read ahead may have expired since.
			if rc, ok := c.src.(docdb.Rechecker); !ok || rc.StillVisible() {
				return d, nil
			}
		}
		return c.src.Next(ctx)
	}
	size := 0
	for n < 0 || int64(len(batch)) < n {
		d, err := next()
		if errors.Is(err, io.EOF) {
			return batch, true, nil
		}
		if err != nil {
			return nil, false, err
		}
		// The batch array's bytes: each document with its element
		// header (type, decimal index key, NUL), as MongoDB counts them.
		elem := len(d) + 2 + arrayKeyLen(len(batch))
		if len(batch) > 0 && size+elem > maxBatchBytes {
			c.pending = d
			return batch, false, nil
		}
		batch = append(batch, d)
		size += elem
	}
	f, ok := c.src.(docdb.Finisher)
	return batch, c.pending == nil && ok && f.Finished(), nil
}

// sliceCursor is a docdb.Cursor over documents already in memory (the
// results of listCollections, listIndexes, $collStats).
type sliceCursor struct {
	docs []bson.Raw
	i    int
}

func (s *sliceCursor) Next(context.Context) (bson.Raw, error) {
	if s.i >= len(s.docs) {
		return nil, io.EOF
	}
	d := s.docs[s.i]
	s.i++
	return d, nil
}

func (s *sliceCursor) Close() {}

// Finished implements docdb.Finisher: the results are in memory.
func (s *sliceCursor) Finished() bool { return s.i >= len(s.docs) }

// cursorReply is the cursor field of a find, aggregate, list or getMore
// reply: {cursor: {firstBatch|nextBatch: [...], id, ns}}. The cursor
// document is encoded here, the batch's documents copied byte for byte, so
// that the reply's encoder does not walk the batch by reflection.
func cursorReply(batchKey string, batch []bson.Raw, id int64, ns string) bson.D {
	return bson.D{{Key: "cursor", Value: cursorDoc(batchKey, batch, id, ns)}}
}

// cursorDoc encodes {batchKey: [batch...], id, ns}.
func cursorDoc(batchKey string, batch []bson.Raw, id int64, ns string) bson.Raw {
	size := 4 + 1 + len(batchKey) + 1 + 4 + 1 + 1 + 3 + 8 + 1 + 3 + 4 + len(ns) + 1 + 1
	for i, d := range batch {
		size += 1 + arrayKeyLen(i) + 1 + len(d)
	}
	out := make([]byte, 0, size)
	start, out := bsoncore.AppendDocumentStart(out)
	arr, out := bsoncore.AppendArrayElementStart(out, batchKey)
	var key [20]byte
	for i, d := range batch {
		out = bsoncore.AppendDocumentElement(out, string(strconv.AppendInt(key[:0], int64(i), 10)), d)
	}
	out, _ = bsoncore.AppendArrayEnd(out, arr)
	out = bsoncore.AppendInt64Element(out, "id", id)
	out = bsoncore.AppendStringElement(out, "ns", ns)
	out, _ = bsoncore.AppendDocumentEnd(out, start)
	return out
}

// arrayKeyLen is the length of the decimal key of array index i.
func arrayKeyLen(i int) int {
	n := 1
	for i >= 10 {
		i /= 10
		n++
	}
	return n
}

// killAllSessions closes every idle cursor opened in a session.
func (r *cursorRegistry) killAllSessions() {
	var victims []*cursor
	r.mu.Lock()
	for id, c := range r.cursors {
		if !c.inUse && c.lsid != nil {
			victims = append(victims, c)
			delete(r.cursors, id)
		}
	}
	r.mu.Unlock()
	for _, c := range victims {
		c.src.Close()
	}
}
