package bench

import (
	"fmt"
	"io"
	"strings"
)

// The labels the targets refer to: the checks compare the target
// labelled LabelMayfly with those labelled LabelRedis and LabelFerretDB.
const (
	LabelMayfly   = "mayfly"
	LabelRedis    = "redis"
	LabelFerretDB = "ferretdb"
)

// Status is the outcome of a Check.
type Status string

// The outcomes of a check.
const (
	Met         Status = "met"
	NotMet      Status = "not met"
	NotMeasured Status = "not measured"
)

// Check is one of the performance targets mayfly must meet against its
// peers, evaluated on a report's medians.
type Check struct {
	Name   string  `json:"name"`
	Goal   string  `json:"goal"`
	Value  float64 `json:"value"`
	Unit   string  `json:"unit"`
	Status Status  `json:"status"`
	Detail string  `json:"detail,omitempty"`
	// NoValue marks a judged check with no figure (a server that did not
	// finish within the timeout).
	NoValue bool `json:"no_value,omitempty"`
}

// metricRef names one median: a metric of a workload on a labelled target
// over a protocol.
type metricRef struct {
	label    string
	protocol Protocol
	workload string
	metric   string
}

func lookup(results []Result, ref metricRef) (float64, bool) {
	for _, r := range results {
		if r.Target == ref.label && r.Protocol == ref.protocol && r.Workload == ref.workload && r.Error == "" {
			if m, ok := r.Metric(ref.metric); ok {
				return m.Value, true
			}
		}
	}
	return 0, false
}

// ratioCheck is met when num / den >= least.
func ratioCheck(results []Result, name string, num, den metricRef, least float64) Check {
	c := Check{Name: name, Goal: fmt.Sprintf(">= %gx", least), Unit: "x"}
	a, okA := lookup(results, num)
	b, okB := lookup(results, den)
	if !okA || !okB || b == 0 {
		c.Status = NotMeasured
		return c
	}
	c.Value = a / b
	c.Detail = fmt.Sprintf("%s %s / %s %s", FormatFloat(a), num.label, FormatFloat(b), den.label)
	c.Status = metOrNot(c.Value >= least)
	return c
}

// limitCheck is met when the metric is at most (or, strict, below) limit.
func limitCheck(results []Result, name string, ref metricRef, limit float64, strict bool, unit string) Check {
	op := "<="
	if strict {
		op = "<"
	}
	c := Check{Name: name, Goal: fmt.Sprintf("%s %s %s", op, FormatFloat(limit), unit), Unit: unit}
	v, ok := lookup(results, ref)
	if !ok {
		c.Status = NotMeasured
		return c
	}
	c.Value = v
	c.Status = metOrNot(v < limit || (!strict && v == limit))
	return c
}

