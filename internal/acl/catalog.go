package acl

import (
	"sort"
	"strings"
)

// Categories are Redis 7.0's ACL categories, in the order Redis lists
// them (ACL CAT) and tries them when it describes a user's commands.
var Categories = []string{
	"keyspace", "read", "write", "set", "sortedset", "list", "hash", "string", "bitmap", "hyperloglog",
	"geo", "stream", "pubsub", "admin", "fast", "slow", "blocking", "dangerous", "connection",
	"transaction", "scripting",
}

// categoryBit returns the bit of a category name (without '@'), or 0 when
// there is none of that name.
func categoryBit(name string) uint64 {
	for i, c := range Categories {
		if strings.EqualFold(c, name) {
			return 1 << i
		}
	}
	return 0
}

// CommandSpec declares a command to NewCatalog.
type CommandSpec struct {
	Name       string   // lowercase; a subcommand is "parent|sub"
	Categories []string // without '@'
	NoAuth     bool     // allowed before authentication, and to every user
	Subs       []CommandSpec
}

// Command is one command or subcommand of a Catalog.
type Command struct {
	ID         int
	Name       string // lowercase full name, "config|get" for a subcommand
	Parent     *Command
	Subs       []*Command // in name order
	categories uint64
	NoAuth     bool
}

// InCategory reports whether the command is in the named category.
func (c *Command) InCategory(name string) bool {
	b := categoryBit(name)
	return b != 0 && c.categories&b != 0
}

// Catalog is the set of commands the rules name, each with its ID.
type Catalog struct {
	all    []*Command // by ID
	top    []*Command // top-level commands in name order
	byName map[string]*Command
}

// NewCatalog numbers the commands of specs (in name order, each followed
// by its subcommands).
func NewCatalog(specs []CommandSpec) *Catalog {
	cat := &Catalog{byName: make(map[string]*Command)}
	sorted := append([]CommandSpec(nil), specs...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Name < sorted[j].Name })
	for _, sp := range sorted {
		cat.top = append(cat.top, cat.add(sp, nil))
	}
	return cat
}

func (cat *Catalog) add(sp CommandSpec, parent *Command) *Command {
	c := &Command{ID: len(cat.all), Name: strings.ToLower(sp.Name), Parent: parent, NoAuth: sp.NoAuth}
	for _, name := range sp.Categories {
		c.categories |= categoryBit(name)
	}
	cat.all = append(cat.all, c)
	cat.byName[c.Name] = c
	subs := append([]CommandSpec(nil), sp.Subs...)
	sort.Slice(subs, func(i, j int) bool { return subs[i].Name < subs[j].Name })
	for _, s := range subs {
		c.Subs = append(c.Subs, cat.add(s, c))
	}
	return c
}

// Lookup returns the command of a full name ("get", "config|get"), in any
// case, or nil.
func (cat *Catalog) Lookup(name string) *Command {
	return cat.byName[strings.ToLower(name)]
}

// Len is the number of commands and subcommands.
func (cat *Catalog) Len() int { return len(cat.all) }

// InCategory returns the full names of the commands in a category, in
// name order, and false when there is no such category.
func (cat *Catalog) InCategory(name string) ([]string, bool) {
	b := categoryBit(name)
	if b == 0 {
		return nil, false
	}
	var out []string
	for _, c := range cat.all {
		if c.categories&b != 0 {
			out = append(out, c.Name)
		}
	}
	return out, true
}
