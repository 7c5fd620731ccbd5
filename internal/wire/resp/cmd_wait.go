package resp

// WAIT numreplicas timeout on a standalone answers 0 replicas at once:
// it has none, so no write ever reaches one, and waiting out the timeout
// (as Redis does when asked for more than it has) would change nothing but
// the latency. On a member of a replica set it waits for the other members
// to apply this member's writes (replica.go).
var cmdWait = def(cmdSpec{
	Name: "wait", Arity: 3, Flags: "noscript",
	ACL: "slow connection", Group: "generic", Since: "3.0.0",
	Summary:    "Wait for the synchronous replication of all the write commands sent in the context of the current connection",
	Complexity: "O(1)",
	Handler: func(x *cmdCtx) error {
		if _, err := parseInt(x.args[1]); err != nil {
			return err
		}
		t, err := parseInt(x.args[2])
		if err != nil {
			return replyErr("ERR timeout is not an integer or out of range")
		}
		if t < 0 {
			return replyErr("ERR timeout is negative")
		}
		if r := x.s.opts.Replica; r != nil {
			if !r.Writable() {
				return replyErr(errWaitOnReplica)
			}
			n, _ := parseInt(x.args[1])
			return x.waitReplicas(r, n, t)
		}
		x.w.Int(0)
		return nil
	},
})
