package events

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/storage"
)

// Default retention of the log.
const (
	DefaultRetention = 24 * time.Hour
	DefaultMaxBytes  = 1 << 30
)

// trimEvery is how often Run trims the log.
const trimEvery = time.Second

// Options configure a Log.
type Options struct {
	// Retention is how long records are kept; zero means DefaultRetention,
	// a negative value keeps them regardless of age.
	Retention time.Duration
	// ContentRetention is how long the content of changes (the documents
	// and update descriptions events show) is kept, when shorter than
	// Retention; zero or negative keeps it as long as the records.
	ContentRetention time.Duration
	// MaxBytes bounds the records' size (keys and values); zero means
	// DefaultMaxBytes, a negative value sets no bound.
	MaxBytes int64
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Logger receives trimming errors; nil means slog.Default().
	Logger *slog.Logger
}

// Log is the change log on one store. It is safe for concurrent use.
type Log struct {
	store *storage.Store
	opts  Options

	mu sync.Mutex
	// last is the largest sequence number given; bytes the approximate
	// size of the records kept.
	last  uint64
	bytes int64
	// trimmed is the sequence number of the last record trimmed: a
	// reader positioned before it has lost history.
	trimmed uint64
	// inflight holds the first sequence number of each batch given
	// numbers and not yet committed or failed.
	inflight map[uint64]int
	// visible is the largest number below every batch in flight.
	visible uint64
	// changed is closed, and replaced, whenever visible grows while
	// someone holds it (handed is set when Changed gave it out).
	changed chan struct{}
	handed  bool
	// inserts finds the inserts that refer to their stored document.
	inserts *insertIndex
	// refs counts the committed insert records that refer to their
	// stored document, by the Unix second of their sequence numbers, for
	// the seconds whose content may be kept (refCount.go).
	refs refCount
}

// keyPrefix is the log's keyspace: the events prefix and 'm' for the
// document database's log.
//
// The records of one batch are one entry, under the sequence number of the
// first: its value is the commit's wall time (Unix ms, 8 bytes big-endian)
// then each record as its length (uvarint) and its BSON, numbered on from
// the first one by one. One entry per batch spares a batch of many changes
// a key per change.
var keyPrefix = []byte{storage.PrefixEvents, 'm'}

// Key returns the storage key of the entry whose first record has
// sequence number seq.
func Key(seq uint64) []byte {
	return binary.BigEndian.AppendUint64(append([]byte(nil), keyPrefix...), seq)
}

// trimKey holds the sequence number of the last record trimmed.
var trimKey = []byte{storage.PrefixEvents, 'n'}

// Open opens the log of store, continuing its sequence after the last
// record kept.
func Open(store *storage.Store, opts Options) (*Log, error) {
	if opts.Retention == 0 {
		opts.Retention = DefaultRetention
	}
	if opts.MaxBytes == 0 {
		opts.MaxBytes = DefaultMaxBytes
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	l := &Log{store: store, opts: opts, inflight: map[uint64]int{}, changed: make(chan struct{}), inserts: newInsertIndex()}
	it, err := store.NewIter(keyPrefix, storage.PrefixEnd(keyPrefix))
	if err != nil {
		return nil, fmt.Errorf("events: open: %w", err)
	}
	defer it.Close()
	for ok := it.First(); ok; ok = it.Next() {
		l.bytes += int64(len(it.Key()) + len(it.Value()))
	}
	if err := it.Error(); err != nil {
		return nil, fmt.Errorf("events: open: %w", err)
	}
	if it.Last() {
		first, n, err := entryCount(it.Key(), it.Value())
		if err != nil {
			return nil, fmt.Errorf("events: open: %w", err)
		}
		l.last = first + uint64(n) - 1
	}
	l.visible = l.last
	v, err := store.Get(trimKey)
	switch {
	case err == nil && len(v) == 8:
		l.trimmed = binary.BigEndian.Uint64(v)
	case err != nil && !errors.Is(err, storage.ErrNotFound):
		return nil, fmt.Errorf("events: open: %w", err)
	}
	if err := l.countRefs(); err != nil {
		return nil, fmt.Errorf("events: open: %w", err)
	}
	return l, nil
}

// nextSeq returns the sequence number after l.last for a record written at
// now. The caller holds mu.
func (l *Log) nextSeq(now time.Time) uint64 {
	s := uint64(now.Unix()) << 32
	if s <= l.last {
		s = l.last + 1
	} else {
		s |= 1
	}
	l.last = s
	return s
}

// Commit gives recs their sequence numbers, adds them to b, and commits b
// with commit (which must commit b and nothing else). The records become
// visible once every batch given numbers before them is done.
func (l *Log) Commit(b *storage.Batch, recs [][]byte, commit func() error) error {
	if len(recs) == 0 {
		return commit()
	}
	now := l.opts.Now()
	// The key and the value share one buffer; the key is filled in once
	// the sequence number is known.
	kl := len(keyPrefix) + 8
	n := kl + 8
	for _, r := range recs {
		n += binary.MaxVarintLen32 + len(r)
	}
	buf := binary.BigEndian.AppendUint64(make([]byte, kl, n), uint64(now.UnixMilli()))
	for _, r := range recs {
		buf = binary.AppendUvarint(buf, uint64(len(r)))
		buf = append(buf, r...)
	}
	k, v := buf[:kl], buf[kl:]
	copy(k, keyPrefix)
	l.mu.Lock()
	// The numbers of one batch follow one another: nextSeq gives the last
	// one plus one within a second.
	first := l.nextSeq(now)
	l.last = first + uint64(len(recs)) - 1
	binary.BigEndian.PutUint64(k[len(keyPrefix):], first)
	if err := b.Set(k, v); err != nil {
		l.last = first - 1
		l.mu.Unlock()
		return err
	}
	size := int64(len(k) + len(v))
	refs := 0
	for _, r := range recs {
		if isInsertRef(r) {
			refs++
		}
	}
	l.inflight[first]++
	l.mu.Unlock()
	err := commit()
	l.mu.Lock()
	if l.inflight[first]--; l.inflight[first] == 0 {
		delete(l.inflight, first)
	}
	if err == nil {
		l.bytes += size
		l.refs.add(first, refs)
	}
	l.advance()
	l.mu.Unlock()
	return err
}

// advance recomputes visible and wakes the waiters when it grew. The
// caller holds mu.
func (l *Log) advance() {
	v := l.last
	for f := range l.inflight {
		if f-1 < v {
			v = f - 1
		}
	}
	if v > l.visible {
		l.visible = v
		if l.handed {
			close(l.changed)
			l.changed, l.handed = make(chan struct{}), false
		}
	}
}

// Lost reports whether the record seq, or records after it, may have been
// trimmed: a token naming a record the log no longer holds cannot be
// resumed from, even when nothing after it is gone.
func (l *Log) Lost(seq uint64) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.trimmed > 0 && seq <= l.trimmed
}