// EvaluateChecks evaluates the performance targets on results (medians). pipeline
// is the depth of kv's pipelined phases. A target whose figures are absent
// (a server not run, a workload that failed) is NotMeasured.
func EvaluateChecks(results []Result, pipeline int) []Check {
	m := func(label string, p Protocol, workload, metric string) metricRef {
		return metricRef{label, p, workload, metric}
	}
	var cs []Check
	for _, op := range kvOps {
		cs = append(cs, ratioCheck(results, "kv "+op+" unpipelined vs redis",
			m(LabelMayfly, RESP, "kv", op+".ops"), m(LabelRedis, RESP, "kv", op+".ops"), 0.8))
	}
	if pipeline > 1 {
		for _, op := range kvOps {
			name := fmt.Sprintf("%s_p%d", op, pipeline)
			cs = append(cs, ratioCheck(results, "kv "+name+" vs redis",
				m(LabelMayfly, RESP, "kv", name+".ops"), m(LabelRedis, RESP, "kv", name+".ops"), 0.5))
		}
	}
	cs = append(cs,
		ratioCheck(results, "doc insert vs ferretdb", m(LabelMayfly, Mongo, "doc", "insert.ops"), m(LabelFerretDB, Mongo, "doc", "insert.ops"), 10),
		ratioCheck(results, "doc find_id vs ferretdb", m(LabelMayfly, Mongo, "doc", "find_id.ops"), m(LabelFerretDB, Mongo, "doc", "find_id.ops"), 50),
		ratioCheck(results, "doc find_id vs redis GET", m(LabelMayfly, Mongo, "doc", "find_id.ops"), m(LabelRedis, RESP, "kv", "get.ops"), 0.5),
		ratioCheck(results, "doc insert vs redis SET EX", m(LabelMayfly, Mongo, "doc", "insert.ops"), m(LabelRedis, RESP, "kv", "set_ex.ops"), 0.3),
		stormSoonerCheck(results),
		limitCheck(results, "storm read p99 during / before (resp)", m(LabelMayfly, RESP, "storm", "read_p99_during_over_before"), 2, false, "x"),
	)
	for _, p := range []Protocol{RESP, Mongo} {
		cs = append(cs,
			limitCheck(results, "sparse all gone ("+string(p)+")", m(LabelMayfly, p, "sparse", "gone_after"), 1, false, "s"),
			limitCheck(results, "steady lag p99 ("+string(p)+")", m(LabelMayfly, p, "steady", "lag.p99"), 1000, true, "ms"),
			boolCheck(results, "steady backlog bounded ("+string(p)+")", "bounded", m(LabelMayfly, p, "steady", "backlog_bounded")),
		)
	}
	return cs
}

// boolCheck is met when a 0/1 metric is 1.
func boolCheck(results []Result, name, goal string, ref metricRef) Check {
	c := Check{Name: name, Goal: goal, Unit: "bool"}
	v, ok := lookup(results, ref)
	switch {
	case !ok:
		c.Status = NotMeasured
	case v == 1:
		c.Value, c.Status = v, Met
	default:
		c.Value, c.Status = v, NotMet
	}
	return c
}

func metOrNot(ok bool) Status {
	if ok {
		return Met
	}
	return NotMet
}

// stormSoonerCheck: mayfly's storm is gone sooner than Redis's (a Redis
// that did not finish within the timeout counts as later).
func stormSoonerCheck(results []Result) Check {
	c := Check{Name: "storm gone sooner than redis (resp)", Goal: "< 1x", Unit: "x"}
	a, okA := lookup(results, metricRef{LabelMayfly, RESP, "storm", "gone_after"})
	b, okB := lookup(results, metricRef{LabelRedis, RESP, "storm", "gone_after"})
	_, mayflyRan := lookup(results, metricRef{LabelMayfly, RESP, "storm", "read_during.p99"})
	_, redisRan := lookup(results, metricRef{LabelRedis, RESP, "storm", "read_during.p99"})
	switch {
	case okA && okB && b > 0:
		c.Value = a / b
		c.Detail = fmt.Sprintf("%ss mayfly / %ss redis", FormatFloat(a), FormatFloat(b))
		c.Status = metOrNot(c.Value < 1)
	case okA && !okB && redisRan:
		c.Detail = "redis did not finish within the timeout"
		c.Status, c.NoValue = Met, true
	case !okA && okB && mayflyRan:
		c.Detail = "mayfly did not finish within the timeout"
		c.Status, c.NoValue = NotMet, true
	default:
		c.Status = NotMeasured
	}
	return c
}

// WriteChecks writes the checks as a Markdown table.
func WriteChecks(w io.Writer, checks []Check) error {
	var b strings.Builder
	b.WriteString("| target | goal | measured | status | detail |\n| --- | --- | ---: | --- | --- |\n")
	for _, c := range checks {
		v := "-"
		if c.Status != NotMeasured && !c.NoValue {
			v = FormatFloat(c.Value) + " " + c.Unit
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", c.Name, c.Goal, v, c.Status, c.Detail)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
