package replica

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync/atomic"

	"github.com/hashicorp/raft"

	"github.com/mayfly/mayfly/internal/storage"
)

// originLen is the length of the origin id that starts every entry.
const originLen = 8

// FSM is raft's state machine: it applies committed batches to the store.
type FSM struct {
	st     *storage.Store
	origin [originLen]byte
	// onForeign is called after an entry proposed by another process (or
	// a snapshot restore) has been applied; nil for none.
	onForeign func()
	// log, when set, receives apply failures: a follower's are seen by
	// nobody else.
	log *slog.Logger
	// applied is the index of the last entry whose effects the store
	// shows; 0 until the first apply or a restore that names its index.
	applied atomic.Uint64
}

var _ raft.BatchingFSM = (*FSM)(nil)

// NewFSM returns the state machine of store st for the process whose
// proposals carry origin.
func NewFSM(st *storage.Store, origin [originLen]byte, onForeign func()) *FSM {
	return &FSM{st: st, origin: origin, onForeign: onForeign}
}

// entry returns the log entry data proposing repr from origin.
func entry(origin [originLen]byte, repr []byte) []byte {
	out := make([]byte, originLen, originLen+len(repr))
	copy(out, origin[:])
	return append(out, repr...)
}

// Applied returns the index of the last log entry whose effects are in
// the store and visible to its readers, and whether it is known. Unlike
// raft's AppliedIndex, which moves when entries are handed to the state
// machine, it moves only once they are applied; after a restore from a
// snapshot that does not name its index it is unknown until the next
// apply.
func (f *FSM) Applied() (uint64, bool) {
	i := f.applied.Load()
	return i, i != 0
}

// Apply applies one committed batch. Its result is the apply's error (nil
// when it succeeded), which the proposer receives from its future.
func (f *FSM) Apply(l *raft.Log) any { return f.ApplyBatch([]*raft.Log{l})[0] }

// ApplyBatch applies committed entries in order. The batches of all its
// command entries are applied to the store as one commit; when that
// fails, each is applied by itself, so that each proposer receives its own
// batch's error.
func (f *FSM) ApplyBatch(logs []*raft.Log) []any {
	if len(logs) > 0 {
		defer f.applied.Store(logs[len(logs)-1].Index)
	}
	out := make([]any, len(logs))
	reprs := make([][]byte, 0, len(logs))
	foreign := false
	for i, l := range logs {
		if l.Type != raft.LogCommand {
			continue
		}
		if len(l.Data) < originLen {
			out[i] = fmt.Errorf("replica: log entry %d of %d bytes", l.Index, len(l.Data))
			continue
		}
		reprs = append(reprs, l.Data[originLen:])
		foreign = foreign || [originLen]byte(l.Data[:originLen]) != f.origin
	}
	if len(reprs) == 0 {
		return out
	}
	if err := f.st.ApplyReplicated(reprs...); err != nil {
		foreign = false
		for i, l := range logs {
			if l.Type != raft.LogCommand || out[i] != nil {
				continue
			}
			if err := f.st.ApplyReplicated(l.Data[originLen:]); err != nil {
				err = fmt.Errorf("replica: apply log entry %d: %w", l.Index, err)
				if f.log != nil {
					f.log.Error("replica: a committed batch could not be applied; this member's data is behind", "err", err)
				}
				out[i] = err
				continue
			}
			foreign = foreign || [originLen]byte(l.Data[:originLen]) != f.origin
		}
	}
	if foreign && f.onForeign != nil {
		f.onForeign()
	}
	return out
}

// Snapshot captures the store as of now. The write-ahead log is synced
// first, so that the store holds durably every entry the snapshot covers.
func (f *FSM) Snapshot() (raft.FSMSnapshot, error) {
	if err := f.st.SyncWAL(); err != nil {
		return nil, fmt.Errorf("replica: snapshot: %w", err)
	}
	return &fsmSnapshot{snap: f.st.NewSnapshot(), index: f.applied.Load()}, nil
}

// Restore replaces the store's content with a snapshot's.
func (f *FSM) Restore(r io.ReadCloser) error {
	defer r.Close()
	br := bufio.NewReaderSize(r, 1<<16)
	var key, val []byte
	next := func() ([]byte, []byte, error) {
		var err error
		if key, err = readChunk(br, key); err != nil {
			return nil, nil, err // io.EOF at a pair's boundary ends the stream
		}
		if val, err = readChunk(br, val); err != nil {
			return nil, nil, noEOF(err)
		}
		return key, val, nil
	}
	var index uint64
	first := true
	pairs := func() ([]byte, []byte, error) {
		k, v, err := next()
		if first && err == nil && len(k) == 0 {
			if len(v) != 8 {
				return nil, nil, fmt.Errorf("replica: snapshot index of %d bytes", len(v))
			}
			index = binary.BigEndian.Uint64(v)
			k, v, err = next()
		}
		first = false
		return k, v, err
	}
	if err := f.st.ReplaceAll(pairs); err != nil {
		return fmt.Errorf("replica: restore snapshot: %w", err)
	}
	f.applied.Store(index)
	if f.onForeign != nil {
		f.onForeign()
	}
	return nil
}

func noEOF(err error) error {
	if errors.Is(err, io.EOF) {
		return io.ErrUnexpectedEOF
	}
	return err
}

// readChunk reads one uvarint-length-prefixed chunk into buf's storage.
func readChunk(r *bufio.Reader, buf []byte) ([]byte, error) {
	n, err := binary.ReadUvarint(r)
	if err != nil {
		return nil, err
	}
	if n > 1<<31 {
		return nil, fmt.Errorf("replica: snapshot chunk of %d bytes", n)
	}
	if uint64(cap(buf)) < n {
		buf = make([]byte, n)
	}
	buf = buf[:n]
	if _, err := io.ReadFull(r, buf); err != nil {
		return nil, noEOF(err)
	}
	return buf, nil
}

// fsmSnapshot streams a storage snapshot as key/value pairs, each
// uvarint-length-prefixed. The first pair has an empty key (no store key
// is empty) and the snapshot's log index as its 8-byte big-endian value.
type fsmSnapshot struct {
	snap  *storage.Snapshot
	index uint64
}

func (s *fsmSnapshot) Persist(sink raft.SnapshotSink) error {
	err := s.write(sink)
	if err != nil {
		sink.Cancel()
		return err
	}
	return sink.Close()
}

func (s *fsmSnapshot) write(w io.Writer) error {
	it, err := s.snap.NewIter(nil, nil)
	if err != nil {
		return fmt.Errorf("replica: snapshot: %w", err)
	}
	defer it.Close()
	bw := bufio.NewWriterSize(w, 1<<16)
	var hdr [binary.MaxVarintLen64]byte
	writePair := func(pair ...[]byte) error {
		for _, b := range pair {
			n := binary.PutUvarint(hdr[:], uint64(len(b)))
			if _, err := bw.Write(hdr[:n]); err != nil {
				return fmt.Errorf("replica: write snapshot: %w", err)
			}
			if _, err := bw.Write(b); err != nil {
				return fmt.Errorf("replica: write snapshot: %w", err)
			}
		}
		return nil
	}
	if err := writePair(nil, binary.BigEndian.AppendUint64(nil, s.index)); err != nil {
		return err
	}
	for ok := it.First(); ok; ok = it.Next() {
		if err := writePair(it.Key(), it.Value()); err != nil {
			return err
		}
	}
	if err := it.Error(); err != nil {
		return fmt.Errorf("replica: snapshot: %w", err)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("replica: write snapshot: %w", err)
	}
	return nil
}

func (s *fsmSnapshot) Release() { s.snap.Close() }
