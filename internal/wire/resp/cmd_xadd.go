package resp

import (
	"strconv"

	"github.com/mayfly/mayfly/internal/kv"
)

var cmdXAdd = def(cmdSpec{
	Name: "xadd", Arity: -5, Flags: "write denyoom fast", FirstKey: 1, LastKey: 1, Step: 1,
	ACL: "write stream fast", Group: "stream", Since: "5.0.0",
	Summary:    "Appends a new entry to a stream",
	Complexity: "O(1) when adding a new entry, O(N) when trimming where N being the number of entries evicted.",
	Handler:    xadd,
})

// xadd is XADD key [NOMKSTREAM] [MAXLEN|MINID [=|~] threshold [LIMIT n]]
// *|id field value [field value ...]: the new entry's ID, or a null
// reply with NOMKSTREAM on a missing key.
func xadd(x *cmdCtx) error {
	var a kv.XAddArgs
	idpos, err := parseAddOrTrim(x, &a, true)
	if err != nil {
		return err
	}
	if idpos+1 > len(x.args) {
		return errArity("xadd")
	}
	fields := x.args[idpos+1:]
	if len(fields) < 2 || len(fields)%2 == 1 {
		return errArity("xadd")
	}
	if a.IDGiven && a.SeqGiven && a.ID.IsZero() {
		return errStreamIDZero
	}
	id, ok, err := x.tx.XAdd(x.args[1], a, fields)
	if err != nil {
		return streamErr(err, x.args[1], nil)
	}
	if !ok {
		x.w.Null()
		return nil
	}
	writeStreamID(x.w, id)
	serveBlocked(x, x.args[1])
	return nil
}

// parseAddOrTrim parses the options of XADD (with its ID, whose position
// it returns) or XTRIM into a, as Redis's streamParseAddOrTrimArgsOrReply.
func parseAddOrTrim(x *cmdCtx, a *kv.XAddArgs, isAdd bool) (int, error) {
	args := x.args
	t := &a.Trim
	limitGiven := false
	i := 2
	for ; i < len(args); i++ {
		more := len(args) - 1 - i
		opt := args[i]
		switch {
		case isAdd && len(opt) == 1 && opt[0] == '*':
			return i, finishTrim(x, a, limitGiven, isAdd)
		case (argEq(opt, "maxlen") || argEq(opt, "minid")) && more > 0:
			if t.Strategy != kv.TrimNone {
				return 0, replyErr("ERR syntax error, MAXLEN and MINID options at the same time are not compatible")
			}
			t.Approx = false
			if next := args[i+1]; more >= 2 && len(next) == 1 && (next[0] == '~' || next[0] == '=') {
				t.Approx = next[0] == '~'
				i++
			}
			if argEq(opt, "maxlen") {
				n, err := parseInt(args[i+1])
				if err != nil {
					return 0, err
				}
				if n < 0 {
					return 0, replyErr("ERR The MAXLEN argument must be >= 0.")
				}
				t.Strategy, t.MaxLen = kv.TrimMaxLen, n
			} else {
				id, err := parseStrictID(args[i+1])
				if err != nil {
					return 0, err
				}
				t.Strategy, t.MinID = kv.TrimMinID, id
			}
			i++
		case argEq(opt, "limit") && more > 0:
			n, err := parseInt(args[i+1])
			if err != nil {
				return 0, err
			}
			if n < 0 {
				return 0, replyErr("ERR The LIMIT argument must be >= 0.")
			}
			t.Limit, limitGiven = n, true
			i++
		case isAdd && argEq(opt, "nomkstream"):
			a.NoMkStream = true
		case isAdd:
			id, seqGiven, ok := kv.ParseStreamID(opt, 0, true, true)
			if !ok {
				return 0, errInvalidStreamID
			}
			a.ID, a.IDGiven, a.SeqGiven = id, true, seqGiven
			return i, finishTrim(x, a, limitGiven, isAdd)
		default:
			return 0, errSyntax
		}
	}
	return i, finishTrim(x, a, limitGiven, isAdd)
}

// finishTrim checks the trimming options together and sets the default
// LIMIT of "~": 100 nodes.
func finishTrim(x *cmdCtx, a *kv.XAddArgs, limitGiven, isAdd bool) error {
	t := &a.Trim
	if t.Limit != 0 && t.Strategy == kv.TrimNone {
		return replyErr("ERR syntax error, LIMIT cannot be used without specifying a trimming strategy")
	}
	if !isAdd && t.Strategy == kv.TrimNone {
		return replyErr("ERR syntax error, XTRIM must be called with a trimming strategy")
	}
	a.NodeEntries = streamNodeEntries(x)
	if limitGiven {
		if !t.Approx {
			return replyErr("ERR syntax error, LIMIT cannot be used without the special ~ option")
		}
	} else if t.Approx {
		t.Limit = 100 * a.NodeEntries
		if t.Limit <= 0 {
			t.Limit = 10000
		}
		t.Limit = min(t.Limit, 1000000)
	} else {
		t.Limit = 0
	}
	return nil
}

// streamNodeEntries is stream-node-max-entries: how many entries a macro
// node holds (0 for no limit).
func streamNodeEntries(x *cmdCtx) int64 {
	n, err := strconv.ParseInt(x.s.cfg.get("stream-node-max-entries"), 10, 64)
	if err != nil {
		return 100
	}
	return n
}
