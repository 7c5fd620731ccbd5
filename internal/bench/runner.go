package bench

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"runtime"
	"strings"
	"time"
)

// workload is one of the scenarios.
type workload struct {
	name      string
	protocols []Protocol
	// needsDataDir marks workloads that run only on targets with --data-dir.
	needsDataDir bool
	// onRequest marks workloads that run only when named, not by default.
	onRequest bool
	run       func(ctx context.Context, e *env, c *conn) Result
}

var workloads = []workload{
	{name: "kv", protocols: []Protocol{RESP}, run: runKV},
	{name: "doc", protocols: []Protocol{Mongo}, run: runDoc},
	{name: "storm", protocols: []Protocol{RESP, Mongo}, run: runStorm},
	{name: "sparse", protocols: []Protocol{RESP, Mongo}, run: runSparse},
	{name: "steady", protocols: []Protocol{RESP, Mongo}, run: runSteady},
	{name: "purge", protocols: []Protocol{RESP, Mongo}, needsDataDir: true, run: runPurge},
	{name: "scale", protocols: []Protocol{RESP}, onRequest: true, run: runScale},
	{name: "docscale", protocols: []Protocol{Mongo}, onRequest: true, run: runDocScale},
}

// WorkloadNames lists the workloads in the order a full run takes them.
func WorkloadNames() []string {
	names := make([]string, len(workloads))
	for i, w := range workloads {
		names[i] = w.name
	}
	return names
}

// defaultWorkloads lists the workloads a run without names takes.
func defaultWorkloads() []string {
	var names []string
	for _, w := range workloads {
		if !w.onRequest {
			names = append(names, w.name)
		}
	}
	return names
}

func (w workload) applies(t Target) bool {
	if w.needsDataDir && t.DataDir == "" {
		return false
	}
	for _, p := range w.protocols {
		if p == t.Protocol {
			return true
		}
	}
	return false
}

// env is what workloads share within a run.
type env struct {
	opts Options
	prog *Progress
}

// reset empties what the bench uses on c: FLUSHDB of its RESP db, or a
// drop of its MongoDB database.
func (e *env) reset(ctx context.Context, c *conn) error {
	if c.Protocol == RESP {
		if err := c.rdb.FlushDB(ctx).Err(); err != nil {
			return fmt.Errorf("FLUSHDB: %w", err)
		}
		return nil
	}
	if err := c.mongo.Database(e.opts.Database).Drop(ctx); err != nil {
		return fmt.Errorf("drop database %s: %w", e.opts.Database, err)
	}
	return nil
}

// Machine describes where the bench ran.
type Machine struct {
	OS        string `json:"os"`
	Arch      string `json:"arch"`
	CPUs      int    `json:"cpus"`
	CPUModel  string `json:"cpu_model,omitempty"`
	MemoryKiB int64  `json:"memory_kib,omitempty"`
	Go        string `json:"go"`
}

// Describe returns this machine's description (CPU model and memory from
// /proc on Linux).
func Describe() Machine {
	m := Machine{OS: runtime.GOOS, Arch: runtime.GOARCH, CPUs: runtime.NumCPU(), Go: runtime.Version()}
	if f, err := os.Open("/proc/cpuinfo"); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
				m.CPUModel = strings.TrimSpace(v)
				break
			}
		}
		f.Close()
	}
	if f, err := os.Open("/proc/meminfo"); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			var kib int64
			if n, _ := fmt.Sscanf(sc.Text(), "MemTotal: %d kB", &kib); n == 1 {
				m.MemoryKiB = kib
				break
			}
		}
		f.Close()
	}
	return m
}

func (m Machine) String() string {
	return fmt.Sprintf("%s/%s, %d CPUs (%s), %.1f GiB, %s", m.OS, m.Arch, m.CPUs, m.CPUModel, float64(m.MemoryKiB)/(1<<20), m.Go)
}

// Report is the outcome of a bench run.
type Report struct {
	Started time.Time  `json:"started"`
	Elapsed float64    `json:"elapsed_s"`
	Machine Machine    `json:"machine"`
	Options Options    `json:"options"`
	Results []Result   `json:"results"`
	Ratios  []Ratio    `json:"ratios"`
	Checks  []Check    `json:"checks"`
	Charts  []string   `json:"charts,omitempty"`
	PerRun  [][]Result `json:"per_run"`
}

// Run drives every workload on every target it applies to, opts.Runs
// times (targets interleaved within each workload), and returns the
// medians, the baseline/peer ratios and the targets. A workload
// that fails on a target is reported in that result's Error; Run fails
// only when a target cannot be reached or ctx ends.
func Run(ctx context.Context, opts Options) (*Report, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	rep := &Report{Started: time.Now(), Machine: Describe(), Options: opts}
	e := &env{opts: opts, prog: opts.Progress}
	pool := opts.Readers + max(loadWorkers, steadyWriters) + 2
	conns := make([]*conn, 0, len(opts.Targets))
	defer func() {
		for _, c := range conns {
			_ = c.close(context.WithoutCancel(ctx))
		}
	}()
	for _, t := range opts.Targets {
		c, err := dial(ctx, t, opts.DB, pool)
		if err != nil {
			return nil, err
		}
		conns = append(conns, c)
	}
	for run := range opts.Runs {
		var results []Result
		for _, name := range opts.Workloads {
			w := workloadByName(name)
			for _, c := range conns {
				if !w.applies(c.Target) {
					continue
				}
				e.prog.Phase("run %d/%d: %s on %s", run+1, opts.Runs, w.name, c)
				res := w.run(ctx, e, c)
				if err := ctx.Err(); err != nil {
					return nil, err
				}
				if res.Error != "" {
					e.prog.Phase("%s on %s failed: %s", w.name, c, res.Error)
				}
				results = append(results, res)
			}
		}
		rep.PerRun = append(rep.PerRun, results)
	}
	rep.Results = MedianResults(rep.PerRun)
	rep.Ratios = Ratios(rep.Results, opts.Baseline)
	rep.Checks = EvaluateChecks(rep.Results, opts.Pipeline)
	if opts.ChartDir != "" {
		charts, err := WriteCharts(opts.ChartDir, rep.Results, opts.Window)
		if err != nil {
			return nil, err
		}
		rep.Charts = charts
	}
	rep.Elapsed = time.Since(rep.Started).Seconds()
	return rep, nil
}

func workloadByName(name string) workload {
	for _, w := range workloads {
		if w.name == name {
			return w
		}
	}
	panic("bench: workload " + name + " passed Validate but does not exist")
}
