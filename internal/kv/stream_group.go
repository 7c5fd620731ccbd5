package kv

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/mayfly/mayfly/internal/storage"
)

// Consumer groups of a stream. A group's record, under 'g' [name], holds
// its last delivered ID (16 bytes), its entries-read counter (8, -1 when
// unknown) and the size of its pending entries list (8). A consumer's
// record, under 'c' [len u32] [group] [name], holds the time it was last
// seen (8) and how many pending entries it owns (8). Groups and consumers
// come out in name order, as Redis's radix trees give them. Reading,
// acknowledging and claiming write only these records and the pending
// entries, not the stream's record: as in Redis they are no change of the
// key for WATCH.

// ErrXGroupNoKey is returned by the XGROUP subcommands when the stream is
// missing (and CREATE has no MKSTREAM).
var ErrXGroupNoKey = errors.New("kv: the XGROUP subcommand requires the key to exist")

// ErrXGroupNoGroup is returned by XGROUP SETID, CREATECONSUMER and
// DELCONSUMER for a missing group of an existing stream.
var ErrXGroupNoGroup = errors.New("kv: no such consumer group for key")

// entriesReadUnknown is the entries-read counter of a group whose
// position in the stream's history is not known.
const entriesReadUnknown = -1

type streamGroup struct {
	name        []byte
	last        StreamID
	entriesRead int64
	pending     uint64
}

type streamConsumer struct {
	name    []byte
	seen    int64
	pending uint64
	found   bool
}

// groupScope returns the length-prefixed group name that scopes the
// group's consumers and pending entries.
func groupScope(group []byte) []byte {
	b := binary.BigEndian.AppendUint32(make([]byte, 0, 4+len(group)), uint32(len(group)))
	return append(b, group...)
}

func (tx *Tx) groupKey(s *streamState, name []byte) []byte {
	return tx.elemKey(s.version, []byte{streamGroupNS}, name)
}

func (tx *Tx) consumerKey(s *streamState, group, name []byte) []byte {
	return tx.elemKey(s.version, []byte{streamConsumerNS}, groupScope(group), name)
}

func (tx *Tx) consumerPrefix(s *streamState, group []byte) []byte {
	return tx.elemKey(s.version, []byte{streamConsumerNS}, groupScope(group))
}

func decodeGroup(name, v []byte) (streamGroup, error) {
	if len(v) != 32 {
		return streamGroup{}, fmt.Errorf("%w: consumer group record of %d bytes", ErrCorrupt, len(v))
	}
	return streamGroup{
		name:        append([]byte{}, name...),
		last:        decodeStreamID(v[:16]),
		entriesRead: int64(binary.BigEndian.Uint64(v[16:24])),
		pending:     binary.BigEndian.Uint64(v[24:32]),
	}, nil
}

// groupGet reads a group; ok is false when it does not exist.
func (tx *Tx) groupGet(s *streamState, name []byte) (streamGroup, bool, error) {
	if !s.found || s.groups == 0 {
		return streamGroup{}, false, nil
	}
	v, err := tx.reader().Get(tx.groupKey(s, name))
	if errors.Is(err, storage.ErrNotFound) {
		return streamGroup{}, false, nil
	}
	if err != nil {
		return streamGroup{}, false, err
	}
	g, err := decodeGroup(name, v)
	return g, err == nil, err
}

func (tx *Tx) groupPut(s *streamState, g *streamGroup) error {
	v := g.last.encode(make([]byte, 0, 32))
	v = binary.BigEndian.AppendUint64(v, uint64(g.entriesRead))
	v = binary.BigEndian.AppendUint64(v, g.pending)
	return tx.batch().Set(tx.groupKey(s, g.name), v)
}

// streamGroups returns every group of s in name order.
func (tx *Tx) streamGroups(s *streamState) ([]streamGroup, error) {
	out := []streamGroup{}
	if !s.found || s.groups == 0 {
		return out, nil
	}
	lo := tx.elemKey(s.version, []byte{streamGroupNS})
	it, err := tx.reader().NewIter(lo, storage.PrefixEnd(lo))
	if err != nil {
		return nil, err
	}
	for ok := it.First(); ok; ok = it.Next() {
		g, err := decodeGroup(it.Key()[len(lo):], it.Value())
		if err != nil {
			it.Close()
			return nil, err
		}
		out = append(out, g)
	}
	return out, it.Close()
}

