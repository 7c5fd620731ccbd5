package acl

import (
	"fmt"
	"strings"
)

// ParseFile reads an ACL file: one "user <name> <rule>..." per line, blank
// lines ignored. It returns the users, or every problem found, worded as
// Redis words them, with name (the file's path) and the line number.
func ParseFile(cat *Catalog, name, data string, allChannels bool) ([]*User, error) {
	var errs strings.Builder
	var users []*User
	seen := map[string]bool{}
	for i, line := range strings.Split(data, "\n") {
		n := i + 1
		line = strings.Trim(line, " \t\r\n")
		if line == "" {
			continue
		}
		argv := strings.Split(line, " ")
		var args []string
		for _, a := range argv {
			if a != "" {
				args = append(args, a)
			}
		}
		if len(args) < 2 || args[0] != "user" {
			fmt.Fprintf(&errs, "%s:%d should start with user keyword followed by the username. ", name, n)
			continue
		}
		if seen[args[1]] {
			fmt.Fprintf(&errs, "WARNING: Duplicate user '%s' found on line %d. ", args[1], n)
			continue
		}
		seen[args[1]] = true
		merged, err := MergeSelectors(args[2:])
		if err != nil {
			fmt.Fprintf(&errs, "%s:%d: Unmatched parenthesis in selector definition.", name, n)
			continue
		}
		u := NewUser(args[1], allChannels)
		bad := false
		for _, op := range merged {
			if err := u.Apply(cat, op); err != nil {
				if err.Error() == errUnknown {
					fmt.Fprintf(&errs, "%s:%d: Error in applying operation '%s': %s. ", name, n, op, err)
				} else if !bad {
					fmt.Fprintf(&errs, "%s:%d: %s. ", name, n, err)
				}
				bad = true
			}
		}
		if !bad {
			users = append(users, u)
		}
	}
	if errs.Len() > 0 {
		return nil, fmt.Errorf("%s", errs.String())
	}
	return users, nil
}

// FormatFile renders users as an ACL file, one line per user, in the
// order given.
func FormatFile(cat *Catalog, users []*User) string {
	var b strings.Builder
	for _, u := range users {
		b.WriteString("user " + u.Name + " " + u.Describe(cat) + "\n")
	}
	return b.String()
}
