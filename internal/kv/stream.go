package kv

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/mayfly/mayfly/internal/storage"
)

// Streams. The record's payload holds, after the entry count: the last ID
// (16 bytes), the largest ID ever deleted by XDEL (16), the number of
// entries ever added (8), the number of consumer groups (8), the tail
// node with its fill (8 + 8) and the first entry's ID (16, 0-0 when
// empty). Under the version live four namespaces:
//
//	'e' [id 16]                      -> node u64, field-value pairs (an entry)
//	'g' [group]                      -> consumer group record (stream_group.go)
//	'c' [len u32] [group] [consumer] -> consumer record (stream_group.go)
//	'p' [len u32] [group] [id 16]    -> pending entry (stream_pending.go)
//
// IDs are big-endian (ms, seq), so entries come in ID order: XRANGE is one
// seek and a walk, trimming deletes the entries before the first one kept
// (one range deletion when they are many). Walks start at the first
// entry's ID, never before: the deletions of earlier entries are not
// walked over again. A stream stays when its last entry goes (XDEL,
// XTRIM), as in Redis; only DEL or expiry removes it.
//
// Redis keeps entries in macro nodes of stream-node-max-entries entries
// and trims by whole nodes with "~". Each entry records the node it was
// added to (a new one once the tail node holds that many), so approximate
// trimming removes the same whole groups of entries Redis would.

const (
	streamEntryNS    = 'e'
	streamGroupNS    = 'g'
	streamConsumerNS = 'c'
	streamPendingNS  = 'p'

	streamPayloadLen = 8 + 16 + 16 + 8 + 8 + 8 + 8 + 16

	// streamEntryMaxSize is the largest total size of an entry's fields
	// and values, Redis's limit of one listpack.
	streamEntryMaxSize = 1 << 30

	// trimRangeMin is how many trimmed entries make one range deletion
	// instead of one deletion each.
	trimRangeMin = 1024
)

// StreamEntry is one entry of a stream. Fields holds field, value, field,
// value...; it is nil for an entry that no longer exists (a pending ID
// whose entry was deleted).
type StreamEntry struct {
	ID     StreamID
	Fields [][]byte
}

// streamState is a stream as read in a Tx.
type streamState struct {
	orig     Meta
	found    bool
	version  uint64
	expireAt int64
	length   uint64
	last     StreamID
	maxDel   StreamID
	added    uint64
	groups   uint64
	tailNode uint64
	tailFill uint64
	first    StreamID
}

func (tx *Tx) streamFor(key []byte, read bool) (streamState, error) {
	m, ok, err := tx.lookupColl(key, TypeStream, read)
	if err != nil || !ok {
		return streamState{}, err
	}
	return decodeStream(key, m)
}

func decodeStream(key []byte, m Meta) (streamState, error) {
	p := m.Payload
	if len(p) < streamPayloadLen {
		return streamState{}, fmt.Errorf("%w: stream %q record of %d bytes", ErrCorrupt, key, len(p))
	}
	return streamState{
		orig: m, found: true, version: m.Version, expireAt: m.ExpireAt,
		length:   binary.BigEndian.Uint64(p[0:8]),
		last:     decodeStreamID(p[8:24]),
		maxDel:   decodeStreamID(p[24:40]),
		added:    binary.BigEndian.Uint64(p[40:48]),
		groups:   binary.BigEndian.Uint64(p[48:56]),
		tailNode: binary.BigEndian.Uint64(p[56:64]),
		tailFill: binary.BigEndian.Uint64(p[64:72]),
		first:    decodeStreamID(p[72:88]),
	}, nil
}

// streamCreate gives a missing stream its version.
func (tx *Tx) streamCreate(s *streamState) {
	if !s.found && s.version == 0 {
		s.version = tx.NewVersion()
	}
}

// streamSave stores the stream's record, keeping its expiry.
func (tx *Tx) streamSave(key []byte, s *streamState) error {
	nm := Meta{Type: TypeStream, Version: s.version, ExpireAt: s.expireAt, ElemBytes: -1, Payload: s.encode()} // streams do not keep element bytes
	if err := tx.PutMeta(key, s.orig, s.found, nm); err != nil {
		return err
	}
	s.orig, s.found = nm, true
	return nil
}

