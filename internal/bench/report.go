package bench

import (
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"
	"time"
)

// Better says which direction of a metric is good.
type Better string

// The directions of a metric.
const (
	Higher Better = "higher"
	Lower  Better = "lower"
	// Neither marks a figure that is context (a count, a size), not a score.
	Neither Better = ""
)

// Metric is one figure of one workload on one target.
type Metric struct {
	Name   string  `json:"name"`
	Value  float64 `json:"value"`
	Unit   string  `json:"unit"`
	Better Better  `json:"better,omitempty"`
	// Runs is, in medians, how many runs measured the metric (a figure
	// such as gone_after exists only in runs that finished in time).
	Runs int `json:"runs,omitempty"`
}

// Result is what one workload measured on one target in one run, or, in a
// Report, the median over runs of each metric.
type Result struct {
	Target   string   `json:"target"`
	Protocol Protocol `json:"protocol"`
	Workload string   `json:"workload"`
	// Client is the client kv and doc were measured through (lean or
	// driver); empty for the expiry workloads, which use the drivers.
	Client  ClientKind `json:"client,omitempty"`
	Metrics []Metric   `json:"metrics"`
	// Notes say what a reader must know to read the figures (for example
	// that a server refused TTL indexes and the collection has none).
	Notes []string `json:"notes,omitempty"`
	// Error is set when the workload could not run on this target.
	Error string `json:"error,omitempty"`
	// Runs is the number of runs whose metrics the medians are of.
	Runs int `json:"runs"`

	series *series
}

// Metric returns the named metric and whether the result has it.
func (r Result) Metric(name string) (Metric, bool) {
	for _, m := range r.Metrics {
		if m.Name == name {
			return m, true
		}
	}
	return Metric{}, false
}

func (r *Result) add(name string, v float64, unit string, b Better) {
	r.Metrics = append(r.Metrics, Metric{Name: name, Value: v, Unit: unit, Better: b})
}

func (r *Result) addDur(name string, d time.Duration, b Better) {
	r.add(name, float64(d)/float64(time.Millisecond), "ms", b)
}

func (r *Result) addLatencies(prefix string, l Latencies) {
	r.addDur(prefix+".p50", l.P50, Lower)
	r.addDur(prefix+".p99", l.P99, Lower)
	r.addDur(prefix+".p999", l.P999, Lower)
	r.addDur(prefix+".max", l.Max, Lower)
}

func (r *Result) notef(format string, args ...any) {
	r.Notes = append(r.Notes, fmt.Sprintf(format, args...))
}

// resultKey identifies a result across runs.
type resultKey struct {
	target   string
	protocol Protocol
	workload string
}

// MedianResults folds the results of several runs into one result per
// target, protocol and workload whose metrics are the medians of the runs
// that measured them. Order follows first appearance; notes are kept once;
// an error is kept only when no run succeeded. The series of the last
// successful run is kept for charts.
func MedianResults(runs [][]Result) []Result {
	var order []resultKey
	type acc struct {
		res    Result
		values map[string][]float64
		names  []string
		units  map[string]Metric
		ok     int
	}
	accs := map[resultKey]*acc{}
	for _, run := range runs {
		for _, r := range run {
			k := resultKey{r.Target, r.Protocol, r.Workload}
			a, found := accs[k]
			if !found {
				a = &acc{res: Result{Target: r.Target, Protocol: r.Protocol, Workload: r.Workload, Client: r.Client}, values: map[string][]float64{}, units: map[string]Metric{}}
				accs[k] = a
				order = append(order, k)
			}
			for _, n := range r.Notes {
				if !contains(a.res.Notes, n) {
					a.res.Notes = append(a.res.Notes, n)
				}
			}
			if r.Error != "" {
				if a.ok == 0 {
					a.res.Error = r.Error
				}
				continue
			}
			a.ok++
			a.res.Error = ""
			if r.series != nil {
				a.res.series = r.series
			}
			for _, m := range r.Metrics {
				if _, seen := a.values[m.Name]; !seen {
					a.names = append(a.names, m.Name)
					a.units[m.Name] = m
				}
				a.values[m.Name] = append(a.values[m.Name], m.Value)
			}
		}
	}
	out := make([]Result, 0, len(order))
	for _, k := range order {
		a := accs[k]
		a.res.Runs = a.ok
		for _, n := range a.names {
			m := a.units[n]
			m.Value = Median(a.values[n])
			m.Runs = len(a.values[n])
			a.res.Metrics = append(a.res.Metrics, m)
		}
		out = append(out, a.res)
	}
	return out
}

