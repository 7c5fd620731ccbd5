package kv

import (
	"strconv"
)

// SetCond is the condition of SET.
type SetCond uint8

// The SET conditions.
const (
	SetAlways SetCond = iota
	SetNX             // only if the key does not exist
	SetXX             // only if the key exists
)

// SetOptions are the options of SET.
type SetOptions struct {
	Cond SetCond
	// Get asks for the old value; a non-string old value is then an error.
	Get bool
	// ExpireAt is the new absolute expiry in Unix ms; 0 means none (the old
	// expiry is cleared unless KeepTTL).
	ExpireAt int64
	// KeepTTL keeps the key's current expiry.
	KeepTTL bool
}

// SetResult is what SET did.
type SetResult struct {
	Done     bool   // the value was written
	Old      []byte // the old value, when Get and the key existed
	OldFound bool
}

// Get returns the string value of key; ok is false when there is none.
func (tx *Tx) Get(key []byte) ([]byte, bool, error) {
	m, ok, err := tx.LookupRead(key)
	if err != nil || !ok {
		return nil, false, err
	}
	if m.Type != TypeString {
		return nil, false, ErrWrongType
	}
	return m.Payload, true, nil
}

// Set writes a string value (SET and its variants). A written key gets a
// `set` event, and an `expire` event when it gets an expiry.
func (tx *Tx) Set(key, value []byte, o SetOptions) (SetResult, error) {
	var r SetResult
	var m Meta
	var found bool
	var err error
	if o.Get {
		m, found, err = tx.LookupRead(key)
	} else {
		m, found, err = tx.Lookup(key)
	}
	if err != nil {
		return r, err
	}
	if o.Get && found {
		if m.Type != TypeString {
			return r, ErrWrongType
		}
		r.Old, r.OldFound = m.Payload, true
	}
	if (o.Cond == SetNX && found) || (o.Cond == SetXX && !found) {
		return r, nil
	}
	if err := tx.writeString(key, m, found, value, o.ExpireAt, o.KeepTTL); err != nil {
		return r, err
	}
	tx.notify(ClassString, "set", key)
	if o.ExpireAt != 0 {
		tx.notify(ClassGeneric, "expire", key)
	}
	r.Done = true
	return r, nil
}

// writeString stores value under key, replacing old (found). With keepTTL
// the old expiry stays, otherwise expireAt (0 for none) is the new one.
func (tx *Tx) writeString(key []byte, old Meta, found bool, value []byte, expireAt int64, keepTTL bool) error {
	nm := Meta{Type: TypeString, ExpireAt: expireAt, Payload: value}
	if keepTTL && found {
		nm.ExpireAt = old.ExpireAt
	}
	return tx.PutMeta(key, old, found, nm)
}

// GetDel returns the string value of key and deletes it (`del` event).
func (tx *Tx) GetDel(key []byte) ([]byte, bool, error) {
	m, ok, err := tx.LookupRead(key)
	if err != nil || !ok {
		return nil, false, err
	}
	if m.Type != TypeString {
		return nil, false, ErrWrongType
	}
	if err := tx.DeleteMeta(key, m); err != nil {
		return nil, false, err
	}
	tx.notify(ClassGeneric, "del", key)
	return m.Payload, true, nil
}

// GetExMode says what GETEX does to the expiry.
type GetExMode uint8

// The GETEX modes.
const (
	GetExKeep    GetExMode = iota // leave the expiry alone
	GetExPersist                  // remove the expiry
	GetExAt                       // set the expiry to an absolute time
)

