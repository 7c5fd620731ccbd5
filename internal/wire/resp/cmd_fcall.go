package resp

import (
	"context"

	"github.com/mayfly/mayfly/internal/script"
)

var cmdFCall = def(cmdSpec{
	Name: "fcall", Arity: -3, Flags: "noscript stale skip_monitor no_mandatory_keys movablekeys",
	ACL: "slow scripting", Group: "scripting", Since: "7.0.0",
	Summary:    "Invokes a function.",
	Complexity: "Depends on the function that is executed.",
	Handler:    func(x *cmdCtx) error { return fcall(x, false) },
})

// fcall runs FCALL and FCALL_RO: function numkeys key... arg.... The
// function runs as an EVAL script does (runScript), its flags checked
// first (admitScript).
func fcall(x *cmdCtx, readOnly bool) error {
	// MONITOR shows the FCALL before the commands its function calls.
	x.s.feedMonitorsFrom(x.c.nc.RemoteAddr().String(), x.cmd, x.c.db, x.args)
	name := string(x.args[1])
	f, ok := x.s.scripts.Function(name)
	if !ok {
		return replyErr("ERR Function not found")
	}
	keys, argv, err := scriptKeys(x.args, true)
	if err != nil {
		return err
	}
	if err := x.s.admitScript(f.Flags, readOnly, x.c.oomBefore); err != nil {
		return err
	}
	run := &runningScript{name: f.Name, function: true}
	return runScript(x, run, f.Flags, readOnly, func(ctx context.Context, h *scriptHost) script.Reply {
		return x.s.scripts.Call(ctx, name, keys, argv, h)
	})
}
