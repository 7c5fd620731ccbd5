package resp

import "github.com/mayfly/mayfly/internal/kv"

var cmdXDel = def(cmdSpec{
	Name: "xdel", Arity: -3, Flags: "write fast", FirstKey: 1, LastKey: 1, Step: 1,
	ACL: "write stream fast", Group: "stream", Since: "5.0.0",
	Summary:    "Removes the specified entries from the stream. Returns the number of items actually deleted, that may be different from the number of IDs passed in case certain IDs do not exist.",
	Complexity: "O(1) for each single item to delete in the stream, regardless of the stream size.",
	Handler: func(x *cmdCtx) error {
		if ok, err := x.tx.CheckType(x.args[1], kv.TypeStream); err != nil || !ok {
			if err == nil {
				x.w.Int(0)
			}
			return err
		}
		ids := make([]kv.StreamID, 0, len(x.args)-2)
		for _, a := range x.args[2:] {
			id, err := parseStrictID(a)
			if err != nil {
				return err
			}
			ids = append(ids, id)
		}
		n, err := x.tx.XDel(x.args[1], ids)
		if err != nil {
			return err
		}
		x.w.Int(n)
		return nil
	},
})
