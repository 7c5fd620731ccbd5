package mongo

import (
	"context"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb"
)

// msgServerStatus answers serverStatus. Sections given a false value
// ({serverStatus: 1, metrics: 0}) are left out; {opLatencies: {histograms:
// true}} adds the latency histograms; the sections of
// Options.Status (such as metrics.ttl from the expiry engine) are merged in
// at their paths.
func msgServerStatus(_ context.Context, c *conn, req *request) (bson.D, error) {
	s := c.s
	now := s.now()
	up := now.Sub(s.started)
	excluded := map[string]bool{}
	histograms := false // {opLatencies: {histograms: true}}
	if elems, err := req.cmd.Elements(); err == nil {
		for _, el := range elems[1:] {
			if !genericArgs[el.Key()] && !truthy(el.Value()) {
				excluded[el.Key()] = true
			}
			if doc, ok := el.Value().DocumentOK(); ok && el.Key() == "opLatencies" {
				h, err := doc.LookupErr("histograms")
				histograms = err == nil && truthy(h)
			}
		}
	}
	memMB := int32(totalMemory() >> 20)
	m := s.metrics
	metricsDoc := bson.D{
		{Key: "commands", Value: m.commandsDoc()},
		{Key: "cursor", Value: bson.D{
			{Key: "open", Value: bson.D{{Key: "total", Value: int64(s.cursors.open())}}},
		}},
		{Key: "document", Value: m.documentDoc()},
	}
	sections := bson.D{
		{Key: "host", Value: s.host},
		{Key: "version", Value: mongoVersion},
		{Key: "process", Value: "mongod"},
		{Key: "pid", Value: int64(s.pid)},
		{Key: "uptime", Value: up.Seconds()},
		{Key: "uptimeMillis", Value: up.Milliseconds()},
		{Key: "uptimeEstimate", Value: int64(up.Seconds())},
		{Key: "localTime", Value: bson.NewDateTimeFromTime(now)},
		{Key: "connections", Value: bson.D{
			{Key: "current", Value: int32(s.connectionCount())},
			{Key: "available", Value: int32(s.opts.MaxConnections - s.connectionCount())},
			{Key: "totalCreated", Value: m.totalConns.Load()},
			{Key: "rejected", Value: m.rejectedConns.Load()},
		}},
		{Key: "mem", Value: bson.D{
			{Key: "bits", Value: int32(64)},
			{Key: "resident", Value: memMB},
			{Key: "virtual", Value: memMB},
			{Key: "supported", Value: true},
		}},
		{Key: "network", Value: bson.D{
			{Key: "bytesIn", Value: m.bytesIn.Load()},
			{Key: "bytesOut", Value: m.bytesOut.Load()},
			{Key: "numRequests", Value: m.requests.Load()},
		}},
		{Key: "opLatencies", Value: m.latencies.doc(histograms)},
		{Key: "catalogStats", Value: catalogStatsDoc(s.db.CatalogStats())},
		{Key: "opcounters", Value: m.opcountersDoc()},
		{Key: "security", Value: m.securityDoc()},
	}
	var out bson.D
	for _, e := range sections {
		if !excluded[e.Key] {
			out = append(out, e)
		}
	}
	for _, sec := range s.opts.Status {
		top, sub, nested := strings.Cut(sec.Path, ".")
		if excluded[top] {
			continue
		}
		if top == "metrics" && nested {
			metricsDoc = setPath(metricsDoc, sub, sec.Value())
			continue
		}
		out = setPath(out, sec.Path, sec.Value())
	}
	if !excluded["metrics"] {
		out = append(out, bson.E{Key: "metrics", Value: metricsDoc})
	}
	return out, nil
}

// setPath sets the dotted path in d to v, creating or replacing the
// documents on the way.
func setPath(d bson.D, path string, v bson.D) bson.D {
	key, rest, nested := strings.Cut(path, ".")
	for i := range d {
		if d[i].Key != key {
			continue
		}
		if !nested {
			d[i].Value = v
			return d
		}
		inner, _ := d[i].Value.(bson.D)
		d[i].Value = setPath(inner, rest, v)
		return d
	}
	if !nested {
		return append(d, bson.E{Key: key, Value: v})
	}
	return append(d, bson.E{Key: key, Value: setPath(nil, rest, v)})
}

// catalogStatsDoc is serverStatus's catalogStats. mayfly serves no views
// and no encrypted collections, so those counts are zero.
func catalogStatsDoc(st docdb.CatalogStats) bson.D {
	return bson.D{
		{Key: "collections", Value: int32(st.Collections)},
		{Key: "capped", Value: int32(st.Capped)},
		{Key: "clustered", Value: int32(st.Clustered)},
		{Key: "timeseries", Value: int32(st.Timeseries)},
		{Key: "views", Value: int32(0)},
		{Key: "internalCollections", Value: int32(st.Internal)},
		{Key: "internalViews", Value: int32(0)},
		{Key: "csfle", Value: int32(0)},
		{Key: "queryableEncryption", Value: int32(0)},
	}
}
