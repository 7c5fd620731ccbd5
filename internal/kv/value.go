package kv

import (
	"encoding/binary"
	"fmt"
)

// Whole values, as DUMP reads and RESTORE writes them.

// Value is a key's whole value.
type Value struct {
	Type Type
	// Count is a collection's number of elements.
	Count int64
	// Partial says the elements were not read: Count is above the limit
	// given to ReadValue.
	Partial bool
	String  []byte
	// Items are a list's elements from head to tail, or a set's members
	// in byte order.
	Items [][]byte
	// Pairs are a hash's live fields in byte order (their expiries are not
	// part of the value).
	Pairs []HashPair
	// Members are a sorted set's elements by ascending score, then member.
	Members []ZMember
	// Stream is a stream's whole content.
	Stream *StreamValue
}

// ReadValue reads the value at key whole; ok is false when key is missing.
// With access it counts as a read of the key (DUMP), otherwise it touches
// nothing (OBJECT ENCODING). A collection of more than limit(its type)
// elements (limit nil: no limit) is returned with only its type and
// count, Partial; so is a stream, unless limit is nil.
func (tx *Tx) ReadValue(key []byte, limit func(Type) int64, access bool) (Value, bool, error) {
	var m Meta
	var ok bool
	var err error
	if access {
		m, ok, err = tx.LookupRead(key)
	} else {
		m, ok, err = tx.lookup(key)
	}
	if err != nil || !ok {
		return Value{}, false, err
	}
	v := Value{Type: m.Type}
	if m.Type == TypeString {
		v.String = m.Payload
		return v, true, nil
	}
	v.Count = int64(m.Count())
	if m.Type == TypeStream {
		if limit != nil {
			v.Partial = true
			return v, true, nil
		}
		st, err := decodeStream(key, m)
		if err != nil {
			return Value{}, false, err
		}
		if v.Stream, err = tx.readStreamValue(&st); err != nil {
			return Value{}, false, err
		}
		return v, true, nil
	}
	if limit != nil && v.Count > limit(m.Type) {
		v.Partial = true
		return v, true, nil
	}
	switch m.Type {
	case TypeList:
		if len(m.Payload) < listPayloadLen {
			return Value{}, false, fmt.Errorf("%w: list %q record of %d bytes", ErrCorrupt, key, len(m.Payload))
		}
		l := listState{version: m.Version, head: binary.BigEndian.Uint64(m.Payload[8:16]), tail: binary.BigEndian.Uint64(m.Payload[16:24])}
		if v.Items, err = tx.listRange(&l, 0, l.len()-1, false); err != nil {
			return Value{}, false, err
		}
	case TypeSet:
		if v.Items, _, err = tx.collMembers(m.Version, nil); err != nil {
			return Value{}, false, err
		}
	case TypeHash:
		keys, vals, err := tx.collMembers(m.Version, []byte{hashFieldNS})
		if err != nil {
			return Value{}, false, err
		}
		for i := range keys {
			r, err := decodeFieldRec(vals[i])
			if err != nil {
				return Value{}, false, err
			}
			if r.at != 0 && r.at < tx.now {
				continue // expired, not yet deleted
			}
			v.Pairs = append(v.Pairs, HashPair{Field: keys[i], Value: r.val})
		}
		v.Count = int64(len(v.Pairs))
	case TypeZSet:
		zi, err := tx.zsetIter(&zsetState{version: m.Version})
		if err != nil {
			return Value{}, false, err
		}
		for ok := zi.it.First(); ok; ok = zi.it.Next() {
			v.Members = append(v.Members, zi.cur())
		}
		if err := zi.it.Close(); err != nil {
			return Value{}, false, err
		}
	}
	return v, true, nil
}

