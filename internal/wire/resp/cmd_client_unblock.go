package resp

var cmdClientUnblock = def(cmdSpec{
	Name: "client|unblock", Arity: -3, Flags: "admin noscript loading stale",
	ACL: "admin slow dangerous connection", Group: "connection", Since: "5.0.0",
	Summary:    "Unblocks a client blocked by a blocking command from a different connection.",
	Complexity: "O(log N) where N is the number of client connections",
	Handler:    clientUnblock,
})

// errUnblocked is what a client unblocked with CLIENT UNBLOCK id ERROR
// gets.
var errUnblocked = replyErr("UNBLOCKED client unblocked via CLIENT UNBLOCK")

// clientUnblock is CLIENT UNBLOCK id [TIMEOUT|ERROR]: the client blocked in
// a blocking command answers as if its timeout had passed, or with
// errUnblocked; the reply is 1, or 0 when that client is not blocked.
func clientUnblock(x *cmdCtx) error {
	if len(x.args) > 4 {
		return replyErr("ERR unknown subcommand or wrong number of arguments for 'unblock'. Try CLIENT HELP.")
	}
	asError := false
	if len(x.args) == 4 {
		switch {
		case argEq(x.args[3], "timeout"):
		case argEq(x.args[3], "error"):
			asError = true
		default:
			return replyErr("ERR CLIENT UNBLOCK reason should be TIMEOUT or ERROR")
		}
	}
	id, err := parseInt(x.args[2])
	if err != nil {
		return err
	}
	x.s.mu.Lock()
	target := x.s.clients[uint64(id)]
	x.s.mu.Unlock()
	// The target blocks and wakes only while holding the store, which
	// this command holds: its waiter cannot change meanwhile.
	if id <= 0 || target == nil || target.blocked == nil || !target.blocked.registered() {
		x.w.Int(0)
		return nil
	}
	w := target.blocked
	w.unregister()
	if asError {
		w.done <- blockResult{err: errUnblocked}
	} else {
		w.done <- blockResult{timedOut: true}
	}
	x.w.Int(1)
	return nil
}
