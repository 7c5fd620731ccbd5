// Package spill sorts more items than a memory budget holds, as MongoDB's
// external sorter does for a blocking sort: items are buffered while their
// accounted size stays within the budget; past it the buffer is sorted and
// written to a run file in a directory, and the sorted runs and the last
// buffer are merged when the items are read back. Without disk use the
// budget is a hard limit (ErrMemoryLimit).
//
// The sort is stable: items that compare equal come out in the order they
// were added. With Keep set only the first Keep items in order are kept
// (a sort followed by a limit), so memory holds at most about twice Keep
// items between trims. A Sorter's files are removed by Close, and at the
// latest when the directory is cleaned (docdb removes its temporary
// directory at startup).
package spill

import (
	"bufio"
	"container/heap"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
)

// ErrMemoryLimit is returned by Add when the buffered items exceed the
// memory budget and disk use is not allowed.
var ErrMemoryLimit = errors.New("spill: memory limit exceeded")

// Options configures a Sorter of items of type T.
type Options[T any] struct {
	// Compare orders two items (negative, zero, positive).
	Compare func(a, b T) int
	// Size is the memory an item holds, in bytes.
	Size func(v T) int64
	// Encode appends the item's encoding to dst; Decode reverses it and
	// must not keep b, which is reused.
	Encode func(dst []byte, v T) ([]byte, error)
	Decode func(b []byte) (T, error)
	// MaxMemory is the budget of buffered items, in bytes.
	MaxMemory int64
	// AllowDisk lets the Sorter write runs past the budget.
	AllowDisk bool
	// Dir is the directory of the run files; it is created when needed.
	Dir string
	// Keep, when positive, keeps only the first Keep items in order.
	Keep int64
}

// Sorter sorts items. Add them, then call Sort once and read them with
// Next; Close removes its files. A Sorter is not safe for concurrent use.
type Sorter[T any] struct {
	o      Options[T]
	buf    []T
	mem    int64
	runs   []*run
	merge  *mergeHeap[T]
	sorted bool
	out    int64
	closed bool
	enc    []byte
}

// run is one sorted run file.
type run struct {
	f    *os.File
	path string
	r    *bufio.Reader
	n    int64 // items written
}

// New returns an empty Sorter.
func New[T any](o Options[T]) *Sorter[T] {
	return &Sorter[T]{o: o}
}

// Add buffers v, trimming to Keep and spilling a run as the budget
// requires.
func (s *Sorter[T]) Add(v T) error {
	if s.sorted || s.closed {
		return errors.New("spill: Add after Sort or Close")
	}
	s.buf = append(s.buf, v)
	s.mem += s.o.Size(v)
	if s.o.Keep > 0 && int64(len(s.buf)) >= 2*s.o.Keep+64 {
		s.trim()
	}
	if s.mem <= s.o.MaxMemory {
		return nil
	}
	if s.o.Keep > 0 {
		s.trim()
		if s.mem <= s.o.MaxMemory {
			return nil
		}
	}
	if !s.o.AllowDisk {
		return ErrMemoryLimit
	}
	return s.spill()
}

// SpillNow writes the buffered items as a run at once, whatever the
// budget says (a caller that accounts memory itself decides when). An
// empty buffer writes nothing.
func (s *Sorter[T]) SpillNow() error {
	if s.sorted || s.closed {
		return errors.New("spill: SpillNow after Sort or Close")
	}
	if len(s.buf) == 0 {
		return nil
	}
	return s.spill()
}

// Runs returns the number of runs written to disk so far.
func (s *Sorter[T]) Runs() int { return len(s.runs) }

// sortBuf sorts the buffer stably and drops what Keep excludes.
func (s *Sorter[T]) sortBuf() {
	slices.SortStableFunc(s.buf, s.o.Compare)
	if s.o.Keep > 0 && int64(len(s.buf)) > s.o.Keep {
		clear(s.buf[s.o.Keep:])
		s.buf = s.buf[:s.o.Keep]
	}
}

// trim sorts the buffer, keeps its first Keep items and recounts its size.
func (s *Sorter[T]) trim() {
	s.sortBuf()
	s.mem = 0
	for _, v := range s.buf {
		s.mem += s.o.Size(v)
	}
}

// spill writes the sorted buffer as a new run and empties the buffer.
func (s *Sorter[T]) spill() error {
	s.sortBuf()
	if err := os.MkdirAll(s.o.Dir, 0o700); err != nil {
		return fmt.Errorf("spill: create directory: %w", err)
	}
	f, err := os.CreateTemp(s.o.Dir, "sort-*.run")
	if err != nil {
		return fmt.Errorf("spill: create run: %w", err)
	}
	r := &run{f: f, path: f.Name()}
	s.runs = append(s.runs, r)
	w := bufio.NewWriterSize(f, 64<<10)
	for _, v := range s.buf {
		s.enc, err = s.o.Encode(s.enc[:0], v)
		if err != nil {
			return fmt.Errorf("spill: encode: %w", err)
		}
		var n [binary.MaxVarintLen64]byte
		if _, err := w.Write(n[:binary.PutUvarint(n[:], uint64(len(s.enc)))]); err != nil {
			return fmt.Errorf("spill: write run: %w", err)
		}
		if _, err := w.Write(s.enc); err != nil {
			return fmt.Errorf("spill: write run: %w", err)
		}
		r.n++
	}
	if err := w.Flush(); err != nil {
		return fmt.Errorf("spill: write run: %w", err)
	}
	s.buf = nil
	s.mem = 0
	return nil
}

