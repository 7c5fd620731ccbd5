package resp

import (
	"context"
	"errors"

	"github.com/mayfly/mayfly/internal/script"
)

var cmdEval = def(cmdSpec{
	Name: "eval", Arity: -3, Flags: "noscript stale skip_monitor may_replicate no_mandatory_keys",
	FirstKey: 0, LastKey: 0, Step: 0,
	ACL: "slow scripting", Group: "scripting", Since: "2.6.0",
	Summary:    "Executes a server-side Lua script.",
	Complexity: "Depends on the script that is executed.",
	Handler:    func(x *cmdCtx) error { return evalScript(x, false, false) },
})

var cmdEvalSHA = def(cmdSpec{
	Name: "evalsha", Arity: -3, Flags: "noscript stale skip_monitor may_replicate no_mandatory_keys",
	ACL: "slow scripting", Group: "scripting", Since: "2.6.0",
	Summary:    "Executes a server-side Lua script by SHA1 digest.",
	Complexity: "Depends on the script that is executed.",
	Handler:    func(x *cmdCtx) error { return evalScript(x, true, false) },
})

var cmdEvalRO = def(cmdSpec{
	Name: "eval_ro", Arity: -3, Flags: "readonly noscript stale skip_monitor no_mandatory_keys",
	ACL: "slow scripting", Group: "scripting", Since: "7.0.0",
	Summary:    "Executes a read-only server-side Lua script.",
	Complexity: "Depends on the script that is executed.",
	Handler:    func(x *cmdCtx) error { return evalScript(x, false, true) },
})

var cmdEvalSHARO = def(cmdSpec{
	Name: "evalsha_ro", Arity: -3, Flags: "readonly noscript stale skip_monitor no_mandatory_keys",
	ACL: "slow scripting", Group: "scripting", Since: "7.0.0",
	Summary:    "Executes a read-only server-side Lua script by SHA1 digest.",
	Complexity: "Depends on the script that is executed.",
	Handler:    func(x *cmdCtx) error { return evalScript(x, true, true) },
})

// errScriptStopped is the panic that rolls back the transaction of a
// script that wrote and was cancelled because the server is stopping.
var errScriptStopped = errors.New("resp: script cancelled by the server's stop after it wrote")

// evalScript runs EVAL, EVALSHA and their _RO forms: script (or its SHA1)
// numkeys key... arg.... The script runs inside the command's transaction
// with the time frozen, so it is atomic; its writes commit, notify and
// invalidate WATCH with the rest of the transaction, and the clients
// blocked on keys it fills are served once it is done.
func evalScript(x *cmdCtx, bySHA, readOnly bool) error {
	// MONITOR shows the EVAL before the commands its script calls.
	x.s.feedMonitorsFrom(x.c.nc.RemoteAddr().String(), x.cmd, x.c.db, x.args)
	n, err := parseInt(x.args[2])
	if err != nil {
		return err
	}
	if n > int64(len(x.args)-3) {
		return replyErr("ERR Number of keys can't be greater than number of args")
	}
	if n < 0 {
		return replyErr("ERR Number of keys can't be negative")
	}
	keys, argv := x.args[3:3+n], x.args[3+n:]
	var sha string
	var body []byte
	if bySHA {
		sha = string(x.args[1])
		if len(sha) != 40 {
			return replyErr("NOSCRIPT No matching script. Please use EVAL.")
		}
	} else {
		body = x.args[1]
		sha = script.SHA1(body)
	}
	c := x.c
	db := c.db
	deferring := !c.deferServe
	if deferring {
		c.deferServe = true
	}
	h := &scriptHost{x: x, readOnly: readOnly}
	if c.oomBefore {
		f, _ := x.s.scripts.Flags(sha, body)
		h.oom = !f.AllowOOM
	}
	defer func() { // also after a panic
		c.mu.Lock()
		c.db = db // SELECT inside a script does not change the client's database
		c.mu.Unlock()
		if deferring {
			c.deferServe, c.ready = false, nil
		}
	}()
	ctx, cancel := context.WithCancel(x.s.scriptsCtx)
	h.run = &runningScript{start: x.s.opts.Now(), cancel: cancel}
	x.s.startScript(h.run)
	r := func() script.Reply {
		defer func() { // also after a panic
			x.s.endScript()
			cancel()
		}()
		return x.s.scripts.Eval(ctx, sha, body, keys, argv, h)
	}()
	if r.Kind == script.Error && string(r.Str) == script.Killed && h.run.wrote.Load() {
		// Only a stopping server cancels a script that wrote: its
		// writes must not commit half done.
		panic(errScriptStopped)
	}
	if err := x.tx.Use(db); err != nil {
		return err
	}
	if deferring {
		serveDeferred(x)
		if err := x.tx.Use(db); err != nil {
			return err
		}
	}
	if r.Kind == script.Error {
		return replyErr(r.Str)
	}
	writeScriptReply(x.w, r)
	return nil
}