// Restore writes v at key as RESTORE does, with the absolute expiry
// expireAt (Unix ms, 0 for none), replacing whatever key holds (the caller
// has refused an existing key unless told to replace it). An expiry
// already due creates nothing: a key it replaces is deleted with a `del`
// event and the result is false. Otherwise the key gets a `restore` event.
// The elements of v must be distinct where the type requires it; a stream
// must be whole and consistent (entries in ID order, none above its last
// ID, each pending entry owned by one of its group's consumers).
func (tx *Tx) Restore(key []byte, v Value, expireAt int64) (bool, error) {
	old, found, err := tx.Lookup(key)
	if err != nil {
		return false, err
	}
	if found {
		if err := tx.DeleteMeta(key, old); err != nil {
			return false, err
		}
	}
	if expireAt != 0 && expireAt <= tx.now {
		if found {
			tx.notify(ClassGeneric, "del", key)
		}
		return false, nil
	}
	nm := Meta{Type: v.Type, ExpireAt: expireAt}
	if v.Type != TypeString {
		nm.Version = tx.NewVersion()
	}
	b := tx.batch()
	switch v.Type {
	case TypeString:
		nm.Payload = v.String
	case TypeList:
		p := make([]byte, listPayloadLen)
		binary.BigEndian.PutUint64(p[0:8], uint64(len(v.Items)))
		binary.BigEndian.PutUint64(p[8:16], listMid)
		binary.BigEndian.PutUint64(p[16:24], listMid+uint64(len(v.Items)))
		nm.Payload = p
		for i, it := range v.Items {
			if err := b.Set(tx.elemKey(nm.Version, u64(listMid+uint64(i))), it); err != nil {
				return false, err
			}
			nm.ElemBytes += int64(len(it))
		}
	case TypeSet:
		for _, it := range v.Items {
			if err := b.Set(tx.elemKey(nm.Version, it), nil); err != nil {
				return false, err
			}
			nm.ElemBytes += int64(len(it))
		}
		nm.SetCount(uint64(len(v.Items)))
	case TypeHash:
		nm.Payload = make([]byte, hashPayloadLen)
		binary.BigEndian.PutUint64(nm.Payload[0:8], uint64(len(v.Pairs)))
		for _, p := range v.Pairs {
			if err := b.Set(tx.elemKey(nm.Version, []byte{hashFieldNS}, p.Field), encodeFieldRec(0, p.Value)); err != nil {
				return false, err
			}
			nm.ElemBytes += int64(len(p.Field) + len(p.Value))
		}
	case TypeZSet:
		z := zsetState{version: nm.Version}
		for _, m := range v.Members {
			if err := tx.zsetPut(&z, m.Member, m.Score, false, 0); err != nil {
				return false, err
			}
		}
		nm.SetCount(uint64(z.count))
		nm.ElemBytes = z.elems
	case TypeStream:
		if v.Stream == nil {
			return false, fmt.Errorf("kv: restore of a stream without its content")
		}
		if nm.Payload, err = tx.restoreStream(nm.Version, v.Stream); err != nil {
			return false, err
		}
		nm.ElemBytes = -1 // streams do not keep element bytes
	default:
		return false, fmt.Errorf("kv: restore of a value of type %v", v.Type)
	}
	if err := tx.PutMeta(key, Meta{}, false, nm); err != nil {
		return false, err
	}
	tx.notify(ClassGeneric, "restore", key)
	return true, nil
}

// SetAccess sets the access record of key as RESTORE's IDLETIME and FREQ
// do: last accessed idleSeconds ago (when >= 0), with the LFU counter
// freq (when >= 0, at most 255).
func (tx *Tx) SetAccess(key []byte, idleSeconds, freq int64) {
	c := &tx.s.access
	sec := tx.now / 1000
	c.init(sec)
	set, tag, i, r := c.lookup(tx.pdb, key)
	at, counter := sec, r.counter()
	if idleSeconds >= 0 {
		at = max(sec-idleSeconds, 0)
	}
	if freq >= 0 {
		counter = uint8(min(freq, 255))
	}
	set[i] = newAccessRecord(tag, at, counter)
}
