package expiry

import (
	"fmt"
	"math"
	"slices"
	"strconv"
)

// MongoDB names of the runtime parameters. The first six are MongoDB's own
// (ttl.idl); the last two are mayfly's.
const (
	ParamMonitorEnabled      = "ttlMonitorEnabled"
	ParamSleepSecs           = "ttlMonitorSleepSecs"
	ParamBatchDeletes        = "ttlMonitorBatchDeletes"
	ParamDeleteTargetDocs    = "ttlIndexDeleteTargetDocs"
	ParamDeleteTargetTimeMS  = "ttlIndexDeleteTargetTimeMS"
	ParamSubPassTargetSecs   = "ttlMonitorSubPassTargetSecs"
	ParamMaxDeletesPerSecond = "ttlMaxDeletesPerSecond"
	ParamDeleteBatchSize     = "ttlDeleteBatchSize"
)

// MaxBatchSize is the largest accepted ttlDeleteBatchSize.
const MaxBatchSize = 1_000_000

// Params are the engine's parameters that can be changed while it runs
// (Engine.SetParams, Engine.SetParameter). Each field names its MongoDB
// parameter; the zero value is not valid, start from DefaultParams.
type Params struct {
	// MonitorEnabled (ttlMonitorEnabled, default true) turns sweeping on or
	// off. While false no passes run.
	MonitorEnabled bool
	// SleepSecs (ttlMonitorSleepSecs, > 0, default 60) is the longest the
	// sweeper sleeps: a pass runs at least this often even when nothing is
	// due. A change takes effect at once and wakes the sweeper.
	SleepSecs int32
	// BatchDeletes (ttlMonitorBatchDeletes, default true) applies
	// DeleteTargetDocs and DeleteTargetTimeMS per source per visit; false
	// reaps each due source to completion in one visit.
	BatchDeletes bool
	// DeleteTargetDocs (ttlIndexDeleteTargetDocs, >= 0, default 50000, 0 =
	// unlimited) is the most items deleted from one source per visit.
	DeleteTargetDocs int64
	// DeleteTargetTimeMS (ttlIndexDeleteTargetTimeMS, >= 0, default 1000, 0 =
	// unlimited) is the most time spent on one source per visit.
	DeleteTargetTimeMS int32
	// SubPassTargetSecs (ttlMonitorSubPassTargetSecs, >= 0, default 60) is
	// how long a sub-pass keeps revisiting sources with more work; 0 visits
	// each due source once per sub-pass.
	SubPassTargetSecs int32
	// MaxDeletesPerSecond (ttlMaxDeletesPerSecond, >= 0, default 0 =
	// unlimited) is a global rate limit on deleted items across all sources.
	MaxDeletesPerSecond int64
	// BatchSize (ttlDeleteBatchSize, 1..MaxBatchSize, default 1000) is the
	// most items deleted in one storage batch, that is in one ReapBatch call.
	BatchSize int32
}

// DefaultParams returns MongoDB's defaults plus mayfly's.
func DefaultParams() Params {
	return Params{
		MonitorEnabled:      true,
		SleepSecs:           60,
		BatchDeletes:        true,
		DeleteTargetDocs:    50000,
		DeleteTargetTimeMS:  1000,
		SubPassTargetSecs:   60,
		MaxDeletesPerSecond: 0,
		BatchSize:           1000,
	}
}

// ParamType is the type a parameter has on the wire: the BSON type
// getParameter reports and the Go type Engine.GetParameter returns.
type ParamType int

// The parameter types.
const (
	ParamBool  ParamType = iota + 1 // Go bool, BSON boolean
	ParamInt32                      // Go int32, BSON int
	ParamInt64                      // Go int64, BSON long
)

// String returns the BSON type name.
func (t ParamType) String() string {
	switch t {
	case ParamBool:
		return "bool"
	case ParamInt32:
		return "int"
	case ParamInt64:
		return "long"
	}
	return "ParamType(" + strconv.Itoa(int(t)) + ")"
}

// ParamInfo describes one parameter.
type ParamInfo struct {
	// Name is the MongoDB parameter name, for example "ttlMonitorSleepSecs".
	Name string
	// Type is the wire type.
	Type ParamType
	// Default is the default value, of the Go type Type names.
	Default any
	// Doc is a one-line description.
	Doc string
}