// encode returns the stream's record payload.
func (s *streamState) encode() []byte {
	p := make([]byte, 0, streamPayloadLen)
	p = binary.BigEndian.AppendUint64(p, s.length)
	p = s.last.encode(p)
	p = s.maxDel.encode(p)
	p = binary.BigEndian.AppendUint64(p, s.added)
	p = binary.BigEndian.AppendUint64(p, s.groups)
	p = binary.BigEndian.AppendUint64(p, s.tailNode)
	p = binary.BigEndian.AppendUint64(p, s.tailFill)
	return s.first.encode(p)
}

func (tx *Tx) streamEntryKey(s *streamState, id StreamID) []byte {
	return tx.elemKey(s.version, []byte{streamEntryNS}, id.encode(nil))
}

func encodeStreamEntry(node uint64, fields [][]byte) []byte {
	n := 8 + binary.MaxVarintLen64
	for _, f := range fields {
		n += binary.MaxVarintLen64 + len(f)
	}
	b := binary.BigEndian.AppendUint64(make([]byte, 0, n), node)
	b = binary.AppendUvarint(b, uint64(len(fields)))
	for _, f := range fields {
		b = binary.AppendUvarint(b, uint64(len(f)))
		b = append(b, f...)
	}
	return b
}

// decodeStreamEntry returns the node and the fields (copies) of an entry.
func decodeStreamEntry(b []byte) (uint64, [][]byte, error) {
	errBad := fmt.Errorf("%w: stream entry of %d bytes", ErrCorrupt, len(b))
	if len(b) < 9 {
		return 0, nil, errBad
	}
	node := binary.BigEndian.Uint64(b[:8])
	b = b[8:]
	n, w := binary.Uvarint(b)
	if w <= 0 || n > uint64(len(b)) {
		return 0, nil, errBad
	}
	b = b[w:]
	fields := make([][]byte, 0, n)
	for i := uint64(0); i < n; i++ {
		l, w := binary.Uvarint(b)
		if w <= 0 || l > uint64(len(b)-w) {
			return 0, nil, errBad
		}
		fields = append(fields, append([]byte{}, b[w:w+int(l)]...))
		b = b[w+int(l):]
	}
	return node, fields, nil
}

// streamGet reads one entry; ok is false when it does not exist.
func (tx *Tx) streamGet(s *streamState, id StreamID) (StreamEntry, bool, error) {
	if s.version == 0 {
		return StreamEntry{}, false, nil
	}
	v, err := tx.reader().Get(tx.streamEntryKey(s, id))
	if errors.Is(err, storage.ErrNotFound) {
		return StreamEntry{}, false, nil
	}
	if err != nil {
		return StreamEntry{}, false, err
	}
	_, fields, err := decodeStreamEntry(v)
	if err != nil {
		return StreamEntry{}, false, err
	}
	return StreamEntry{ID: id, Fields: fields}, true, nil
}

// streamRange returns the entries with IDs in [start, end], from the end
// with rev, at most count of them (0 for all).
func (tx *Tx) streamRange(s *streamState, start, end StreamID, count int64, rev bool) ([]StreamEntry, error) {
	out := []StreamEntry{}
	if start.Compare(s.first) < 0 {
		start = s.first
	}
	if s.version == 0 || s.length == 0 || start.Compare(end) > 0 {
		return out, nil
	}
	ns := tx.elemKey(s.version, []byte{streamEntryNS})
	lo := start.encode(append([]byte{}, ns...))
	hi := storage.PrefixEnd(end.encode(append([]byte{}, ns...)))
	it, err := tx.reader().NewIter(lo, hi)
	if err != nil {
		return nil, err
	}
	step := it.First
	next := it.Next
	if rev {
		step, next = it.Last, it.Prev
	}
	for ok := step(); ok; ok = next() {
		_, fields, err := decodeStreamEntry(it.Value())
		if err != nil {
			it.Close()
			return nil, err
		}
		out = append(out, StreamEntry{ID: decodeStreamID(it.Key()[len(ns):]), Fields: fields})
		if count > 0 && int64(len(out)) >= count {
			break
		}
	}
	return out, it.Close()
}

