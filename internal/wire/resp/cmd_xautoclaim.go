package resp

import (
	"errors"
	"math"

	"github.com/mayfly/mayfly/internal/kv"
)

var cmdXAutoClaim = def(cmdSpec{
	Name: "xautoclaim", Arity: -6, Flags: "write fast", FirstKey: 1, LastKey: 1, Step: 1,
	ACL: "write stream fast", Group: "stream", Since: "6.2.0",
	Summary:    "Changes (or acquires) ownership of messages in a consumer group, as if the messages were delivered to the specified consumer.",
	Complexity: "O(1) if COUNT is small.",
	Handler:    xautoclaim,
})

// xautoclaim is XAUTOCLAIM key group consumer min-idle-time start [COUNT
// n] [JUSTID]: [next start, claimed entries (or IDs), IDs of deleted
// entries dropped from the pending list].
func xautoclaim(x *cmdCtx) error {
	args := x.args
	key, group, consumer := args[1], args[2], args[3]
	minIdle, ok := kv.ParseInt(args[4])
	if !ok {
		return replyErr("ERR Invalid min-idle-time argument for XAUTOCLAIM")
	}
	start, err := parseRangeStart(args[5])
	if err != nil {
		return err
	}
	count, justID := int64(100), false
	for j := 6; j < len(args); j++ {
		switch {
		case argEq(args[j], "count") && j+1 < len(args):
			n, ok := kv.ParseInt(args[j+1])
			if !ok || n < 1 || n > math.MaxInt64/16 {
				return replyErr("ERR COUNT must be > 0")
			}
			count = n
			j++
		case argEq(args[j], "justid"):
			justID = true
		default:
			return errSyntax
		}
	}
	next, claimed, deleted, err := x.tx.XAutoClaim(key, group, consumer, max(minIdle, 0), start, count, justID)
	if errors.Is(err, kv.ErrNoGroup) {
		return errNoGroup(key, group, "")
	}
	if err != nil {
		return err
	}
	x.w.Array(3)
	writeStreamID(x.w, next)
	if justID {
		writeStreamIDs(x.w, claimed)
	} else {
		writeStreamEntries(x.w, claimed)
	}
	x.w.Array(len(deleted))
	for _, id := range deleted {
		writeStreamID(x.w, id)
	}
	return nil
}
