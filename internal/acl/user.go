package acl

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"fmt"
	"strings"
)

// User is one ACL user. A published User is never modified: changes are
// made on a copy (Clone) and the copy published.
type User struct {
	Name    string
	enabled bool
	nopass  bool
	// sanitize is 0 (neither flag shown), 1 sanitize-payload or 2
	// skip-sanitize-payload.
	sanitize  int
	passwords []string // SHA-256 hex digests, in the order added
	selectors []*Selector
	// chansDefault is the channel rule a new selector starts with
	// (acl-pubsub-default): true for allchannels.
	chansDefault bool
}

// NewUser returns a user as ACL SETUSER creates it: off, no passwords, and
// a root selector that allows nothing (with all channels when
// allChannels, Redis's acl-pubsub-default allchannels).
func NewUser(name string, allChannels bool) *User {
	u := &User{Name: name, chansDefault: allChannels}
	u.selectors = []*Selector{u.newSelector()}
	return u
}

func (u *User) newSelector() *Selector {
	return &Selector{allChans: u.chansDefault}
}

// Clone returns a copy of u that can be changed.
func (u *User) Clone() *User {
	n := *u
	n.passwords = append([]string(nil), u.passwords...)
	n.selectors = make([]*Selector, len(u.selectors))
	for i, s := range u.selectors {
		n.selectors[i] = s.clone()
	}
	return &n
}

// Enabled reports whether the user is on.
func (u *User) Enabled() bool { return u.enabled }

// NoPass reports whether the user needs no password.
func (u *User) NoPass() bool { return u.nopass }

// Passwords returns the SHA-256 hex digests of the user's passwords.
func (u *User) Passwords() []string { return append([]string(nil), u.passwords...) }

// HashPassword returns the SHA-256 hex digest of a password, the only
// form in which passwords are kept.
func HashPassword(p []byte) string {
	h := sha256.Sum256(p)
	return hex.EncodeToString(h[:])
}

// validHash reports whether h is 64 lowercase hex digits.
func validHash(h string) bool {
	if len(h) != 64 {
		return false
	}
	for i := 0; i < len(h); i++ {
		if !(h[i] >= '0' && h[i] <= '9' || h[i] >= 'a' && h[i] <= 'f') {
			return false
		}
	}
	return true
}

// CheckPassword reports whether the user is enabled and p is one of its
// passwords (any password when nopass), comparing digests in constant
// time.
func (u *User) CheckPassword(p []byte) bool {
	if !u.enabled {
		return false
	}
	if u.nopass {
		return true
	}
	h := []byte(HashPassword(p))
	ok := 0
	for _, pw := range u.passwords {
		ok |= subtle.ConstantTimeCompare(h, []byte(pw))
	}
	return ok == 1
}

// Apply applies one rule (an ACL SETUSER argument) to u, which must not be
// published yet. A selector "(...)" is one rule.
func (u *User) Apply(cat *Catalog, op string) error {
	if op == "" {
		return nil
	}
	switch {
	case strings.EqualFold(op, "on"):
		u.enabled = true
	case strings.EqualFold(op, "off"):
		u.enabled = false
	case strings.EqualFold(op, "skip-sanitize-payload"):
		u.sanitize = 2
	case strings.EqualFold(op, "sanitize-payload"):
		u.sanitize = 1
	case strings.EqualFold(op, "nopass"):
		u.nopass, u.passwords = true, nil
	case strings.EqualFold(op, "resetpass"):
		u.nopass, u.passwords = false, nil
	case op[0] == '>' || op[0] == '#':
		h := op[1:]
		if op[0] == '>' {
			h = HashPassword([]byte(op[1:]))
		} else if !validHash(h) {
			return ruleError(errBadHash)
		}
		found := false
		for _, p := range u.passwords {
			found = found || p == h
		}
		if !found {
			u.passwords = append(u.passwords, h)
		}
		u.nopass = false
	case op[0] == '<' || op[0] == '!':
		h := op[1:]
		if op[0] == '<' {
			h = HashPassword([]byte(op[1:]))
		} else if !validHash(h) {
			return ruleError(errBadHash)
		}
		for i, p := range u.passwords {
			if p == h {
				u.passwords = append(u.passwords[:i:i], u.passwords[i+1:]...)
				return nil
			}
		}
		return ruleError(errNoSuchPass)
	case op[0] == '(' && op[len(op)-1] == ')':
		s := u.newSelector()
		for _, sop := range splitArgs(op[1 : len(op)-1]) {
			if err := s.apply(cat, sop); err != nil {
				return err
			}
		}
		u.selectors = append(u.selectors, s)
	case strings.EqualFold(op, "clearselectors"):
		u.selectors = u.selectors[:1]
	case strings.EqualFold(op, "reset"):
		u.nopass, u.passwords = false, nil
		root := u.newSelector()
		root.setAll(cat, false)
		u.selectors = []*Selector{root}
		u.enabled = false
		u.sanitize = 1
	default:
		return u.selectors[0].apply(cat, op)
	}
	return nil
}

