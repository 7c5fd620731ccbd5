package admin

import (
	"bufio"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync/atomic"
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
	// PermReplicasList lists the replica set's members (GET /v1/replicas).
	PermReplicasList Permission = "replicas.list"
	// PermReplicasUpdate adds and removes members (POST /v1/replicas,
	// DELETE /v1/replicas/{id}).
	PermReplicasUpdate Permission = "replicas.update"
)

// Permissions lists every permission, in the order the docs give them.
var Permissions = []Permission{PermPoliciesList, PermPoliciesGet, PermPoliciesUpdate, PermOperationsList, PermOperationsGet,
	PermReplicasList, PermReplicasUpdate}

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
// Only SHA-256 digests of the tokens are kept in memory, and a presented
// token's digest is compared with every one of them in constant time.
type Tokens struct {
	grants []grant
}

// grant is one token of a token file, by its digest.
type grant struct {
	digest [sha256.Size]byte
	perms  []Permission
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
	t := &Tokens{}
	seen := map[[sha256.Size]byte]bool{}
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
		if seen[h] {
			return nil, fmt.Errorf("%w: line %d: token given twice", ErrTokenFile, line)
		}
		seen[h] = true
		t.grants = append(t.grants, grant{digest: h, perms: perms})
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

// lookup returns what tok grants. Its time depends on the number of
// tokens only, never on which digest, or how much of one, matches.
func (t *Tokens) lookup(tok string) (perms []Permission, known bool) {
	h := sha256.Sum256([]byte(tok))
	for i := range t.grants {
		if subtle.ConstantTimeCompare(h[:], t.grants[i].digest[:]) == 1 {
			perms, known = t.grants[i].perms, true
		}
	}
	return perms, known
}

// TokenFile is a token file and the tokens it held when last read; Reload
// reads it again (on SIGHUP), so tokens can be added and revoked without a
// restart.
type TokenFile struct {
	path    string
	warn    func(msg string)
	current atomic.Pointer[Tokens]
}

// OpenTokenFile reads the token file at path; warn receives warnings about
// it (nil: none).
func OpenTokenFile(path string, warn func(msg string)) (*TokenFile, error) {
	f := &TokenFile{path: path, warn: warn}
	if err := f.Reload(); err != nil {
		return nil, err
	}
	return f, nil
}

// Reload reads the file again; requests that follow see its tokens. On
// error the tokens read before stay in force.
func (f *TokenFile) Reload() error {
	t, err := LoadTokens(f.path, f.warn)
	if err != nil {
		return err
	}
	f.current.Store(t)
	return nil
}

// Path returns the file's path.
func (f *TokenFile) Path() string { return f.path }

// Len returns the number of tokens in force.
func (f *TokenFile) Len() int { return f.current.Load().Len() }

// bearer returns the token of r's Authorization header, or "".
func bearer(r *http.Request) string {
	scheme, tok, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return ""
	}
	return strings.TrimSpace(tok)
}

// authenticate returns what r's token grants, or writes the 401 reply
// (want names what the endpoint needs) and returns false.
func (f *TokenFile) authenticate(w http.ResponseWriter, r *http.Request, want string) ([]Permission, bool) {
	tok := bearer(r)
	if tok == "" {
		w.Header().Set("WWW-Authenticate", `Bearer realm="mayfly"`)
		writeError(w, &APIError{Status: http.StatusUnauthorized, Code: CodeUnauthenticated,
			Message: fmt.Sprintf("missing bearer token: this server requires 'Authorization: Bearer TOKEN' with %s", want)})
		return nil, false
	}
	perms, known := f.current.Load().lookup(tok)
	if !known {
		w.Header().Set("WWW-Authenticate", `Bearer realm="mayfly", error="invalid_token"`)
		writeError(w, &APIError{Status: http.StatusUnauthorized, Code: CodeUnauthenticated,
			Message: "unknown bearer token"})
		return nil, false
	}
	return perms, true
}

// require wraps h so that it runs only for a request bearing a token that
// grants p: no or an unknown token gets 401 UNAUTHENTICATED, a token
// without p 403 PERMISSION_DENIED naming p. A nil TokenFile lets every
// request through (no --admin-token-file).
func (f *TokenFile) require(p Permission, h http.Handler) http.Handler {
	if f == nil {
		return h
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		perms, ok := f.authenticate(w, r, "a token granting "+string(p))
		if !ok {
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

// requireAny wraps h so that it runs only for a request bearing one of the
// tokens, whatever it grants. A nil TokenFile lets every request through.
func (f *TokenFile) requireAny(h http.Handler) http.Handler {
	if f == nil {
		return h
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, ok := f.authenticate(w, r, "one of the tokens of its token file"); ok {
			h.ServeHTTP(w, r)
		}
	})
}