// Visible returns the largest sequence number a reader may read up to.
func (l *Log) Visible() uint64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.visible
}

// Changed returns a channel closed once Visible grows past what it is now,
// and Visible as of the call.
func (l *Log) Changed() (<-chan struct{}, uint64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.handed = true
	return l.changed, l.visible
}

// Wait blocks until Visible exceeds after, ctx is done or d has passed,
// and returns Visible.
func (l *Log) Wait(ctx context.Context, after uint64, d time.Duration) uint64 {
	ch, v := l.Changed()
	if v > after || d <= 0 {
		return v
	}
	t := time.NewTimer(d)
	defer t.Stop()
	for {
		select {
		case <-ch:
			if ch, v = l.Changed(); v > after {
				return v
			}
		case <-t.C:
			return l.Visible()
		case <-ctx.Done():
			return l.Visible()
		}
	}
}

// Event is one record read back from the log.
type Event struct {
	Seq uint64
	// Wall is when the record's batch committed (Unix ms).
	Wall int64
	Record
}

// Oldest returns the sequence number of the oldest record kept; ok is
// false when the log is empty.
func (l *Log) Oldest() (seq uint64, ok bool, err error) {
	it, err := l.store.NewIter(keyPrefix, storage.PrefixEnd(keyPrefix))
	if err != nil {
		return 0, false, err
	}
	defer it.Close()
	if !it.First() {
		return 0, false, it.Error()
	}
	return binary.BigEndian.Uint64(it.Key()[len(keyPrefix):]), true, nil
}

// Read returns up to max records (max > 0) with sequence numbers after
// after, up to upTo (normally Visible), in order; Resolve reads the
// content of those a reader shows.
func (l *Log) Read(after, upTo uint64, max int) ([]Event, error) {
	if upTo <= after {
		return nil, nil
	}
	it, err := l.store.NewIter(keyPrefix, Key(upTo+1))
	if err != nil {
		return nil, fmt.Errorf("events: read: %w", err)
	}
	defer it.Close()
	// The entry holding after+1 is the last one starting at or before it.
	ok := it.SeekLT(Key(after + 2))
	if !ok {
		ok = it.First()
	}
	var out []Event
	for ; ok && len(out) < max; ok = it.Next() {
		first, wall, recs, err := decodeEntry(it.Key(), it.Value())
		if err != nil {
			return nil, err
		}
		// ns is the namespace of the last record that named one.
		var ns namespace
		for i, raw := range recs {
			seq := first + uint64(i)
			if seq <= after {
				if n, ok := recordNamespace(raw); ok {
					ns = n
				}
				continue
			}
			if seq > upTo || len(out) >= max {
				return out, nil
			}
			rec, err := decodeRecordAt(raw, seq)
			if err != nil {
				return nil, err
			}
			if rec.DB == "" {
				if ns.db == "" {
					return nil, errMalformed
				}
				rec.DB, rec.Coll, rec.UUID = ns.db, ns.coll, ns.uuid
			} else {
				ns = namespace{db: rec.DB, coll: rec.Coll, uuid: rec.UUID}
			}
			out = append(out, Event{Seq: seq, Wall: wall, Record: rec})
		}
	}
	return out, it.Error()
}

// namespace is the namespace a record names.
type namespace struct {
	db, coll string
	uuid     *bson.Binary
}