func (tx *Tx) consumerGet(s *streamState, group, name []byte) (streamConsumer, error) {
	c := streamConsumer{name: append([]byte{}, name...)}
	v, err := tx.reader().Get(tx.consumerKey(s, group, name))
	if errors.Is(err, storage.ErrNotFound) {
		return c, nil
	}
	if err != nil {
		return c, err
	}
	if len(v) != 16 {
		return c, fmt.Errorf("%w: stream consumer record of %d bytes", ErrCorrupt, len(v))
	}
	c.seen = int64(binary.BigEndian.Uint64(v[:8]))
	c.pending = binary.BigEndian.Uint64(v[8:16])
	c.found = true
	return c, nil
}

func (tx *Tx) consumerPut(s *streamState, group []byte, c *streamConsumer) error {
	v := binary.BigEndian.AppendUint64(make([]byte, 0, 16), uint64(c.seen))
	v = binary.BigEndian.AppendUint64(v, c.pending)
	c.found = true
	return tx.batch().Set(tx.consumerKey(s, group, c.name), v)
}

// consumerFor returns the consumer name of group, creating it (with the
// `xgroup-createconsumer` event) when missing, its seen time set to now.
func (tx *Tx) consumerFor(key []byte, s *streamState, group, name []byte) (streamConsumer, error) {
	c, err := tx.consumerGet(s, group, name)
	if err != nil {
		return c, err
	}
	if !c.found {
		tx.notify(ClassStream, "xgroup-createconsumer", key)
	}
	c.seen = tx.now
	return c, tx.consumerPut(s, group, &c)
}

// streamConsumers returns the consumers of group in name order.
func (tx *Tx) streamConsumers(s *streamState, group []byte) ([]streamConsumer, error) {
	lo := tx.consumerPrefix(s, group)
	it, err := tx.reader().NewIter(lo, storage.PrefixEnd(lo))
	if err != nil {
		return nil, err
	}
	out := []streamConsumer{}
	for ok := it.First(); ok; ok = it.Next() {
		v := it.Value()
		if len(v) != 16 {
			it.Close()
			return nil, fmt.Errorf("%w: stream consumer record of %d bytes", ErrCorrupt, len(v))
		}
		out = append(out, streamConsumer{
			name:  append([]byte{}, it.Key()[len(lo):]...),
			seen:  int64(binary.BigEndian.Uint64(v[:8])),
			found: true, pending: binary.BigEndian.Uint64(v[8:16]),
		})
	}
	return out, it.Close()
}

// groupFor reads the stream at key and its group, for the commands that
// need both: ErrNoGroup when either is missing.
func (tx *Tx) groupFor(key, group []byte, read bool) (streamState, streamGroup, error) {
	s, err := tx.streamFor(key, read)
	if err != nil {
		return s, streamGroup{}, err
	}
	g, ok, err := tx.groupGet(&s, group)
	if err != nil {
		return s, g, err
	}
	if !ok {
		return s, g, ErrNoGroup
	}
	return s, g, nil
}

// xgroupFor is groupFor for the XGROUP subcommands, with their errors.
func (tx *Tx) xgroupFor(key, group []byte) (streamState, streamGroup, error) {
	s, err := tx.streamFor(key, false)
	if err != nil {
		return s, streamGroup{}, err
	}
	if !s.found {
		return s, streamGroup{}, ErrXGroupNoKey
	}
	g, ok, err := tx.groupGet(&s, group)
	if err != nil {
		return s, g, err
	}
	if !ok {
		return s, g, ErrXGroupNoGroup
	}
	return s, g, nil
}

// XGroupCreate creates group on the stream at key with last delivered ID
// id (the stream's last ID with useLast) and entries-read counter
// entriesRead (-1 for unknown). A missing stream is created with
// mkstream, ErrXGroupNoKey otherwise; an existing group is ErrBusyGroup.
// The event is `xgroup-create`.
func (tx *Tx) XGroupCreate(key, group []byte, id StreamID, useLast, mkstream bool, entriesRead int64) error {
	s, err := tx.streamFor(key, false)
	if err != nil {
		return err
	}
	if !s.found && !mkstream {
		return ErrXGroupNoKey
	}
	if _, ok, err := tx.groupGet(&s, group); err != nil {
		return err
	} else if ok {
		return ErrBusyGroup
	}
	if useLast {
		id = s.last
	}
	tx.streamCreate(&s)
	g := streamGroup{name: group, last: id, entriesRead: entriesRead}
	if err := tx.groupPut(&s, &g); err != nil {
		return err
	}
	s.groups++
	if err := tx.streamSave(key, &s); err != nil {
		return err
	}
	tx.notify(ClassStream, "xgroup-create", key)
	return nil
}

// XGroupSetID sets the last delivered ID and entries-read counter of a
// group. The event is `xgroup-setid`.
func (tx *Tx) XGroupSetID(key, group []byte, id StreamID, useLast bool, entriesRead int64) error {
	s, g, err := tx.xgroupFor(key, group)
	if err != nil {
		return err
	}
	if useLast {
		id = s.last
	}
	g.last, g.entriesRead = id, entriesRead
	if err := tx.groupPut(&s, &g); err != nil {
		return err
	}
	tx.notify(ClassStream, "xgroup-setid", key)
	return nil
}

