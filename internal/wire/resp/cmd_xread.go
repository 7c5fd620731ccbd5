package resp

import (
	"errors"
	"math"
	"time"

	"github.com/mayfly/mayfly/internal/kv"
)

var cmdXRead = def(cmdSpec{
	Name: "xread", Arity: -4, Flags: "readonly blocking movablekeys",
	ACL: "read stream slow blocking", Group: "stream", Since: "5.0.0",
	Summary:    "Return never seen elements in multiple streams, with IDs greater than the ones reported by the caller for each stream. Can block.",
	Complexity: "For each stream mentioned: O(N) with N being the number of elements being returned, it means that XREAD-ing with a fixed COUNT is O(1). Note that when the BLOCK option is used, XADD will pay O(M) time in order to serve the M clients blocked on the stream getting new data.",
	Handler:    func(x *cmdCtx) error { return xreadGeneric(x, false) },
})

// xreadDefaultBlockCount is the COUNT of a blocked XREAD that gave none.
const xreadDefaultBlockCount = 1000

// xreadArgs is a parsed XREAD or XREADGROUP.
type xreadArgs struct {
	block    bool
	deadline time.Time // zero for BLOCK 0: forever
	count    int64
	noack    bool
	group    []byte
	consumer []byte
	keys     [][]byte
	ids      [][]byte // as given: "$", ">" or an ID
}

// parseXRead parses the options of XREAD and XREADGROUP up to STREAMS,
// with Redis's errors and their order.
func parseXRead(x *cmdCtx, isGroup bool) (xreadArgs, error) {
	var a xreadArgs
	args := x.args
	name := "XREAD"
	if isGroup {
		name = "XREADGROUP"
	}
	streamsAt := 0
	for i := 1; i < len(args) && streamsAt == 0; i++ {
		more := len(args) - 1 - i
		o := args[i]
		switch {
		case argEq(o, "block") && more > 0:
			if inScript(x) {
				// Redis names the command as the caller spelled it.
				return a, replyErr("ERR " + string(args[0]) + " command is not allowed with BLOCK option from scripts")
			}
			i++
			d, err := parseBlockMillis(x, args[i])
			if err != nil {
				return a, err
			}
			a.block, a.deadline = true, d
		case argEq(o, "count") && more > 0:
			i++
			n, err := parseInt(args[i])
			if err != nil {
				return a, err
			}
			a.count = max(n, 0)
		case argEq(o, "streams") && more > 0:
			streamsAt = i + 1
			if (len(args)-streamsAt)%2 != 0 {
				return a, replyErr("ERR Unbalanced " + name + " list of streams: for each stream key an ID or '$' must be specified.")
			}
		case argEq(o, "group") && more >= 2:
			if !isGroup {
				return a, replyErr("ERR The GROUP option is only supported by XREADGROUP. You called XREAD instead.")
			}
			a.group, a.consumer = args[i+1], args[i+2]
			i += 2
		case argEq(o, "noack"):
			if !isGroup {
				return a, replyErr("ERR The NOACK option is only supported by XREADGROUP. You called XREAD instead.")
			}
			a.noack = true
		default:
			return a, errSyntax
		}
	}
	if streamsAt == 0 {
		return a, errSyntax
	}
	if isGroup && a.group == nil {
		return a, replyErr("ERR Missing GROUP option for XREADGROUP")
	}
	n := (len(args) - streamsAt) / 2
	a.keys, a.ids = args[streamsAt:streamsAt+n], args[streamsAt+n:]
	return a, nil
}

// inScript reports whether x runs inside a script.
func inScript(x *cmdCtx) bool {
	switch x.c.lastName {
	case "eval", "evalsha", "eval_ro", "evalsha_ro", "fcall", "fcall_ro":
		return true
	}
	return false
}

// parseBlockMillis parses BLOCK's timeout in milliseconds and returns the
// deadline on the server clock, the zero time for 0 (forever).
func parseBlockMillis(x *cmdCtx, b []byte) (time.Time, error) {
	ms, ok := kv.ParseInt(b)
	if !ok {
		return time.Time{}, replyErr("ERR timeout is not an integer or out of range")
	}
	if ms < 0 {
		return time.Time{}, replyErr("ERR timeout is negative")
	}
	if ms == 0 {
		return time.Time{}, nil
	}
	now := x.s.opts.Now()
	if ms > math.MaxInt64-now.UnixMilli() {
		return time.Time{}, replyErr("ERR timeout is out of range")
	}
	return now.Add(time.Duration(ms) * time.Millisecond), nil
}

