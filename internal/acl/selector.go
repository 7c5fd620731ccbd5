package acl

import (
	"strings"

	"github.com/mayfly/mayfly/internal/glob"
)

// Perm is the access a command needs to a key.
type Perm uint8

// Key permissions: %R~ grants Read, %W~ Write, ~ both.
const (
	Read Perm = 1 << iota
	Write
	ReadWrite = Read | Write
)

// KeyPattern is one key pattern of a selector with the access it grants.
type KeyPattern struct {
	Pattern string
	Perm    Perm
	pat     []byte // Pattern, for matching
}

// Selector is one set of permissions of a user: commands, keys, channels.
// The zero value allows nothing.
type Selector struct {
	cmds []uint64 // bit i set: command ID i allowed
	// future is set by +@all and cleared by -@all: the rules start from
	// +@all (and would allow commands added later).
	future bool
	// allCmds is set by +@all and cleared by any removal: every command is
	// allowed without looking at cmds.
	allCmds   bool
	firstArgs map[int][]string // first arguments allowed of a command whose bit is clear
	allKeys   bool
	keys      []KeyPattern
	allChans  bool
	chans     []string
}

func (s *Selector) clone() *Selector {
	n := *s
	n.cmds = append([]uint64(nil), s.cmds...)
	n.keys = append([]KeyPattern(nil), s.keys...)
	n.chans = append([]string(nil), s.chans...)
	if s.firstArgs != nil {
		n.firstArgs = make(map[int][]string, len(s.firstArgs))
		for k, v := range s.firstArgs {
			n.firstArgs[k] = append([]string(nil), v...)
		}
	}
	return &n
}

func (s *Selector) bit(id int) bool {
	w := id / 64
	return w < len(s.cmds) && s.cmds[w]&(1<<(id%64)) != 0
}

func (s *Selector) setBit(cat *Catalog, id int, on bool) {
	if len(s.cmds) < (cat.Len()+63)/64 {
		s.cmds = append(s.cmds, make([]uint64, (cat.Len()+63)/64-len(s.cmds))...)
	}
	if on {
		s.cmds[id/64] |= 1 << (id % 64)
	} else {
		s.cmds[id/64] &^= 1 << (id % 64)
		s.allCmds = false
	}
}

// changeCommand allows or forbids a command and, for a container, all its
// subcommands; it forgets the command's allowed first arguments.
func (s *Selector) changeCommand(cat *Catalog, c *Command, on bool) {
	s.setBit(cat, c.ID, on)
	delete(s.firstArgs, c.ID)
	for _, sub := range c.Subs {
		s.setBit(cat, sub.ID, on)
	}
}

// changeCategory allows or forbids every command in a category.
func (s *Selector) changeCategory(cat *Catalog, bit uint64, on bool) {
	for _, c := range cat.all {
		if c.categories&bit != 0 {
			s.changeCommand(cat, c, on)
		}
	}
}

func (s *Selector) setAll(cat *Catalog, on bool) {
	s.cmds = make([]uint64, (cat.Len()+63)/64)
	if on {
		for i := range s.cmds {
			s.cmds[i] = ^uint64(0)
		}
	}
	s.future, s.allCmds = on, on
	s.firstArgs = nil
}

// Rule errors, with Redis's words.
const (
	errSyntax        = "Syntax error"
	errUnknown       = "Unknown command or category name in ACL"
	errKeysAfterAll  = "Adding a pattern after the * pattern (or the 'allkeys' flag) is not valid and does not have any effect. Try 'resetkeys' to start with an empty list of patterns"
	errChansAfterAll = "Adding a pattern after the * pattern (or the 'allchannels' flag) is not valid and does not have any effect. Try 'resetchannels' to start with an empty list of channels"
	errNoSuchPass    = "The password you are trying to remove from the user does not exist"
	errBadHash       = "The password hash must be exactly 64 characters and contain only lowercase hexadecimal characters"
	errFirstArgSub   = "Allowing first-arg of a subcommand is not supported"
)

// ruleError is the reason a rule was refused.
type ruleError string

func (e ruleError) Error() string { return string(e) }

// apply applies one selector rule.
func (s *Selector) apply(cat *Catalog, op string) error {
	switch {
	case strings.EqualFold(op, "allkeys") || op == "~*":
		s.allKeys, s.keys = true, nil
	case strings.EqualFold(op, "resetkeys"):
		s.allKeys, s.keys = false, nil
	case strings.EqualFold(op, "allchannels") || op == "&*":
		s.allChans, s.chans = true, nil
	case strings.EqualFold(op, "resetchannels"):
		s.allChans, s.chans = false, nil
	case strings.EqualFold(op, "allcommands") || strings.EqualFold(op, "+@all"):
		s.setAll(cat, true)
	case strings.EqualFold(op, "nocommands") || strings.EqualFold(op, "-@all"):
		s.setAll(cat, false)
	case op[0] == '~' || op[0] == '%':
		return s.addKeyPattern(op)
	case op[0] == '&':
		if s.allChans {
			return ruleError(errChansAfterAll)
		}
		p := op[1:]
		if strings.ContainsAny(p, " \t\r\n") {
			return ruleError(errSyntax)
		}
		found := false
		for _, c := range s.chans {
			found = found || c == p
		}
		if !found {
			s.chans = append(s.chans, p)
		}
	case len(op) >= 2 && (op[0] == '+' || op[0] == '-') && op[1] == '@':
		bit := categoryBit(op[2:])
		if bit == 0 {
			return ruleError(errUnknown)
		}
		s.changeCategory(cat, bit, op[0] == '+')
	case op[0] == '+':
		return s.allowCommand(cat, op[1:])
	case op[0] == '-':
		c := cat.Lookup(op[1:])
		if c == nil {
			return ruleError(errUnknown)
		}
		s.changeCommand(cat, c, false)
	default:
		return ruleError(errSyntax)
	}
	return nil
}

