package kv

import "math"

// ExpireCond is the set of condition options of the EXPIRE family; every
// condition given must hold. (Redis refuses NX with another option and GT
// with LT; XX combines with GT or LT.)
type ExpireCond uint8

// The EXPIRE conditions; a key without an expiry counts as an infinite one
// for GT and LT.
const (
	ExpireAlways ExpireCond = 0
	ExpireNX     ExpireCond = 1 << iota // only when the key has no expiry
	ExpireXX                            // only when the key has an expiry
	ExpireGT                            // only when the new expiry is later
	ExpireLT                            // only when the new expiry is earlier
)

// ExpireTime converts an EXPIRE-family argument n to absolute Unix ms.
// unitMs is 1000 for seconds and 1 for milliseconds; relative adds now. ok
// is false on overflow (Redis's "invalid expire time"). Zero, negative and
// past results are valid: they delete the key.
func ExpireTime(now, n, unitMs int64, relative bool) (int64, bool) {
	if unitMs == 1000 {
		if n > math.MaxInt64/1000 || n < math.MinInt64/1000 {
			return 0, false
		}
		n *= 1000
	}
	if relative {
		if n > math.MaxInt64-now {
			return 0, false
		}
		n += now
	}
	return n, true
}

// SetExpireTime converts the EX/PX/EXAT/PXAT argument of SET, SETEX,
// PSETEX, GETEX and MSETEX to absolute Unix ms. ok is false for zero or
// negative arguments and on overflow ("invalid expire time").
func SetExpireTime(now, n, unitMs int64, relative bool) (int64, bool) {
	if n <= 0 || (unitMs == 1000 && n > math.MaxInt64/1000) {
		return 0, false
	}
	n *= unitMs
	if relative {
		if n > math.MaxInt64-now {
			return 0, false
		}
		n += now
	}
	return n, n > 0
}

// Expire sets the expiry of key to the absolute time at (Unix ms) if cond
// holds. A time at or before now deletes the key at once (a `del` event,
// as Redis does for zero, negative and past times); otherwise the event is
// `expire`. It reports whether the key was changed.
func (tx *Tx) Expire(key []byte, at int64, cond ExpireCond) (bool, error) {
	m, ok, err := tx.Lookup(key)
	if err != nil || !ok {
		return false, err
	}
	cur := m.ExpireAt
	if (cond&ExpireNX != 0 && cur != 0) ||
		(cond&ExpireXX != 0 && cur == 0) ||
		(cond&ExpireGT != 0 && (cur == 0 || at <= cur)) ||
		(cond&ExpireLT != 0 && cur != 0 && at >= cur) {
		return false, nil
	}
	if at <= tx.now {
		if err := tx.DeleteMeta(key, m); err != nil {
			return false, err
		}
		tx.notify(ClassGeneric, "del", key)
		return true, nil
	}
	nm := m
	nm.ExpireAt = at
	if err := tx.PutMeta(key, m, true, nm); err != nil {
		return false, err
	}
	tx.notify(ClassGeneric, "expire", key)
	return true, nil
}

// TTLState is the answer of TTL-like commands.
type TTLState int8

// The TTL states.
const (
	TTLMissing    TTLState = -2 // no such key
	TTLPersistent TTLState = -1 // the key has no expiry
	TTLVolatile   TTLState = 0  // the key expires at the returned time
)

// ExpireAt returns the absolute expiry (Unix ms) of key and its state. As
// in Redis, reading a TTL counts a keyspace hit or miss but is not an
// access of the key (OBJECT IDLETIME does not restart).
func (tx *Tx) ExpireAt(key []byte) (int64, TTLState, error) {
	m, ok, err := tx.lookupRead(key)
	if err != nil {
		return 0, 0, err
	}
	if !ok {
		return 0, TTLMissing, nil
	}
	if m.ExpireAt == 0 {
		return 0, TTLPersistent, nil
	}
	return m.ExpireAt, TTLVolatile, nil
}

// Persist removes the expiry of key; it reports whether there was one.
func (tx *Tx) Persist(key []byte) (bool, error) {
	m, ok, err := tx.Lookup(key)
	if err != nil || !ok || m.ExpireAt == 0 {
		return false, err
	}
	nm := m
	nm.ExpireAt = 0
	if err := tx.PutMeta(key, m, true, nm); err != nil {
		return false, err
	}
	tx.notify(ClassGeneric, "persist", key)
	return true, nil
}