// xreadGeneric is XREAD [COUNT n] [BLOCK ms] STREAMS key... id... and
// XREADGROUP GROUP g c [COUNT n] [BLOCK ms] [NOACK] STREAMS key... id...:
// the streams with entries, or a null array when none has (at once, or
// at the BLOCK timeout). A blocked client is served by the first XADD to
// one of its keys, with that key's entries only.
func xreadGeneric(x *cmdCtx, isGroup bool) error {
	a, err := parseXRead(x, isGroup)
	if err != nil {
		return err
	}
	after := make([]kv.StreamID, len(a.keys)) // XREAD: the ID each key is read after
	isNew := make([]bool, len(a.keys))        // XREADGROUP: ">"
	for i, k := range a.keys {
		if isGroup {
			ok, err := x.tx.XHasGroup(k, a.group)
			if err != nil {
				return err
			}
			if !ok {
				return errNoGroup(k, a.group, " in XREADGROUP with GROUP option")
			}
		} else if _, err := x.tx.CheckType(k, kv.TypeStream); err != nil {
			return err
		}
		idArg := a.ids[i]
		switch string(idArg) {
		case "$":
			if isGroup {
				return replyErr("ERR The $ ID is meaningless in the context of XREADGROUP: you want to read the history of this consumer by specifying a proper ID, or use the > ID to get new messages. The $ ID would just return an empty result set.")
			}
			if after[i], err = x.tx.XLastID(k); err != nil {
				return err
			}
			continue
		case ">":
			if !isGroup {
				return replyErr("ERR The > ID can be specified only when calling XREADGROUP using the GROUP <group> <consumer> option.")
			}
			isNew[i] = true
			continue
		}
		if after[i], err = parseStrictID(idArg); err != nil {
			return err
		}
		if isGroup && after[i] == kv.MaxStreamID {
			isNew[i] = true
		}
	}
	var found []kv.XReadResult
	for i, k := range a.keys {
		var es []kv.StreamEntry
		var err error
		if isGroup {
			es, err = x.tx.XReadGroup(k, kv.XReadGroupArgs{
				Group: a.group, Consumer: a.consumer, New: isNew[i], After: after[i], Count: a.count, NoAck: a.noack,
			})
			if err == nil && !isNew[i] {
				found = append(found, kv.XReadResult{Key: k, Entries: es})
				continue
			}
		} else {
			es, _, err = x.tx.XRead(k, after[i], a.count)
		}
		if err != nil {
			return streamErr(err, k, a.group)
		}
		if len(es) > 0 {
			found = append(found, kv.XReadResult{Key: k, Entries: es})
		}
	}
	if len(found) > 0 {
		writeXReadReply(x.w, found)
		return nil
	}
	if !a.block || inExec(x) {
		x.w.NullArray()
		return nil
	}
	count := a.count
	if count == 0 {
		count = xreadDefaultBlockCount
	}
	var serve serveFunc
	if isGroup {
		serve = xreadGroupServe(a, count)
	} else {
		serve = xreadServe(a.keys, after, count)
	}
	r, served, gone, err := blockOn(x, a.keys, a.deadline, kv.TypeStream, serve)
	switch {
	case err != nil:
		return err
	case gone:
		return nil
	case !served:
		x.w.NullArray()
	case r.err != nil:
		return r.err
	default:
		writeXReadReply(x.w, []kv.XReadResult{{Key: r.key, Entries: r.entries}})
	}
	return nil
}

// xreadServe serves a blocked XREAD: the entries of key after the ID it
// was given for key.
func xreadServe(keys [][]byte, after []kv.StreamID, count int64) serveFunc {
	byKey := make(map[string]kv.StreamID, len(keys))
	for i, k := range keys {
		if _, dup := byKey[string(k)]; !dup {
			byKey[string(k)] = after[i]
		}
	}
	return func(tx *kv.Tx, key []byte) (blockResult, bool, []byte, error) {
		es, _, err := tx.XRead(key, byKey[string(key)], count)
		if errors.Is(err, kv.ErrWrongType) {
			return blockResult{}, false, nil, nil // keep waiting, as Redis
		}
		if err != nil || len(es) == 0 {
			return blockResult{}, false, nil, err
		}
		return blockResult{key: append([]byte(nil), key...), entries: es}, true, nil, nil
	}
}

// xreadGroupServe serves a blocked XREADGROUP: the entries of key after
// its group's last delivered ID. A key that is gone or holds another type
// ends the wait with an UNBLOCKED error, a destroyed group with NOGROUP.
func xreadGroupServe(a xreadArgs, count int64) serveFunc {
	group := append([]byte(nil), a.group...)
	consumer := append([]byte(nil), a.consumer...)
	return func(tx *kv.Tx, key []byte) (blockResult, bool, []byte, error) {
		key = append([]byte(nil), key...)
		ok, err := tx.CheckType(key, kv.TypeStream)
		if errors.Is(err, kv.ErrWrongType) || (err == nil && !ok) {
			return blockResult{err: errStreamGone}, true, nil, nil
		}
		if err != nil {
			return blockResult{}, false, nil, err
		}
		es, err := tx.XReadGroup(key, kv.XReadGroupArgs{Group: group, Consumer: consumer, New: true, Count: count, NoAck: a.noack})
		if errors.Is(err, kv.ErrNoGroup) {
			return blockResult{err: replyErr("NOGROUP the consumer group this client was blocked on no longer exists")}, true, nil, nil
		}
		if err != nil || len(es) == 0 {
			return blockResult{}, false, nil, err
		}
		return blockResult{key: key, entries: es}, true, nil, nil
	}
}