func (s *Selector) addKeyPattern(op string) error {
	if s.allKeys {
		return ruleError(errKeysAfterAll)
	}
	perm, rest := ReadWrite, op[1:]
	if op[0] == '%' {
		perm = 0
		i := 1
		for ; i < len(op); i++ {
			switch {
			case (op[i] == 'R' || op[i] == 'r') && perm&Read == 0:
				perm |= Read
			case (op[i] == 'W' || op[i] == 'w') && perm&Write == 0:
				perm |= Write
			case op[i] == '~':
				i++
				goto done
			default:
				return ruleError(errSyntax)
			}
		}
	done:
		rest = op[min(i, len(op)):]
	}
	if strings.ContainsAny(rest, " \t\r\n") {
		return ruleError(errSyntax)
	}
	for i := range s.keys {
		if s.keys[i].Pattern == rest {
			s.keys[i].Perm |= perm
			return nil
		}
	}
	s.keys = append(s.keys, KeyPattern{Pattern: rest, Perm: perm, pat: []byte(rest)})
	return nil
}

// allowCommand is +cmd, +cmd|sub and +cmd|first-arg.
func (s *Selector) allowCommand(cat *Catalog, name string) error {
	i := strings.LastIndexByte(name, '|')
	if i < 0 {
		c := cat.Lookup(name)
		if c == nil {
			return ruleError(errUnknown)
		}
		s.changeCommand(cat, c, true)
		return nil
	}
	parent := cat.Lookup(name[:i])
	if parent == nil {
		return ruleError(errUnknown)
	}
	if parent.Parent != nil {
		return ruleError(errFirstArgSub)
	}
	arg := name[i+1:]
	if arg == "" {
		return ruleError(errSyntax)
	}
	if len(parent.Subs) > 0 {
		c := cat.Lookup(name)
		if c == nil {
			return ruleError(errUnknown)
		}
		s.changeCommand(cat, c, true)
		return nil
	}
	for _, a := range s.firstArgs[parent.ID] {
		if strings.EqualFold(a, arg) {
			return nil
		}
	}
	if s.firstArgs == nil {
		s.firstArgs = make(map[int][]string)
	}
	s.firstArgs[parent.ID] = append(s.firstArgs[parent.ID], arg)
	return nil
}

// KeyRef is a key argument of a command: its position and the access the
// command needs to it.
type KeyRef struct {
	Pos  int
	Perm Perm
}

// ChannelRef is a channel argument: its position and whether it is a
// pattern (PSUBSCRIBE's argument, matched literally against the rules).
type ChannelRef struct {
	Pos     int
	Pattern bool
}

// Result is the outcome of a permission check, ordered as Redis ranks
// the reasons of a refusal (the highest is reported).
type Result int

// Results of a check.
const (
	OK Result = iota
	DeniedCommand
	DeniedKey
	DeniedAuth
	DeniedChannel
)

// allowsCommand reports whether the selector may run c with args.
func (s *Selector) allowsCommand(c *Command, args [][]byte) bool {
	if s.allCmds || c.NoAuth || s.bit(c.ID) {
		return true
	}
	allowed := s.firstArgs[c.ID]
	idx := 1
	if c.Parent != nil {
		idx = 2
	}
	if len(allowed) == 0 || len(args) <= idx {
		return false
	}
	for _, a := range allowed {
		if strings.EqualFold(a, string(args[idx])) {
			return true
		}
	}
	return false
}

// AllowsKey reports whether a pattern of the selector grants perm on key.
func (s *Selector) AllowsKey(key []byte, perm Perm) bool {
	if s.allKeys {
		return true
	}
	for _, p := range s.keys {
		if p.Perm&perm == perm && glob.Match(p.pat, key, false) {
			return true
		}
	}
	return false
}

// AllowsChannel reports whether the selector grants a channel (matched
// against the rules' patterns) or a subscription pattern (compared
// literally).
func (s *Selector) AllowsChannel(ch []byte, pattern bool) bool {
	if s.allChans {
		return true
	}
	for _, p := range s.chans {
		if (pattern && p == string(ch)) || (!pattern && glob.Match([]byte(p), ch, false)) {
			return true
		}
	}
	return false
}

// check checks one call; it returns the reason of a refusal and the
// position of the key or channel refused.
func (s *Selector) check(c *Command, args [][]byte, keys []KeyRef, chans []ChannelRef) (Result, int) {
	if !s.allowsCommand(c, args) {
		return DeniedCommand, 0
	}
	if !s.allKeys {
		for _, k := range keys {
			if k.Pos < len(args) && !s.AllowsKey(args[k.Pos], k.Perm) {
				return DeniedKey, k.Pos
			}
		}
	}
	if !s.allChans {
		for _, ch := range chans {
			if ch.Pos < len(args) && !s.AllowsChannel(args[ch.Pos], ch.Pattern) {
				return DeniedChannel, ch.Pos
			}
		}
	}
	return OK, 0
}

// unrestrictedKeys reports whether the selector grants perm on every key.
func (s *Selector) unrestrictedKeys(perm Perm) bool {
	if s.allKeys {
		return true
	}
	for _, p := range s.keys {
		if p.Perm&perm == perm && p.Pattern == "*" {
			return true
		}
	}
	return false
}
