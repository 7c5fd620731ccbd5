package resp

// functionsCommands are FCALL and FCALL_RO; FUNCTION is with the server
// commands.
func functionsCommands() []*command {
	return []*command{cmdFCall, cmdFCallRO}
}
