package resp

var cmdDel = def(cmdSpec{
	Name: "del", Arity: -2, Flags: "write", FirstKey: 1, LastKey: -1, Step: 1,
	ACL: "keyspace write slow", Group: "generic", Since: "1.0.0",
	Summary:    "Deletes one or more keys.",
	Complexity: "O(N) where N is the number of keys that will be removed.",
	Handler:    delKeys,
})

func delKeys(x *cmdCtx) error {
	n, err := x.tx.Del(x.args[1:])
	if err != nil {
		return err
	}
	x.w.Int(n)
	return nil
}