func contains(xs []string, x string) bool {
	for _, s := range xs {
		if s == x {
			return true
		}
	}
	return false
}

// Ratio compares one metric of the baseline with the same metric of a peer
// on the same workload and protocol: Value is baseline / peer.
type Ratio struct {
	Workload string   `json:"workload"`
	Protocol Protocol `json:"protocol"`
	Metric   string   `json:"metric"`
	Peer     string   `json:"peer"`
	Baseline float64  `json:"baseline"`
	PeerVal  float64  `json:"peer_value"`
	Unit     string   `json:"unit"`
	Value    float64  `json:"ratio"`
	Better   Better   `json:"better,omitempty"`
}

// Ratios returns baseline / peer for every metric that the baseline target
// and a peer both measured on the same workload and protocol, in the
// baseline's metric order, peers in result order. A metric whose peer value
// is zero has no ratio (and JSON has no infinity).
func Ratios(results []Result, baseline string) []Ratio {
	var out []Ratio
	for _, b := range results {
		if b.Target != baseline || b.Error != "" {
			continue
		}
		for _, p := range results {
			if p.Target == baseline || p.Error != "" || p.Workload != b.Workload || p.Protocol != b.Protocol {
				continue
			}
			for _, bm := range b.Metrics {
				pm, ok := p.Metric(bm.Name)
				if !ok || pm.Value == 0 {
					continue
				}
				out = append(out, Ratio{
					Workload: b.Workload, Protocol: b.Protocol, Metric: bm.Name, Peer: p.Target,
					Baseline: bm.Value, PeerVal: pm.Value, Unit: bm.Unit, Value: bm.Value / pm.Value, Better: bm.Better,
				})
			}
		}
	}
	return out
}

// FormatFloat prints v with about four significant digits, as the tables do.
func FormatFloat(v float64) string {
	switch {
	case math.IsNaN(v):
		return "n/a"
	case math.IsInf(v, 1):
		return "inf"
	case math.IsInf(v, -1):
		return "-inf"
	case v == 0:
		return "0"
	case math.Abs(v) >= 1000:
		return fmt.Sprintf("%.0f", v)
	case math.Abs(v) >= 100:
		return fmt.Sprintf("%.1f", v)
	case math.Abs(v) >= 10:
		return fmt.Sprintf("%.2f", v)
	case math.Abs(v) >= 1:
		return fmt.Sprintf("%.3f", v)
	default:
		return fmt.Sprintf("%.4f", v)
	}
}

// WriteRatioTable writes ratios as a Markdown table (readable as text too).
func WriteRatioTable(w io.Writer, ratios []Ratio, baseline string) error {
	var b strings.Builder
	fmt.Fprintf(&b, "| workload | protocol | metric | peer | %s | peer value | unit | %s / peer | better |\n", baseline, baseline)
	b.WriteString("| --- | --- | --- | --- | ---: | ---: | --- | ---: | --- |\n")
	for _, r := range ratios {
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s | %sx | %s |\n", r.Workload, r.Protocol, r.Metric, r.Peer,
			FormatFloat(r.Baseline), FormatFloat(r.PeerVal), r.Unit, FormatFloat(r.Value), betterWord(r.Better))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func betterWord(b Better) string {
	if b == Neither {
		return "-"
	}
	return string(b)
}

// WriteResults writes each result's metrics as an aligned text block.
func WriteResults(w io.Writer, results []Result) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, r := range results {
		client := ""
		if r.Client != "" {
			client = ", " + string(r.Client) + " client"
		}
		fmt.Fprintf(tw, "== %s on %s (%s%s), median of %d run(s)\n", r.Workload, r.Target, r.Protocol, client, r.Runs)
		if r.Error != "" {
			fmt.Fprintf(tw, "  error: %s\n", r.Error)
		}
		for _, n := range r.Notes {
			fmt.Fprintf(tw, "  note: %s\n", n)
		}
		for _, m := range r.Metrics {
			of := ""
			if m.Runs > 0 && m.Runs < r.Runs {
				of = fmt.Sprintf(" (in %d of %d runs)", m.Runs, r.Runs)
			}
			fmt.Fprintf(tw, "  %s\t%s\t%s%s\n", m.Name, FormatFloat(m.Value), m.Unit, of)
		}
	}
	return tw.Flush()
}
