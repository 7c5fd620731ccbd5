package acl

import "strings"

// Flags returns the user's flags as ACL GETUSER lists them.
func (u *User) Flags() []string {
	var f []string
	if u.enabled {
		f = append(f, "on")
	} else {
		f = append(f, "off")
	}
	if u.nopass {
		f = append(f, "nopass")
	}
	switch u.sanitize {
	case 1:
		f = append(f, "sanitize-payload")
	case 2:
		f = append(f, "skip-sanitize-payload")
	}
	return f
}

// Describe renders the user's rules as ACL LIST shows them (without the
// "user <name>" prefix): flags, password digests, the root selector, then
// each other selector in parentheses.
func (u *User) Describe(cat *Catalog) string {
	var b strings.Builder
	for _, f := range u.Flags() {
		b.WriteString(f)
		b.WriteByte(' ')
	}
	for _, p := range u.passwords {
		b.WriteString("#" + p + " ")
	}
	for i, s := range u.selectors {
		if i == 0 {
			b.WriteString(s.Describe(cat))
		} else {
			b.WriteString(" (" + s.Describe(cat) + ")")
		}
	}
	return b.String()
}

// Selectors returns the selectors other than the root one.
func (u *User) Selectors() []*Selector { return u.selectors[1:] }

// Root returns the root selector.
func (u *User) Root() *Selector { return u.selectors[0] }

// Describe renders the selector's rules: keys, channels, commands.
func (s *Selector) Describe(cat *Catalog) string {
	var b strings.Builder
	if k := s.KeysRule(); k != "" {
		b.WriteString(k + " ")
	}
	b.WriteString(s.ChannelsRule() + " ")
	b.WriteString(s.CommandsRule(cat))
	return b.String()
}

// KeysRule renders the key patterns ("~*" for all keys; "" for none).
func (s *Selector) KeysRule() string {
	if s.allKeys {
		return "~*"
	}
	parts := make([]string, 0, len(s.keys))
	for _, p := range s.keys {
		switch p.Perm {
		case ReadWrite:
			parts = append(parts, "~"+p.Pattern)
		case Read:
			parts = append(parts, "%R~"+p.Pattern)
		case Write:
			parts = append(parts, "%W~"+p.Pattern)
		default:
			parts = append(parts, "%~"+p.Pattern)
		}
	}
	return strings.Join(parts, " ")
}

// ChannelsRule renders the channel patterns: "&*" for all channels,
// otherwise "resetchannels" followed by each pattern.
func (s *Selector) ChannelsRule() string {
	if s.allChans {
		return "&*"
	}
	var b strings.Builder
	b.WriteString("resetchannels")
	for _, c := range s.chans {
		b.WriteString(" &" + c)
	}
	return b.String()
}

// ChannelsList renders the channel patterns as ACL GETUSER's "channels"
// field: "&*", or each pattern with '&', space separated.
func (s *Selector) ChannelsList() string {
	if s.allChans {
		return "&*"
	}
	parts := make([]string, 0, len(s.chans))
	for _, c := range s.chans {
		parts = append(parts, "&"+c)
	}
	return strings.Join(parts, " ")
}

// categoryCounts counts the commands of a category the selector allows
// and forbids.
func (s *Selector) categoryCounts(cat *Catalog, bit uint64) (on, off int) {
	for _, c := range cat.all {
		if c.categories&bit != 0 {
			if s.bit(c.ID) {
				on++
			} else {
				off++
			}
		}
	}
	return on, off
}

// CommandsRule renders the command rules: +@all or -@all, then the
// categories that fit the command set best, then the single commands
// that still differ and the allowed first arguments, so that applying
// them to a fresh selector gives the same command set.
func (s *Selector) CommandsRule(cat *Catalog) string {
	var rules []string
	fake := &Selector{}
	additive := !s.future
	if s.future {
		rules = append(rules, "+@all")
		fake.setAll(cat, true)
	} else {
		rules = append(rules, "-@all")
		fake.setAll(cat, false)
	}
	temp := &Selector{cmds: append([]uint64(nil), s.cmds...)}
	applied := make([]bool, len(Categories))
	for {
		best, minDiff, maxSame := -1, int(^uint(0)>>1), 0
		for j := range Categories {
			if applied[j] {
				continue
			}
			on, off := temp.categoryCounts(cat, 1<<j)
			diff, same := on, off
			if additive {
				diff, same = off, on
			}
			if same > diff && (diff < minDiff || (diff == minDiff && same > maxSame)) {
				best, minDiff, maxSame = j, diff, same
			}
		}
		if best < 0 {
			break
		}
		sign := "-@"
		if additive {
			sign = "+@"
		}
		rules = append(rules, sign+Categories[best])
		fake.changeCategory(cat, 1<<best, additive)
		temp.changeCategory(cat, 1<<best, !additive)
		applied[best] = true
	}
	for _, c := range cat.all {
		user, have := s.bit(c.ID), fake.bit(c.ID)
		if user != have {
			if user {
				rules = append(rules, "+"+c.Name)
			} else {
				rules = append(rules, "-"+c.Name)
			}
			fake.changeCommand(cat, c, user)
		}
		if !user {
			for _, a := range s.firstArgs[c.ID] {
				rules = append(rules, "+"+c.Name+"|"+a)
			}
		}
	}
	return strings.Join(rules, " ")
}
