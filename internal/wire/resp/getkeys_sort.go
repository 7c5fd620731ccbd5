package resp

// sortKeyIndexes returns the key positions of a SORT or SORT_RO call
// (args[0] is the command name) as Redis finds them: the sorted key, and
// the destination of the last STORE option. LIMIT's two arguments and
// BY's and GET's one are skipped, so a pattern spelled "store" is no
// option.
func sortKeyIndexes(args [][]byte) []int {
	idx := []int{1}
	store := 0
	for i := 2; i < len(args); i++ {
		switch {
		case argEq(args[i], "limit"):
			i += 2
		case argEq(args[i], "get"), argEq(args[i], "by"):
			i++
		case argEq(args[i], "store") && i+1 < len(args):
			store = i + 1
		}
	}
	if store > 0 {
		idx = append(idx, store)
	}
	return idx
}
