package server

import (
	"fmt"
	"math"

	"github.com/mayfly/mayfly/internal/docdb"
	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
	"github.com/mayfly/mayfly/internal/wire/mongo"
)

// queryParameters exposes the document database's query memory parameters
// to getParameter and setParameter, under MongoDB's names:
// internalQueryMaxBlockingSortMemoryUsageBytes (a blocking sort's memory
// limit), internalDocumentSourceGroupMaxMemoryBytes ($group's) and
// allowDiskUseByDefault (whether a stage past its limit may spill).
func queryParameters(db *docdb.Engine) []mongo.Parameter {
	return []mongo.Parameter{
		{
			Name: "internalQueryMaxBlockingSortMemoryUsageBytes",
			Get:  func() any { return db.SortMemoryLimit() },
			Set: func(v any) error {
				n, ok := wholeNumber(v)
				if !ok || n <= 0 {
					return mongoerr.Newf(mongoerr.BadValue, "Invalid value for internalQueryMaxBlockingSortMemoryUsageBytes: %v", v)
				}
				return db.SetSortMemoryLimit(n)
			},
		},
		{
			Name: "internalDocumentSourceGroupMaxMemoryBytes",
			Get:  func() any { return db.GroupMemoryLimit() },
			Set: func(v any) error {
				n, ok := wholeNumber(v)
				if !ok || n <= 0 {
					return mongoerr.Newf(mongoerr.BadValue, "Invalid value for internalDocumentSourceGroupMaxMemoryBytes: %v", v)
				}
				return db.SetGroupMemoryLimit(n)
			},
		},
		{
			Name: "allowDiskUseByDefault",
			Get:  func() any { return db.AllowDiskUseByDefault() },
			Set: func(v any) error {
				b, ok := v.(bool)
				if !ok {
					n, isNum := wholeNumber(v)
					if !isNum {
						return mongoerr.Newf(mongoerr.BadValue, "Invalid value for allowDiskUseByDefault: %v", v)
					}
					b = n != 0
				}
				db.SetAllowDiskUseByDefault(b)
				return nil
			},
		},
	}
}

// isQueryParameter reports whether name is one of queryParameters.
func isQueryParameter(name string) bool {
	switch name {
	case "internalQueryMaxBlockingSortMemoryUsageBytes", "internalDocumentSourceGroupMaxMemoryBytes", "allowDiskUseByDefault":
		return true
	}
	return false
}

// applyQueryParameters applies the --set-parameter settings of the query
// parameters to db at startup.
func applyQueryParameters(db *docdb.Engine, params []string) error {
	byName := map[string]mongo.Parameter{}
	for _, p := range queryParameters(db) {
		byName[p.Name] = p
	}
	for _, p := range params {
		name, v, err := parseParameter(p)
		if err != nil {
			return err
		}
		if qp, ok := byName[name]; ok {
			if err := qp.Set(v); err != nil {
				return fmt.Errorf("--set-parameter %s: %w", name, err)
			}
		}
	}
	return nil
}

// wholeNumber returns a numeric parameter value as an int64.
func wholeNumber(v any) (int64, bool) {
	switch n := v.(type) {
	case int32:
		return int64(n), true
	case int64:
		return n, true
	case float64:
		if n == math.Trunc(n) && n >= math.MinInt64 && n < math.MaxInt64 {
			return int64(n), true
		}
	}
	return 0, false
}
