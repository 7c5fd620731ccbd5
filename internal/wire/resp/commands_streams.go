package resp

// streamCommands lists the stream commands; each is defined in its own
// file (cmd_<name>.go).
func streamCommands() []*command {
	return []*command{
		cmdXAck, cmdXAdd, cmdXAutoClaim, cmdXClaim, cmdXDel, cmdXGroup, cmdXInfo, cmdXLen,
		cmdXPending, cmdXRange, cmdXRead, cmdXReadGroup, cmdXRevRange, cmdXSetID, cmdXTrim,
	}
}