// ParamError reports a rejected get or set of a parameter. Message is the
// text MongoDB puts in errmsg for the same mistake (for example "Invalid
// value for parameter ttlMonitorSleepSecs: 0 is not greater than 0"); Err is
// ErrUnknownParameter or ErrBadValue.
type ParamError struct {
	Name    string
	Message string
	Err     error
}

// Error implements error.
func (e *ParamError) Error() string { return "expiry: parameter " + e.Name + ": " + e.Message }

// Unwrap returns ErrUnknownParameter or ErrBadValue.
func (e *ParamError) Unwrap() error { return e.Err }

// bound is one IDL validator (gt, gte, lte) on an integer parameter.
type bound struct {
	op    string // "gt", "gte" or "lte"
	value int64
}

func (b bound) check(v int64) (string, bool) {
	switch b.op {
	case "gt":
		return "greater than", v > b.value
	case "gte":
		return "greater than or equal to", v >= b.value
	default:
		return "less than or equal to", v <= b.value
	}
}

type paramDef struct {
	info    ParamInfo
	bounds  []bound
	getBool func(*Params) bool
	setBool func(*Params, bool)
	getInt  func(*Params) int64
	setInt  func(*Params, int64)
}

var paramDefs = []paramDef{
	{
		info:    ParamInfo{Name: ParamMonitorEnabled, Type: ParamBool, Default: true, Doc: "enable the sweeper"},
		getBool: func(p *Params) bool { return p.MonitorEnabled },
		setBool: func(p *Params, v bool) { p.MonitorEnabled = v },
	},
	{
		info:   ParamInfo{Name: ParamSleepSecs, Type: ParamInt32, Default: int32(60), Doc: "longest sleep between passes, in seconds"},
		bounds: []bound{{"gt", 0}},
		getInt: func(p *Params) int64 { return int64(p.SleepSecs) },
		setInt: func(p *Params, v int64) { p.SleepSecs = int32(v) },
	},
	{
		info:    ParamInfo{Name: ParamBatchDeletes, Type: ParamBool, Default: true, Doc: "bound each source's work per visit (false: reap to completion)"},
		getBool: func(p *Params) bool { return p.BatchDeletes },
		setBool: func(p *Params, v bool) { p.BatchDeletes = v },
	},
	{
		info:   ParamInfo{Name: ParamDeleteTargetDocs, Type: ParamInt64, Default: int64(50000), Doc: "items per source per visit, 0 = unlimited"},
		bounds: []bound{{"gte", 0}},
		getInt: func(p *Params) int64 { return p.DeleteTargetDocs },
		setInt: func(p *Params, v int64) { p.DeleteTargetDocs = v },
	},
	{
		info:   ParamInfo{Name: ParamDeleteTargetTimeMS, Type: ParamInt32, Default: int32(1000), Doc: "milliseconds per source per visit, 0 = unlimited"},
		bounds: []bound{{"gte", 0}},
		getInt: func(p *Params) int64 { return int64(p.DeleteTargetTimeMS) },
		setInt: func(p *Params, v int64) { p.DeleteTargetTimeMS = int32(v) },
	},
	{
		info:   ParamInfo{Name: ParamSubPassTargetSecs, Type: ParamInt32, Default: int32(60), Doc: "seconds a sub-pass revisits sources with more work, 0 = once"},
		bounds: []bound{{"gte", 0}},
		getInt: func(p *Params) int64 { return int64(p.SubPassTargetSecs) },
		setInt: func(p *Params, v int64) { p.SubPassTargetSecs = int32(v) },
	},
	{
		info:   ParamInfo{Name: ParamMaxDeletesPerSecond, Type: ParamInt64, Default: int64(0), Doc: "global limit on deleted items per second, 0 = unlimited"},
		bounds: []bound{{"gte", 0}},
		getInt: func(p *Params) int64 { return p.MaxDeletesPerSecond },
		setInt: func(p *Params, v int64) { p.MaxDeletesPerSecond = v },
	},
	{
		info:   ParamInfo{Name: ParamDeleteBatchSize, Type: ParamInt32, Default: int32(1000), Doc: "items per storage batch"},
		bounds: []bound{{"gt", 0}, {"lte", MaxBatchSize}},
		getInt: func(p *Params) int64 { return int64(p.BatchSize) },
		setInt: func(p *Params, v int64) { p.BatchSize = int32(v) },
	},
}

