package resp

var cmdPFCount = def(cmdSpec{
	Name: "pfcount", Arity: -2, Flags: "readonly may_replicate", FirstKey: 1, LastKey: -1, Step: 1,
	ACL: "read hyperloglog slow", Group: "hyperloglog", Since: "2.8.9",
	Summary:    "Return the approximated cardinality of the set(s) observed by the HyperLogLog at key(s).",
	Complexity: "O(1) with a very small average constant time when called with a single key. O(N) with N being the number of keys, and much bigger constant times, when called with multiple keys.",
	Handler: func(x *cmdCtx) error {
		n, err := x.tx.PFCount(x.args[1:])
		if err != nil {
			return err
		}
		x.w.Int(n)
		return nil
	},
})
