package resp

import (
	"errors"

	"github.com/mayfly/mayfly/internal/rdb"
)

// The errors of RESTORE, word for word as Redis.
const (
	errBusyKey       = replyErr("BUSYKEY Target key name already exists.")
	errDumpPayload   = replyErr("ERR DUMP payload version or checksum are wrong")
	errBadDataFormat = replyErr("ERR Bad data format")
	errRestoreTTL    = replyErr("ERR Invalid TTL value, must be >= 0")
	errIdleTime      = replyErr("ERR Invalid IDLETIME value, must be >= 0")
	errFreq          = replyErr("ERR Invalid FREQ value, must be >= 0 and <= 255")
)

// RESTORE checks in Redis's order: its options, an existing key (unless
// REPLACE), the TTL, the payload's footer, then the payload itself. A TTL
// already in the past (ABSTTL) restores nothing and deletes a key REPLACE
// would have replaced. IDLETIME sets the key's idle time unless an LFU
// policy is on, FREQ its LFU counter only under one; only one of the two
// may be given.
var cmdRestore = def(cmdSpec{
	Name: "restore", Arity: -4, Flags: "write denyoom", FirstKey: 1, LastKey: 1, Step: 1,
	ACL: "keyspace write slow dangerous", Group: "generic", Since: "2.6.0",
	Summary:    "Create a key using the provided serialized value, previously obtained using DUMP.",
	Complexity: "O(1) to create the new key and additional O(N*M) to reconstruct the serialized value, where N is the number of Redis objects composing the value and M their average size. For small string values the time complexity is thus O(1)+O(1*M) where M is small, so simply O(1). However for sorted set values the complexity is O(N*M*log(N)) because inserting values into sorted sets is O(log(N)).",
	Handler: func(x *cmdCtx) error {
		key := x.args[1]
		replace, absTTL := false, false
		idle, freq := int64(-1), int64(-1)
		for i := 4; i < len(x.args); i++ {
			more := i+1 < len(x.args)
			switch a := x.args[i]; {
			case argEq(a, "replace"):
				replace = true
			case argEq(a, "absttl"):
				absTTL = true
			case argEq(a, "idletime") && more && freq == -1:
				n, err := parseInt(x.args[i+1])
				if err != nil {
					return err
				}
				if n < 0 {
					return errIdleTime
				}
				idle = n
				i++
			case argEq(a, "freq") && more && idle == -1:
				n, err := parseInt(x.args[i+1])
				if err != nil {
					return err
				}
				if n < 0 || n > 255 {
					return errFreq
				}
				freq = n
				i++
			default:
				return errSyntax
			}
		}
		if !replace {
			n, err := x.tx.Exists([][]byte{key})
			if err != nil {
				return err
			}
			if n > 0 {
				return errBusyKey
			}
		}
		ttl, err := parseInt(x.args[2])
		if err != nil {
			return err
		}
		if ttl < 0 {
			return errRestoreTTL
		}
		v, err := rdb.Load(x.args[3])
		switch {
		case errors.Is(err, rdb.ErrVersion):
			return errDumpPayload
		case err != nil:
			return errBadDataFormat
		}
		expireAt := ttl
		if ttl != 0 && !absTTL {
			// as in Redis, a sum past the 64-bit range wraps into the past
			expireAt = ttl + x.tx.Now()
		}
		written, err := x.tx.Restore(key, fromRDB(v), expireAt)
		if err != nil {
			return err
		}
		if written {
			lfu := x.lfuPolicy()
			switch {
			case lfu && freq >= 0:
				x.tx.SetAccess(key, -1, freq)
			case !lfu && idle >= 0:
				x.tx.SetAccess(key, idle, -1)
			}
			serveBlockedIn(x, x.c.db, key)
		}
		x.w.OK()
		return nil
	},
})
