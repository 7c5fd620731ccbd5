package admin_test

import (
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mayfly/mayfly/internal/admin"
)

// Ensure that the token file format is read as documented and that every
// malformed file is refused with the line at fault.
func TestParseTokens(t *testing.T) {
	cases := map[string]struct {
		file string
		want string // error substring; empty for success
		n    int
	}{
		"one token":         {"0123456789abcdef ttl.policies.list\n", "", 1},
		"comments and *":    {"# admin\n\n  0123456789abcdef *  \n# reader\nfedcba9876543210 ttl.policies.list,ttl.policies.get\n", "", 2},
		"no tokens":         {"# nothing\n", "no tokens", 0},
		"short token":       {"short *\n", "line 1: token shorter than 16", 0},
		"unknown perm":      {"0123456789abcdef ttl.policies.delete\n", `line 1: unknown permission "ttl.policies.delete"`, 0},
		"three fields":      {"0123456789abcdef ttl.policies.list extra\n", "line 1: want TOKEN PERMISSION", 0},
		"token only":        {"#\n0123456789abcdef\n", "line 2: want TOKEN PERMISSION", 0},
		"duplicate":         {"0123456789abcdef *\n0123456789abcdef operations.get\n", "line 2: token given twice", 0},
		"non-ascii token":   {"0123456789abcdéf *\n", "outside printable ASCII", 0},
		"empty permission":  {"0123456789abcdef ttl.policies.list,\n", `unknown permission ""`, 0},
		"all known perms":   {"0123456789abcdef ttl.policies.list,ttl.policies.get,ttl.policies.update,operations.list,operations.get\n", "", 1},
		"repeated perm ok":  {"0123456789abcdef operations.get,operations.get\n", "", 1},
		"windows line ends": {"0123456789abcdef *\r\n", "", 1},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			tok, err := admin.ParseTokens(strings.NewReader(c.file))
			if c.want != "" {
				if err == nil || !strings.Contains(err.Error(), c.want) || !errors.Is(err, admin.ErrTokenFile) {
					t.Fatalf("ParseTokens = %v, want an error containing %q", err, c.want)
				}
				return
			}
			if err != nil || tok.Len() != c.n {
				t.Fatalf("ParseTokens = %v tokens, %v; want %d", tok, err, c.n)
			}
		})
	}
}