// streamEdge returns the first (or last) entry's ID; ok is false for an
// empty stream.
func (tx *Tx) streamEdge(s *streamState, last bool) (StreamID, bool, error) {
	if s.version == 0 || s.length == 0 {
		return StreamID{}, false, nil
	}
	if !last {
		return s.first, true, nil
	}
	es, err := tx.streamRange(s, s.first, MaxStreamID, 1, true)
	if err != nil || len(es) == 0 {
		return StreamID{}, false, err
	}
	return es[0].ID, true, nil
}

// streamSeekFirst sets s.first to the first entry at or after from
// (0-0 when there is none).
func (tx *Tx) streamSeekFirst(s *streamState, from StreamID) error {
	s.first = StreamID{}
	if s.length == 0 {
		return nil
	}
	es, err := tx.streamRange(s, from, MaxStreamID, 1, false)
	if err != nil || len(es) == 0 {
		return err
	}
	s.first = es[0].ID
	return nil
}

// Trim strategies of XADD and XTRIM.
const (
	TrimNone = iota
	TrimMaxLen
	TrimMinID
)

// StreamTrim is the trimming of XADD and XTRIM: keep at most MaxLen
// entries, or none below MinID. Approx ("~") removes whole nodes only,
// at most Limit entries (0 for no limit).
type StreamTrim struct {
	Strategy int
	MaxLen   int64
	MinID    StreamID
	Approx   bool
	Limit    int64
}

// streamTrim removes entries from the head of s by t and returns how many.
func (tx *Tx) streamTrim(s *streamState, t StreamTrim) (int64, error) {
	if t.Strategy == TrimNone || s.version == 0 || s.length == 0 {
		return 0, nil
	}
	if t.Strategy == TrimMaxLen && s.length <= uint64(t.MaxLen) {
		return 0, nil
	}
	ns := tx.elemKey(s.version, []byte{streamEntryNS})
	lo := s.first.encode(append([]byte{}, ns...))
	it, err := tx.reader().NewIter(lo, storage.PrefixEnd(ns))
	if err != nil {
		return 0, err
	}
	var removed int64
	var keep []byte // the key of the first entry kept, nil for none
	var gone [][]byte
	length := int64(s.length)
	if t.Approx {
		removed, keep, err = streamTrimNodes(it, ns, length, t)
	} else {
		for ok := it.First(); ok; ok = it.Next() {
			stop := false
			if t.Strategy == TrimMaxLen {
				stop = length-removed <= t.MaxLen
			} else {
				stop = decodeStreamID(it.Key()[len(ns):]).Compare(t.MinID) >= 0
			}
			if stop {
				keep = append([]byte{}, it.Key()...)
				break
			}
			if removed < trimRangeMin {
				gone = append(gone, append([]byte{}, it.Key()...))
			}
			removed++
		}
	}
	if cerr := it.Close(); err == nil {
		err = cerr
	}
	if err != nil || removed == 0 {
		return 0, err
	}
	if keep == nil {
		keep = storage.PrefixEnd(ns)
	}
	b := tx.batch()
	if removed < trimRangeMin && !t.Approx {
		for _, k := range gone {
			if err := b.Delete(k); err != nil {
				return 0, err
			}
		}
	} else if err := b.DeleteRange(lo, keep); err != nil {
		return 0, err
	}
	s.length -= uint64(removed)
	s.first = StreamID{}
	if s.length == 0 {
		s.tailFill = 0 // the tail node went with the rest
	} else {
		s.first = decodeStreamID(keep[len(ns):])
	}
	return removed, nil
}

// streamTrimNodes finds the whole nodes "~" trimming removes, from the
// head: a node goes while the stream keeps at least MaxLen entries without
// it (or its last entry is below MinID) and the total stays within Limit.
func streamTrimNodes(it *storage.Iter, ns []byte, length int64, t StreamTrim) (removed int64, keep []byte, err error) {
	ok := it.First()
	for ok {
		if t.Strategy == TrimMaxLen && length-removed <= t.MaxLen {
			break
		}
		start := append([]byte{}, it.Key()...)
		node := binary.BigEndian.Uint64(it.Value()[:8])
		var entries int64
		var lastID StreamID
		for ok && binary.BigEndian.Uint64(it.Value()[:8]) == node {
			entries++
			lastID = decodeStreamID(it.Key()[len(ns):])
			ok = it.Next()
		}
		if t.Limit > 0 && removed+entries > t.Limit {
			return removed, start, nil
		}
		var remove bool
		if t.Strategy == TrimMaxLen {
			remove = length-removed-entries >= t.MaxLen
		} else {
			remove = lastID.Compare(t.MinID) < 0
		}
		if !remove {
			return removed, start, nil
		}
		removed += entries
	}
	if ok {
		keep = append([]byte{}, it.Key()...)
	}
	return removed, keep, it.Error()
}

