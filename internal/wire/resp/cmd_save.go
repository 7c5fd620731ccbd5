package resp

var cmdSave = def(cmdSpec{
	Name: "save", Arity: 1, Flags: "admin noscript no_async_loading no_multi",
	ACL: "admin slow dangerous", Group: "server", Since: "1.0.0",
	Summary:    "Synchronously saves the database(s) to disk.",
	Complexity: "O(N) where N is the total number of keys in all databases",
	Handler: func(x *cmdCtx) error {
		if err := saveNow(x); err != nil {
			return err
		}
		x.w.OK()
		return nil
	},
})

// saveNow is what SAVE, BGSAVE and SHUTDOWN do: mayfly has no snapshot to
// write, every write is already in the storage's log, so it commits what
// the connection's earlier commands did, sends their replies (as a
// blocking command does before it waits) and syncs the log to disk.
// LASTSAVE then answers the time it finished.
func saveNow(x *cmdCtx) error {
	c := x.c
	var serr error
	c.ncmu.Unlock()
	yerr := x.tx.Yield(func() {
		c.ncmu.Lock()
		c.flush()
		c.ncmu.Unlock()
		serr = x.s.kv.Sync()
	})
	c.ncmu.Lock()
	if yerr != nil {
		return yerr
	}
	if serr != nil {
		return serr
	}
	x.s.lastSave.Store(x.s.opts.Now().Unix())
	return nil
}
