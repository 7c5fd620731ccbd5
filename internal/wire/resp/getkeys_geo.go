package resp

// geoRadiusKeyIndexes returns the key positions of a GEORADIUS or
// GEORADIUSBYMEMBER call (args[0] is the command name) as Redis's key
// specs find them: the source, then the argument after the first STORE
// and the one after the first STOREDIST, each keyword searched from the
// first option (from) to the next-to-last argument.
func geoRadiusKeyIndexes(args [][]byte, from int) []int {
	idx := []int{1}
	for _, kw := range []string{"store", "storedist"} {
		for i := from; i < len(args)-1; i++ {
			if argEq(args[i], kw) {
				idx = append(idx, i+1)
				break
			}
		}
	}
	return idx
}

// geoRadiusOptionsAt is where the options of the commands with STORE keys
// begin.
var geoRadiusOptionsAt = map[string]int{"georadius": 6, "georadiusbymember": 5}
