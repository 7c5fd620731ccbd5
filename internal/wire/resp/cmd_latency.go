package resp

// LATENCY reports the latency monitor (latencyMonitor: the commands that
// took latency-monitor-threshold milliseconds or more, off at 0, the
// default) and the per-command latency histograms of LATENCY HISTOGRAM.

var cmdLatency = container("latency", "", "slow", "server", "2.8.13", "A container for latency diagnostics commands.",
	def(cmdSpec{
		Name: "latency|latest", Arity: 2, Flags: "admin noscript loading stale",
		ACL: "admin slow dangerous", Group: "server", Since: "2.8.13",
		Summary:    "Returns the latest latency samples for all events.",
		Complexity: "O(1)",
		Handler: func(x *cmdCtx) error {
			names, last, maxes := x.s.latency.latest()
			x.w.Array(len(names))
			for i, name := range names {
				x.w.Array(4)
				x.w.BulkString(name)
				x.w.Int(last[i].at)
				x.w.Int(last[i].latency)
				x.w.Int(maxes[i])
			}
			return nil
		},
	}),
	def(cmdSpec{
		Name: "latency|history", Arity: 3, Flags: "admin noscript loading stale",
		ACL: "admin slow dangerous", Group: "server", Since: "2.8.13",
		Summary:    "Returns timestamp-latency samples for an event.",
		Complexity: "O(1)",
		Handler: func(x *cmdCtx) error {
			samples := x.s.latency.history(string(x.args[2]))
			x.w.Array(len(samples))
			for _, sm := range samples {
				x.w.Array(2)
				x.w.Int(sm.at)
				x.w.Int(sm.latency)
			}
			return nil
		},
	}),
	def(cmdSpec{
		Name: "latency|reset", Arity: -2, Flags: "admin noscript loading stale",
		ACL: "admin slow dangerous", Group: "server", Since: "2.8.13",
		Summary:    "Resets the latency data for one or more events.",
		Complexity: "O(1)",
		Handler: func(x *cmdCtx) error {
			events := make([]string, 0, len(x.args)-2)
			for _, a := range x.args[2:] {
				events = append(events, string(a))
			}
			x.w.Int(int64(x.s.latency.reset(events)))
			return nil
		},
	}),
	def(cmdSpec{
		Name: "latency|doctor", Arity: 2, Flags: "admin noscript loading stale",
		ACL: "admin slow dangerous", Group: "server", Since: "2.8.13",
		Summary:    "Returns a human-readable latency analysis report.",
		Complexity: "O(1)",
		Handler: func(x *cmdCtx) error {
			if t := x.s.cfg.get("latency-monitor-threshold"); t != "" && t != "0" {
				x.w.Verbatim(latencyNoSpike)
				return nil
			}
			x.w.Verbatim(latencyDisabled)
			return nil
		},
	}),
	def(cmdSpec{
		Name: "latency|histogram", Arity: -2, Flags: "admin noscript loading stale",
		ACL: "admin slow dangerous", Group: "server", Since: "7.0.0",
		Summary:    "Returns the cumulative distribution of latencies of a subset or all commands.",
		Complexity: "O(N) where N is the number of commands with latency information being retrieved.",
		Handler: func(x *cmdCtx) error {
			var cmds []*command
			add := func(c *command) {
				if x.s.cmdStats.wasCalled(c) {
					cmds = append(cmds, c)
				}
			}
			addWithSubs := func(c *command) {
				add(c)
				for _, sub := range sortedSubs(c) {
					add(sub)
				}
			}
			if len(x.args) == 2 {
				for _, c := range x.s.sortedCommands() {
					addWithSubs(c)
				}
			}
			for _, a := range x.args[2:] {
				if c := x.s.findCommand(string(a)); c != nil {
					addWithSubs(c)
				}
			}
			x.w.Map(len(cmds))
			for _, c := range cmds {
				x.s.cmdStats.writeHistogram(x.w, c)
			}
			return nil
		},
	}),
	def(cmdSpec{
		Name: "latency|graph", Arity: 3, Flags: "admin noscript loading stale",
		ACL: "admin slow dangerous", Group: "server", Since: "2.8.13",
		Summary:    "Returns a latency graph for an event.",
		Complexity: "O(1)",
		Handler: func(x *cmdCtx) error {
			return replyErr("ERR No samples available for event '" + string(x.args[2]) + "'")
		},
	}),
	helpCmd("latency", "LATENCY <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
		"DOCTOR", "    Return a human readable latency analysis report.",
		"GRAPH <event>", "    Return an ASCII latency graph for the <event> class.",
		"HISTORY <event>", "    Return time-latency samples for the <event> class.",
		"LATEST", "    Return the latest latency samples for all events.",
		"RESET [<event> ...]", "    Reset latency data of one or more <event> classes.",
		"    (default: reset all data for all event classes)",
		"HISTOGRAM [COMMAND ...]", "    Return a cumulative distribution of latencies in the format of a histogram for the specified command names.",
		"    If no commands are specified then all histograms are replied."),
)

// LATENCY DOCTOR's reports, in Redis's words: monitoring off, and on
// without a spike.
const (
	latencyDisabled = "I'm sorry, Dave, I can't do that. Latency monitoring is disabled in this Redis instance. " +
		"You may use \"CONFIG SET latency-monitor-threshold <milliseconds>.\" in order to enable it. " +
		"If we weren't in a deep space mission I'd suggest to take a look at https://redis.io/topics/latency-monitor.\n"
	latencyNoSpike = "Dave, no latency spike was observed during the lifetime of this Redis instance, not in the " +
		"slightest bit. I honestly think you ought to sit down calmly, take a stress pill, and think things over.\n"
)
