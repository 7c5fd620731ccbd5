package resp

import "github.com/mayfly/mayfly/internal/kv"

var cmdXAck = def(cmdSpec{
	Name: "xack", Arity: -4, Flags: "write fast", FirstKey: 1, LastKey: 1, Step: 1,
	ACL: "write stream fast", Group: "stream", Since: "5.0.0",
	Summary:    "Marks a pending message as correctly processed, effectively removing it from the pending entries list of the consumer group. Return value of the command is the number of messages successfully acknowledged, that is, the IDs we were actually able to resolve in the PEL.",
	Complexity: "O(1) for each message ID processed.",
	Handler: func(x *cmdCtx) error {
		// A missing key or group acknowledges nothing, before the IDs
		// are even parsed.
		if ok, err := x.tx.XHasGroup(x.args[1], x.args[2]); err != nil || !ok {
			if err == nil {
				x.w.Int(0)
			}
			return err
		}
		ids := make([]kv.StreamID, 0, len(x.args)-3)
		for _, a := range x.args[3:] {
			id, err := parseStrictID(a)
			if err != nil {
				return err
			}
			ids = append(ids, id)
		}
		n, err := x.tx.XAck(x.args[1], x.args[2], ids)
		if err != nil {
			return err
		}
		x.w.Int(n)
		return nil
	},
})
