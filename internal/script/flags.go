package script

import "strings"

// Flags are a script's or a function's flags: "#!lua flags=..." of an
// EVAL script, the flags field of redis.register_function.
type Flags uint8

// The flags, in the order Redis lists them.
const (
	// FlagNoWrites: the script calls no write command (EVAL_RO, FCALL_RO
	// run only such scripts), and it runs when memory is over maxmemory.
	FlagNoWrites Flags = 1 << iota
	// FlagAllowOOM: the script runs, and its writes too, when memory is
	// over maxmemory.
	FlagAllowOOM
	// FlagAllowStale: the script runs on a stale replica.
	FlagAllowStale
	// FlagNoCluster: the script refuses to run in a cluster.
	FlagNoCluster
	// FlagAllowCrossSlot: the script may touch keys of several slots.
	FlagAllowCrossSlot
	// FlagEvalCompat marks an EVAL script without a shebang: none of the
	// rules of the flags apply to it, and its writes are checked one
	// command at a time as before Redis 7.
	FlagEvalCompat
)

// flagNames are the flags' names, in Redis's order.
var flagNames = []struct {
	flag Flags
	name string
}{
	{FlagNoWrites, "no-writes"},
	{FlagAllowOOM, "allow-oom"},
	{FlagAllowStale, "allow-stale"},
	{FlagNoCluster, "no-cluster"},
	{FlagAllowCrossSlot, "allow-cross-slot-keys"},
}

// flagNamed returns the flag named name (case-insensitive, as
// register_function reads it; a shebang's names are lower case).
func flagNamed(name string) (Flags, bool) {
	for _, f := range flagNames {
		if strings.EqualFold(f.name, name) {
			return f.flag, true
		}
	}
	return 0, false
}

// Names returns the names of the flags set in f, in Redis's order.
func (f Flags) Names() []string {
	var out []string
	for _, n := range flagNames {
		if f&n.flag != 0 {
			out = append(out, n.name)
		}
	}
	return out
}
