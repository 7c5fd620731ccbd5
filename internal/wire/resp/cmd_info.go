package resp

import "context"

var cmdInfo = def(cmdSpec{
	Name: "info", Arity: -1, Flags: "loading stale",
	ACL: "slow dangerous", Group: "server", Since: "1.0.0",
	Summary:    "Returns information and statistics about the server.",
	Complexity: "O(1)",
	Handler: func(x *cmdCtx) error {
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
	},
})
