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