// splitArgs splits a selector's inside on spaces.
func splitArgs(s string) []string { return strings.Fields(s) }

// RuleError is a rule ACL SETUSER refused: the rule and why.
type RuleError struct {
	Rule   string
	Reason string
}

func (e *RuleError) Error() string {
	return fmt.Sprintf("Error in ACL SETUSER modifier '%s': %s", e.Rule, e.Reason)
}

// UnmatchedError is a selector whose '(' is never closed.
type UnmatchedError struct{ Start string }

func (e *UnmatchedError) Error() string {
	return fmt.Sprintf("Unmatched parenthesis in acl selector starting at '%s'.", e.Start)
}

// MergeSelectors joins the arguments of a selector spread over several
// arguments ("(~key*", "+get)") into one rule, as ACL SETUSER reads them.
func MergeSelectors(ops []string) ([]string, error) {
	var out []string
	open := -1
	var cur string
	for j, op := range ops {
		if open < 0 && strings.HasPrefix(op, "(") && !strings.HasSuffix(op, ")") {
			open, cur = j, op
			continue
		}
		if open >= 0 {
			cur += " " + op
			if strings.HasSuffix(op, ")") {
				out = append(out, cur)
				open = -1
			}
			continue
		}
		out = append(out, op)
	}
	if open >= 0 {
		return nil, &UnmatchedError{Start: ops[open]}
	}
	return out, nil
}

// ApplyAll applies rules to a copy of u and returns the copy; the first
// rule refused fails them all with a *RuleError.
func (u *User) ApplyAll(cat *Catalog, ops []string) (*User, error) {
	merged, err := MergeSelectors(ops)
	if err != nil {
		return nil, err
	}
	n := u.Clone()
	for _, op := range merged {
		if err := n.Apply(cat, op); err != nil {
			return nil, &RuleError{Rule: op, Reason: err.Error()}
		}
	}
	return n, nil
}

// Check reports whether the user may run c with args, the keys and
// channels it names given as positions in args. When no selector allows
// the whole call, it returns the most relevant refusal (Redis's order:
// channel over key over command, a later position over an earlier one)
// and the position of the key or channel refused.
func (u *User) Check(c *Command, args [][]byte, keys []KeyRef, chans []ChannelRef) (Result, int) {
	worst, pos := DeniedCommand, 0
	for _, s := range u.selectors {
		r, p := s.check(c, args, keys, chans)
		if r == OK {
			return OK, 0
		}
		if r > worst || (r == worst && p > pos) {
			worst, pos = r, p
		}
	}
	return worst, pos
}

// CheckUnrestricted is Check that also needs one allowing selector to
// grant perm on every key (what KEYS, SCAN and the like need).
func (u *User) CheckUnrestricted(c *Command, args [][]byte, keys []KeyRef, perm Perm) bool {
	for _, s := range u.selectors {
		if r, _ := s.check(c, args, keys, nil); r == OK && s.unrestrictedKeys(perm) {
			return true
		}
	}
	return false
}

// AllowsKey reports whether some selector grants perm on key.
func (u *User) AllowsKey(key []byte, perm Perm) bool {
	for _, s := range u.selectors {
		if s.AllowsKey(key, perm) {
			return true
		}
	}
	return false
}

// AllowsChannel reports whether some selector grants the channel (or the
// subscription pattern, when pattern).
func (u *User) AllowsChannel(ch []byte, pattern bool) bool {
	for _, s := range u.selectors {
		if s.AllowsChannel(ch, pattern) {
			return true
		}
	}
	return false
}

// Unrestricted reports whether the user's root selector allows every
// command, key and channel and there is nothing else to check: the check
// of a call can be skipped.
func (u *User) Unrestricted() bool {
	r := u.selectors[0]
	return r.allCmds && r.allKeys && r.allChans
}

// NeedsKeys reports whether a check may look at the keys of a call: some
// selector does not allow all keys.
func (u *User) NeedsKeys() bool {
	for _, s := range u.selectors {
		if !s.allKeys {
			return true
		}
	}
	return false
}

// NeedsChannels reports whether a check may look at the channels of a
// call.
func (u *User) NeedsChannels() bool {
	for _, s := range u.selectors {
		if !s.allChans {
			return true
		}
	}
	return false
}