// GetEx returns the string value of key and changes its expiry. For
// GetExAt the time is the argument n in unitMs (1000 for seconds), relative
// to now or absolute; it is validated only once the key is known to be a
// string, as Redis does, and ErrInvalidExpire reports a bad one. A time at
// or before now deletes the key (`del`), PERSIST emits `persist` when it
// removed an expiry, and a new time emits `expire`.
func (tx *Tx) GetEx(key []byte, mode GetExMode, n, unitMs int64, relative bool) ([]byte, bool, error) {
	m, ok, err := tx.LookupRead(key)
	if err != nil || !ok {
		return nil, false, err
	}
	if m.Type != TypeString {
		return nil, false, ErrWrongType
	}
	var at int64
	if mode == GetExAt {
		if at, ok = SetExpireTime(tx.now, n, unitMs, relative); !ok {
			return nil, false, ErrInvalidExpire
		}
	}
	switch {
	case mode == GetExAt && at <= tx.now:
		if err := tx.DeleteMeta(key, m); err != nil {
			return nil, false, err
		}
		tx.notify(ClassGeneric, "del", key)
	case mode == GetExAt:
		nm := m
		nm.ExpireAt = at
		if err := tx.PutMeta(key, m, true, nm); err != nil {
			return nil, false, err
		}
		tx.notify(ClassGeneric, "expire", key)
	case mode == GetExPersist && m.ExpireAt != 0:
		nm := m
		nm.ExpireAt = 0
		if err := tx.PutMeta(key, m, true, nm); err != nil {
			return nil, false, err
		}
		tx.notify(ClassGeneric, "persist", key)
	}
	return m.Payload, true, nil
}

// MGet returns the string values of keys; a missing key or one of another
// type gives nil.
func (tx *Tx) MGet(keys [][]byte) ([][]byte, error) {
	out := make([][]byte, len(keys))
	for i, k := range keys {
		m, ok, err := tx.LookupRead(k)
		if err != nil {
			return nil, err
		}
		if ok && m.Type == TypeString {
			out[i] = m.Payload
			if out[i] == nil {
				out[i] = []byte{}
			}
		}
	}
	return out, nil
}

// MSet writes several string values; pairs alternate key and value. cond
// applies to all keys at once: with SetNX nothing is written if any key
// exists, with SetXX nothing is written unless all exist. expireAt and
// keepTTL are as in SetOptions. It reports whether the values were written.
func (tx *Tx) MSet(pairs [][]byte, cond SetCond, expireAt int64, keepTTL bool) (bool, error) {
	if cond != SetAlways {
		for i := 0; i+1 < len(pairs); i += 2 {
			_, ok, err := tx.Lookup(pairs[i])
			if err != nil {
				return false, err
			}
			if (cond == SetNX && ok) || (cond == SetXX && !ok) {
				return false, nil
			}
		}
	}
	for i := 0; i+1 < len(pairs); i += 2 {
		m, ok, err := tx.Lookup(pairs[i])
		if err != nil {
			return false, err
		}
		if err := tx.writeString(pairs[i], m, ok, pairs[i+1], expireAt, keepTTL); err != nil {
			return false, err
		}
		tx.notify(ClassString, "set", pairs[i])
		if expireAt != 0 {
			tx.notify(ClassGeneric, "expire", pairs[i])
		}
	}
	return true, nil
}

// stringForUpdate looks key up for an in-place string update.
func (tx *Tx) stringForUpdate(key []byte) (Meta, bool, error) {
	m, ok, err := tx.Lookup(key)
	if err != nil || !ok {
		return m, ok, err
	}
	if m.Type != TypeString {
		return m, ok, ErrWrongType
	}
	return m, true, nil
}

// IncrBy adds delta to the integer stored at key (0 when missing), keeping
// its expiry; the event is `incrby`.
func (tx *Tx) IncrBy(key []byte, delta int64) (int64, error) {
	m, ok, err := tx.stringForUpdate(key)
	if err != nil {
		return 0, err
	}
	var cur int64
	if ok {
		v, ok2 := ParseInt(m.Payload)
		if !ok2 {
			return 0, ErrNotInteger
		}
		cur = v
	}
	if (delta < 0 && cur < 0 && delta < minInt64-cur) || (delta > 0 && cur > 0 && delta > maxInt64-cur) {
		return 0, ErrOverflow
	}
	cur += delta
	if err := tx.writeString(key, m, ok, strconv.AppendInt(nil, cur, 10), 0, true); err != nil {
		return 0, err
	}
	tx.notify(ClassString, "incrby", key)
	return cur, nil
}

const (
	maxInt64 = 1<<63 - 1
	minInt64 = -1 << 63
)

