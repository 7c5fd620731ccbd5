package resp

// xreadKeyIndexes returns the key positions of an XREAD or XREADGROUP
// call (args[0] is the command name) as Redis 7.0's key spec finds them:
// the first half of the arguments after the first STREAMS from
// argument from on (1 for XREAD, 4 for XREADGROUP, past GROUP g c),
// rounded down; none when there is no STREAMS or fewer than two
// arguments follow it.
func xreadKeyIndexes(args [][]byte, from int) []int {
	for i := from; i < len(args); i++ {
		if !argEq(args[i], "streams") {
			continue
		}
		var idx []int
		for k := i + 1; k < i+1+(len(args)-i-1)/2; k++ {
			idx = append(idx, k)
		}
		return idx
	}
	return nil
}

// writeXReadKeySpec writes the key spec of XREAD (from 1) and XREADGROUP
// (from 4) as Redis 7.0 declares it: the keys follow the keyword STREAMS
// and are the first half of the arguments after it.
func writeXReadKeySpec(w *Writer, from int) {
	w.Map(3)
	w.BulkString("flags")
	w.Set(0)
	w.BulkString("begin_search")
	w.Map(2)
	w.BulkString("type")
	w.BulkString("keyword")
	w.BulkString("spec")
	w.Map(2)
	w.BulkString("keyword")
	w.BulkString("STREAMS")
	w.BulkString("startfrom")
	w.Int(int64(from))
	w.BulkString("find_keys")
	w.Map(2)
	w.BulkString("type")
	w.BulkString("range")
	w.BulkString("spec")
	w.Map(3)
	w.BulkString("lastkey")
	w.Int(-1)
	w.BulkString("keystep")
	w.Int(1)
	w.BulkString("limit")
	w.Int(2)
}
