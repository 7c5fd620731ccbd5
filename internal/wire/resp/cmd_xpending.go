package resp

import (
	"errors"

	"github.com/mayfly/mayfly/internal/kv"
)

var cmdXPending = def(cmdSpec{
	Name: "xpending", Arity: -3, Flags: "readonly", FirstKey: 1, LastKey: 1, Step: 1,
	ACL: "read stream slow", Group: "stream", Since: "5.0.0",
	Summary:    "Return information and entries from a stream consumer group pending entries list, that are messages fetched but never acknowledged.",
	Complexity: "O(N) with N being the number of elements returned, so asking for a small fixed number of entries per call is O(1). O(M), where M is the total number of entries scanned when used with the IDLE filter. When the command returns just the summary and the list of consumers is small, it runs in O(1) time; otherwise, an additional O(N) time for iterating every consumer.",
	Handler:    xpending,
})

// xpending is XPENDING key group [[IDLE min-idle] start end count
// [consumer]]: the summary [count, min, max, [[consumer, count]...]], or
// the entries [id, consumer, idle ms, deliveries].
func xpending(x *cmdCtx) error {
	args := x.args
	key, group := args[1], args[2]
	if len(args) != 3 && (len(args) < 6 || len(args) > 9) {
		return errSyntax
	}
	var start, end kv.StreamID
	var count, minIdle int64
	var consumer []byte
	if len(args) >= 6 {
		at := 3
		if argEq(args[3], "idle") {
			var err error
			if minIdle, err = parseInt(args[4]); err != nil {
				return err
			}
			if len(args) < 8 {
				return errSyntax
			}
			at += 2
		}
		var err error
		if count, err = parseInt(args[at+2]); err != nil {
			return err
		}
		count = max(count, 0)
		if start, err = parseRangeStart(args[at]); err != nil {
			return err
		}
		if end, err = parseRangeEnd(args[at+1]); err != nil {
			return err
		}
		if at+3 < len(args) {
			consumer = args[at+3]
		}
	}
	if len(args) == 3 {
		r, err := x.tx.XPendingSummary(key, group)
		if errors.Is(err, kv.ErrNoGroup) {
			return errNoGroup(key, group, "")
		}
		if err != nil {
			return err
		}
		x.w.Array(4)
		x.w.Int(r.Count)
		if r.Count == 0 {
			x.w.Null()
			x.w.Null()
			x.w.NullArray()
			return nil
		}
		writeStreamID(x.w, r.Min)
		writeStreamID(x.w, r.Max)
		x.w.Array(len(r.Consumers))
		for _, c := range r.Consumers {
			x.w.Array(2)
			x.w.Bulk(c.Name)
			x.w.BulkInt(c.Count)
		}
		return nil
	}
	pel, err := x.tx.XPendingRange(key, group, start, end, count, minIdle, consumer)
	if errors.Is(err, kv.ErrNoGroup) {
		return errNoGroup(key, group, "")
	}
	if err != nil {
		return err
	}
	x.w.Array(len(pel))
	for _, p := range pel {
		x.w.Array(4)
		writeStreamID(x.w, p.ID)
		x.w.Bulk(p.Consumer)
		x.w.Int(p.DeliveryTime)
		x.w.Int(p.DeliveryCount)
	}
	return nil
}
