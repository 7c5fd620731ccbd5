package mongo

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
	"github.com/mayfly/mayfly/internal/mongoauth"
)

// parsePrivileges parses an array of privilege documents ({resource,
// actions}) as createRole and grantPrivilegesToRole take them. It returns
// the privileges and their normalized documents (actions sorted), as
// admin.system.roles stores them.
func parsePrivileges(cmd string, v bson.RawValue) ([]mongoauth.Privilege, bson.A, error) {
	arr, ok := v.ArrayOK()
	if !ok {
		return nil, nil, errorf(mongoerr.TypeMismatch, "\"privileges\" field must be an array")
	}
	vals, err := arr.Values()
	if err != nil {
		return nil, nil, errorf(mongoerr.FailedToParse, "%s: invalid privileges array", cmd)
	}
	var privs []mongoauth.Privilege
	docs := bson.A{}
	for _, pv := range vals {
		p, d, err := parsePrivilege(pv)
		if err != nil {
			return nil, nil, err
		}
		privs = append(privs, p)
		docs = append(docs, d)
	}
	return privs, docs, nil
}

func parsePrivilege(v bson.RawValue) (mongoauth.Privilege, bson.D, error) {
	var p mongoauth.Privilege
	doc, ok := v.DocumentOK()
	if !ok {
		return p, nil, errorf(mongoerr.TypeMismatch, "Each element of the privileges array must be an object")
	}
	var resSeen, actSeen bool
	var resDoc bson.D
	err := eachElement(doc, func(el bson.RawElement) error {
		switch el.Key() {
		case "resource":
			resSeen = true
			var err error
			p.Resource, resDoc, err = parseResource(el.Value())
			return err
		case "actions":
			actSeen = true
			arr, ok := el.Value().ArrayOK()
			if !ok {
				return errorf(mongoerr.TypeMismatch, "\"actions\" field must be an array")
			}
			vals, _ := arr.Values()
			for _, a := range vals {
				name, ok := a.StringValueOK()
				if !ok {
					return errorf(mongoerr.TypeMismatch, "\"actions\" field must be an array of strings")
				}
				act, ok := mongoauth.ParseAction(name)
				if !ok {
					return errorf(mongoerr.FailedToParse, "Unrecognized action privilege string: %s", name)
				}
				p.Actions.Add(act)
			}
			return nil
		default:
			return errorf(mongoerr.IDLUnknownField, "BSON field 'privilege.%s' is an unknown field.", el.Key())
		}
	})
	if err != nil {
		return p, nil, err
	}
	if !resSeen {
		return p, nil, errorf(mongoerr.IDLFailedToParse, "BSON field 'privilege.resource' is missing but a required field")
	}
	if !actSeen {
		return p, nil, errorf(mongoerr.IDLFailedToParse, "BSON field 'privilege.actions' is missing but a required field")
	}
	return p, privilegeDoc(resDoc, p.Actions), nil
}

func privilegeDoc(res bson.D, actions mongoauth.ActionSet) bson.D {
	names := bson.A{}
	for _, n := range actions.Names() {
		names = append(names, n)
	}
	return bson.D{{Key: "resource", Value: res}, {Key: "actions", Value: names}}
}

// parseResource parses a resource document: {db, collection},
// {cluster: true} or {anyResource: true}.
func parseResource(v bson.RawValue) (mongoauth.Resource, bson.D, error) {
	var r mongoauth.Resource
	doc, ok := v.DocumentOK()
	if !ok {
		return r, nil, errorf(mongoerr.TypeMismatch, "\"resource\" field must be an object")
	}
	var dbSeen, collSeen bool
	err := eachElement(doc, func(el bson.RawElement) error {
		switch el.Key() {
		case "cluster":
			r.Cluster = truthy(el.Value())
			if !r.Cluster {
				return errorf(mongoerr.BadValue, "resource: cluster must be true if specified")
			}
		case "anyResource":
			r.AnyResource = truthy(el.Value())
			if !r.AnyResource {
				return errorf(mongoerr.BadValue, "resource: anyResource must be true if specified")
			}
		case "db":
			s, ok := el.Value().StringValueOK()
			if !ok {
				return errorf(mongoerr.TypeMismatch, "resource: db must be a string")
			}
			r.DB, dbSeen = s, true
		case "collection":
			s, ok := el.Value().StringValueOK()
			if !ok {
				return errorf(mongoerr.TypeMismatch, "resource: collection must be a string")
			}
			r.Collection, collSeen = s, true
		default:
			return errorf(mongoerr.IDLUnknownField, "BSON field 'resource.%s' is an unknown field.", el.Key())
		}
		return nil
	})
	if err != nil {
		return r, nil, err
	}
	switch {
	case r.Cluster && !dbSeen && !collSeen && !r.AnyResource:
		return r, bson.D{{Key: "cluster", Value: true}}, nil
	case r.AnyResource && !dbSeen && !collSeen && !r.Cluster:
		return r, bson.D{{Key: "anyResource", Value: true}}, nil
	case dbSeen && collSeen && !r.Cluster && !r.AnyResource:
		return r, bson.D{{Key: "db", Value: r.DB}, {Key: "collection", Value: r.Collection}}, nil
	}
	return r, nil, errorf(mongoerr.BadValue, "resource must have exactly one of cluster, anyResource, or both db and collection")
}

// resourceDoc renders a resource as privilege documents show it.
func resourceDoc(r mongoauth.Resource) bson.D {
	switch {
	case r.Cluster:
		return bson.D{{Key: "cluster", Value: true}}
	case r.AnyResource:
		return bson.D{{Key: "anyResource", Value: true}}
	}
	return bson.D{{Key: "db", Value: r.DB}, {Key: "collection", Value: r.Collection}}
}

// privilegesDoc renders privileges as rolesInfo's showPrivileges and
// connectionStatus's authenticatedUserPrivileges do.
func privilegesDoc(privs []mongoauth.Privilege) bson.A {
	a := bson.A{}
	for _, p := range privs {
		a = append(a, privilegeDoc(resourceDoc(p.Resource), p.Actions))
	}
	return a
}

// parseRoleNames parses an array of roles, each {role, db} or a role name
// in database db.
func parseRoleNames(field string, v bson.RawValue, db string) ([]mongoauth.RoleName, error) {
	arr, ok := v.ArrayOK()
	if !ok {
		return nil, errorf(mongoerr.TypeMismatch, "\"%s\" field must be an array", field)
	}
	vals, _ := arr.Values()
	out := make([]mongoauth.RoleName, 0, len(vals))
	for _, rv := range vals {
		switch rv.Type {
		case bson.TypeString:
			out = append(out, mongoauth.RoleName{Role: rv.StringValue(), DB: db})
		case bson.TypeEmbeddedDocument:
			var r roleNameBSON
			var roleOK, dbOK bool
			err := eachElement(rv.Document(), func(el bson.RawElement) error {
				s, ok := el.Value().StringValueOK()
				switch el.Key() {
				case "role":
					r.Role, roleOK = s, ok
				case "db":
					r.DB, dbOK = s, ok
				}
				return nil
			})
			if err != nil || !roleOK || !dbOK {
				return nil, errorf(mongoerr.BadValue, "Role names must be either strings or objects of the form {role: \"<role name>\", db: \"<role db>\"}")
			}
			out = append(out, mongoauth.RoleName{Role: r.Role, DB: r.DB})
		default:
			return nil, errorf(mongoerr.BadValue, "Role names must be either strings or objects of the form {role: \"<role name>\", db: \"<role db>\"}")
		}
	}
	return out, nil
}