// recordNamespace returns the namespace record raw names; false when it
// names none (it is in its predecessor's).
func recordNamespace(raw []byte) (namespace, bool) {
	if isInsertRef(raw) {
		ir, err := decodeInsertRef(raw)
		return ir.ns, err == nil && ir.named
	}
	doc := bson.Raw(raw)
	db, ok := doc.Lookup("db").StringValueOK()
	if !ok {
		return namespace{}, false
	}
	ns := namespace{db: db}
	ns.coll, _ = doc.Lookup("coll").StringValueOK()
	if st, data, ok := doc.Lookup("uuid").BinaryOK(); ok {
		ns.uuid = &bson.Binary{Subtype: st, Data: bytes.Clone(data)}
	}
	return ns, true
}

// decodeEntry splits one stored entry into its first sequence number,
// wall time and records.
func decodeEntry(k, v []byte) (first uint64, wall int64, recs [][]byte, err error) {
	if len(k) != len(keyPrefix)+8 || len(v) < 8 {
		return 0, 0, nil, errMalformed
	}
	first, wall = binary.BigEndian.Uint64(k[len(keyPrefix):]), int64(binary.BigEndian.Uint64(v))
	for rest := v[8:]; len(rest) > 0; {
		n, w := binary.Uvarint(rest)
		if w <= 0 || n > uint64(len(rest)-w) {
			return 0, 0, nil, errMalformed
		}
		recs = append(recs, rest[w:w+int(n)])
		rest = rest[w+int(n):]
	}
	if len(recs) == 0 {
		return 0, 0, nil, errMalformed
	}
	return first, wall, recs, nil
}

// entryCount returns an entry's first sequence number and how many records
// it holds.
func entryCount(k, v []byte) (first uint64, n int, err error) {
	if len(k) != len(keyPrefix)+8 || len(v) < 8 {
		return 0, 0, errMalformed
	}
	for rest := v[8:]; len(rest) > 0; n++ {
		l, w := binary.Uvarint(rest)
		if w <= 0 || l > uint64(len(rest)-w) {
			return 0, 0, errMalformed
		}
		rest = rest[w+int(l):]
	}
	if n == 0 {
		return 0, 0, errMalformed
	}
	return binary.BigEndian.Uint64(k[len(keyPrefix):]), n, nil
}

var errMalformed = errors.New("events: malformed entry")

// Trim deletes the records older than the retention and, while the log is
// larger than its bound, the oldest ones, with one range deletion.
func (l *Log) Trim() error {
	var cutKey, end []byte
	if l.opts.Retention > 0 {
		cut := l.opts.Now().Add(-l.opts.Retention).Unix()
		if cut > 0 {
			cutKey = Key(uint64(cut) << 32)
		}
	}
	l.mu.Lock()
	over := l.bytes - l.opts.MaxBytes
	visible := l.visible
	l.mu.Unlock()
	var removed int64
	var lastSeq uint64
	it, err := l.store.NewIter(keyPrefix, storage.PrefixEnd(keyPrefix))
	if err != nil {
		return err
	}
	for ok := it.First(); ok; ok = it.Next() {
		k := it.Key()
		first, n, err := entryCount(k, it.Value())
		if err != nil {
			it.Close()
			return err
		}
		if first+uint64(n)-1 >= visible {
			break // keep the last entry: it carries the sequence across restarts
		}
		byAge := cutKey != nil && string(k) < string(cutKey)
		bySize := l.opts.MaxBytes > 0 && removed < over
		if !byAge && !bySize {
			break
		}
		removed += int64(len(k) + len(it.Value()))
		lastSeq = first + uint64(n) - 1
		end = append(append([]byte(nil), k...), 0)
	}
	if err := errors.Join(it.Error(), it.Close()); err != nil {
		return err
	}
	if removed == 0 {
		return nil
	}
	b := l.store.NewBatch()
	defer b.Close()
	if err := b.DeleteRange(keyPrefix, end); err != nil {
		return err
	}
	if err := b.Set(trimKey, binary.BigEndian.AppendUint64(nil, lastSeq)); err != nil {
		return err
	}
	if err := b.Commit(); err != nil {
		return fmt.Errorf("events: trim: %w", err)
	}
	l.mu.Lock()
	l.trimmed = lastSeq
	l.bytes -= removed
	l.mu.Unlock()
	return nil
}

// TrimAll trims the records (Trim) and the content older than
// ContentRetention.
func (l *Log) TrimAll() error {
	err := errors.Join(l.Trim(), l.trimContent())
	l.forgetInserts(l.contentCut())
	return err
}

// Run trims the log every second until ctx is done. A store that does
// not accept writes (a replica set member that is not primary) is not
// trimmed: the primary's trimming reaches it as replicated deletions.
func (l *Log) Run(ctx context.Context) {
	t := time.NewTicker(trimEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if l.store.Writable() != nil {
				continue
			}
			if err := l.TrimAll(); err != nil && !errors.Is(err, storage.ErrClosed) {
				l.opts.Logger.Error("events: trim the change log", "err", err)
			}
		}
	}
}
