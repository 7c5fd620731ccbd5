package kv

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/mayfly/mayfly/internal/storage"
)

// Pending entries lists. Each entry delivered to a consumer of a group
// and not yet acknowledged has a record under 'p' [len u32] [group]
// [id 16]: its last delivery time (8), its delivery count (8) and the name
// of the consumer owning it. They come out in ID order, so XPENDING's
// ranges and XAUTOCLAIM's scans are one seek and a walk; the counts per
// group and per consumer live in their records.

// PendingEntry is one entry of a group's pending entries list.
type PendingEntry struct {
	ID            StreamID
	Consumer      []byte
	DeliveryTime  int64
	DeliveryCount int64
}

func (tx *Tx) pelPrefix(s *streamState, group []byte) []byte {
	return tx.elemKey(s.version, []byte{streamPendingNS}, groupScope(group))
}

func (tx *Tx) pelKey(s *streamState, group []byte, id StreamID) []byte {
	return tx.elemKey(s.version, []byte{streamPendingNS}, groupScope(group), id.encode(nil))
}

func decodePending(id StreamID, v []byte) (PendingEntry, error) {
	if len(v) < 16 {
		return PendingEntry{}, fmt.Errorf("%w: pending entry of %d bytes", ErrCorrupt, len(v))
	}
	return PendingEntry{
		ID:            id,
		DeliveryTime:  int64(binary.BigEndian.Uint64(v[:8])),
		DeliveryCount: int64(binary.BigEndian.Uint64(v[8:16])),
		Consumer:      append([]byte{}, v[16:]...),
	}, nil
}

func (tx *Tx) pelGet(s *streamState, group []byte, id StreamID) (PendingEntry, bool, error) {
	v, err := tx.reader().Get(tx.pelKey(s, group, id))
	if errors.Is(err, storage.ErrNotFound) {
		return PendingEntry{}, false, nil
	}
	if err != nil {
		return PendingEntry{}, false, err
	}
	p, err := decodePending(id, v)
	return p, err == nil, err
}

func (tx *Tx) pelPut(s *streamState, group []byte, p *PendingEntry) error {
	v := binary.BigEndian.AppendUint64(make([]byte, 0, 16+len(p.Consumer)), uint64(p.DeliveryTime))
	v = binary.BigEndian.AppendUint64(v, uint64(p.DeliveryCount))
	v = append(v, p.Consumer...)
	return tx.batch().Set(tx.pelKey(s, group, p.ID), v)
}

// pelRange returns the pending entries of group with IDs in [start, end],
// at most limit of them (0 for all).
func (tx *Tx) pelRange(s *streamState, group []byte, start, end StreamID, limit int) ([]PendingEntry, error) {
	out := []PendingEntry{}
	if start.Compare(end) > 0 {
		return out, nil
	}
	ns := tx.pelPrefix(s, group)
	lo := start.encode(append([]byte{}, ns...))
	hi := storage.PrefixEnd(end.encode(append([]byte{}, ns...)))
	it, err := tx.reader().NewIter(lo, hi)
	if err != nil {
		return nil, err
	}
	for ok := it.First(); ok; ok = it.Next() {
		p, err := decodePending(decodeStreamID(it.Key()[len(ns):]), it.Value())
		if err != nil {
			it.Close()
			return nil, err
		}
		out = append(out, p)
		if limit > 0 && len(out) >= limit {
			break
		}
	}
	return out, it.Close()
}

// moveConsumerCount moves one pending entry's count from consumer from
// to c (the consumer now owning it).
func (tx *Tx) moveConsumerCount(s *streamState, group, from []byte, c *streamConsumer) error {
	if string(from) == string(c.name) {
		return nil
	}
	c.pending++
	if from == nil {
		return nil
	}
	old, err := tx.consumerGet(s, group, from)
	if err != nil || !old.found {
		return err
	}
	if old.pending > 0 {
		old.pending--
	}
	return tx.consumerPut(s, group, &old)
}

// pelDeliver records the delivery of id to c: a new pending entry, or one
// taken over from another consumer, with one delivery now.
func (tx *Tx) pelDeliver(s *streamState, g *streamGroup, c *streamConsumer, id StreamID) error {
	p, had, err := tx.pelGet(s, g.name, id)
	if err != nil {
		return err
	}
	if had {
		if err := tx.moveConsumerCount(s, g.name, p.Consumer, c); err != nil {
			return err
		}
	} else {
		g.pending++
		c.pending++
	}
	p = PendingEntry{ID: id, Consumer: c.name, DeliveryTime: tx.now, DeliveryCount: 1}
	return tx.pelPut(s, g.name, &p)
}

