package bench

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// DirScan is one look at a data directory.
type DirScan struct {
	// Bytes is the total size of its regular files.
	Bytes int64
	// Files is the number of regular files.
	Files int
	// WithMarker lists the files (relative paths) holding the marker.
	WithMarker []string
}

// ScanDir reads every regular file under dir and reports the ones that
// contain marker, and the disk usage. Files that vanish while it reads
// (compactions delete them) are skipped.
func ScanDir(dir string, marker []byte) (DirScan, error) {
	var s DirScan
	buf := make([]byte, 1<<20)
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) && path != dir {
				return nil
			}
			return err
		}
		if !d.Type().IsRegular() {
			return nil
		}
		found, size, err := fileContains(path, marker, buf)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		s.Files++
		s.Bytes += size
		if found {
			rel, _ := filepath.Rel(dir, path)
			s.WithMarker = append(s.WithMarker, rel)
		}
		return nil
	})
	if err != nil {
		return DirScan{}, fmt.Errorf("scan %s: %w", dir, err)
	}
	return s, nil
}

// fileContains streams path through buf, keeping len(marker)-1 bytes of
// overlap so a marker split across reads is still found.
func fileContains(path string, marker, buf []byte) (bool, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return false, 0, err
	}
	defer f.Close()
	keep := len(marker) - 1
	var size int64
	have := 0
	found := false
	for {
		n, err := f.Read(buf[have:])
		size += int64(n)
		have += n
		if !found && bytes.Contains(buf[:have], marker) {
			found = true
		}
		if err == io.EOF {
			return found, size, nil
		}
		if err != nil {
			return false, size, err
		}
		if have > keep {
			copy(buf, buf[have-keep:have])
			have = keep
		}
	}
}

// newMarker returns bytes unique to this run, so finding them on disk can
// only mean this run's items.
func newMarker() []byte {
	b := make([]byte, 12)
	_, _ = rand.Read(b)
	return []byte("mfpurge-" + hex.EncodeToString(b))
}

// runPurge writes opts.PurgeItems items whose values carry a marker unique
// to the run, all due opts.Lead after the load, and measures how long after
// the due instant the server's counters say they are deleted and how long
// until no file of the target's data directory holds the marker, with the
// directory's size over time. opts.Timeout bounds the wait.
func runPurge(ctx context.Context, e *env, c *conn) Result {
	r := Result{Target: c.Label, Protocol: c.Protocol, Workload: "purge"}
	o := e.opts
	marker := newMarker()
	val := append(append([]byte{}, marker...), value(max(o.ValueSize-len(marker), 0), 'p')...)
	if err := e.prepareExpiring(ctx, c, &r); err != nil {
		r.Error = err.Error()
		return r
	}
	before, err := ScanDir(c.DataDir, marker)
	if err != nil {
		r.Error = err.Error()
		return r
	}
	due, _, err := e.loadBeforeDue(ctx, c, &r, "purge", o.PurgeItems, func(_ int, due time.Time) time.Time { return due }, val, nil)
	if err != nil {
		r.Error = err.Error()
		return r
	}
	pl := e.startPoller(ctx, c)
	base, err := e.waitFor(ctx, pl, time.Now().Add(o.Timeout), "purge baseline", func(counterSample) bool { return true })
	if err != nil {
		_, _ = pl.stop()
		r.Error = fmt.Sprintf("read counters: %v", err)
		return r
	}
	s := &series{zero: due, countLabel: "data directory size (bytes)", marks: []mark{{at: due, label: "due"}}}
	var (
		deletedAt, purgedAt time.Time
		seen, hiddenEarly   bool
		maxBytes            int64
		last                DirScan
	)
	deadline := due.Add(o.Timeout)
	for ctx.Err() == nil {
		now := time.Now()
		scan, err := ScanDir(c.DataDir, marker)
		if err != nil {
			r.Error = err.Error()
			break
		}
		last = scan
		s.counts = append(s.counts, countPoint{at: now, n: scan.Bytes})
		maxBytes = max(maxBytes, scan.Bytes)
		if len(scan.WithMarker) > 0 {
			seen = true
		}
		if cs, ok, _ := pl.last(); ok && deletedAt.IsZero() && now.After(due) && cs.Deleted-base.Deleted >= int64(o.PurgeItems) {
			deletedAt = cs.at
		}
		if seen && deletedAt.IsZero() && len(scan.WithMarker) == 0 {
			hiddenEarly = true
		}
		if now.After(due) && !deletedAt.IsZero() && len(scan.WithMarker) == 0 {
			purgedAt = now
			break
		}
		if now.After(deadline) {
			break
		}
		e.prog.Update("purge: %d file(s) hold the marker, %d bytes on disk, deleted: %t", len(scan.WithMarker), scan.Bytes, !deletedAt.IsZero())
		select {
		case <-ctx.Done():
		case <-time.After(o.PurgeScan):
		}
	}
	e.prog.Done()
	if _, err := pl.stop(); err != nil && r.Error == "" {
		r.Error = err.Error()
	}
	if r.Error != "" {
		return r
	}
	r.add("disk.before", float64(before.Bytes), "bytes", Neither)
	r.add("disk.max", float64(maxBytes), "bytes", Lower)
	r.add("disk.final", float64(last.Bytes), "bytes", Lower)
	if !seen {
		r.notef("the marker never appeared in the data directory (is --data-dir the server's directory?)")
	}
	if hiddenEarly {
		r.notef("the marker left every file while the items were still there: the server stores values transformed (compressed), so a byte scan cannot see them and bytes_gone_after is a lower bound")
	}
	if !deletedAt.IsZero() {
		r.add("deleted_after", deletedAt.Sub(due).Seconds(), "s", Lower)
	} else {
		r.notef("the server's counters did not count all %d deletions within --timeout %s", o.PurgeItems, o.Timeout)
	}
	if !purgedAt.IsZero() {
		r.add("bytes_gone_after", purgedAt.Sub(due).Seconds(), "s", Lower)
		s.marks = append(s.marks, mark{at: purgedAt, label: "marker gone"})
	} else {
		r.notef("after --timeout %s the marker is still in %d file(s): %v", o.Timeout, len(last.WithMarker), last.WithMarker)
		r.add("files_with_marker", float64(len(last.WithMarker)), "files", Lower)
	}
	r.series = s
	if err := e.reset(ctx, c); err != nil {
		r.notef("cleanup: %v", err)
	}
	return r
}
