package resp

var cmdTime = def("time", 1, "loading stale fast", 0, 0, 0, "fast", "server", "2.6.0",
	"Returns the server time.", "O(1)", func(x *cmdCtx) error {
		now := x.s.opts.Now()
		x.w.Array(2)
		x.w.BulkInt(now.Unix())
		x.w.BulkInt(int64(now.Nanosecond() / 1000))
		return nil
	})