// Ensure that with a token file every /v1/ endpoint requires a token
// granting its own permission (401 without one or with an unknown one,
// 403 naming the missing permission), while the probes and /metrics stay
// open.
func TestAuthPermissions(t *testing.T) {
	file := filepath.Join(t.TempDir(), "tokens")
	const (
		reader = "reader-0123456789abcdef"
		ops    = "ops-0123456789abcdef"
		root   = "root-0123456789abcdef"
	)
	content := reader + " ttl.policies.list,ttl.policies.get\n" + ops + " operations.list,operations.get\n" + root + " *\n"
	if err := os.WriteFile(file, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	env := newAPIEnv(t, file)
	env.insertSessions(t, 2, 1)
	opID := env.enable(t, root)

	type call struct {
		method, path, body string
		perm               admin.Permission
	}
	calls := []call{
		{"GET", "/v1/ttl/policies", "", admin.PermPoliciesList},
		{"GET", "/v1/ttl/policies/sessions", "", admin.PermPoliciesGet},
		{"PATCH", "/v1/ttl/policies/sessions", `{"field":"expireAt","enabled":true,"expirationOffset":"1h"}`, admin.PermPoliciesUpdate},
		{"GET", "/v1/operations", "", admin.PermOperationsList},
		{"GET", "/v1/operations/" + opID, "", admin.PermOperationsGet},
	}
	grants := map[string][]admin.Permission{
		reader: {admin.PermPoliciesList, admin.PermPoliciesGet},
		ops:    {admin.PermOperationsList, admin.PermOperationsGet},
		root:   admin.Permissions,
	}
	for _, c := range calls {
		t.Run(c.method+" "+c.path, func(t *testing.T) {
			status, body, hdr := env.raw(t, c.method, c.path, c.body, "")
			if status != 401 || !strings.Contains(body, `"code": "UNAUTHENTICATED"`) || !strings.Contains(body, "missing bearer token") || hdr.Get("WWW-Authenticate") == "" {
				t.Fatalf("no token: %d %s", status, body)
			}
			status, body, _ = env.raw(t, c.method, c.path, c.body, "wrong-0123456789abcdef")
			if status != 401 || !strings.Contains(body, "unknown bearer token") {
				t.Fatalf("unknown token: %d %s", status, body)
			}
			for tok, perms := range grants {
				status, body, _ := env.raw(t, c.method, c.path, c.body, tok)
				allowed := false
				for _, p := range perms {
					allowed = allowed || p == c.perm
				}
				switch {
				case allowed && status != 200:
					t.Errorf("token %s: %d %s", tok[:4], status, body)
				case !allowed && (status != 403 || !strings.Contains(body, `"code": "PERMISSION_DENIED"`) || !strings.Contains(body, "permission "+string(c.perm)+" denied")):
					t.Errorf("token %s without %s: %d %s", tok[:4], c.perm, status, body)
				}
			}
		})
	}
	for _, path := range []string{"/healthz", "/readyz", "/metrics"} {
		if status, body, _ := env.raw(t, "GET", path, "", ""); status != 200 {
			t.Errorf("%s without a token: %d %s", path, status, body)
		}
	}
	// The typed client sends its token and reports the refusal.
	c, err := admin.NewClient(env.url, reader)
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.UpdatePolicy(t.Context(), "sessions", admin.UpdatePolicyRequest{Field: "expireAt", Enabled: ptr(false)})
	var ae *admin.APIError
	if !errors.As(err, &ae) || ae.Status != http.StatusForbidden || ae.Code != admin.CodePermissionDenied {
		t.Fatalf("client update with a reader token: %v", err)
	}
}

// Ensure that a bad token file is refused with an error naming it.
func TestOpenTokenFileRefusesBadFile(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad")
	if err := os.WriteFile(bad, []byte("x y\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, file := range []string{bad, filepath.Join(dir, "missing")} {
		_, err := admin.OpenTokenFile(file, nil)
		if err == nil || !strings.Contains(err.Error(), "token file") {
			t.Errorf("OpenTokenFile(%s): %v", filepath.Base(file), err)
		}
	}
}

// Ensure that Reload puts the file's new tokens in force and revokes the
// removed ones, and that a reload of a broken file keeps the old tokens.
func TestTokenFileReload(t *testing.T) {
	file := filepath.Join(t.TempDir(), "tokens")
	const (
		first  = "first-0123456789abcdef"
		second = "second-0123456789abcdef"
	)
	write := func(content string) {
		t.Helper()
		if err := os.WriteFile(file, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(first + " *\n")
	env := newAPIEnv(t, file)
	status := func(tok string) int {
		t.Helper()
		s, _, _ := env.raw(t, "GET", "/v1/ttl/policies", "", tok)
		return s
	}
	if status(first) != 200 || status(second) != 401 {
		t.Fatalf("before reload: first %d, second %d", status(first), status(second))
	}
	write(second + " ttl.policies.list\n")
	if err := env.tokens.Reload(); err != nil {
		t.Fatal(err)
	}
	if status(first) != 401 || status(second) != 200 || env.tokens.Len() != 1 {
		t.Fatalf("after reload: first %d, second %d", status(first), status(second))
	}
	write("short *\n")
	if err := env.tokens.Reload(); err == nil || !strings.Contains(err.Error(), "shorter than") {
		t.Fatalf("Reload of a broken file = %v", err)
	}
	if status(second) != 200 {
		t.Fatalf("after a failed reload the token in force is refused: %d", status(second))
	}
}

// Ensure that the probes and /metrics answer everyone unless
// RequireAuthForMetrics, and that the profiler needs a token whenever
// there are tokens.
func TestProbesAndMetricsAuth(t *testing.T) {
	file := filepath.Join(t.TempDir(), "tokens")
	const tok = "probe-0123456789abcdef"
	if err := os.WriteFile(file, []byte(tok+" operations.get\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, require := range []bool{false, true} {
		env := newAPIEnvWith(t, file, require)
		for _, path := range []string{"/healthz", "/readyz", "/metrics"} {
			want := 200
			if require {
				want = 401
			}
			if got, body, _ := env.raw(t, "GET", path, "", ""); got != want {
				t.Errorf("require %v: %s without a token: %d %s", require, path, got, body)
			}
			if got, body, _ := env.raw(t, "GET", path, "", tok); got != 200 {
				t.Errorf("require %v: %s with a token: %d %s", require, path, got, body)
			}
			if got, _, _ := env.raw(t, "GET", path, "", "wrong-0123456789abcdef"); require && got != 401 {
				t.Errorf("%s with an unknown token: %d", path, got)
			}
		}
		if got, _, _ := env.raw(t, "GET", "/debug/pprof/cmdline", "", ""); got != 401 {
			t.Errorf("profiler without a token: %d", got)
		}
		if got, _, _ := env.raw(t, "GET", "/debug/pprof/cmdline", "", tok); got != 200 {
			t.Errorf("profiler with a token: %d", got)
		}
	}
}

func ptr[T any](v T) *T { return &v }
