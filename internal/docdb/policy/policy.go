package policy

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mayfly/mayfly/internal/docdb/catalog"
)

// TTL policies, in the manner of Firestore: a policy names one
// timestamp field for a collection group, that is every collection with
// that name in every database, now and created later.
//
// The rule. A document of the group expires when the earliest BSON Date
// its field yields plus the policy's offset is at or before now. The field
// is a dotted path read as a TTL index reads its key: a Date counts, an
// array counts its earliest Date element, and null, a missing field or any
// other type never expires. The rule reads the document's current value,
// so moving the field into the future postpones (or cancels) expiry, even
// for a document already due but not yet deleted.
//
// The hidden index. To find due documents without scanning, every
// collection of an enabled group has a hidden index of the field: one
// entry per document, [PrefixIndex][index id][earliest Date][_id]. It is
// invisible to listIndexes, the planner and collStats, and is kept up to
// date by the Manager, a change.Hook, in the same storage batch as
// the document. It is built when the policy is enabled (the long-running
// operation); a collection created later in the group gets
// an empty, complete one in the batch that creates it. The offset belongs
// to the policy, not to the entries, so changing it is metadata only.
//
// Deletion. Each enabled policy is one expiry.Source named
// policy:<group>.<field> (KindPolicy) that reads the hidden indexes of the
// group; the expiry engine reaps it in bounded, rate-limited batches like
// any other source. A TTL index on the same documents is another source on
// the same engine: whichever is due first deletes. Strict visibility hides
// documents the policy says have expired as soon as the policy is enabled,
// before the build finishes.
//
// Storage (keys under storage.PrefixCatalog, next to the collections):
//
//	'P' group             -> policy record
//	'Q' collection id u64 -> the collection's hidden index: id, group, field, complete
//
// and operations under storage.PrefixOperation.

// MaxPolicies is the most TTL field configurations (policies that are not
// disabled) the catalog holds, as Firestore allows 1,000 field
// configurations.
const MaxPolicies = 1000

// maxPolicyOffset bounds the expiration offset: a century.
const maxPolicyOffset = 100 * 365 * 24 * time.Hour

// Sentinel errors of the policy API. The admin API maps them to its error
// codes; callers compare with errors.Is.
var (
	// ErrInvalid is wrapped by errors about a malformed request: an
	// invalid collection group, field path or offset.
	ErrInvalid = errors.New("docdb: invalid TTL policy")
	// ErrNotFound is returned for a group without a policy (or a
	// disable naming another field than the policy's).
	ErrNotFound = errors.New("docdb: TTL policy not found")
	// ErrConflict is returned when a group already has a TTL policy on
	// another field: a group has at most one TTL field.
	ErrConflict = errors.New("docdb: TTL policy conflict")
	// ErrTooMany is returned when enabling a policy would exceed
	// MaxPolicies.
	ErrTooMany = errors.New("docdb: too many TTL policies")
	// ErrOperationNotFound is returned by GetOperation for an unknown id.
	ErrOperationNotFound = errors.New("docdb: operation not found")
	// ErrClosed is returned by policy changes after Close.
	ErrClosed = errors.New("docdb: engine closed")
)

// State is the state of a TTL policy, and of the operation that
// changed it last, as Firestore names them.
type State string

// The policy states.
const (
	// Creating: the policy is enabled and its hidden indexes are being
	// built. Its documents are already hidden once expired, and documents
	// already indexed are already deleted.
	Creating State = "CREATING"
	// Active: every collection of the group has a complete hidden
	// index; expired documents are deleted.
	Active State = "ACTIVE"
	// NeedsRepair: the build failed (the operation says why). The
	// policy still hides and deletes what was indexed; enabling it again
	// retries the build.
	NeedsRepair State = "NEEDS_REPAIR"
	// Disabled: nothing expires under the policy any more.
	Disabled State = "DISABLED"
)

// enabled reports whether a policy in state s expires documents.
func (s State) enabled() bool { return s != Disabled && s != "" }

// Policy is a TTL policy as the API reports it.
type Policy struct {
	// Group is the collection group: the collection name it applies to in
	// every database.
	Group string
	// Field is the dotted path of the timestamp field.
	Field string
	// Offset is added to the field's time to give the expiry time.
	Offset time.Duration
	// State is the policy's state.
	State State
	// Operation is the id of the last operation that changed the policy.
	Operation string
	// UpdateTime is when the policy last changed state or offset.
	UpdateTime time.Time
	// Source is the name of the policy's expiry source
	// (policy:<group>.<field>), under which the expiry engine reports its
	// deletions and lag.
	Source string
	// Collections is the number of collections of the group, and Indexed
	// those whose hidden index is complete.
	Collections, Indexed int
}

// Update is a change to the TTL policy of a collection group.
type Update struct {
	// Group is the collection group.
	Group string
	// Field is the TTL field. Enabling names the field to use; disabling
	// must name the policy's field.
	Field string
	// Enable turns the policy on (or changes its offset); false turns it
	// off.
	Enable bool
	// Offset is the expiration offset when enabling (>= 0).
	Offset time.Duration
}

// EnableDryRun is the preview of enabling a policy (DryRunPolicy).
type EnableDryRun struct {
	// Group, Field and Offset are the policy as it would be.
	Group, Field string
	Offset       time.Duration
	// Collections is the number of collections of the group.
	Collections int
	// Scanned is the number of documents examined.
	Scanned int64
	// DryRun holds what collMod's dry run reports: the documents the change
	// would expire at once, the range of their expiry times and the
	// estimated time to delete them.
	DryRun
}

