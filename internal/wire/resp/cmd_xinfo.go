package resp

import (
	"errors"

	"github.com/mayfly/mayfly/internal/kv"
)

// XINFO STREAM, GROUPS and CONSUMERS, with Redis 7.0's fields.
var cmdXInfo = container("xinfo", "", "slow", "stream", "5.0.0", "A container for stream introspection commands",
	def(cmdSpec{
		Name: "xinfo|stream", Arity: -3, Flags: "readonly", FirstKey: 2, LastKey: 2, Step: 1,
		ACL: "read stream slow", Group: "stream", Since: "5.0.0",
		Summary: "Get information about a stream", Complexity: "O(1)",
		Handler: xinfoStream,
	}),
	def(cmdSpec{
		Name: "xinfo|groups", Arity: 3, Flags: "readonly", FirstKey: 2, LastKey: 2, Step: 1,
		ACL: "read stream slow", Group: "stream", Since: "5.0.0",
		Summary: "List the consumer groups of a stream", Complexity: "O(1)",
		Handler: xinfoGroups,
	}),
	def(cmdSpec{
		Name: "xinfo|consumers", Arity: 4, Flags: "readonly", FirstKey: 2, LastKey: 2, Step: 1,
		ACL: "read stream slow", Group: "stream", Since: "5.0.0",
		Summary: "List the consumers in a consumer group", Complexity: "O(1)",
		Handler: xinfoConsumers,
	}),
	streamHelp("xinfo", "XINFO <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
		"CONSUMERS <key> <groupname>",
		"    Show consumers of <groupname>.",
		"GROUPS <key>",
		"    Show the stream consumer groups.",
		"STREAM <key> [FULL [COUNT <count>]",
		"    Show information about the stream."),
)

func errXInfoSyntax(x *cmdCtx) error {
	return replyErr("ERR unknown subcommand or wrong number of arguments for '" + string(x.args[1]) + "'. Try XINFO HELP.")
}

func xinfoStream(x *cmdCtx) error {
	key := x.args[2]
	ok, err := x.tx.CheckType(key, kv.TypeStream)
	if err != nil {
		return err
	}
	if !ok {
		return errNoSuchKey
	}
	opts := x.args[3:]
	full, count := false, int64(10)
	switch {
	case len(opts) == 0:
	case (len(opts) == 1 || len(opts) == 3) && argEq(opts[0], "full"):
		full = true
		if len(opts) == 3 {
			if !argEq(opts[1], "count") {
				return errXInfoSyntax(x)
			}
			if count, err = parseInt(opts[2]); err != nil {
				return err
			}
			if count < 0 {
				count = 10
			}
		}
	default:
		return errXInfoSyntax(x)
	}
	r, _, err := x.tx.XInfoStream(key, full, count)
	if err != nil {
		return err
	}
	w := x.w
	if full {
		w.Map(9)
	} else {
		w.Map(10)
	}
	w.BulkString("length")
	w.Int(r.Length)
	w.BulkString("radix-tree-keys")
	w.Int(r.Nodes)
	w.BulkString("radix-tree-nodes")
	w.Int(r.Nodes + 1)
	w.BulkString("last-generated-id")
	writeStreamID(w, r.LastID)
	w.BulkString("max-deleted-entry-id")
	writeStreamID(w, r.MaxDeletedID)
	w.BulkString("entries-added")
	w.Int(r.EntriesAdded)
	w.BulkString("recorded-first-entry-id")
	writeStreamID(w, r.FirstID)
	if !full {
		w.BulkString("groups")
		w.Int(r.GroupCount)
		for _, e := range []struct {
			name  string
			entry *kv.StreamEntry
		}{{"first-entry", r.First}, {"last-entry", r.Last}} {
			w.BulkString(e.name)
			if e.entry == nil {
				w.Null()
			} else {
				writeStreamEntry(w, *e.entry)
			}
		}
		return nil
	}
	w.BulkString("entries")
	writeStreamEntries(w, r.Entries)
	w.BulkString("groups")
	w.Array(len(r.Groups))
	for _, g := range r.Groups {
		w.Map(7)
		w.BulkString("name")
		w.Bulk(g.Name)
		w.BulkString("last-delivered-id")
		writeStreamID(w, g.LastID)
		writeEntriesReadAndLag(w, g)
		w.BulkString("pel-count")
		w.Int(g.PendingCount)
		w.BulkString("pending")
		w.Array(len(g.Pending))
		for _, p := range g.Pending {
			w.Array(4)
			writeStreamID(w, p.ID)
			w.Bulk(p.Consumer)
			w.Int(p.DeliveryTime)
			w.Int(p.DeliveryCount)
		}
		w.BulkString("consumers")
		w.Array(len(g.Consumers))
		for _, c := range g.Consumers {
			w.Map(4)
			w.BulkString("name")
			w.Bulk(c.Name)
			w.BulkString("seen-time")
			w.Int(c.SeenTime)
			w.BulkString("pel-count")
			w.Int(c.PendingCount)
			w.BulkString("pending")
			w.Array(len(c.Pending))
			for _, p := range c.Pending {
				w.Array(3)
				writeStreamID(w, p.ID)
				w.Int(p.DeliveryTime)
				w.Int(p.DeliveryCount)
			}
		}
	}
	return nil
}

// writeEntriesReadAndLag writes a group's entries-read and lag fields,
// null when unknown.
func writeEntriesReadAndLag(w *Writer, g kv.GroupInfo) {
	w.BulkString("entries-read")
	if g.EntriesRead >= 0 {
		w.Int(g.EntriesRead)
	} else {
		w.Null()
	}
	w.BulkString("lag")
	if g.Lag >= 0 {
		w.Int(g.Lag)
	} else {
		w.Null()
	}
}

func xinfoGroups(x *cmdCtx) error {
	gs, ok, err := x.tx.XInfoGroups(x.args[2])
	if err != nil {
		return err
	}
	if !ok {
		return errNoSuchKey
	}
	x.w.Array(len(gs))
	for _, g := range gs {
		x.w.Map(6)
		x.w.BulkString("name")
		x.w.Bulk(g.Name)
		x.w.BulkString("consumers")
		x.w.Int(g.ConsumerCount)
		x.w.BulkString("pending")
		x.w.Int(g.PendingCount)
		x.w.BulkString("last-delivered-id")
		writeStreamID(x.w, g.LastID)
		writeEntriesReadAndLag(x.w, g)
	}
	return nil
}

func xinfoConsumers(x *cmdCtx) error {
	key, group := x.args[2], x.args[3]
	cs, ok, err := x.tx.XInfoConsumers(key, group)
	if errors.Is(err, kv.ErrXGroupNoGroup) {
		return errNoSuchGroup(key, group)
	}
	if err != nil {
		return err
	}
	if !ok {
		return errNoSuchKey
	}
	x.w.Array(len(cs))
	for _, c := range cs {
		x.w.Map(3)
		x.w.BulkString("name")
		x.w.Bulk(c.Name)
		x.w.BulkString("pending")
		x.w.Int(c.PendingCount)
		x.w.BulkString("idle")
		x.w.Int(c.Idle)
	}
	return nil
}
