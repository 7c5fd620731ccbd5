package resp

import (
	"errors"

	"github.com/mayfly/mayfly/internal/kv"
)

var cmdXClaim = def(cmdSpec{
	Name: "xclaim", Arity: -6, Flags: "write fast", FirstKey: 1, LastKey: 1, Step: 1,
	ACL: "write stream fast", Group: "stream", Since: "5.0.0",
	Summary:    "Changes (or acquires) ownership of a message in a consumer group, as if the message was delivered to the specified consumer.",
	Complexity: "O(log N) with N being the number of messages in the PEL of the consumer group.",
	Handler:    xclaim,
})

// xclaim is XCLAIM key group consumer min-idle-time id [id ...] [IDLE ms]
// [TIME unix-ms] [RETRYCOUNT n] [FORCE] [JUSTID] [LASTID id]: the claimed
// entries, or their IDs with JUSTID.
func xclaim(x *cmdCtx) error {
	args := x.args
	key, group, consumer := args[1], args[2], args[3]
	if has, err := x.tx.XHasGroup(key, group); err != nil {
		return err
	} else if !has {
		return errNoGroup(key, group, "")
	}
	minIdle, ok := kv.ParseInt(args[4])
	if !ok {
		return replyErr("ERR Invalid min-idle-time argument for XCLAIM")
	}
	a := kv.XClaimArgs{MinIdle: max(minIdle, 0), DeliveryTime: -1, RetryCount: -1}
	j := 5
	var ids []kv.StreamID
	for ; j < len(args); j++ {
		id, _, ok := kv.ParseStreamID(args[j], 0, true, false)
		if !ok {
			break
		}
		ids = append(ids, id)
	}
	now := x.tx.Now()
	for ; j < len(args); j++ {
		more := j+1 < len(args)
		opt := args[j]
		switch {
		case argEq(opt, "force"):
			a.Force = true
		case argEq(opt, "justid"):
			a.JustID = true
		case argEq(opt, "idle") && more:
			j++
			n, ok := kv.ParseInt(args[j])
			if !ok {
				return replyErr("ERR Invalid IDLE option argument for XCLAIM")
			}
			a.DeliveryTime = now - n
		case argEq(opt, "time") && more:
			j++
			n, ok := kv.ParseInt(args[j])
			if !ok {
				return replyErr("ERR Invalid TIME option argument for XCLAIM")
			}
			a.DeliveryTime = n
		case argEq(opt, "retrycount") && more:
			j++
			n, ok := kv.ParseInt(args[j])
			if !ok {
				return replyErr("ERR Invalid RETRYCOUNT option argument for XCLAIM")
			}
			a.RetryCount = n
		case argEq(opt, "lastid") && more:
			j++
			id, err := parseStrictID(args[j])
			if err != nil {
				return err
			}
			a.LastID = id
		default:
			return replyErr("ERR Unrecognized XCLAIM option '" + string(opt) + "'")
		}
	}
	es, err := x.tx.XClaim(key, group, consumer, ids, a)
	if errors.Is(err, kv.ErrNoGroup) {
		return errNoGroup(key, group, "")
	}
	if err != nil {
		return err
	}
	if a.JustID {
		writeStreamIDs(x.w, es)
	} else {
		writeStreamEntries(x.w, es)
	}
	return nil
}
