package mongo

import (
	"context"
	"crypto/rand"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
	"github.com/mayfly/mayfly/internal/mongoauth"
)

// userFields are the fields createUser and updateUser share.
type userFields struct {
	name         string
	pwd          *string
	customData   bson.Raw
	customSeen   bool
	roles        []mongoauth.RoleName
	rolesSeen    bool
	mechanisms   []mongoauth.Mechanism
	mechsSeen    bool
	serverDigest bool
}

// parseUserFields parses createUser's or updateUser's document for a user
// of database db.
func parseUserFields(cmd string, req *request) (userFields, error) {
	f := userFields{serverDigest: true}
	name, ok := req.first().StringValueOK()
	if !ok {
		return f, typeMismatch(cmd, cmd, req.first().Type, "string")
	}
	f.name = name
	first := true
	err := eachElement(req.cmd, func(el bson.RawElement) error {
		if first {
			first = false
			return nil
		}
		v := el.Value()
		switch k := el.Key(); k {
		case "pwd":
			s, ok := v.StringValueOK()
			if !ok {
				return typeMismatch(cmd, "pwd", v.Type, "string")
			}
			f.pwd = &s
		case "customData":
			d, ok := v.DocumentOK()
			if !ok {
				return typeMismatch(cmd, "customData", v.Type, "object")
			}
			f.customData, f.customSeen = d, true
		case "roles":
			roles, err := parseRoleNames("roles", v, req.db)
			if err != nil {
				return err
			}
			f.roles, f.rolesSeen = roles, true
		case "mechanisms":
			arr, ok := v.ArrayOK()
			if !ok {
				return typeMismatch(cmd, "mechanisms", v.Type, "array")
			}
			vals, _ := arr.Values()
			f.mechsSeen = true
			for _, m := range vals {
				s, _ := m.StringValueOK()
				mech, ok := mongoauth.ParseMechanism(s)
				if !ok {
					return errorf(mongoerr.BadValue, "Unknown auth mechanism '%s'", s)
				}
				f.mechanisms = append(f.mechanisms, mech)
			}
			if len(f.mechanisms) == 0 {
				return errorf(mongoerr.BadValue, "mechanisms field must not be empty")
			}
		case "digestPassword":
			f.serverDigest = truthy(v)
		case "passwordDigestor":
			s, _ := v.StringValueOK()
			switch s {
			case "server":
			case "client":
				f.serverDigest = false
			default:
				return errorf(mongoerr.BadValue, "passwordDigestor must be 'server' or 'client', got: %s", s)
			}
		case "authenticationRestrictions":
			if err := refuseRestrictions(v); err != nil {
				return err
			}
		default:
			if !genericArgs[k] {
				return unknownField(cmd, k)
			}
		}
		return nil
	})
	if err != nil {
		return f, err
	}
	if !f.serverDigest && f.pwd != nil {
		// mayfly digests passwords itself: a client digest is refused as
		// MongoDB refuses it for SCRAM-SHA-256.
		return f, errorf(mongoerr.BadValue, "Use of SCRAM-SHA-256 requires undigested passwords")
	}
	return f, nil
}

// credentials derives a credential per mechanism for user and password.
func credentials(user, pwd string, mechs []mongoauth.Mechanism) (map[mongoauth.Mechanism]mongoauth.ScramCredential, error) {
	if pwd == "" {
		return nil, errorf(mongoerr.BadValue, "Password cannot be empty")
	}
	out := map[mongoauth.Mechanism]mongoauth.ScramCredential{}
	for _, m := range mechs {
		cr, err := mongoauth.NewScramCredential(m, user, pwd)
		if err != nil {
			return nil, errorf(mongoerr.BadValue, "Error preflighting SCRAM-SHA-256 credentials: %v", err)
		}
		out[m] = cr
	}
	return out, nil
}

// checkRolesExist refuses a role that is neither built-in nor defined.
func (s *Server) checkRolesExist(ctx context.Context, roles []mongoauth.RoleName) error {
	_, defined, err := s.roleSource(ctx)
	if err != nil {
		return err
	}
	for _, r := range roles {
		if _, ok := defined[r]; !ok && !mongoauth.IsBuiltin(r) {
			return errorf(mongoerr.RoleNotFound, "Could not find role: %s", r)
		}
	}
	return nil
}

// mustFindUser returns a user, or MongoDB's UserNotFound.
func (s *Server) mustFindUser(ctx context.Context, name userName) (*userDoc, error) {
	u, err := s.findUser(ctx, name)
	if err != nil {
		return nil, err
	}
	if u == nil {
		return nil, errorf(mongoerr.UserNotFound, "Could not find user \"%s\" for db \"%s\"", name.user, name.db)
	}
	return u, nil
}

// newUserID is a new random UUID, as MongoDB's userId.
func newUserID() bson.Binary {
	b := make([]byte, 16)
	rand.Read(b)
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return bson.Binary{Subtype: bson.TypeBinaryUUID, Data: b}
}

// addRoles returns roles with add appended, each once.
func addRoles(roles, add []mongoauth.RoleName) []mongoauth.RoleName {
	out := append([]mongoauth.RoleName(nil), roles...)
	for _, r := range add {
		if !containsRole(out, r) {
			out = append(out, r)
		}
	}
	return out
}

// removeRoles returns roles without those of remove.
func removeRoles(roles, remove []mongoauth.RoleName) []mongoauth.RoleName {
	out := []mongoauth.RoleName{}
	for _, r := range roles {
		if !containsRole(remove, r) {
			out = append(out, r)
		}
	}
	return out
}

func containsRole(roles []mongoauth.RoleName, r mongoauth.RoleName) bool {
	for _, x := range roles {
		if x == r {
			return true
		}
	}
	return false
}

// requireRoles reads the roles field a grant or revoke command needs.
func requireRoles(cmd string, req *request) ([]mongoauth.RoleName, error) {
	v, err := req.cmd.LookupErr("roles")
	if err != nil {
		return nil, missingField(cmd, "roles")
	}
	return parseRoleNames("roles", v, req.db)
}

// refuseRestrictions refuses authenticationRestrictions other than an empty
// list: mayfly does not enforce client or server address restrictions, and
// accepting them would let a user in from any address.
func refuseRestrictions(v bson.RawValue) error {
	if arr, ok := v.ArrayOK(); ok {
		if vals, _ := arr.Values(); len(vals) == 0 {
			return nil
		}
	}
	return errorf(mongoerr.BadValue, "authenticationRestrictions are not supported: mayfly does not restrict the addresses a user may authenticate from")
}
