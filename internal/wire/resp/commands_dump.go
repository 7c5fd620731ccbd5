package resp

// dumpCommands are the commands of Redis's serialized value format, the
// slow log, sharded pub/sub, and the commands of replication and cluster
// that a single node without replicas answers as Redis does in that state.
func dumpCommands() []*command {
	return []*command{
		cmdDump, cmdRestore, cmdRestoreAsking,
		cmdAsking, cmdBGRewriteAOF, cmdCluster, cmdFailover, cmdModule, cmdReadOnly,
		cmdReadWrite, cmdReplicaOf, cmdRole, cmdSlaveOf, cmdSlowlog, cmdWait,
		cmdSPublish, cmdSSubscribe, cmdSUnsubscribe,
	}
}
