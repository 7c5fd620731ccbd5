package mongo

import (
	"context"
	"net"
	"strconv"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb"
	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
)

// msgExplain answers explain for find, aggregate, count, distinct, update,
// delete and findAndModify: the inner command is parsed as the command
// itself would be, then explained without writing anything.
func msgExplain(ctx context.Context, c *conn, req *request) (bson.D, error) {
	inner, verbosity, err := parseExplain(req)
	if err != nil {
		return nil, err
	}
	plan, err := explainCommand(ctx, c.s.db, req.db, inner, verbosity)
	if err != nil {
		return nil, err
	}
	return explainReply(c, plan, withDB(inner, req.db)), nil
}

// parseExplain parses an explain command: the inner command (whose $db, if
// any, must be the request's) and the verbosity.
func parseExplain(req *request) (bson.Raw, docdb.Verbosity, error) {
	verbosity := docdb.AllPlansExecution
	v := req.first()
	inner, ok := v.DocumentOK()
	if !ok {
		return nil, verbosity, typeMismatch("explain", "explain", v.Type, "object")
	}
	err := fields(req.cmd, func(el bson.RawElement) error {
		if k := el.Key(); k != "verbosity" {
			return unknownField("explain", k)
		}
		var err error
		verbosity, err = explainVerbosity(el)
		return err
	})
	if err != nil {
		return nil, verbosity, err
	}
	if _, err := inner.IndexErr(0); err != nil {
		return nil, verbosity, errorf(mongoerr.FailedToParse, "explain command requires a nested object")
	}
	if dbv, err := inner.LookupErr("$db"); err == nil {
		if s, ok := dbv.StringValueOK(); !ok || s != req.db {
			return nil, verbosity, errorf(mongoerr.InvalidNamespace, "Mismatched $db in explain command. Expected %s but got %s", req.db, valueString(dbv))
		}
	}
	return inner, verbosity, nil
}

// explainVerbosity parses explain's verbosity.
func explainVerbosity(el bson.RawElement) (docdb.Verbosity, error) {
	s, err := stringArg("explain", el)
	if err != nil {
		return 0, err
	}
	switch s {
	case "queryPlanner":
		return docdb.QueryPlanner, nil
	case "executionStats":
		return docdb.ExecutionStats, nil
	case "allPlansExecution":
		return docdb.AllPlansExecution, nil
	}
	return 0, errorf(mongoerr.BadValue, "Enumeration value '%s' for field 'explain.verbosity' is not a valid value.", s)
}

// explainCommand parses the inner command of explain as the command itself
// would be parsed and returns the document model's plan for it.
func explainCommand(ctx context.Context, db *docdb.Engine, dbName string, inner bson.Raw, v docdb.Verbosity) (bson.D, error) {
	switch name := inner.Index(0).Key(); name {
	case "find":
		f, err := parseFind(dbName, inner)
		if err != nil {
			return nil, err
		}
		return db.ExplainFind(ctx, dbName, f.coll, f.req, v)
	case "aggregate":
		a, err := parseAggregate(dbName, inner)
		if err != nil {
			return nil, err
		}
		return db.ExplainAggregate(ctx, dbName, a.coll, a.req, v)
	case "count":
		coll, cr, err := parseCount(dbName, inner)
		if err != nil {
			return nil, err
		}
		return db.ExplainCount(ctx, dbName, coll, cr, v)
	case "distinct":
		coll, dr, err := parseDistinct(dbName, inner)
		if err != nil {
			return nil, err
		}
		return db.ExplainDistinct(ctx, dbName, coll, dr, v)
	case "update":
		coll, ur, err := parseUpdate(dbName, inner)
		if err != nil {
			return nil, err
		}
		return db.ExplainUpdate(ctx, dbName, coll, ur.Statements[0], v)
	case "delete":
		coll, dr, err := parseDelete(dbName, inner)
		if err != nil {
			return nil, err
		}
		return db.ExplainDelete(ctx, dbName, coll, dr.Statements[0], v)
	case "findAndModify", "findandmodify":
		return explainFindAndModify(ctx, db, dbName, inner, v)
	default:
		if _, known := commandTable[name]; known {
			return nil, errorf(mongoerr.IllegalOperation, "Explain failed due to unknown command: %s", name)
		}
		return nil, errorf(mongoerr.CommandNotFound, "Explain failed due to unknown command: %s", name)
	}
}

// explainFindAndModify explains a findAndModify as the delete or update of
// its one document.
func explainFindAndModify(ctx context.Context, db *docdb.Engine, dbName string, inner bson.Raw, v docdb.Verbosity) (bson.D, error) {
	coll, fr, err := parseFindAndModify(dbName, inner)
	if err != nil {
		return nil, err
	}
	if fr.Remove {
		return db.ExplainDelete(ctx, dbName, coll, docdb.DeleteStatement{Filter: fr.Query, Limit: 1, Hint: fr.Hint}, v)
	}
	return db.ExplainUpdate(ctx, dbName, coll, docdb.UpdateStatement{
		Filter: fr.Query, Update: fr.Update, Pipeline: fr.Pipeline, Upsert: fr.Upsert,
		ArrayFilters: fr.ArrayFilters, Hint: fr.Hint,
	}, v)
}

// explainReply wraps the model's plan as MongoDB does: explainVersion, the
// plan's sections, the command explained and serverInfo.
func explainReply(c *conn, plan bson.D, cmd bson.Raw) bson.D {
	out := bson.D{{Key: "explainVersion", Value: "1"}}
	out = append(out, plan...)
	port := int32(0)
	if _, p, err := net.SplitHostPort(c.nc.LocalAddr().String()); err == nil {
		if n, err := strconv.Atoi(p); err == nil {
			port = int32(n)
		}
	}
	_, revision := mayflyVersion()
	return append(out,
		bson.E{Key: "command", Value: cmd},
		bson.E{Key: "serverInfo", Value: bson.D{
			{Key: "host", Value: c.s.host},
			{Key: "port", Value: port},
			{Key: "version", Value: mongoVersion},
			{Key: "gitVersion", Value: revision},
		}},
	)
}

// withDB returns cmd with $db set, as explain reports the command.
func withDB(cmd bson.Raw, db string) bson.Raw {
	if _, err := cmd.LookupErr("$db"); err == nil {
		return cmd
	}
	d, err := decodeD(cmd)
	if err != nil {
		return cmd
	}
	b, err := bson.Marshal(append(d, bson.E{Key: "$db", Value: db}))
	if err != nil {
		return cmd
	}
	return b
}