// Sort ends the adding: the buffer is sorted and the runs are opened for
// the merge.
func (s *Sorter[T]) Sort() error {
	if s.sorted {
		return nil
	}
	s.sorted = true
	s.sortBuf()
	if len(s.runs) == 0 {
		return nil
	}
	s.merge = &mergeHeap[T]{cmp: s.o.Compare}
	for i, r := range s.runs {
		if _, err := r.f.Seek(0, io.SeekStart); err != nil {
			return fmt.Errorf("spill: rewind run: %w", err)
		}
		r.r = bufio.NewReaderSize(r.f, 32<<10)
		h, ok, err := s.readNext(i)
		if err != nil {
			return err
		}
		if ok {
			s.merge.items = append(s.merge.items, h)
		}
	}
	// The buffer is the last source: it holds the latest items.
	if len(s.buf) > 0 {
		s.merge.items = append(s.merge.items, head[T]{v: s.buf[0], src: len(s.runs), pos: 1})
	}
	heap.Init(s.merge)
	return nil
}

// readNext reads the next item of run i, if any.
func (s *Sorter[T]) readNext(i int) (head[T], bool, error) {
	r := s.runs[i]
	n, err := binary.ReadUvarint(r.r)
	if errors.Is(err, io.EOF) {
		return head[T]{}, false, nil
	}
	if err != nil {
		return head[T]{}, false, fmt.Errorf("spill: read run: %w", err)
	}
	if cap(s.enc) < int(n) {
		s.enc = make([]byte, n)
	}
	b := s.enc[:n]
	if _, err := io.ReadFull(r.r, b); err != nil {
		return head[T]{}, false, fmt.Errorf("spill: read run: %w", err)
	}
	v, err := s.o.Decode(b)
	if err != nil {
		return head[T]{}, false, fmt.Errorf("spill: decode: %w", err)
	}
	return head[T]{v: v, src: i}, true, nil
}

// Next returns the next item in order; ok is false at the end.
func (s *Sorter[T]) Next() (v T, ok bool, err error) {
	var zero T
	if !s.sorted || s.closed || (s.o.Keep > 0 && s.out >= s.o.Keep) {
		return zero, false, nil
	}
	if s.merge == nil {
		if s.out >= int64(len(s.buf)) {
			return zero, false, nil
		}
		v = s.buf[s.out]
		s.buf[s.out] = zero
		s.out++
		return v, true, nil
	}
	if s.merge.Len() == 0 {
		return zero, false, nil
	}
	h := heap.Pop(s.merge).(head[T])
	s.out++
	if h.src == len(s.runs) {
		s.buf[h.pos-1] = zero
		if h.pos < len(s.buf) {
			heap.Push(s.merge, head[T]{v: s.buf[h.pos], src: h.src, pos: h.pos + 1})
		}
	} else {
		next, ok, err := s.readNext(h.src)
		if err != nil {
			return zero, false, err
		}
		if ok {
			heap.Push(s.merge, next)
		}
	}
	return h.v, true, nil
}

// Close removes the run files; it may be called more than once.
func (s *Sorter[T]) Close() error {
	if s.closed {
		return nil
	}
	s.closed = true
	var errs []error
	for _, r := range s.runs {
		r.f.Close()
		if err := os.Remove(r.path); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	s.runs, s.buf, s.merge = nil, nil, nil
	return errors.Join(errs...)
}

// head is the current item of one merge source: a run, or the buffer
// (src == number of runs, pos the index of the next buffered item).
type head[T any] struct {
	v   T
	src int
	pos int
}

// mergeHeap orders the sources' heads; equal items come from the earlier
// source first, which keeps the sort stable.
type mergeHeap[T any] struct {
	items []head[T]
	cmp   func(a, b T) int
}

func (h *mergeHeap[T]) Len() int { return len(h.items) }
func (h *mergeHeap[T]) Less(i, j int) bool {
	if c := h.cmp(h.items[i].v, h.items[j].v); c != 0 {
		return c < 0
	}
	return h.items[i].src < h.items[j].src
}
func (h *mergeHeap[T]) Swap(i, j int) { h.items[i], h.items[j] = h.items[j], h.items[i] }
func (h *mergeHeap[T]) Push(x any)    { h.items = append(h.items, x.(head[T])) }
func (h *mergeHeap[T]) Pop() any {
	n := len(h.items)
	x := h.items[n-1]
	h.items = h.items[:n-1]
	return x
}
