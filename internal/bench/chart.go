package bench

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

// WindowP99 groups reads into windows of width w by start time (relative
// to zero) and returns each non-empty window's p99 in milliseconds, as
// chart points at the window's middle (seconds since zero).
func WindowP99(reads []readSample, zero time.Time, w time.Duration) plotter.XYs {
	byWindow := map[int64][]time.Duration{}
	for _, s := range reads {
		off := s.at.Sub(zero)
		k := int64(off / w)
		if off < 0 {
			k-- // floor, so windows straddle zero the same on both sides
		}
		byWindow[k] = append(byWindow[k], s.lat)
	}
	keys := make([]int64, 0, len(byWindow))
	for k := range byWindow {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	xys := make(plotter.XYs, 0, len(keys))
	for _, k := range keys {
		l := Summarize(byWindow[k])
		mid := (time.Duration(k)*w + w/2).Seconds()
		xys = append(xys, plotter.XY{X: mid, Y: max(float64(l.P99)/float64(time.Millisecond), minChartMs)})
	}
	return xys
}

// minChartMs is the floor of the log-scale latency axis.
const minChartMs = 0.001

// WriteCharts writes PNG charts of the results that carry series (storm,
// steady, purge; one chart per workload, protocol and quantity, every
// target a line) into dir and returns their paths.
func WriteCharts(dir string, results []Result, window time.Duration) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("chart dir: %w", err)
	}
	type group struct {
		workload string
		protocol Protocol
	}
	var order []group
	members := map[group][]Result{}
	for _, r := range results {
		if r.series == nil {
			continue
		}
		g := group{r.Workload, r.Protocol}
		if _, ok := members[g]; !ok {
			order = append(order, g)
		}
		members[g] = append(members[g], r)
	}
	var paths []string
	for _, g := range order {
		rs := members[g]
		xlabel := "seconds since the due instant"
		if g.workload == "steady" {
			xlabel = "seconds since writes began"
		}
		if len(rs[0].series.reads) > 0 {
			p := newPlot(fmt.Sprintf("%s (%s): foreground read p99 per %s window", g.workload, g.protocol, window), xlabel, "read p99 (ms, log scale)")
			p.Y.Scale = plot.LogScale{}
			p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
			var lines []namedXYs
			for _, r := range rs {
				lines = append(lines, namedXYs{r.Target, WindowP99(r.series.reads, r.series.zero, window)})
			}
			path := filepath.Join(dir, fmt.Sprintf("%s-%s-latency.png", g.workload, g.protocol))
			if err := savePlot(p, lines, rs, path); err != nil {
				return nil, err
			}
			paths = append(paths, path)
		}
		p := newPlot(fmt.Sprintf("%s (%s): %s", g.workload, g.protocol, rs[0].series.countLabel), xlabel, rs[0].series.countLabel)
		var lines []namedXYs
		for _, r := range rs {
			var xys plotter.XYs
			for _, c := range r.series.counts {
				xys = append(xys, plotter.XY{X: c.at.Sub(r.series.zero).Seconds(), Y: float64(c.n)})
			}
			lines = append(lines, namedXYs{r.Target, xys})
		}
		path := filepath.Join(dir, fmt.Sprintf("%s-%s-counts.png", g.workload, g.protocol))
		if err := savePlot(p, lines, rs, path); err != nil {
			return nil, err
		}
		paths = append(paths, path)
	}
	return paths, nil
}

type namedXYs struct {
	name string
	xys  plotter.XYs
}

func newPlot(title, x, y string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = x
	p.Y.Label.Text = y
	p.Legend.Top = true
	p.Add(plotter.NewGrid())
	return p
}

// savePlot draws each line and, dashed in the same colour, each result's
// marks as vertical lines over the data's range.
func savePlot(p *plot.Plot, lines []namedXYs, rs []Result, path string) error {
	lo, hi := 0.0, 0.0
	first := true
	for _, l := range lines {
		for _, xy := range l.xys {
			if first {
				lo, hi, first = xy.Y, xy.Y, false
			}
			lo, hi = min(lo, xy.Y), max(hi, xy.Y)
		}
	}
	if first {
		return nil
	}
	if hi == lo {
		hi = lo + 1
	}
	for i, l := range lines {
		if len(l.xys) == 0 {
			continue
		}
		line, err := plotter.NewLine(l.xys)
		if err != nil {
			return fmt.Errorf("chart %s: %w", path, err)
		}
		line.Color = plotutil.Color(i)
		line.Width = vg.Points(1.2)
		p.Add(line)
		p.Legend.Add(l.name, line)
		for _, m := range rs[i].series.marks {
			x := m.at.Sub(rs[i].series.zero).Seconds()
			ml, err := plotter.NewLine(plotter.XYs{{X: x, Y: lo}, {X: x, Y: hi}})
			if err != nil {
				return fmt.Errorf("chart %s: %w", path, err)
			}
			ml.Color = plotutil.Color(i)
			ml.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
			p.Add(ml)
			switch {
			case m.label != "due":
				p.Legend.Add(l.name+": "+m.label, ml)
			case i == 0:
				p.Legend.Add("due", ml)
			}
		}
	}
	if err := p.Save(9*vg.Inch, 4.5*vg.Inch, path); err != nil {
		return fmt.Errorf("chart %s: %w", path, err)
	}
	return nil
}
