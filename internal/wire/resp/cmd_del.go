package resp

var cmdDel = def("del", -2, "write", 1, -1, 1, "keyspace write slow", "generic", "1.0.0",
	"Deletes one or more keys.", "O(N) where N is the number of keys that will be removed.", delKeys)

func delKeys(x *cmdCtx) error {
	n, err := x.tx.Del(x.args[1:])
	if err != nil {
		return err
	}
	x.w.Int(n)
	return nil
}
