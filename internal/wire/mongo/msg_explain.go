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
	v := req.first()
	inner, ok := v.DocumentOK()
	if !ok {
		return nil, typeMismatch("explain", "explain", v.Type, "object")
	}
	verbosity := docdb.AllPlansExecution
	err := fields(req.cmd, func(el bson.RawElement) error {
		switch k := el.Key(); k {
		case "verbosity":
			s, err := stringArg("explain", el)
			if err != nil {
				return err
			}
			switch s {
			case "queryPlanner":
				verbosity = docdb.QueryPlanner
			case "executionStats":
				verbosity = docdb.ExecutionStats
			case "allPlansExecution":
				verbosity = docdb.AllPlansExecution
			default:
				return errorf(mongoerr.BadValue, "Enumeration value '%s' for field 'explain.verbosity' is not a valid value.", s)
			}
			return nil
		default:
			return unknownField("explain", k)
		}
	})
	if err != nil {
		return nil, err
	}
	first, err := inner.IndexErr(0)
	if err != nil {
		return nil, errorf(mongoerr.FailedToParse, "explain command requires a nested object")
	}
	if dbv, err := inner.LookupErr("$db"); err == nil {
		if s, ok := dbv.StringValueOK(); !ok || s != req.db {
			return nil, errorf(mongoerr.InvalidNamespace, "Mismatched $db in explain command. Expected %s but got %s", req.db, valueString(dbv))
		}
	}
	db := c.s.db
	var plan bson.D
	switch name := first.Key(); name {
	case "find":
		f, err := parseFind(req.db, inner)
		if err != nil {
			return nil, err
		}
		plan, err = db.ExplainFind(ctx, req.db, f.coll, f.req, verbosity)
		if err != nil {
			return nil, err
		}
	case "aggregate":
		a, err := parseAggregate(req.db, inner)
		if err != nil {
			return nil, err
		}
		plan, err = db.ExplainAggregate(ctx, req.db, a.coll, a.req, verbosity)
		if err != nil {
			return nil, err
		}
	case "count":
		coll, cr, err := parseCount(req.db, inner)
		if err != nil {
			return nil, err
		}
		plan, err = db.ExplainCount(ctx, req.db, coll, cr, verbosity)
		if err != nil {
			return nil, err
		}
	case "distinct":
		coll, dr, err := parseDistinct(req.db, inner)
		if err != nil {
			return nil, err
		}
		plan, err = db.ExplainDistinct(ctx, req.db, coll, dr, verbosity)
		if err != nil {
			return nil, err
		}
	case "update":
		coll, ur, err := parseUpdate(req.db, inner)
		if err != nil {
			return nil, err
		}
		plan, err = db.ExplainUpdate(ctx, req.db, coll, ur.Statements[0], verbosity)
		if err != nil {
			return nil, err
		}
	case "delete":
		coll, dr, err := parseDelete(req.db, inner)
		if err != nil {
			return nil, err
		}
		plan, err = db.ExplainDelete(ctx, req.db, coll, dr.Statements[0], verbosity)
		if err != nil {
			return nil, err
		}
	case "findAndModify", "findandmodify":
		coll, fr, err := parseFindAndModify(req.db, inner)
		if err != nil {
			return nil, err
		}
		if fr.Remove {
			plan, err = db.ExplainDelete(ctx, req.db, coll, docdb.DeleteStatement{Filter: fr.Query, Limit: 1, Hint: fr.Hint}, verbosity)
		} else {
			plan, err = db.ExplainUpdate(ctx, req.db, coll, docdb.UpdateStatement{
				Filter: fr.Query, Update: fr.Update, Pipeline: fr.Pipeline, Upsert: fr.Upsert,
				ArrayFilters: fr.ArrayFilters, Hint: fr.Hint,
			}, verbosity)
		}
		if err != nil {
			return nil, err
		}
	default:
		if _, known := commandTable[name]; known {
			return nil, errorf(mongoerr.IllegalOperation, "Explain failed due to unknown command: %s", name)
		}
		return nil, errorf(mongoerr.CommandNotFound, "Explain failed due to unknown command: %s", name)
	}
	return explainReply(c, plan, withDB(inner, req.db)), nil
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
