package resp

import "github.com/mayfly/mayfly/internal/kv"

var cmdXSetID = def(cmdSpec{
	Name: "xsetid", Arity: -3, Flags: "write denyoom fast", FirstKey: 1, LastKey: 1, Step: 1,
	ACL: "write stream fast", Group: "stream", Since: "5.0.0",
	Summary:    "An internal command for replicating stream values",
	Complexity: "O(1)",
	Handler:    xsetid,
})

// xsetid is XSETID key id [ENTRIESADDED n] [MAXDELETEDID id].
func xsetid(x *cmdCtx) error {
	id, err := parseStrictID(x.args[2])
	if err != nil {
		return err
	}
	added := int64(-1)
	var maxDel *kv.StreamID
	for i := 3; i < len(x.args); i += 2 {
		more := i+1 < len(x.args)
		switch {
		case argEq(x.args[i], "entriesadded") && more:
			if added, err = parseInt(x.args[i+1]); err != nil {
				return err
			}
			if added < 0 {
				return replyErr("ERR entries_added must be positive")
			}
		case argEq(x.args[i], "maxdeletedid") && more:
			md, err := parseStrictID(x.args[i+1])
			if err != nil {
				return err
			}
			if id.Compare(md) < 0 {
				return replyErr("ERR The ID specified in XSETID is smaller than the provided max_deleted_entry_id")
			}
			if !md.IsZero() {
				maxDel = &md
			}
		default:
			return errSyntax
		}
	}
	if err := x.tx.XSetID(x.args[1], id, added, maxDel); err != nil {
		return streamErr(err, x.args[1], nil)
	}
	x.w.OK()
	return nil
}