// Errors of stream IDs.
var (
	// ErrStreamIDTooSmall is returned by XADD for an ID not above the
	// stream's last one.
	ErrStreamIDTooSmall = errors.New("kv: the ID is equal or smaller than the stream top item")
	// ErrStreamExhausted is returned by XADD when the stream's last ID is
	// the largest possible.
	ErrStreamExhausted = errors.New("kv: the stream has exhausted the last possible ID")
	// ErrStreamEntryTooLarge is returned by XADD for fields and values
	// larger than streamEntryMaxSize together.
	ErrStreamEntryTooLarge = errors.New("kv: elements are too large to be stored")
	// ErrNoGroup is returned when a stream or consumer group is missing.
	ErrNoGroup = errors.New("kv: no such key or consumer group")
	// ErrBusyGroup is returned when creating a group that exists.
	ErrBusyGroup = errors.New("kv: consumer group name already exists")
	// ErrStreamSetIDSmall is returned by XSETID for an ID below the top
	// entry.
	ErrStreamSetIDSmall = errors.New("kv: the ID is smaller than the target stream top item")
	// ErrStreamSetIDAdded is returned by XSETID for an entries-added count
	// below the stream's length.
	ErrStreamSetIDAdded = errors.New("kv: the entries_added is smaller than the target stream length")
)

// XAddArgs are XADD's options. ID is used when IDGiven (its sequence
// only when SeqGiven: "<ms>-*" picks the next one); otherwise the ID is
// generated from the clock. NodeEntries is stream-node-max-entries.
type XAddArgs struct {
	ID          StreamID
	IDGiven     bool
	SeqGiven    bool
	NoMkStream  bool
	Trim        StreamTrim
	NodeEntries int64
}

// XAdd appends an entry (fields as field, value, ...) to the stream at
// key, creating it unless NoMkStream (ok false then), and trims it.
// Events: `xadd`, and `xtrim` when trimming removed entries.
func (tx *Tx) XAdd(key []byte, a XAddArgs, fields [][]byte) (StreamID, bool, error) {
	s, err := tx.streamFor(key, false)
	if err != nil {
		return StreamID{}, false, err
	}
	if !s.found && a.NoMkStream {
		return StreamID{}, false, nil
	}
	if s.last == MaxStreamID {
		return StreamID{}, false, ErrStreamExhausted
	}
	var id StreamID
	switch {
	case a.IDGiven && a.SeqGiven:
		id = a.ID
	case a.IDGiven:
		id = StreamID{Ms: a.ID.Ms}
		if a.ID.Ms == s.last.Ms {
			if s.last.Seq == MaxStreamID.Seq {
				return StreamID{}, false, ErrStreamIDTooSmall
			}
			id.Seq = s.last.Seq + 1
		}
	default:
		now := uint64(max(tx.now, 0))
		if now > s.last.Ms {
			id = StreamID{Ms: now}
		} else {
			id, _ = s.last.Next()
		}
	}
	if id.Compare(s.last) <= 0 {
		return StreamID{}, false, ErrStreamIDTooSmall
	}
	var size int
	for _, f := range fields {
		size += len(f)
	}
	if size > streamEntryMaxSize {
		return StreamID{}, false, ErrStreamEntryTooLarge
	}
	tx.streamCreate(&s)
	if s.tailNode == 0 || (a.NodeEntries > 0 && s.tailFill >= uint64(a.NodeEntries)) {
		s.tailNode++
		s.tailFill = 0
	}
	s.tailFill++
	if err := tx.batch().Set(tx.streamEntryKey(&s, id), encodeStreamEntry(s.tailNode, fields)); err != nil {
		return StreamID{}, false, err
	}
	s.length++
	s.added++
	s.last = id
	if s.length == 1 {
		s.first = id
	}
	removed, err := tx.streamTrim(&s, a.Trim)
	if err != nil {
		return StreamID{}, false, err
	}
	if err := tx.streamSave(key, &s); err != nil {
		return StreamID{}, false, err
	}
	tx.notify(ClassStream, "xadd", key)
	if removed > 0 {
		tx.notify(ClassStream, "xtrim", key)
	}
	return id, true, nil
}