// pelRemove deletes a pending entry, keeping the counts.
func (tx *Tx) pelRemove(s *streamState, g *streamGroup, p PendingEntry, owner *streamConsumer) error {
	if err := tx.batch().Delete(tx.pelKey(s, g.name, p.ID)); err != nil {
		return err
	}
	g.pending--
	if owner != nil && string(owner.name) == string(p.Consumer) {
		if owner.pending > 0 {
			owner.pending--
		}
		return nil
	}
	c, err := tx.consumerGet(s, g.name, p.Consumer)
	if err != nil || !c.found {
		return err
	}
	if c.pending > 0 {
		c.pending--
	}
	return tx.consumerPut(s, g.name, &c)
}

// XAck acknowledges the pending entries ids of group and counts those
// that were pending; a missing stream or group acknowledges nothing.
func (tx *Tx) XAck(key, group []byte, ids []StreamID) (int64, error) {
	s, g, err := tx.groupFor(key, group, false)
	if errors.Is(err, ErrNoGroup) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	var n int64
	for _, id := range ids {
		p, ok, err := tx.pelGet(&s, group, id)
		if err != nil {
			return 0, err
		}
		if !ok {
			continue
		}
		if err := tx.pelRemove(&s, &g, p, nil); err != nil {
			return 0, err
		}
		n++
	}
	if n == 0 {
		return 0, nil
	}
	if err := tx.groupPut(&s, &g); err != nil {
		return 0, err
	}
	return n, nil
}

// PendingSummary is XPENDING's summary: the number of pending entries,
// the smallest and largest pending IDs, and the count per consumer
// (consumers with none left out), in consumer name order.
type PendingSummary struct {
	Count     int64
	Min, Max  StreamID
	Consumers []ConsumerPending
}

// ConsumerPending is how many pending entries a consumer owns.
type ConsumerPending struct {
	Name  []byte
	Count int64
}

// XPendingSummary returns the summary of group's pending entries;
// ErrNoGroup when the stream or group is missing.
func (tx *Tx) XPendingSummary(key, group []byte) (PendingSummary, error) {
	var r PendingSummary
	s, g, err := tx.groupFor(key, group, true)
	if err != nil {
		return r, err
	}
	r.Count = int64(g.pending)
	if g.pending == 0 {
		return r, nil
	}
	ns := tx.pelPrefix(&s, group)
	it, err := tx.reader().NewIter(ns, storage.PrefixEnd(ns))
	if err != nil {
		return r, err
	}
	if it.First() {
		r.Min = decodeStreamID(it.Key()[len(ns):])
	}
	if it.Last() {
		r.Max = decodeStreamID(it.Key()[len(ns):])
	}
	if err := it.Close(); err != nil {
		return r, err
	}
	cs, err := tx.streamConsumers(&s, group)
	if err != nil {
		return r, err
	}
	for _, c := range cs {
		if c.pending > 0 {
			r.Consumers = append(r.Consumers, ConsumerPending{c.name, int64(c.pending)})
		}
	}
	return r, nil
}

// XPendingRange returns up to count pending entries of group with IDs in
// [start, end], idle at least minIdle ms, of consumer only when it is not
// nil. DeliveryTime in the result is the idle time.
func (tx *Tx) XPendingRange(key, group []byte, start, end StreamID, count, minIdle int64, consumer []byte) ([]PendingEntry, error) {
	s, _, err := tx.groupFor(key, group, true)
	if err != nil {
		return nil, err
	}
	out := []PendingEntry{}
	if consumer != nil {
		c, err := tx.consumerGet(&s, group, consumer)
		if err != nil || !c.found {
			return out, err
		}
	}
	if count <= 0 {
		return out, nil
	}
	pel, err := tx.pelRange(&s, group, start, end, 0)
	if err != nil {
		return nil, err
	}
	for _, p := range pel {
		if int64(len(out)) >= count {
			break
		}
		if consumer != nil && string(p.Consumer) != string(consumer) {
			continue
		}
		idle := max(tx.now-p.DeliveryTime, 0)
		if minIdle > 0 && tx.now-p.DeliveryTime < minIdle {
			continue
		}
		p.DeliveryTime = idle
		out = append(out, p)
	}
	return out, nil
}

// XClaimArgs are XCLAIM's options: DeliveryTime (-1 for now) and
// RetryCount (-1 to count one more delivery, none with JustID) set on
// the claimed entries; Force creates missing pending entries of existing
// stream entries; LastID raises the group's last delivered ID.
type XClaimArgs struct {
	MinIdle      int64
	DeliveryTime int64
	RetryCount   int64
	Force        bool
	JustID       bool
	LastID       StreamID
}

