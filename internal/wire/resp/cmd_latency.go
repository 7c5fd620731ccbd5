package resp

// mayfly has no latency monitor: LATENCY answers as Redis does with its
// monitor off (latency-monitor-threshold 0, the default) and no event ever
// recorded, so no event has samples.

var cmdLatency = container("latency", "", "slow", "server", "2.8.13", "A container for latency diagnostics commands.",
	def(cmdSpec{
		Name: "latency|latest", Arity: 2, Flags: "admin noscript loading stale",
		ACL: "admin slow dangerous", Group: "server", Since: "2.8.13",
		Summary:    "Returns the latest latency samples for all events.",
		Complexity: "O(1)",
		Handler: func(x *cmdCtx) error {
			x.w.Array(0)
			return nil
		},
	}),
	def(cmdSpec{
		Name: "latency|history", Arity: 3, Flags: "admin noscript loading stale",
		ACL: "admin slow dangerous", Group: "server", Since: "2.8.13",
		Summary:    "Returns timestamp-latency samples for an event.",
		Complexity: "O(1)",
		Handler: func(x *cmdCtx) error {
			x.w.Array(0)
			return nil
		},
	}),
	def(cmdSpec{
		Name: "latency|reset", Arity: -2, Flags: "admin noscript loading stale",
		ACL: "admin slow dangerous", Group: "server", Since: "2.8.13",
		Summary:    "Resets the latency data for one or more events.",
		Complexity: "O(1)",
		Handler: func(x *cmdCtx) error {
			x.w.Int(0) // the number of events reset
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
		"    (default: reset all data for all event classes)"),
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