// XGroupDestroy deletes a group with its consumers and pending entries;
// it reports whether the group existed. The event is `xgroup-destroy`.
func (tx *Tx) XGroupDestroy(key, group []byte) (bool, error) {
	s, err := tx.streamFor(key, false)
	if err != nil {
		return false, err
	}
	if !s.found {
		return false, ErrXGroupNoKey
	}
	if _, ok, err := tx.groupGet(&s, group); err != nil || !ok {
		return false, err
	}
	b := tx.batch()
	if err := b.Delete(tx.groupKey(&s, group)); err != nil {
		return false, err
	}
	for _, p := range [][]byte{tx.consumerPrefix(&s, group), tx.pelPrefix(&s, group)} {
		if err := b.DeleteRange(p, storage.PrefixEnd(p)); err != nil {
			return false, err
		}
	}
	s.groups--
	if err := tx.streamSave(key, &s); err != nil {
		return false, err
	}
	tx.notify(ClassStream, "xgroup-destroy", key)
	return true, nil
}

// XGroupCreateConsumer creates a consumer and reports whether it was new
// (with the `xgroup-createconsumer` event).
func (tx *Tx) XGroupCreateConsumer(key, group, consumer []byte) (bool, error) {
	s, _, err := tx.xgroupFor(key, group)
	if err != nil {
		return false, err
	}
	c, err := tx.consumerGet(&s, group, consumer)
	if err != nil || c.found {
		return false, err
	}
	c.seen = tx.now
	if err := tx.consumerPut(&s, group, &c); err != nil {
		return false, err
	}
	tx.notify(ClassStream, "xgroup-createconsumer", key)
	return true, nil
}

// XGroupDelConsumer deletes a consumer with its pending entries and
// returns how many it had. The event is `xgroup-delconsumer`.
func (tx *Tx) XGroupDelConsumer(key, group, consumer []byte) (int64, error) {
	s, g, err := tx.xgroupFor(key, group)
	if err != nil {
		return 0, err
	}
	c, err := tx.consumerGet(&s, group, consumer)
	if err != nil || !c.found {
		return 0, err
	}
	if c.pending > 0 {
		pel, err := tx.pelRange(&s, group, StreamID{}, MaxStreamID, 0)
		if err != nil {
			return 0, err
		}
		for _, p := range pel {
			if string(p.Consumer) != string(consumer) {
				continue
			}
			if err := tx.batch().Delete(tx.pelKey(&s, group, p.ID)); err != nil {
				return 0, err
			}
			g.pending--
		}
		if err := tx.groupPut(&s, &g); err != nil {
			return 0, err
		}
	}
	if err := tx.batch().Delete(tx.consumerKey(&s, group, consumer)); err != nil {
		return 0, err
	}
	tx.notify(ClassStream, "xgroup-delconsumer", key)
	return int64(c.pending), nil
}

// estimateEntriesRead returns how many entries of the stream's history
// come up to id, or entriesReadUnknown when that cannot be told (an ID
// inside the stream with deletions ahead, or one in the future), as
// Redis's streamEstimateDistanceFromFirstEverEntry.
func (tx *Tx) estimateEntriesRead(s *streamState, id StreamID) (int64, error) {
	if s.added == 0 {
		return 0, nil
	}
	if s.length == 0 && id.Compare(s.last) <= 0 {
		return int64(s.added), nil
	}
	switch c := id.Compare(s.last); {
	case c == 0:
		return int64(s.added), nil
	case c > 0:
		return entriesReadUnknown, nil
	}
	first, _, err := tx.streamEdge(s, false)
	if err != nil {
		return 0, err
	}
	if s.maxDel.IsZero() || s.maxDel.Compare(first) < 0 {
		switch c := id.Compare(first); {
		case c < 0:
			return int64(s.added - s.length), nil
		case c == 0:
			return int64(s.added - s.length + 1), nil
		}
	}
	return entriesReadUnknown, nil
}

// hasTombstonesAfter reports whether an entry at or after start was
// deleted by XDEL, as Redis's streamRangeHasTombstones up to the end.
func (tx *Tx) hasTombstonesAfter(s *streamState, start StreamID) (bool, error) {
	if s.length == 0 || s.maxDel.IsZero() {
		return false, nil
	}
	first, _, err := tx.streamEdge(s, false)
	if err != nil {
		return false, err
	}
	if first.Compare(s.maxDel) > 0 {
		return false, nil
	}
	return start.Compare(s.maxDel) <= 0, nil
}

