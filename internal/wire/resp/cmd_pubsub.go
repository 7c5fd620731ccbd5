package resp

import "sort"

var cmdPubSub = container("pubsub", "", "slow", "pubsub", "2.8.0", "A container for Pub/Sub commands.",
	def(cmdSpec{
		Name: "pubsub|channels", Arity: -2, Flags: "pubsub loading stale",
		ACL: "pubsub slow", Group: "pubsub", Since: "2.8.0",
		Summary:    "Returns the active channels.",
		Complexity: "O(N) where N is the number of active channels, and assuming constant time pattern matching (relatively short channels and patterns)",
		Handler:    func(x *cmdCtx) error { return pubsubChannels(x, x.s.hub.channelNames) },
	}),
	def(cmdSpec{
		Name: "pubsub|numsub", Arity: -2, Flags: "pubsub loading stale",
		ACL: "pubsub slow", Group: "pubsub", Since: "2.8.0",
		Summary:    "Returns a count of subscribers to channels.",
		Complexity: "O(N) for the NUMSUB subcommand, where N is the number of requested channels",
		Handler:    func(x *cmdCtx) error { return pubsubNumSub(x, x.s.hub.numSub) },
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
		Handler:    func(x *cmdCtx) error { return pubsubChannels(x, x.s.hub.shardChannelNames) },
	}),
	def(cmdSpec{
		Name: "pubsub|shardnumsub", Arity: -2, Flags: "pubsub loading stale",
		ACL: "pubsub slow", Group: "pubsub", Since: "7.0.0",
		Summary:    "Get the count of subscribers for shard channels",
		Complexity: "O(N) for the SHARDNUMSUB subcommand, where N is the number of requested shard channels",
		Handler:    func(x *cmdCtx) error { return pubsubNumSub(x, x.s.hub.shardNumSub) },
	}),
	helpCmd("pubsub", "PUBSUB <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
		"CHANNELS [<pattern>]", "    Return the currently active channels matching a <pattern> (default: '*').",
		"NUMPAT", "    Return number of subscriptions to patterns.",
		"NUMSUB [<channel> ...]", "    Return the number of subscribers for the specified channels, excluding", "    pattern subscriptions(default: no channels).",
		"SHARDCHANNELS [<pattern>]", "    Return the currently active shard level channels matching a <pattern> (default: '*').",
		"SHARDNUMSUB [<shardchannel> ...]", "    Return the number of subscribers for the specified shard level channel(s)"),
)

// pubsubChannels answers PUBSUB CHANNELS and SHARDCHANNELS: the active
// channels names gives, matching the optional pattern, sorted.
func pubsubChannels(x *cmdCtx, names func(pattern []byte) []string) error {
	if len(x.args) > 3 {
		return errArity(x.cmd.name)
	}
	var pat []byte
	if len(x.args) == 3 {
		pat = x.args[2]
	}
	found := names(pat)
	sort.Strings(found)
	x.w.Array(len(found))
	for _, n := range found {
		x.w.BulkString(n)
	}
	return nil
}

// pubsubNumSub answers PUBSUB NUMSUB and SHARDNUMSUB: each channel given
// with its count of subscribers.
func pubsubNumSub(x *cmdCtx, count func(channel string) int) error {
	x.w.Map(len(x.args) - 2)
	for _, ch := range x.args[2:] {
		x.w.Bulk(ch)
		x.w.Int(int64(count(string(ch))))
	}
	return nil
}