// XClaim gives consumer the pending entries ids of group idle for at
// least MinIdle ms, and returns them (Fields nil with JustID). Pending
// entries whose stream entry was deleted are dropped. ErrNoGroup when
// the stream or group is missing.
func (tx *Tx) XClaim(key, group, consumer []byte, ids []StreamID, a XClaimArgs) ([]StreamEntry, error) {
	s, g, err := tx.groupFor(key, group, true)
	if err != nil {
		return nil, err
	}
	if a.LastID.Compare(g.last) > 0 {
		g.last = a.LastID
	}
	deliveryTime := a.DeliveryTime
	if deliveryTime < 0 || deliveryTime > tx.now {
		deliveryTime = tx.now
	}
	var c *streamConsumer
	out := []StreamEntry{}
	for _, id := range ids {
		p, had, err := tx.pelGet(&s, group, id)
		if err != nil {
			return nil, err
		}
		e, exists, err := tx.streamGet(&s, id)
		if err != nil {
			return nil, err
		}
		if !exists {
			if had {
				if err := tx.pelRemove(&s, &g, p, c); err != nil {
					return nil, err
				}
			}
			continue
		}
		if !had {
			if !a.Force {
				continue
			}
			p = PendingEntry{ID: id}
			g.pending++
		} else if a.MinIdle > 0 && tx.now-p.DeliveryTime < a.MinIdle {
			continue
		}
		if c == nil {
			cc, err := tx.consumerFor(key, &s, group, consumer)
			if err != nil {
				return nil, err
			}
			c = &cc
		}
		var from []byte
		if had {
			from = p.Consumer
		}
		if err := tx.moveConsumerCount(&s, group, from, c); err != nil {
			return nil, err
		}
		p.Consumer = c.name
		p.DeliveryTime = deliveryTime
		switch {
		case a.RetryCount >= 0:
			p.DeliveryCount = a.RetryCount
		case !a.JustID:
			p.DeliveryCount++
		}
		if err := tx.pelPut(&s, group, &p); err != nil {
			return nil, err
		}
		if a.JustID {
			e.Fields = nil
		}
		out = append(out, e)
	}
	if c != nil {
		if err := tx.consumerPut(&s, group, c); err != nil {
			return nil, err
		}
	}
	if err := tx.groupPut(&s, &g); err != nil {
		return nil, err
	}
	return out, nil
}

// autoClaimAttempts is how many pending entries XAUTOCLAIM looks at per
// entry it may claim.
const autoClaimAttempts = 10

// XAutoClaim gives consumer up to count pending entries of group from
// start on that are idle for at least minIdle ms. It returns the ID to
// continue from (0-0 at the end), the claimed entries (Fields nil with
// justID), and the IDs whose stream entry was deleted, which it drops
// from the list.
func (tx *Tx) XAutoClaim(key, group, consumer []byte, minIdle int64, start StreamID, count int64, justID bool) (StreamID, []StreamEntry, []StreamID, error) {
	s, g, err := tx.groupFor(key, group, true)
	if err != nil {
		return StreamID{}, nil, nil, err
	}
	attempts := count * autoClaimAttempts
	pel, err := tx.pelRange(&s, group, start, MaxStreamID, int(min(attempts+1, 1<<30)))
	if err != nil {
		return StreamID{}, nil, nil, err
	}
	claimed, deleted := []StreamEntry{}, []StreamID{}
	var c *streamConsumer
	i := 0
	for ; i < len(pel) && attempts > 0 && count > 0; i++ {
		attempts--
		p := pel[i]
		e, exists, err := tx.streamGet(&s, p.ID)
		if err != nil {
			return StreamID{}, nil, nil, err
		}
		if !exists {
			if err := tx.pelRemove(&s, &g, p, c); err != nil {
				return StreamID{}, nil, nil, err
			}
			deleted = append(deleted, p.ID)
			count--
			continue
		}
		if minIdle > 0 && tx.now-p.DeliveryTime < minIdle {
			continue
		}
		if c == nil {
			cc, err := tx.consumerFor(key, &s, group, consumer)
			if err != nil {
				return StreamID{}, nil, nil, err
			}
			c = &cc
		}
		if err := tx.moveConsumerCount(&s, group, p.Consumer, c); err != nil {
			return StreamID{}, nil, nil, err
		}
		p.Consumer = c.name
		p.DeliveryTime = tx.now
		if !justID {
			p.DeliveryCount++
		}
		if err := tx.pelPut(&s, group, &p); err != nil {
			return StreamID{}, nil, nil, err
		}
		if justID {
			e.Fields = nil
		}
		claimed = append(claimed, e)
		count--
	}
	var next StreamID
	if i < len(pel) {
		next = pel[i].ID
	}
	if c != nil {
		if err := tx.consumerPut(&s, group, c); err != nil {
			return StreamID{}, nil, nil, err
		}
	}
	if err := tx.groupPut(&s, &g); err != nil {
		return StreamID{}, nil, nil, err
	}
	return next, claimed, deleted, nil
}
