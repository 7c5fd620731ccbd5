package integration_test

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mayfly/mayfly/integration/harness"
	"github.com/mayfly/mayfly/internal/tlsconf/tlstest"
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

// Ensure that redis-cli with --tls and --user/--pass together logs in as
// an ACL user over TLS, that the user's rules (and redis.acl_check_cmd in
// a script) hold there, and that a wrong password or a missing login is
// refused on the TLS port too.
func TestRedisCLITLSACLUser(t *testing.T) {
	cli := harness.Tool(t, "redis-cli")
	pki := tlstest.New(t)
	aclfile := filepath.Join(t.TempDir(), "users.acl")
	if err := os.WriteFile(aclfile, []byte("user app on >apppw ~app:* &* +@all -flushall\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s := startTLS(t, pki, "--resp-aclfile", aclfile, "--resp-config", "requirepass=adminpw")
	host, port, err := net.SplitHostPort(s.RespAddr)
	if err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(cli, append([]string{"-h", host, "-p", port, "--no-auth-warning", "--tls", "--cacert", pki.CAFile}, args...)...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("redis-cli %q: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	app := []string{"--user", "app", "--pass", "apppw"}
	check := "return {redis.acl_check_cmd('get', 'app:1') and 1 or 0, redis.acl_check_cmd('get', 'other') and 1 or 0, redis.acl_check_cmd('flushall') and 1 or 0}"
	for _, tc := range []struct {
		args []string
		want string
	}{
		{append(app, "acl", "whoami"), "app"},
		{append(app, "set", "app:1", "hello"), "OK"},
		{append(app, "get", "app:1"), "hello"},
		{append(app, "get", "other"), "NOPERM this user has no permissions to access one of the keys used as arguments"},
		{append(app, "flushall"), "NOPERM this user has no permissions to run the 'flushall' command"},
		{append(app, "eval", check, "0"), "1\n0\n0"},
		{[]string{"--user", "app", "--pass", "wrong", "ping"}, "AUTH failed: WRONGPASS invalid username-password pair or user is disabled.\nNOAUTH Authentication required."},
		{[]string{"get", "app:1"}, "NOAUTH Authentication required."},
		{[]string{"--user", "default", "--pass", "adminpw", "acl", "whoami"}, "default"},
	} {
		if got := run(tc.args...); got != tc.want {
			t.Errorf("redis-cli %q = %q, want %q", tc.args, got, tc.want)
		}
	}
}