// XTrim trims the stream at key and returns how many entries went; the
// event is `xtrim` when some did.
func (tx *Tx) XTrim(key []byte, t StreamTrim) (int64, error) {
	s, err := tx.streamFor(key, false)
	if err != nil || !s.found {
		return 0, err
	}
	removed, err := tx.streamTrim(&s, t)
	if err != nil || removed == 0 {
		return 0, err
	}
	if err := tx.streamSave(key, &s); err != nil {
		return 0, err
	}
	tx.notify(ClassStream, "xtrim", key)
	return removed, nil
}

// XLen returns the number of entries of the stream at key.
func (tx *Tx) XLen(key []byte) (int64, error) {
	s, err := tx.streamFor(key, true)
	return int64(s.length), err
}

// XRange returns the entries of the stream at key with IDs in [start,
// end] (from end down to start with rev), at most count (0 for all).
func (tx *Tx) XRange(key []byte, start, end StreamID, count int64, rev bool) ([]StreamEntry, error) {
	s, err := tx.streamFor(key, true)
	if err != nil {
		return nil, err
	}
	return tx.streamRange(&s, start, end, count, rev)
}

// XReadResult is what XREAD finds in one stream.
type XReadResult struct {
	Key     []byte
	Entries []StreamEntry
}

// XRead returns the entries of the stream at key after id, at most count
// (0 for all); found is false when key is missing.
func (tx *Tx) XRead(key []byte, after StreamID, count int64) (entries []StreamEntry, found bool, err error) {
	s, err := tx.streamFor(key, true)
	if err != nil || !s.found {
		return nil, false, err
	}
	start, ok := after.Next()
	if !ok {
		return []StreamEntry{}, true, nil
	}
	e, err := tx.streamRange(&s, start, MaxStreamID, count, false)
	return e, true, err
}

// XLastID returns the last ID of the stream at key (0-0 when missing),
// what "$" names in XREAD.
func (tx *Tx) XLastID(key []byte) (StreamID, error) {
	s, err := tx.streamFor(key, false)
	return s.last, err
}

// XDel deletes the entries with the given IDs and counts those that
// existed; the event is `xdel` when some did.
func (tx *Tx) XDel(key []byte, ids []StreamID) (int64, error) {
	s, err := tx.streamFor(key, false)
	if err != nil || !s.found {
		return 0, err
	}
	var n int64
	b := tx.batch()
	for _, id := range ids {
		k := tx.streamEntryKey(&s, id)
		if _, err := b.Get(k); errors.Is(err, storage.ErrNotFound) {
			continue
		} else if err != nil {
			return 0, err
		}
		if err := b.Delete(k); err != nil {
			return 0, err
		}
		n++
		s.length--
		if id.Compare(s.maxDel) > 0 {
			s.maxDel = id
		}
	}
	if n == 0 {
		return 0, nil
	}
	if err := tx.streamSeekFirst(&s, s.first); err != nil {
		return 0, err
	}
	if err := tx.streamSave(key, &s); err != nil {
		return 0, err
	}
	tx.notify(ClassStream, "xdel", key)
	return n, nil
}

// XSetID sets the last ID of the stream at key, and with entriesAdded >=
// 0 and maxDel non-nil its added counter and largest deleted ID. The
// event is `xsetid`.
func (tx *Tx) XSetID(key []byte, id StreamID, entriesAdded int64, maxDel *StreamID) error {
	s, err := tx.streamFor(key, false)
	if err != nil {
		return err
	}
	if !s.found {
		return ErrNoSuchKey
	}
	if s.length > 0 {
		top, _, err := tx.streamEdge(&s, true)
		if err != nil {
			return err
		}
		if id.Compare(top) < 0 {
			return ErrStreamSetIDSmall
		}
		if entriesAdded >= 0 && uint64(entriesAdded) < s.length {
			return ErrStreamSetIDAdded
		}
	}
	s.last = id
	if entriesAdded >= 0 {
		s.added = uint64(entriesAdded)
	}
	if maxDel != nil {
		s.maxDel = *maxDel
	}
	if err := tx.streamSave(key, &s); err != nil {
		return err
	}
	tx.notify(ClassStream, "xsetid", key)
	return nil
}
