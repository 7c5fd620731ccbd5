package mongo

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/query"
)

// visibleDatabases returns nil when every database is listed, else which
// are: under access control, a user without the listDatabases action sees
// the databases it holds a privilege on (authorizedDatabases), as in
// MongoDB.
func (c *conn) visibleDatabases(ctx context.Context) (func(string) bool, error) {
	if !c.s.opts.Auth {
		return nil, nil
	}
	u, err := c.currentUser(ctx)
	if err != nil || u == nil {
		return nil, err
	}
	if u.grants.Allows(clusterReq("listDatabases")) {
		return nil, nil
	}
	return u.grants.AnyOnDB, nil
}

// msgListDatabases answers listDatabases: {databases: [{name, sizeOnDisk,
// empty}], totalSize, totalSizeMb}, or only the names with nameOnly. The
// filter matches those entries, as in MongoDB.
func msgListDatabases(ctx context.Context, c *conn, req *request) (bson.D, error) {
	var filter *query.Filter
	nameOnly := false
	err := fields(req.cmd, func(el bson.RawElement) error {
		var err error
		switch k := el.Key(); k {
		case "filter":
			var d bson.D
			d, err = optDocArg("listDatabases", el)
			if err == nil && d != nil {
				filter, err = query.ParseFilter(d)
			}
		case "nameOnly":
			nameOnly, err = boolArg("listDatabases", el)
		case "authorizedDatabases":
			_, err = boolArg("listDatabases", el)
		default:
			err = unknownField("listDatabases", k)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	infos, err := c.s.db.ListDatabases(ctx)
	if err != nil {
		return nil, err
	}
	visible, err := c.visibleDatabases(ctx)
	if err != nil {
		return nil, err
	}
	dbs := bson.A{}
	var total int64
	for _, info := range infos {
		full := bson.D{
			{Key: "name", Value: info.Name},
			{Key: "sizeOnDisk", Value: info.SizeOnDisk},
			{Key: "empty", Value: info.Empty},
		}
		if filter != nil && !filter.Match(full) || visible != nil && !visible(info.Name) {
			continue
		}
		total += info.SizeOnDisk
		if nameOnly {
			dbs = append(dbs, bson.D{{Key: "name", Value: info.Name}})
		} else {
			dbs = append(dbs, full)
		}
	}
	if nameOnly {
		return bson.D{{Key: "databases", Value: dbs}}, nil
	}
	return bson.D{
		{Key: "databases", Value: dbs},
		{Key: "totalSize", Value: total},
		{Key: "totalSizeMb", Value: total >> 20},
	}, nil
}
