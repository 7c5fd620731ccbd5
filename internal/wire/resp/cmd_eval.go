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
// numkeys key... arg....
func evalScript(x *cmdCtx, bySHA, readOnly bool) error {
	// MONITOR shows the EVAL before the commands its script calls; the
	// client's address is worded only when someone monitors.
	if x.s.monitorN.Load() > 0 {
		x.s.feedMonitorsFrom(x.c.nc.RemoteAddr().String(), x.cmd, x.c.db, x.args)
	}
	keys, argv, err := scriptKeys(x.args, false)
	if err != nil {
		return err
	}
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
	flags, err := x.s.scripts.Flags(sha, body)
	if err != nil {
		return replyErr(err.Error())
	}
	if err := x.s.admitScript(flags, readOnly, x.c.oomBefore); err != nil {
		return err
	}
	run := &runningScript{name: sha}
	return runScript(x, run, flags, readOnly, func(ctx context.Context, h *scriptHost) script.Reply {
		return x.s.scripts.Eval(ctx, sha, body, keys, argv, h)
	})
}

// scriptKeys splits the arguments of EVAL and FCALL (name, numkeys,
// key..., arg...) into keys and arguments; fcall words a numkeys that is
// not a number as FCALL does.
func scriptKeys(args [][]byte, fcall bool) (keys, argv [][]byte, err error) {
	n, err := parseInt(args[2])
	if err != nil {
		if fcall {
			return nil, nil, replyErr("ERR Bad number of keys provided")
		}
		return nil, nil, err
	}
	if n > int64(len(args)-3) {
		return nil, nil, replyErr("ERR Number of keys can't be greater than number of args")
	}
	if n < 0 {
		return nil, nil, replyErr("ERR Number of keys can't be negative")
	}
	return args[3 : 3+n], args[3+n:], nil
}

// runScript runs a script or a function (call) as the running script
// run. The script runs inside the command's transaction with the time
// frozen, so it is atomic; its writes commit, notify and invalidate WATCH
// with the rest of the transaction, and the clients blocked on keys it
// fills are served once it is done.
func runScript(x *cmdCtx, run *runningScript, flags script.Flags, readOnly bool, call func(context.Context, *scriptHost) script.Reply) error {
	c := x.c
	db := c.db
	deferring := !c.deferServe
	if deferring {
		c.deferServe = true
	}
	h := &scriptHost{x: x, readOnly: readOnly, flags: flags}
	defer func() { // also after a panic
		c.mu.Lock()
		c.db = db // SELECT inside a script does not change the client's database
		c.mu.Unlock()
		if deferring {
			c.deferServe, c.ready = false, nil
		}
	}()
	ctx, cancel := context.WithCancel(x.s.scriptsCtx)
	run.start, run.cancel = x.s.opts.Now(), cancel
	run.command = make([][]byte, len(x.args))
	for i, a := range x.args {
		run.command[i] = append([]byte(nil), a...)
	}
	h.run = run
	x.s.startScript(h.run)
	r := func() script.Reply {
		defer func() { // also after a panic
			x.s.endScript()
			cancel()
		}()
		return call(ctx, h)
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
