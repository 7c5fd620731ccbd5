// Package acl is Redis 7.0's access control model: users, their
// passwords, and the selectors that say which commands, keys and channels
// they may use.
//
// # Model
//
// A Catalog lists the commands (and subcommands) with their ACL
// categories; each gets an ID, the index of its bit in a selector's
// command set. A User has flags (on/off, nopass, sanitize-payload),
// passwords kept only as SHA-256 hex digests, and one or more selectors:
// the root selector (the rules written outside parentheses) and any added
// with "(...)". A command runs when one selector allows all of it: the
// command, every key it names with the access it needs (%R~ read, %W~
// write, ~ both) and every channel it publishes or subscribes to.
//
// Rules are applied one at a time with Redis's semantics and error words
// (Apply, ApplyAll); ApplyAll stages them on a copy, so a failing rule
// leaves the user unchanged. Describe renders a user as ACL LIST shows it,
// with the command rules rebuilt from the command set the way Redis does
// (start from +@all or -@all, add the best-fitting categories, then
// single commands), so that applying the description gives back the same
// permissions.
//
// A Registry holds the users by name, with the default user always
// present. Users are immutable once published: a change builds a new User
// and swaps it in, so a connection reads its user's permissions with one
// atomic load and no lock.
//
// # Testing
//
// Table tests cover each rule and its errors, and the round trip of
// Describe through ApplyAll; FuzzApply checks that no rule string panics
// and that every accepted user describes to rules that rebuild it.
package acl
