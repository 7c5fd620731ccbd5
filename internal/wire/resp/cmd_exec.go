package resp

var cmdExec = def(cmdSpec{
	Name: "exec", Arity: 1, Flags: "noscript loading stale skip_slowlog",
	ACL: "slow transaction", Group: "transactions", Since: "1.2.0",
	Summary:    "Executes all commands in a transaction.",
	Complexity: "Depends on commands in the transaction",
	Handler: func(x *cmdCtx) error {
		c := x.c
		m := c.multi
		if m == nil {
			return replyErr("ERR EXEC without MULTI")
		}
		c.multi = nil
		if m.aborted {
			c.unwatch()
			return replyErr("EXECABORT Transaction discarded because of previous errors.")
		}
		entries, dirty := c.s.watches.entries(c)
		if !dirty {
			// A watched key that has expired since WATCH counts as changed.
			for _, e := range entries {
				if !e.visible {
					continue
				}
				if err := x.tx.Use(e.k.db); err != nil {
					return err
				}
				_, ok, err := x.tx.Lookup([]byte(e.k.key))
				if err != nil {
					return err
				}
				if !ok {
					dirty = true
					break
				}
			}
			if err := x.tx.Use(c.db); err != nil {
				return err
			}
		}
		c.unwatch()
		if dirty {
			x.w.NullArray()
			return nil
		}
		// Time is frozen for the whole EXEC: no Tick between commands.
		// Clients blocked on keys the commands fill are served once they
		// have all run, as one change.
		x.w.Array(len(m.cmds))
		c.deferServe = true
		defer func() { c.deferServe, c.ready = false, nil }() // also after a panic
		for _, q := range m.cmds {
			if err := x.tx.Use(c.db); err != nil {
				return err
			}
			if err := c.recheckACL(q.cmd, q.args); err != nil {
				c.replyError(err)
				continue
			}
			if err := c.call(x.tx, q.cmd, q.args); err != nil {
				c.replyError(err)
			}
		}
		serveDeferred(x)
		return x.tx.Use(c.db)
	},
})
