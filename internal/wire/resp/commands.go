package resp

import "slices"

// allCommands lists every command the server knows; each is defined in its
// own file (cmd_<name>.go).
func allCommands() []*command {
	return append([]*command{
		// connection and server
		cmdAuth, cmdBGSave, cmdClient, cmdCommand, cmdConfig, cmdDBSize, cmdDebug, cmdEcho,
		cmdFlushAll, cmdFlushDB, cmdFunction, cmdHello, cmdInfo, cmdLastSave, cmdLatency,
		cmdMemory, cmdMonitor, cmdObject, cmdPing, cmdQuit, cmdReset, cmdSave, cmdScript, cmdSelect,
		cmdShutdown, cmdSwapDB, cmdTime,
		// scripting
		cmdEval, cmdEvalRO, cmdEvalSHA, cmdEvalSHARO,
		// keys
		cmdCopy, cmdDel, cmdExists, cmdKeys, cmdMove, cmdRandomKey, cmdRename, cmdRenameNX,
		cmdScan, cmdTouch, cmdType, cmdUnlink,
		// expiry
		cmdExpire, cmdExpireAt, cmdExpireTime, cmdPersist, cmdPExpire, cmdPExpireAt,
		cmdPExpireTime, cmdPTTL, cmdTTL,
		// strings
		cmdAppend, cmdDecr, cmdDecrBy, cmdGet, cmdGetDel, cmdGetEx, cmdGetRange, cmdGetSet,
		cmdIncr, cmdIncrBy, cmdIncrByFloat, cmdMGet, cmdMSet, cmdMSetEx, cmdMSetNX, cmdPSetEx,
		cmdLCS, cmdSet, cmdSetEx, cmdSetNX, cmdSetRange, cmdStrLen, cmdSubstr,
		// pub/sub
		cmdPSubscribe, cmdPublish, cmdPubSub, cmdPUnsubscribe, cmdSubscribe, cmdUnsubscribe,
		// transactions
		cmdDiscard, cmdExec, cmdMulti, cmdUnwatch, cmdWatch,
	}, slices.Concat(collectionCommands(), bitmapCommands(), geoCommands(), dumpCommands(), functionsCommands(), streamCommands(), aclCommands())...)
}