// IncrByFloat adds incr to the number stored at key (0 when missing) with
// the precision of Redis's long double, keeping the expiry, and returns the
// new value as stored; the event is `incrbyfloat`.
func (tx *Tx) IncrByFloat(key []byte, incr []byte) ([]byte, error) {
	m, ok, err := tx.stringForUpdate(key)
	if err != nil {
		return nil, err
	}
	cur := newLongDouble()
	if ok {
		if cur, err = parseLongDouble(m.Payload); err != nil {
			return nil, err
		}
	}
	inc, err := parseLongDouble(incr)
	if err != nil {
		return nil, err
	}
	sum, err := addLongDouble(cur, inc)
	if err != nil {
		return nil, err
	}
	out := formatLongDouble(sum)
	if err := tx.writeString(key, m, ok, out, 0, true); err != nil {
		return nil, err
	}
	tx.notify(ClassString, "incrbyfloat", key)
	return out, nil
}

// Append appends value to the string at key (creating it) and returns the
// new length; the event is `append`.
func (tx *Tx) Append(key, value []byte) (int64, error) {
	m, ok, err := tx.stringForUpdate(key)
	if err != nil {
		return 0, err
	}
	var cur []byte
	if ok {
		cur = m.Payload
		if int64(len(cur))+int64(len(value)) > tx.MaxStringSize() {
			return 0, ErrStringTooLong
		}
	}
	nv := append(append(make([]byte, 0, len(cur)+len(value)), cur...), value...)
	if err := tx.writeString(key, m, ok, nv, 0, true); err != nil {
		return 0, err
	}
	tx.notify(ClassString, "append", key)
	return int64(len(nv)), nil
}

// StrLen returns the length of the string at key (0 when missing).
func (tx *Tx) StrLen(key []byte) (int64, error) {
	v, _, err := tx.Get(key)
	return int64(len(v)), err
}

// GetRange returns the substring of the value at key between start and end
// inclusive, negative offsets counting from the end, as GETRANGE does.
func (tx *Tx) GetRange(key []byte, start, end int64) ([]byte, error) {
	v, _, err := tx.Get(key)
	if err != nil {
		return nil, err
	}
	n := int64(len(v))
	if start < 0 && end < 0 && start > end {
		return []byte{}, nil
	}
	if start < 0 {
		start += n
	}
	if end < 0 {
		end += n
	}
	if start < 0 {
		start = 0
	}
	if end < 0 {
		end = 0
	}
	if end >= n {
		end = n - 1
	}
	if start > end || n == 0 {
		return []byte{}, nil
	}
	return v[start : end+1], nil
}

// SetRange overwrites the value at key from offset on, padding with zero
// bytes, and returns the new length; the event is `setrange`.
func (tx *Tx) SetRange(key []byte, offset int64, value []byte) (int64, error) {
	if offset < 0 {
		return 0, ErrOffsetRange
	}
	m, ok, err := tx.stringForUpdate(key)
	if err != nil {
		return 0, err
	}
	if len(value) == 0 {
		return int64(len(m.Payload)), nil
	}
	if offset > tx.MaxStringSize()-int64(len(value)) { // offset+len cannot overflow
		return 0, ErrStringTooLong
	}
	cur := m.Payload
	need := int(offset) + len(value)
	nv := make([]byte, max(len(cur), need))
	copy(nv, cur)
	copy(nv[offset:], value)
	if err := tx.writeString(key, m, ok, nv, 0, true); err != nil {
		return 0, err
	}
	tx.notify(ClassString, "setrange", key)
	return int64(len(nv)), nil
}

// ParseInt parses b as Redis's string2ll does: optional '-', no '+', no
// leading zeros or spaces, within the signed 64-bit range.
func ParseInt(b []byte) (int64, bool) {
	if len(b) == 0 || len(b) > 20 {
		return 0, false
	}
	if len(b) == 1 && b[0] == '0' {
		return 0, true
	}
	neg := false
	i := 0
	if b[0] == '-' {
		neg = true
		i = 1
		if len(b) == 1 {
			return 0, false
		}
	}
	if b[i] < '1' || b[i] > '9' {
		return 0, false
	}
	var v uint64
	for ; i < len(b); i++ {
		c := b[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		if v > (1<<64-1)/10 {
			return 0, false
		}
		v *= 10
		if v > 1<<64-1-uint64(c-'0') {
			return 0, false
		}
		v += uint64(c - '0')
	}
	if neg {
		if v > 1<<63 {
			return 0, false
		}
		return -int64(v), true
	}
	if v > 1<<63-1 {
		return 0, false
	}
	return int64(v), true
}
