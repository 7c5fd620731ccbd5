package resp

import (
	"testing"

	"github.com/mayfly/mayfly/internal/acl"
)

// BenchmarkACLCheckGet measures the permission check of one GET alone, for
// a user restricted to command categories and key patterns.
func BenchmarkACLCheckGet(b *testing.B) {
	s := &Server{cmds: commandTable(), opts: Options{}}
	s.acl = newACLState(s)
	_, u, err := s.acl.reg.Update("bench", []string{"on", "+@read", "+@write", "%R~other:*", "~cache:*", "~key:*", "%W~log:*"}, false)
	if err != nil {
		b.Fatal(err)
	}
	cmd := s.cmds["get"]
	args := [][]byte{[]byte("get"), []byte("key:123")}
	b.ReportAllocs()
	for b.Loop() {
		if r, _ := s.acl.check(u, cmd, args); r != acl.OK {
			b.Fatal(r)
		}
	}
}
