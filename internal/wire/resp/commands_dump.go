package resp

// dumpCommands are the commands of Redis's serialized value format.
func dumpCommands() []*command {
	return []*command{cmdDump, cmdRestore}
}
