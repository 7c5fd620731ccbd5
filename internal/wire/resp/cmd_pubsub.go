package resp

import "sort"

var cmdPubSub = container("pubsub", "", "slow", "pubsub", "2.8.0", "A container for Pub/Sub commands.",
	def(cmdSpec{
		Name: "pubsub|channels", Arity: -2, Flags: "pubsub loading stale",
		ACL: "pubsub slow", Group: "pubsub", Since: "2.8.0",
		Summary:    "Returns the active channels.",
		Complexity: "O(N) where N is the number of active channels, and assuming constant time pattern matching (relatively short channels and patterns)",
		Handler: func(x *cmdCtx) error {
			if len(x.args) > 3 {
				return errArity(x.cmd.name)
			}
			var pat []byte
			if len(x.args) == 3 {
				pat = x.args[2]
			}
			names := x.s.hub.channelNames(pat)
			sort.Strings(names)
			x.w.Array(len(names))
			for _, n := range names {
				x.w.BulkString(n)
			}
			return nil
		},
	}),
	def(cmdSpec{
		Name: "pubsub|numsub", Arity: -2, Flags: "pubsub loading stale",
		ACL: "pubsub slow", Group: "pubsub", Since: "2.8.0",
		Summary:    "Returns a count of subscribers to channels.",
		Complexity: "O(N) for the NUMSUB subcommand, where N is the number of requested channels",
		Handler: func(x *cmdCtx) error {
			x.w.Map(len(x.args) - 2)
			for _, ch := range x.args[2:] {
				x.w.Bulk(ch)
				x.w.Int(int64(x.s.hub.numSub(string(ch))))
			}
			return nil
		},
	}),
	def(cmdSpec{
		Name: "pubsub|numpat", Arity: 2, Flags: "pubsub loading stale",
		ACL: "pubsub slow", Group: "pubsub", Since: "2.8.0",
		Summary:    "Returns a count of unique pattern subscriptions.",
		Complexity: "O(1)",
		Handler: func(x *cmdCtx) error {
			_, n, _ := x.s.hub.counts()
			x.w.Int(int64(n))
			return nil
		},
	}),
	def(cmdSpec{
		Name: "pubsub|shardchannels", Arity: -2, Flags: "pubsub loading stale",
		ACL: "pubsub slow", Group: "pubsub", Since: "7.0.0",
		Summary:    "List active shard channels",
		Complexity: "O(N) where N is the number of active shard channels, and assuming constant time pattern matching (relatively short shard channels).",
		Handler: func(x *cmdCtx) error {
			if len(x.args) > 3 {
				return errArity(x.cmd.name)
			}
			var pat []byte
			if len(x.args) == 3 {
				pat = x.args[2]
			}
			names := x.s.hub.shardChannelNames(pat)
			sort.Strings(names)
			x.w.Array(len(names))
			for _, n := range names {
				x.w.BulkString(n)
			}
			return nil
		},
	}),
	def(cmdSpec{
		Name: "pubsub|shardnumsub", Arity: -2, Flags: "pubsub loading stale",
		ACL: "pubsub slow", Group: "pubsub", Since: "7.0.0",
		Summary:    "Get the count of subscribers for shard channels",
		Complexity: "O(N) for the SHARDNUMSUB subcommand, where N is the number of requested shard channels",
		Handler: func(x *cmdCtx) error {
			x.w.Map(len(x.args) - 2)
			for _, ch := range x.args[2:] {
				x.w.Bulk(ch)
				x.w.Int(int64(x.s.hub.shardNumSub(string(ch))))
			}
			return nil
		},
	}),
	helpCmd("pubsub", "PUBSUB <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
		"CHANNELS [<pattern>]", "    Return the currently active channels matching a <pattern> (default: '*').",
		"NUMPAT", "    Return number of subscriptions to patterns.",
		"NUMSUB [<channel> ...]", "    Return the number of subscribers for the specified channels, excluding", "    pattern subscriptions(default: no channels).",
		"SHARDCHANNELS [<pattern>]", "    Return the currently active shard level channels matching a <pattern> (default: '*').",
		"SHARDNUMSUB [<shardchannel> ...]", "    Return the number of subscribers for the specified shard level channel(s)"),
)
