package resp

import "github.com/mayfly/mayfly/internal/kv"

var cmdZInterCard = def(cmdSpec{
	Name: "zintercard", Arity: -3, Flags: "readonly movablekeys",
	ACL: "read sortedset slow", Group: "sorted-set", Since: "7.0.0",
	Summary:    "Returns the number of members of the intersect of multiple sorted sets.",
	Complexity: "O(N*K) worst case with N being the smallest input sorted set, K being the number of input sorted sets.",
	Handler: func(x *cmdCtx) error {
		n, err := parseInt(x.args[1])
		if err != nil {
			return err
		}
		if n < 1 {
			return replyErr("ERR at least 1 input key is needed for 'zintercard' command")
		}
		if n > int64(len(x.args)-2) {
			return errSyntax
		}
		keys := x.args[2 : 2+n]
		// Redis looks the keys up before the options.
		for _, k := range keys {
			if _, err := x.tx.CheckType(k, kv.TypeZSet); err != nil {
				if _, err2 := x.tx.CheckType(k, kv.TypeSet); err2 != nil {
					return err
				}
			}
		}
		var limit int64
		for i := 2 + int(n); i < len(x.args); i++ {
			if !argEq(x.args[i], "limit") || i+1 >= len(x.args) {
				return errSyntax
			}
			i++
			if limit, err = parsePositive(x.args[i], "LIMIT can't be negative"); err != nil {
				return err
			}
		}
		card, err := x.tx.ZInterCard(keys, limit)
		if err != nil {
			return err
		}
		x.w.Int(card)
		return nil
	},
})
