package integration_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mayfly/mayfly/integration/harness"
)

// Ensure that bad flags and unusable data directories end in a one-line
// error that names the problem and a non-zero exit, never a panic.
func TestServeRefusesBadSetup(t *testing.T) {
	running := harness.Start(t)
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	cases := map[string]struct {
		args []string
		want string
	}{
		"unknown flag":           {[]string{"serve", "--bogus"}, "unknown flag: --bogus"},
		"bad durability":         {[]string{"serve", "--durability", "fast"}, `unknown durability "fast"`},
		"bad log level":          {[]string{"serve", "--log-level", "loud"}, `unknown log level "loud"`},
		"dir under a file":       {[]string{"serve", "--dir", filepath.Join(file, "d")}, file},
		"dir held by another":    {[]string{"serve", "--dir", running.Dir, "--http-addr", "127.0.0.1:0", "--mongo-addr", "", "--resp-addr", ""}, "in use by another mayfly process"},
		"port in use":            {[]string{"serve", "--dir", t.TempDir(), "--http-addr", running.HTTPAddr, "--mongo-addr", "", "--resp-addr", ""}, "listen for http on " + running.HTTPAddr},
		"missing config file":    {[]string{"serve", "--config", filepath.Join(file, "x.conf")}, "config file"},
		"plain addr without tls": {[]string{"serve", "--resp-plain-addr", "127.0.0.1:0"}, "need --tls-cert-file"},
		"client auth without ca": {[]string{"serve", "--tls-cert-file", file, "--tls-client-auth", "required"}, "needs --tls-ca-file"},
		"bad tls client auth":    {[]string{"serve", "--tls-client-auth", "maybe"}, `unknown client authentication "maybe"`},
		"auth with an open redis": {[]string{"serve", "--dir", t.TempDir(), "--auth",
			"--http-addr", "127.0.0.1:0", "--mongo-addr", "127.0.0.1:0", "--resp-addr", "127.0.0.1:0"}, "--auth: the Redis listener would serve every client without a password"},
		"bad tls min version": {[]string{"serve", "--tls-cert-file", file, "--tls-min-version", "1.0"}, `unsupported TLS version "1.0"`},
		"certificate not pem": {[]string{"serve", "--dir", t.TempDir(), "--tls-cert-file", file,
			"--http-addr", "127.0.0.1:0", "--mongo-addr", "127.0.0.1:0", "--resp-addr", "127.0.0.1:0"}, "tls: certificate " + file},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			out, err := exec.Command(harness.Binary(t), c.args...).CombinedOutput()
			if err == nil {
				t.Fatalf("exit 0, output %q", out)
			}
			text := strings.TrimSpace(string(out))
			if strings.Contains(text, "panic") || strings.Count(text, "\n") != 0 {
				t.Fatalf("want one line, got %q", text)
			}
			if !strings.Contains(text, c.want) {
				t.Fatalf("output %q does not contain %q", text, c.want)
			}
		})
	}
}

// Ensure that `mayfly version` prints the version.
func TestVersion(t *testing.T) {
	out, err := exec.Command(harness.Binary(t), "version").Output()
	if err != nil || !strings.HasPrefix(string(out), "mayfly ") {
		t.Fatalf("version: %q, %v", out, err)
	}
}