// policySourceName is the expiry source name of the policy on group.field.
func policySourceName(group, field string) string {
	return "policy:" + group + "." + field
}

// validatePolicyUpdate checks the group, field and offset of u.
func validatePolicyUpdate(u Update) error {
	if err := validGroup(u.Group); err != nil {
		return err
	}
	if err := validFieldPath(u.Field); err != nil {
		return err
	}
	if !u.Enable {
		return nil
	}
	if u.Offset < 0 {
		return fmt.Errorf("%w: expiration offset %s is negative", ErrInvalid, FormatOffset(u.Offset))
	}
	if u.Offset > maxPolicyOffset {
		return fmt.Errorf("%w: expiration offset %s is longer than 100 years", ErrInvalid, FormatOffset(u.Offset))
	}
	if u.Offset%time.Millisecond != 0 {
		return fmt.Errorf("%w: expiration offset %s is finer than a millisecond", ErrInvalid, u.Offset)
	}
	return nil
}

// validGroup checks a collection group: a collection name that users may
// create (no '$', no NUL, not starting with '.', not a system collection).
func validGroup(g string) error {
	switch {
	case g == "":
		return fmt.Errorf("%w: empty collection group", ErrInvalid)
	case !utf8.ValidString(g):
		return fmt.Errorf("%w: collection group %q is not valid UTF-8", ErrInvalid, g)
	case strings.ContainsAny(g, "$\x00"):
		return fmt.Errorf("%w: collection group %q contains '$' or a NUL character", ErrInvalid, g)
	case g[0] == '.':
		return fmt.Errorf("%w: collection group %q starts with '.'", ErrInvalid, g)
	case strings.HasPrefix(g, "system."):
		return fmt.Errorf("%w: collection group %q is a system collection", ErrInvalid, g)
	case len(g) > catalog.MaxNamespaceLen:
		return fmt.Errorf("%w: collection group %q is longer than %d bytes", ErrInvalid, g, catalog.MaxNamespaceLen)
	}
	return nil
}

// validFieldPath checks a dotted field path: non-empty components, none
// starting with '$'.
func validFieldPath(f string) error {
	if f == "" {
		return fmt.Errorf("%w: empty field path", ErrInvalid)
	}
	if !utf8.ValidString(f) || strings.IndexByte(f, 0) >= 0 {
		return fmt.Errorf("%w: field path %q is not valid UTF-8 text", ErrInvalid, f)
	}
	for _, part := range strings.Split(f, ".") {
		if part == "" {
			return fmt.Errorf("%w: field path %q has an empty component", ErrInvalid, f)
		}
		if part[0] == '$' {
			return fmt.Errorf("%w: field path %q has a component starting with '$'", ErrInvalid, f)
		}
	}
	return nil
}

// offsetUnits are the units ParseOffset accepts beyond time.ParseDuration's:
// days and weeks.
var offsetUnits = map[byte]time.Duration{'d': 24 * time.Hour, 'w': 7 * 24 * time.Hour}

// ParseOffset parses an expiration offset: a Go duration ("90s", "1h30m")
// whose components may also be days and weeks ("7d", "1w2d12h"); "0" is
// no offset. Negative offsets are refused.
func ParseOffset(s string) (time.Duration, error) {
	in := strings.TrimSpace(s)
	if in == "" {
		return 0, fmt.Errorf("%w: empty expiration offset", ErrInvalid)
	}
	if in == "0" {
		return 0, nil
	}
	var total time.Duration
	rest := in
	// Peel off leading day and week components, then hand the rest to
	// time.ParseDuration.
	for rest != "" {
		i := 0
		for i < len(rest) && rest[i] >= '0' && rest[i] <= '9' {
			i++
		}
		if i == 0 || i == len(rest) {
			break
		}
		unit, ok := offsetUnits[rest[i]]
		if !ok {
			break
		}
		n, err := strconv.ParseInt(rest[:i], 10, 64)
		if err != nil || n > int64(maxPolicyOffset/unit) {
			return 0, fmt.Errorf("%w: expiration offset %q is longer than 100 years", ErrInvalid, s)
		}
		total += time.Duration(n) * unit
		rest = rest[i+1:]
	}
	if rest != "" {
		d, err := time.ParseDuration(rest)
		if err != nil {
			return 0, fmt.Errorf("%w: expiration offset %q: want a duration such as 90s, 1h30m or 7d", ErrInvalid, s)
		}
		if d < 0 {
			return 0, fmt.Errorf("%w: expiration offset %q is negative", ErrInvalid, s)
		}
		total += d
	}
	if total > maxPolicyOffset {
		return 0, fmt.Errorf("%w: expiration offset %q is longer than 100 years", ErrInvalid, s)
	}
	return total, nil
}

// FormatOffset formats an offset as ParseOffset reads it, with whole days
// as "d": 0s, 90s, 1h30m0s, 7d, 2d3h0m0s.
func FormatOffset(d time.Duration) string {
	if d < 0 {
		return "-" + FormatOffset(-d)
	}
	day := 24 * time.Hour
	days := d / day
	rest := d % day
	switch {
	case days == 0:
		return d.String()
	case rest == 0:
		return strconv.FormatInt(int64(days), 10) + "d"
	default:
		return strconv.FormatInt(int64(days), 10) + "d" + rest.String()
	}
}
