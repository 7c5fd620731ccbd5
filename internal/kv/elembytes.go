package kv

import (
	"fmt"

	"github.com/mayfly/mayfly/internal/storage"
)

// Element bytes. A collection's record keeps the byte size of its elements
// (Meta.ElemBytes), so that the memory a collection counts follows the
// size of what it holds and not only its element count. What one element
// weighs is elemBytes of its type:
//
//   - a list item: its length;
//   - a hash field: the field's length + the value's length;
//   - a set member: its length;
//   - a sorted set member: its length + zsetScoreBytes.
//
// Every write that adds, removes or replaces an element changes the figure
// in the state it keeps beside the element count (hashState, listState,
// setState, zsetState), and the record written at the end of the command
// carries both. A record that predates the figure has it unknown (-1): the
// next command that writes the key recounts it from the stored elements
// (recountElemBytes) before changing it. Streams do not keep it: theirs
// stays unknown and they count unknownElemCost per entry.

const (
	// elemOverhead is what each element of a collection counts on top of
	// its bytes.
	elemOverhead = 16
	// zsetScoreBytes is the weight of a sorted set member's score.
	zsetScoreBytes = 8
	// unknownElemCost is what an element counts when its collection's
	// element bytes are unknown.
	unknownElemCost = 64
)

// keyCost is the counted memory of a key of keyLen bytes with record m:
// keyOverhead + the key's length + the record's payload, and for a
// collection its element bytes + elemOverhead per element (or
// unknownElemCost per element when the element bytes are unknown).
func keyCost(keyLen int, m Meta) int64 {
	n := keyOverhead + int64(keyLen) + int64(len(m.Payload))
	if m.Type == TypeString {
		return n
	}
	if m.ElemBytes < 0 {
		return n + int64(m.Count())*unknownElemCost
	}
	return n + m.ElemBytes + int64(m.Count())*elemOverhead
}

// savedElemBytes returns the element bytes to store in nm, the record a
// command writes after changing a collection whose record was orig (found
// says whether there was one): elems, the stored figure plus the command's
// changes, or, when orig's figure was unknown and nm keeps its version, a
// recount of the elements as the command left them.
func (tx *Tx) savedElemBytes(orig Meta, found bool, elems int64, nm Meta) (int64, error) {
	if found && orig.ElemBytes < 0 && orig.Version == nm.Version {
		return tx.recountElemBytes(tx.pdb, nm)
	}
	return elems, nil
}

// recountElemBytes sums the element bytes of the collection with record m
// in physical database pdb from its stored elements (-1 for a stream,
// whose figure is not kept).
func (tx *Tx) recountElemBytes(pdb byte, m Meta) (int64, error) {
	return recountElemBytes(tx.reader(), pdb, m)
}

// recountElemBytes reads the elements from r.
func recountElemBytes(r storage.Reader, pdb byte, m Meta) (int64, error) {
	if m.Type == TypeString || m.Type == TypeStream {
		return -1, nil
	}
	lo := subPrefix(pdb, m.Version)
	switch m.Type {
	case TypeHash:
		lo = append(lo, hashFieldNS)
	case TypeZSet:
		lo = append(lo, zsetMemberNS)
	}
	it, err := r.NewIter(lo, storage.PrefixEnd(lo))
	if err != nil {
		return 0, err
	}
	var n int64
	for ok := it.First(); ok; ok = it.Next() {
		k := int64(len(it.Key()) - len(lo))
		switch m.Type {
		case TypeList:
			n += int64(len(it.Value()))
		case TypeHash:
			rec, err := decodeFieldRec(it.Value())
			if err != nil {
				it.Close()
				return 0, err
			}
			n += k + int64(len(rec.val))
		case TypeSet:
			n += k
		case TypeZSet:
			n += k + zsetScoreBytes
		}
	}
	return n, it.Close()
}

// assertElemBytes panics when the record m about to be written for key
// says its elements hold other than what a recount of them (this Tx's
// writes included) finds. It runs only in builds with invariants.
func (tx *Tx) assertElemBytes(pdb byte, key []byte, m Meta) {
	if m.Type == TypeString || m.ElemBytes < 0 {
		return
	}
	got, err := tx.recountElemBytes(pdb, m)
	if err != nil {
		panic(fmt.Sprintf("kv: invariant: recount of %s %q: %v", m.Type, key, err))
	}
	if got != m.ElemBytes {
		panic(fmt.Sprintf("kv: invariant: %s %q record says its elements hold %d bytes; they hold %d", m.Type, key, m.ElemBytes, got))
	}
}
