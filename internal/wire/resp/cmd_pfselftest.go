package resp

import (
	"math/rand/v2"

	"github.com/mayfly/mayfly/internal/kv"
)

var cmdPFSelfTest = def(cmdSpec{
	Name: "pfselftest", Arity: 1, Flags: "admin",
	ACL: "hyperloglog admin slow dangerous", Group: "hyperloglog", Since: "2.8.9",
	Summary:    "An internal command for testing HyperLogLog values",
	Complexity: "N/A",
	Handler: func(x *cmdCtx) error {
		if err := kv.HLLSelfTest(rand.Uint64(), hllSparseMax(x)); err != nil {
			return replyErr(err.Error())
		}
		x.w.OK()
		return nil
	},
})