func init() {
	slices.SortFunc(paramDefs, func(a, b paramDef) int {
		switch {
		case a.info.Name < b.info.Name:
			return -1
		case a.info.Name > b.info.Name:
			return 1
		}
		return 0
	})
}

func findParam(name string) (*paramDef, error) {
	for i := range paramDefs {
		if paramDefs[i].info.Name == name {
			return &paramDefs[i], nil
		}
	}
	return nil, &ParamError{Name: name, Message: "unknown parameter " + name, Err: ErrUnknownParameter}
}

// Parameters lists the engine's parameters, sorted by name.
func Parameters() []ParamInfo {
	out := make([]ParamInfo, len(paramDefs))
	for i, d := range paramDefs {
		out[i] = d.info
	}
	return out
}

// Get returns the value of the named parameter as the Go type its ParamType
// names (bool, int32 or int64). The error is a *ParamError wrapping
// ErrUnknownParameter.
func (p Params) Get(name string) (any, error) {
	d, err := findParam(name)
	if err != nil {
		return nil, err
	}
	return d.value(&p), nil
}

func (d *paramDef) value(p *Params) any {
	switch d.info.Type {
	case ParamBool:
		return d.getBool(p)
	case ParamInt32:
		return int32(d.getInt(p))
	default:
		return d.getInt(p)
	}
}

// Set converts value as MongoDB's setParameter does and, if it passes the
// parameter's validators, stores it. value is what the wire layer decoded:
// bool, int, int32, int64, float64 (a Decimal128 converted to float64),
// string, or nil for null and undefined; any other value stands for a BSON
// type that is neither a number nor null.
//
// Conversion follows BSONElement::coerce: a bool parameter takes the value's
// truth (false for false, 0, null; true for anything else, strings
// included); an integer parameter takes any number, truncating a fraction
// toward zero. Unlike MongoDB, a number outside the parameter's integer
// range is rejected rather than wrapped. The error is a *ParamError
// wrapping ErrUnknownParameter or ErrBadValue; p is unchanged on error.
func (p *Params) Set(name string, value any) error {
	d, err := findParam(name)
	if err != nil {
		return err
	}
	if d.info.Type == ParamBool {
		d.setBool(p, truth(value))
		return nil
	}
	v, ok := coerceInt(value, d.info.Type)
	if !ok {
		return &ParamError{Name: name, Message: "Can't coerce value", Err: ErrBadValue}
	}
	if err := d.check(v); err != nil {
		return err
	}
	d.setInt(p, v)
	return nil
}

func (d *paramDef) check(v int64) error {
	for _, b := range d.bounds {
		if desc, ok := b.check(v); !ok {
			return &ParamError{
				Name:    d.info.Name,
				Message: fmt.Sprintf("Invalid value for parameter %s: %d is not %s %d", d.info.Name, v, desc, b.value),
				Err:     ErrBadValue,
			}
		}
	}
	return nil
}

// Validate checks every parameter against its validator and returns the
// first *ParamError.
func (p Params) Validate() error {
	for i := range paramDefs {
		d := &paramDefs[i]
		if d.info.Type == ParamBool {
			continue
		}
		if err := d.check(d.getInt(&p)); err != nil {
			return err
		}
	}
	return nil
}

// truth is BSONElement::trueValue for the values Set accepts.
func truth(v any) bool {
	switch x := v.(type) {
	case nil:
		return false
	case bool:
		return x
	case int:
		return x != 0
	case int32:
		return x != 0
	case int64:
		return x != 0
	case float64:
		return x != 0 // NaN != 0 is true, as in MongoDB
	default:
		return true
	}
}

func coerceInt(v any, t ParamType) (int64, bool) {
	lo, hi := int64(math.MinInt32), int64(math.MaxInt32)
	if t == ParamInt64 {
		lo, hi = math.MinInt64, math.MaxInt64
	}
	var n int64
	switch x := v.(type) {
	case int:
		n = int64(x)
	case int32:
		n = int64(x)
	case int64:
		n = x
	case float64:
		f := math.Trunc(x)
		// float64(MaxInt64) rounds up to 2^63, so compare with >=.
		if math.IsNaN(f) || f < float64(lo) || f >= float64(hi)+1 {
			return 0, false
		}
		n = int64(f)
	default:
		return 0, false
	}
	if n < lo || n > hi {
		return 0, false
	}
	return n, true
}
