package admin

import (
	"bufio"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strings"
)

// Permission names one thing a token may do on the /v1/ API. The names
// follow Firestore's (datastore.indexes.list, ...) for TTL policies and
// their operations.
type Permission string

// The permissions of the /v1/ API.
const (
	// PermPoliciesList lists TTL policies (GET /v1/ttl/policies).
	PermPoliciesList Permission = "ttl.policies.list"
	// PermPoliciesGet reads one TTL policy (GET /v1/ttl/policies/{group}).
	PermPoliciesGet Permission = "ttl.policies.get"
	// PermPoliciesUpdate changes a TTL policy or previews a change
	// (PATCH /v1/ttl/policies/{group}).
	PermPoliciesUpdate Permission = "ttl.policies.update"
	// PermOperationsList lists operations (GET /v1/operations).
	PermOperationsList Permission = "operations.list"
	// PermOperationsGet reads one operation (GET /v1/operations/{id}).
	PermOperationsGet Permission = "operations.get"
)

// Permissions lists every permission, in the order the docs give them.
var Permissions = []Permission{PermPoliciesList, PermPoliciesGet, PermPoliciesUpdate, PermOperationsList, PermOperationsGet}

// minTokenLen is the shortest token a token file may hold.
const minTokenLen = 16

// ErrTokenFile is wrapped by every error about a token file.
var ErrTokenFile = errors.New("admin: token file")

// Tokens are the bearer tokens of the /v1/ API and what each grants, read
// from the file given to `mayfly serve --admin-token-file`. The format is
// one token per line:
//
//	# comments and blank lines are ignored
//	TOKEN PERMISSION[,PERMISSION...]
//	TOKEN *
//
// A token is at least 16 printable ASCII characters without spaces (for
// example `openssl rand -hex 32`); "*" grants every permission. Unknown
// permissions, duplicate tokens and a file without tokens are errors.
// Only SHA-256 digests of the tokens are kept in memory.
type Tokens struct {
	grants map[[sha256.Size]byte][]Permission
}

// LoadTokens reads a token file. A file readable by other users than its
// owner is accepted; warn says so (nil: no warning).
func LoadTokens(path string, warn func(msg string)) (*Tokens, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrTokenFile, err)
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.Mode().Perm()&0o077 != 0 && warn != nil {
		warn(fmt.Sprintf("admin token file %s is readable by other users (mode %v); chmod 600 it", path, fi.Mode().Perm()))
	}
	t, err := ParseTokens(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return t, nil
}

// ParseTokens reads tokens in the token file format.
func ParseTokens(r io.Reader) (*Tokens, error) {
	t := &Tokens{grants: map[[sha256.Size]byte][]Permission{}}
	sc := bufio.NewScanner(r)
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		if text == "" || text[0] == '#' {
			continue
		}
		fields := strings.Fields(text)
		if len(fields) != 2 {
			return nil, fmt.Errorf("%w: line %d: want TOKEN PERMISSION[,PERMISSION...]", ErrTokenFile, line)
		}
		tok, list := fields[0], fields[1]
		if len(tok) < minTokenLen {
			return nil, fmt.Errorf("%w: line %d: token shorter than %d characters", ErrTokenFile, line, minTokenLen)
		}
		for _, c := range []byte(tok) {
			if c <= ' ' || c > '~' {
				return nil, fmt.Errorf("%w: line %d: token has a character outside printable ASCII", ErrTokenFile, line)
			}
		}
		var perms []Permission
		if list == "*" {
			perms = slices.Clone(Permissions)
		} else {
			for _, p := range strings.Split(list, ",") {
				perm := Permission(strings.TrimSpace(p))
				if !slices.Contains(Permissions, perm) {
					return nil, fmt.Errorf("%w: line %d: unknown permission %q (known: %s, or *)", ErrTokenFile, line, p, permList(Permissions))
				}
				if !slices.Contains(perms, perm) {
					perms = append(perms, perm)
				}
			}
		}
		h := sha256.Sum256([]byte(tok))
		if _, dup := t.grants[h]; dup {
			return nil, fmt.Errorf("%w: line %d: token given twice", ErrTokenFile, line)
		}
		t.grants[h] = perms
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrTokenFile, err)
	}
	if len(t.grants) == 0 {
		return nil, fmt.Errorf("%w: no tokens", ErrTokenFile)
	}
	return t, nil
}

func permList(ps []Permission) string {
	s := make([]string, len(ps))
	for i, p := range ps {
		s[i] = string(p)
	}
	return strings.Join(s, ", ")
}

// Len returns the number of tokens.
func (t *Tokens) Len() int { return len(t.grants) }

// require wraps h so that it runs only for a request bearing a token that
// grants p: no or an unknown token gets 401 UNAUTHENTICATED, a token
// without p 403 PERMISSION_DENIED naming p. Nil Tokens let every request
// through (no --admin-token-file).
func (t *Tokens) require(p Permission, h http.Handler) http.Handler {
	if t == nil {
		return h
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth := r.Header.Get("Authorization")
		scheme, tok, ok := strings.Cut(auth, " ")
		if auth == "" || !ok || !strings.EqualFold(scheme, "Bearer") || strings.TrimSpace(tok) == "" {
			w.Header().Set("WWW-Authenticate", `Bearer realm="mayfly"`)
			writeError(w, &APIError{Status: http.StatusUnauthorized, Code: CodeUnauthenticated,
				Message: fmt.Sprintf("missing bearer token: this server requires 'Authorization: Bearer TOKEN' with a token granting %s", p)})
			return
		}
		perms, known := t.grants[sha256.Sum256([]byte(strings.TrimSpace(tok)))]
		if !known {
			w.Header().Set("WWW-Authenticate", `Bearer realm="mayfly", error="invalid_token"`)
			writeError(w, &APIError{Status: http.StatusUnauthorized, Code: CodeUnauthenticated,
				Message: "unknown bearer token"})
			return
		}
		if !slices.Contains(perms, p) {
			writeError(w, &APIError{Status: http.StatusForbidden, Code: CodePermissionDenied,
				Message: fmt.Sprintf("permission %s denied: the token grants only %s", p, permList(perms))})
			return
		}
		h.ServeHTTP(w, r)
	})
}
