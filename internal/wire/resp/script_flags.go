package resp

import "github.com/mayfly/mayfly/internal/script"

// admitScript applies the rules of a script's or a function's flags
// before it runs, as Redis does: a script that may write (no no-writes
// flag) is refused by EVAL_RO, EVALSHA_RO and FCALL_RO, and one with
// neither allow-oom nor no-writes is refused while memory is over
// maxmemory (oom: the command found memory over maxmemory with nothing
// left to evict, client.oomBefore). An EVAL script without a shebang (FlagEvalCompat) is under
// none of these rules. no-cluster and allow-stale change nothing: the
// server is never a cluster node nor a stale replica.
func (s *Server) admitScript(flags script.Flags, readOnly, oom bool) error {
	if flags&script.FlagEvalCompat != 0 {
		return nil
	}
	if flags&script.FlagNoWrites == 0 && readOnly {
		return replyErr("ERR Can not execute a script with write flag using *_ro command.")
	}
	if flags&(script.FlagAllowOOM|script.FlagNoWrites) == 0 && oom {
		return replyErr("OOM allow-oom flag is not set on the script, can not run it when used memory > 'maxmemory'")
	}
	return nil
}
