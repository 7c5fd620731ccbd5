package resp

import "context"

var cmdInfo = def("info", -1, "loading stale", 0, 0, 0, "slow dangerous", "server", "1.0.0",
	"Returns information and statistics about the server.", "O(1)", func(x *cmdCtx) error {
		sections := make([]string, 0, len(x.args)-1)
		for _, a := range x.args[1:] {
			sections = append(sections, string(a))
		}
		text, err := x.s.info(context.Background(), x.tx, sections)
		if err != nil {
			return err
		}
		x.w.Verbatim(text)
		return nil
	})
