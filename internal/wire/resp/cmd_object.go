package resp

import (
	"strings"

	"github.com/mayfly/mayfly/internal/kv"
	"github.com/mayfly/mayfly/internal/rdb"
)

// The errors of OBJECT IDLETIME and OBJECT FREQ when the maxmemory policy
// does not track what they ask for, word for word as Redis.
const (
	errIdleUnderLFU = "ERR An LFU maxmemory policy is selected, idle time not tracked. Please note that when switching between policies at runtime LRU and LFU data will take some time to adjust."
	errFreqNoLFU    = "ERR An LFU maxmemory policy is not selected, access frequency not tracked. Please note that when switching between policies at runtime LRU and LFU data will take some time to adjust."
)

// lfuPolicy reports whether the maxmemory policy is one of the LFU ones
// (allkeys-lfu, volatile-lfu).
func (x *cmdCtx) lfuPolicy() bool {
	return strings.HasSuffix(strings.ToLower(x.s.cfg.get("maxmemory-policy")), "-lfu")
}

// sharedIntegers reports whether small integers count as Redis's shared
// objects: unless a maxmemory limit is set with an LRU or LFU policy.
func (x *cmdCtx) sharedIntegers() bool {
	policy := strings.ToLower(x.s.cfg.get("maxmemory-policy"))
	return x.s.cfg.get("maxmemory") == "0" || !(strings.Contains(policy, "lru") || strings.Contains(policy, "lfu"))
}

// objectAccess looks the key up for OBJECT IDLETIME and FREQ without
// counting it as an access; it writes the null reply of a missing key.
func objectAccess(x *cmdCtx) (kv.KeyAccess, bool, error) {
	a, ok, err := x.tx.Access(x.args[2])
	if err == nil && !ok {
		x.w.Null()
	}
	return a, ok, err
}

// objectEncoding is the encoding Redis would report for the value at key,
// from its size and the CONFIG parameters: a set, hash or sorted set larger
// than its compact encoding allows is answered without reading its
// elements. It does not count as an access.
func objectEncoding(x *cmdCtx, key []byte) (string, bool, error) {
	c := x.rdbConfig()
	limit := func(t kv.Type) int64 { return rdb.EncodingLimit(rdbKinds[t], c) }
	v, ok, err := x.tx.ReadValue(key, limit, false)
	if err != nil || !ok {
		return "", false, err
	}
	if v.Type == kv.TypeStream {
		return "stream", true, nil
	}
	if v.Partial {
		return rdb.BigEncoding(rdbKinds[v.Type]), true, nil
	}
	return rdb.Encoding(toRDB(&v), c), true, nil
}

var cmdObject = container("object", "", "slow", "generic", "2.2.3", "A container for object introspection commands.",
	def(cmdSpec{
		Name: "object|encoding", Arity: 3, Flags: "readonly", FirstKey: 2, LastKey: 2, Step: 1,
		ACL: "keyspace read slow", Group: "generic", Since: "2.2.3",
		Summary:    "Returns the internal encoding of a Redis object.",
		Complexity: "O(1)",
		Handler: func(x *cmdCtx) error {
			enc, ok, err := objectEncoding(x, x.args[2])
			if err != nil {
				return err
			}
			if !ok {
				x.w.Null()
				return nil
			}
			x.w.BulkString(enc)
			return nil
		},
	}),
	def(cmdSpec{
		Name: "object|freq", Arity: 3, Flags: "readonly", FirstKey: 2, LastKey: 2, Step: 1,
		ACL: "keyspace read slow", Group: "generic", Since: "4.0.0",
		Summary:    "Returns the logarithmic access frequency counter of a Redis object.",
		Complexity: "O(1)",
		Handler: func(x *cmdCtx) error {
			a, ok, err := objectAccess(x)
			if err != nil || !ok {
				return err
			}
			if !x.lfuPolicy() {
				return replyErr(errFreqNoLFU)
			}
			x.w.Int(a.Freq)
			return nil
		},
	}),
	def(cmdSpec{
		Name: "object|idletime", Arity: 3, Flags: "readonly", FirstKey: 2, LastKey: 2, Step: 1,
		ACL: "keyspace read slow", Group: "generic", Since: "2.2.3",
		Summary:    "Returns the time since the last access to a Redis object.",
		Complexity: "O(1)",
		Handler: func(x *cmdCtx) error {
			a, ok, err := objectAccess(x)
			if err != nil || !ok {
				return err
			}
			if x.lfuPolicy() {
				return replyErr(errIdleUnderLFU)
			}
			x.w.Int(a.IdleSeconds)
			return nil
		},
	}),
	def(cmdSpec{
		Name: "object|refcount", Arity: 3, Flags: "readonly", FirstKey: 2, LastKey: 2, Step: 1,
		ACL: "keyspace read slow", Group: "generic", Since: "2.2.3",
		Summary:    "Returns the reference count of a value of a key.",
		Complexity: "O(1)",
		Handler: func(x *cmdCtx) error {
			n, ok, err := x.tx.RefCount(x.args[2], x.sharedIntegers())
			if err != nil {
				return err
			}
			if !ok {
				x.w.Null()
				return nil
			}
			x.w.Int(n)
			return nil
		},
	}),
	helpCmd("object", "OBJECT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
		"ENCODING <key>", "    Return the kind of internal representation used in order to store the value", "    associated with a <key>.",
		"FREQ <key>", "    Return the access frequency index of the <key>. The returned integer is", "    proportional to the logarithm of the recorded access frequency of the key.",
		"IDLETIME <key>", "    Return the idle time of the <key>, that is the approximated number of", "    seconds elapsed since the last access to the key.",
		"REFCOUNT <key>", "    Return the number of references of the value associated with the specified", "    <key>."),
)
