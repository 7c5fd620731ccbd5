package replica

import (
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	"github.com/hashicorp/raft"

	"github.com/mayfly/mayfly/internal/storage"
)

// LogStore is raft's log and stable store on a storage.Store of its own
// (the member's raft/ directory), so that the log has the member's
// durability. Entries are keyed PrefixRaftLog [index, 8 bytes big-endian];
// stable values PrefixRaftStable [key].
type LogStore struct {
	st *storage.Store
}

var (
	_ raft.LogStore    = (*LogStore)(nil)
	_ raft.StableStore = (*LogStore)(nil)
)

// errNotFound is the error raft's stable store readers recognise by its
// text.
var errNotFound = errors.New("not found")

// NewLogStore returns a log store on st, which it does not own.
func NewLogStore(st *storage.Store) *LogStore { return &LogStore{st: st} }

func logKey(index uint64) []byte {
	k := make([]byte, 9)
	k[0] = storage.PrefixRaftLog
	binary.BigEndian.PutUint64(k[1:], index)
	return k
}

// edgeIndex returns the first (last false) or last index stored, 0 when
// the log is empty.
func (l *LogStore) edgeIndex(last bool) (uint64, error) {
	it, err := l.st.NewIter([]byte{storage.PrefixRaftLog}, []byte{storage.PrefixRaftLog + 1})
	if err != nil {
		return 0, fmt.Errorf("replica: raft log: %w", err)
	}
	defer it.Close()
	var ok bool
	if last {
		ok = it.Last()
	} else {
		ok = it.First()
	}
	if !ok {
		return 0, it.Error()
	}
	k := it.Key()
	if len(k) != 9 {
		return 0, fmt.Errorf("replica: raft log key of %d bytes", len(k))
	}
	return binary.BigEndian.Uint64(k[1:]), nil
}

// FirstIndex returns the first index in the log, 0 when it is empty.
func (l *LogStore) FirstIndex() (uint64, error) { return l.edgeIndex(false) }

// LastIndex returns the last index in the log, 0 when it is empty.
func (l *LogStore) LastIndex() (uint64, error) { return l.edgeIndex(true) }

// GetLog reads the entry at index into out.
func (l *LogStore) GetLog(index uint64, out *raft.Log) error {
	v, err := l.st.Get(logKey(index))
	if errors.Is(err, storage.ErrNotFound) {
		return raft.ErrLogNotFound
	}
	if err != nil {
		return fmt.Errorf("replica: read raft log entry %d: %w", index, err)
	}
	return decodeLog(index, v, out)
}

// StoreLog appends one entry.
func (l *LogStore) StoreLog(log *raft.Log) error { return l.StoreLogs([]*raft.Log{log}) }

// StoreLogs appends entries in one batch.
func (l *LogStore) StoreLogs(logs []*raft.Log) error {
	b := l.st.NewBatch()
	defer b.Close()
	for _, e := range logs {
		if err := b.Set(logKey(e.Index), encodeLog(e)); err != nil {
			return err
		}
	}
	if err := b.Commit(); err != nil {
		return fmt.Errorf("replica: append to the raft log: %w", err)
	}
	return nil
}

// DeleteRange removes the entries in [min, max].
func (l *LogStore) DeleteRange(min, max uint64) error {
	b := l.st.NewBatch()
	defer b.Close()
	end := []byte{storage.PrefixRaftLog + 1}
	if max != ^uint64(0) {
		end = logKey(max + 1)
	}
	if err := b.DeleteRange(logKey(min), end); err != nil {
		return err
	}
	if err := b.Commit(); err != nil {
		return fmt.Errorf("replica: truncate the raft log: %w", err)
	}
	return nil
}

func stableKey(key []byte) []byte { return storage.Key(storage.PrefixRaftStable, key) }

// Set stores a stable value.
func (l *LogStore) Set(key, val []byte) error {
	b := l.st.NewBatch()
	defer b.Close()
	if err := b.Set(stableKey(key), val); err != nil {
		return err
	}
	if err := b.Commit(); err != nil {
		return fmt.Errorf("replica: write raft stable value: %w", err)
	}
	// The term and the vote must survive a crash whatever the durability:
	// a member voting twice in one term would break raft's safety.
	return l.st.SyncWAL()
}

// Get reads a stable value; a missing one is an error reading "not found".
func (l *LogStore) Get(key []byte) ([]byte, error) {
	v, err := l.st.Get(stableKey(key))
	if errors.Is(err, storage.ErrNotFound) {
		return nil, errNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("replica: read raft stable value: %w", err)
	}
	return v, nil
}

// SetUint64 stores a stable number.
func (l *LogStore) SetUint64(key []byte, val uint64) error {
	return l.Set(key, binary.BigEndian.AppendUint64(nil, val))
}

// GetUint64 reads a stable number; a missing one is 0.
func (l *LogStore) GetUint64(key []byte) (uint64, error) {
	v, err := l.Get(key)
	if errors.Is(err, errNotFound) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	if len(v) != 8 {
		return 0, fmt.Errorf("replica: raft stable value %q of %d bytes", key, len(v))
	}
	return binary.BigEndian.Uint64(v), nil
}

// encodeLog is an entry as stored: term, type, appended-at (Unix ns, 0 for
// none),
// then data and extensions, each uvarint-length-prefixed. The index is
// the key.
func encodeLog(e *raft.Log) []byte {
	out := make([]byte, 0, 32+len(e.Data)+len(e.Extensions))
	out = binary.AppendUvarint(out, e.Term)
	out = append(out, byte(e.Type))
	var at int64 // 0 for no time
	if !e.AppendedAt.IsZero() {
		at = e.AppendedAt.UnixNano()
	}
	out = binary.AppendVarint(out, at)
	out = binary.AppendUvarint(out, uint64(len(e.Data)))
	out = append(out, e.Data...)
	out = binary.AppendUvarint(out, uint64(len(e.Extensions)))
	out = append(out, e.Extensions...)
	return out
}

var errBadLog = errors.New("replica: corrupt raft log entry")

func decodeLog(index uint64, v []byte, out *raft.Log) error {
	term, n := binary.Uvarint(v)
	if n <= 0 || len(v) < n+1 {
		return errBadLog
	}
	v = v[n:]
	typ := raft.LogType(v[0])
	v = v[1:]
	at, n := binary.Varint(v)
	if n <= 0 {
		return errBadLog
	}
	v = v[n:]
	data, v, ok := cutBytes(v)
	if !ok {
		return errBadLog
	}
	ext, _, ok := cutBytes(v)
	if !ok {
		return errBadLog
	}
	*out = raft.Log{Index: index, Term: term, Type: typ, Data: data, Extensions: ext}
	if at != 0 {
		out.AppendedAt = time.Unix(0, at)
	}
	return nil
}

func cutBytes(v []byte) (b, rest []byte, ok bool) {
	l, n := binary.Uvarint(v)
	if n <= 0 || uint64(len(v)-n) < l {
		return nil, nil, false
	}
	return v[n : n+int(l)], v[n+int(l):], true
}
