package resp

var cmdTouch = def("touch", -2, "readonly fast", 1, -1, 1, "keyspace read fast", "generic", "3.2.1",
	"Returns the number of existing keys out of those specified after updating the time they were last accessed.",
	"O(N) where N is the number of keys that will be touched.", func(x *cmdCtx) error {
		n, err := x.tx.Touch(x.args[1:])
		if err != nil {
			return err
		}
		x.w.Int(n)
		return nil
	})