// advanceGroup moves g's last delivered ID to id, keeping its
// entries-read counter as Redis does.
func (tx *Tx) advanceGroup(s *streamState, g *streamGroup, id StreamID) error {
	if id.Compare(g.last) <= 0 {
		return nil
	}
	tomb, err := tx.hasTombstonesAfter(s, id)
	if err != nil {
		return err
	}
	if g.entriesRead != entriesReadUnknown && !tomb {
		g.entriesRead++
	} else if s.added > 0 {
		if g.entriesRead, err = tx.estimateEntriesRead(s, id); err != nil {
			return err
		}
	}
	g.last = id
	return nil
}

// GroupLag returns a group's lag (entries not yet delivered); ok is false
// when it cannot be told.
func (tx *Tx) groupLag(s *streamState, g *streamGroup) (int64, bool, error) {
	if s.added == 0 {
		return 0, true, nil
	}
	tomb, err := tx.hasTombstonesAfter(s, g.last)
	if err != nil {
		return 0, false, err
	}
	if g.entriesRead != entriesReadUnknown && !tomb {
		return int64(s.added) - g.entriesRead, true, nil
	}
	read, err := tx.estimateEntriesRead(s, g.last)
	if err != nil || read == entriesReadUnknown {
		return 0, false, err
	}
	return int64(s.added) - read, true, nil
}

// XReadGroupArgs is one stream of XREADGROUP: with New (">") the entries
// after the group's last delivered ID, which become pending for Consumer
// unless NoAck; otherwise Consumer's pending entries from After on (its
// history), whose delivery counts grow.
type XReadGroupArgs struct {
	Group, Consumer []byte
	New             bool
	After           StreamID
	Count           int64
	NoAck           bool
}

// XReadGroup reads the stream at key for a consumer group. It returns
// ErrNoGroup when the stream or the group is missing. With New and
// nothing to deliver, entries is empty and nothing changes; history
// entries whose stream entry was deleted have nil Fields. Otherwise the
// consumer is created when missing (`xgroup-createconsumer`).
func (tx *Tx) XReadGroup(key []byte, a XReadGroupArgs) ([]StreamEntry, error) {
	s, g, err := tx.groupFor(key, a.Group, true)
	if err != nil {
		return nil, err
	}
	var entries []StreamEntry
	if a.New {
		start, ok := g.last.Next()
		if !ok {
			return []StreamEntry{}, nil
		}
		if entries, err = tx.streamRange(&s, start, MaxStreamID, a.Count, false); err != nil || len(entries) == 0 {
			return entries, err
		}
	}
	c, err := tx.consumerFor(key, &s, a.Group, a.Consumer)
	if err != nil {
		return nil, err
	}
	if !a.New {
		return tx.readHistory(key, &s, a, &c)
	}
	for _, e := range entries {
		if err := tx.advanceGroup(&s, &g, e.ID); err != nil {
			return nil, err
		}
		if a.NoAck {
			continue
		}
		if err := tx.pelDeliver(&s, &g, &c, e.ID); err != nil {
			return nil, err
		}
	}
	if err := tx.consumerPut(&s, a.Group, &c); err != nil {
		return nil, err
	}
	if err := tx.groupPut(&s, &g); err != nil {
		return nil, err
	}
	return entries, nil
}

// readHistory serves XREADGROUP with an ID: the consumer's own pending
// entries from a.After on.
func (tx *Tx) readHistory(key []byte, s *streamState, a XReadGroupArgs, c *streamConsumer) ([]StreamEntry, error) {
	out := []StreamEntry{}
	start, ok := a.After.Next()
	if !ok {
		return out, nil
	}
	pel, err := tx.pelRange(s, a.Group, start, MaxStreamID, 0)
	if err != nil {
		return nil, err
	}
	for _, p := range pel {
		if a.Count > 0 && int64(len(out)) >= a.Count {
			break
		}
		if string(p.Consumer) != string(a.Consumer) {
			continue
		}
		e, ok, err := tx.streamGet(s, p.ID)
		if err != nil {
			return nil, err
		}
		if ok {
			p.DeliveryTime = tx.now
			p.DeliveryCount++
			if err := tx.pelPut(s, a.Group, &p); err != nil {
				return nil, err
			}
		} else {
			e = StreamEntry{ID: p.ID}
		}
		out = append(out, e)
	}
	return out, nil
}

// XHasGroup reports whether the stream at key has group; ErrWrongType
// when key holds another type.
func (tx *Tx) XHasGroup(key, group []byte) (bool, error) {
	s, err := tx.streamFor(key, false)
	if err != nil || !s.found {
		return false, err
	}
	_, ok, err := tx.groupGet(&s, group)
	return ok, err
}
