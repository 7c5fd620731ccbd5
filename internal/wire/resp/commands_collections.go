package resp

import (
	"strconv"

	"github.com/mayfly/mayfly/internal/kv"
)

// collectionCommands lists the commands of the collection types (lists,
// hashes with field expiry, sets, sorted sets) and SORT; each is defined
// in its own file (cmd_<name>.go).
func collectionCommands() []*command {
	return []*command{
		// lists
		cmdBLMove, cmdBLMPop, cmdBLPop, cmdBRPop, cmdBRPopLPush, cmdLIndex, cmdLInsert, cmdLLen,
		cmdLMove, cmdLMPop, cmdLPop, cmdLPos, cmdLPush, cmdLPushX, cmdLRange, cmdLRem, cmdLSet,
		cmdLTrim, cmdRPop, cmdRPopLPush, cmdRPush, cmdRPushX,
		// hashes
		cmdHDel, cmdHExists, cmdHGet, cmdHGetAll, cmdHIncrBy, cmdHIncrByFloat, cmdHKeys, cmdHLen,
		cmdHMGet, cmdHMSet, cmdHRandField, cmdHScan, cmdHSet, cmdHSetNX, cmdHStrLen, cmdHVals,
		// hash field expiry
		cmdHExpire, cmdHExpireAt, cmdHExpireTime, cmdHGetDel, cmdHGetEx, cmdHPExpire, cmdHPExpireAt,
		cmdHPExpireTime, cmdHPersist, cmdHPTTL, cmdHSetEx, cmdHTTL,
		// sets
		cmdSAdd, cmdSCard, cmdSDiff, cmdSDiffStore, cmdSInter, cmdSInterCard, cmdSInterStore,
		cmdSIsMember, cmdSMembers, cmdSMIsMember, cmdSMove, cmdSPop, cmdSRandMember, cmdSRem,
		cmdSScan, cmdSUnion, cmdSUnionStore,
		// sorted sets
		cmdBZMPop, cmdBZPopMax, cmdBZPopMin, cmdZAdd, cmdZCard, cmdZCount, cmdZDiff, cmdZDiffStore,
		cmdZIncrBy, cmdZInter, cmdZInterCard, cmdZInterStore, cmdZLexCount, cmdZMPop, cmdZMScore,
		cmdZPopMax, cmdZPopMin, cmdZRandMember, cmdZRange, cmdZRangeByLex, cmdZRangeByScore,
		cmdZRangeStore, cmdZRank, cmdZRem, cmdZRemRangeByLex, cmdZRemRangeByRank,
		cmdZRemRangeByScore, cmdZRevRange, cmdZRevRangeByLex, cmdZRevRangeByScore, cmdZRevRank,
		cmdZScan, cmdZScore, cmdZUnion, cmdZUnionStore,
		// sort
		cmdSort, cmdSortRO,
	}
}

// parseRangeLong parses an integer that must lie in [lo, hi], with Redis's
// getRangeLongFromObjectOrReply replies: msg (when not empty) for any
// failure, otherwise "value is not an integer..." or "value is out of
// range, value must between lo and hi".
func parseRangeLong(b []byte, lo, hi int64, msg string) (int64, error) {
	n, ok := kv.ParseInt(b)
	if !ok {
		if msg != "" {
			return 0, replyErr("ERR " + msg)
		}
		return 0, errNotInt
	}
	if n < lo || n > hi {
		if msg != "" {
			return 0, replyErr("ERR " + msg)
		}
		return 0, replyErr("ERR value is out of range, value must between " + itoa(lo) + " and " + itoa(hi))
	}
	return n, nil
}

// parsePositive parses a count that must be >= 0 (getPositiveLongFromObject
// OrReply): "value is out of range, must be positive" unless msg is given.
func parsePositive(b []byte, msg string) (int64, error) {
	if msg == "" {
		msg = "value is out of range, must be positive"
	}
	return parseRangeLong(b, 0, 1<<63-1, msg)
}

// writeBulks writes an array of bulk strings.
func writeBulks(w *Writer, vals [][]byte) {
	w.Array(len(vals))
	for _, v := range vals {
		w.Bulk(v)
	}
}

// writeBulksOrNull writes an array of bulk strings with nil as null.
func writeBulksOrNull(w *Writer, vals [][]byte) {
	w.Array(len(vals))
	for _, v := range vals {
		bulkOrNull(w, v, v != nil)
	}
}

// writeSetOf writes members as a RESP3 set (an array in RESP2).
func writeSetOf(w *Writer, vals [][]byte) {
	w.Set(len(vals))
	for _, v := range vals {
		w.Bulk(v)
	}
}

// writeInts writes an array of integers.
func writeInts(w *Writer, vals []int64) {
	w.Array(len(vals))
	for _, v := range vals {
		w.Int(v)
	}
}

// formatScore formats a score as a bulk string the way Redis's d2string
// does in SCAN replies.
func formatScore(f float64) string {
	switch {
	case f != f:
		return "nan"
	case f > 1.7976931348623157e308:
		return "inf"
	case f < -1.7976931348623157e308:
		return "-inf"
	}
	return formatG17(f)
}

// parseCollScan parses the cursor and options of HSCAN, SSCAN and ZSCAN
// (argument 2 is the cursor); withNoValues allows HSCAN's NOVALUES.
func parseCollScan(args [][]byte, withNoValues bool) (uint64, kv.CollScanOptions, error) {
	var o kv.CollScanOptions
	cursor, err := strconv.ParseUint(string(args[2]), 10, 64)
	if err != nil {
		return 0, o, errInvalidCurs
	}
	for i := 3; i < len(args); i++ {
		switch {
		case withNoValues && argEq(args[i], "novalues"):
			o.NoValues = true
		case argEq(args[i], "count") && i+1 < len(args):
			i++
			n, err := parseInt(args[i])
			if err != nil {
				return 0, o, err
			}
			if n < 1 {
				return 0, o, errSyntax
			}
			o.Count = int(min(n, 1<<30))
		case argEq(args[i], "match") && i+1 < len(args):
			i++
			o.Match = args[i]
			if len(o.Match) == 1 && o.Match[0] == '*' {
				o.Match = nil
			}
		default:
			return 0, o, errSyntax
		}
	}
	return cursor, o, nil
}

// writeScanReply writes [cursor, items].
func writeScanReply(w *Writer, next uint64, n int) {
	w.Array(2)
	w.BulkString(strconv.FormatUint(next, 10))
	w.Array(n)
}
