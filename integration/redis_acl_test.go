package integration_test

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mayfly/mayfly/integration/harness"
)

// Ensure that redis-cli logs in as an ACL user with --user and --pass,
// that the user's rules hold for it, that a wrong password is refused,
// and that users given in --resp-aclfile are there at startup and ACL SAVE
// writes them back.
func TestRedisCLIACLUsers(t *testing.T) {
	cli := harness.Tool(t, "redis-cli")
	aclfile := filepath.Join(t.TempDir(), "users.acl")
	if err := os.WriteFile(aclfile, []byte("user reader on >readpw ~pub:* +@read +acl|whoami\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s := harness.Start(t, "--resp-aclfile", aclfile)
	host, port, err := net.SplitHostPort(s.RespAddr)
	if err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(cli, append([]string{"-h", host, "-p", port, "--no-auth-warning"}, args...)...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("redis-cli %q: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"set", "pub:1", "hello"}, "OK"},
		{[]string{"acl", "setuser", "writer", "on", ">writepw", "~*", "+@write", "-flushall"}, "OK"},
		{[]string{"--user", "reader", "--pass", "readpw", "acl", "whoami"}, "reader"},
		{[]string{"--user", "reader", "--pass", "readpw", "get", "pub:1"}, "hello"},
		{[]string{"--user", "reader", "--pass", "readpw", "get", "secret"}, "NOPERM this user has no permissions to access one of the keys used as arguments"},
		{[]string{"--user", "reader", "--pass", "readpw", "set", "pub:1", "x"}, "NOPERM this user has no permissions to run the 'set' command"},
		{[]string{"--user", "writer", "--pass", "writepw", "set", "any", "x"}, "OK"},
		{[]string{"--user", "writer", "--pass", "writepw", "flushall"}, "NOPERM this user has no permissions to run the 'flushall' command"},
		{[]string{"--user", "reader", "--pass", "wrong", "ping"}, "AUTH failed: WRONGPASS invalid username-password pair or user is disabled.\nPONG"},
		{[]string{"acl", "save"}, "OK"},
	} {
		if got := run(tc.args...); got != tc.want {
			t.Errorf("redis-cli %q = %q, want %q", tc.args, got, tc.want)
		}
	}
	data, err := os.ReadFile(aclfile)
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	if !strings.Contains(text, "user reader on #") || !strings.Contains(text, "user writer on #") ||
		strings.Contains(text, "readpw") || strings.Contains(text, "writepw") {
		t.Errorf("ACL SAVE wrote:\n%s", text)
	}
	if logs := s.Logs(); strings.Contains(logs, "wrong") || !strings.Contains(logs, "authentication failed") {
		t.Errorf("the failed login is not logged, or its password is:\n%s", logs)
	}
}
