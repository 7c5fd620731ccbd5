package policy

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/storage"
)

// Long-running operations: every change of a TTL policy is an operation,
// stored under storage.PrefixOperation so that it survives restarts:
//
//	PrefixOperation 'o' [sequence u64] -> opRecord
//	PrefixOperation 'n'                -> next sequence number
//
// Enabling a policy builds the group's hidden indexes: that operation
// stays CREATING while the build runs, records its progress in the same
// storage batch as each chunk of index entries, and resumes where it
// stopped after a restart. Disabling and offset changes are metadata only
// and are done at once. The most recent maxDoneOperations finished
// operations are kept.

// MaxDoneOperations is how many finished operations are kept.
const MaxDoneOperations = 1000

// Operation keys.
const (
	opRecordKey byte = 'o'
	opNextKey   byte = 'n'
)

// OperationType says what an operation changes.
type OperationType string

// The operation types.
const (
	// OpEnableTTL enables a policy: it builds the hidden indexes.
	OpEnableTTL OperationType = "ENABLE_TTL"
	// OpDisableTTL disables a policy.
	OpDisableTTL OperationType = "DISABLE_TTL"
	// OpUpdateTTLOffset changes the offset of an active policy (metadata
	// only).
	OpUpdateTTLOffset OperationType = "UPDATE_TTL_OFFSET"
)

// OperationProgress is an operation's progress estimate.
type OperationProgress struct {
	// DocumentsScanned is the number of documents the build has indexed, out
	// of DocumentsEstimate (the group's documents when the operation
	// started, raised if the build finds more).
	DocumentsScanned, DocumentsEstimate int64
	// ExpiredFound counts the scanned documents that were already expired.
	ExpiredFound int64
	// Deleted counts the documents the policy deleted while the operation
	// ran.
	Deleted int64
}

// Operation is a long-running operation as the API reports it.
type Operation struct {
	// ID names the operation ("op-" and a sequence number).
	ID string
	// Type says what it changes.
	Type OperationType
	// Group, Field and Offset are the policy it changes.
	Group, Field string
	Offset       time.Duration
	// State is CREATING while an enable runs, then ACTIVE; NEEDS_REPAIR when
	// it failed; DISABLED for a disable, or for an enable a later change
	// superseded.
	State State
	// Done is true once the operation has ended.
	Done bool
	// Error says why it failed or was superseded.
	Error string
	// Start and End are when it started and ended (End is zero while it
	// runs).
	Start, End time.Time
	// Progress is its progress estimate.
	Progress OperationProgress
}

// opRecord is an operation as stored.
type opRecord struct {
	Seq      int64  `bson:"seq"`
	Type     string `bson:"type"`
	Group    string `bson:"group"`
	Field    string `bson:"field"`
	OffsetMs int64  `bson:"offsetMs"`
	State    string `bson:"state"`
	Done     bool   `bson:"done"`
	Error    string `bson:"error,omitempty"`
	Start    int64  `bson:"start"`
	End      int64  `bson:"end,omitempty"`
	Scanned  int64  `bson:"scanned"`
	Estimate int64  `bson:"estimate"`
	Expired  int64  `bson:"expired"`
	Deleted  int64  `bson:"deleted"`
	// ResumeColl and ResumeAfter say where the build stopped: the
	// collection it was indexing and the encoded _id of the last document
	// it indexed there.
	ResumeColl  int64  `bson:"resumeColl,omitempty"`
	ResumeAfter []byte `bson:"resumeAfter,omitempty"`
}

// operation returns the API form of r.
func (r *opRecord) operation() Operation {
	op := Operation{
		ID:     opID(uint64(r.Seq)),
		Type:   OperationType(r.Type),
		Group:  r.Group,
		Field:  r.Field,
		Offset: time.Duration(r.OffsetMs) * time.Millisecond,
		State:  State(r.State),
		Done:   r.Done,
		Error:  r.Error,
		Start:  time.UnixMilli(r.Start).UTC(),
		Progress: OperationProgress{
			DocumentsScanned:  r.Scanned,
			DocumentsEstimate: max(r.Estimate, r.Scanned),
			ExpiredFound:      r.Expired,
			Deleted:           r.Deleted,
		},
	}
	if r.Done {
		op.End = time.UnixMilli(r.End).UTC()
	}
	return op
}

// opID formats a sequence number as an operation id; 0 is no operation.
func opID(seq uint64) string {
	if seq == 0 {
		return ""
	}
	return "op-" + strconv.FormatUint(seq, 10)
}

// parseOpID parses an operation id.
func parseOpID(id string) (uint64, bool) {
	s, ok := strings.CutPrefix(id, "op-")
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseUint(s, 10, 64)
	return n, err == nil && n > 0
}

func opKey(seq uint64) []byte {
	return binary.BigEndian.AppendUint64([]byte{storage.PrefixOperation, opRecordKey}, seq)
}

func opNext() []byte { return []byte{storage.PrefixOperation, opNextKey} }

// putOp writes r into b.
func putOp(b *storage.Batch, r *opRecord) error {
	raw, err := bson.Marshal(r)
	if err != nil {
		return fmt.Errorf("docdb: encode operation: %w", err)
	}
	return b.Set(opKey(uint64(r.Seq)), raw)
}

// loadOperations reads every stored operation and the next sequence
// number.
func (p *Manager) loadOperations() error {
	p.nextOp = 1
	v, err := p.Store.Get(opNext())
	switch {
	case err == nil && len(v) == 8:
		p.nextOp = binary.BigEndian.Uint64(v)
	case err == nil:
		return fmt.Errorf("docdb: corrupt next operation record")
	case !errors.Is(err, storage.ErrNotFound):
		return err
	}
	lower := []byte{storage.PrefixOperation, opRecordKey}
	it, err := p.Store.NewIter(lower, storage.PrefixEnd(lower))
	if err != nil {
		return err
	}
	defer it.Close()
	for ok := it.First(); ok; ok = it.Next() {
		var r opRecord
		if err := bson.Unmarshal(it.Value(), &r); err != nil {
			return fmt.Errorf("docdb: decode operation %x: %w", it.Key(), err)
		}
		p.ops[uint64(r.Seq)] = &r
		p.nextOp = max(p.nextOp, uint64(r.Seq)+1)
	}
	return it.Error()
}

// newOpLocked allocates a new operation record, writing the sequence
// counter into b and pruning the oldest finished operations beyond
// maxDoneOperations; mu is held and b must commit under it.
func (p *Manager) newOpLocked(b *storage.Batch, typ OperationType, group, field string, offsetMs int64, now time.Time) (*opRecord, error) {
	seq := p.nextOp
	if err := b.Set(opNext(), binary.BigEndian.AppendUint64(nil, seq+1)); err != nil {
		return nil, err
	}
	var done []uint64
	for s, r := range p.ops {
		if r.Done {
			done = append(done, s)
		}
	}
	if extra := len(done) + 1 - MaxDoneOperations; extra > 0 {
		sort.Slice(done, func(i, j int) bool { return done[i] < done[j] })
		for _, s := range done[:extra] {
			if err := b.Delete(opKey(s)); err != nil {
				return nil, err
			}
		}
		// The map is pruned with the commit (see pruneLocked).
		p.prune = append(p.prune[:0], done[:extra]...)
	}
	return &opRecord{
		Seq:      int64(seq),
		Type:     string(typ),
		Group:    group,
		Field:    field,
		OffsetMs: offsetMs,
		Start:    now.UnixMilli(),
	}, nil
}

// opCommittedLocked follows the commit of a batch made with newOpLocked:
// it advances the sequence and forgets the pruned operations.
func (p *Manager) opCommittedLocked(r *opRecord) {
	p.nextOp = uint64(r.Seq) + 1
	for _, s := range p.prune {
		delete(p.ops, s)
	}
	p.prune = p.prune[:0]
}

// finish marks r done in state st at now.
func (r *opRecord) finish(st State, msg string, now time.Time) {
	r.State, r.Done, r.Error, r.End = string(st), true, msg, now.UnixMilli()
	r.ResumeColl, r.ResumeAfter = 0, nil
}

// ListOperations returns the operations, newest first: those running and
// the most recent finished ones.
func (p *Manager) ListOperations(ctx context.Context) ([]Operation, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]Operation, 0, len(p.ops))
	for _, r := range p.ops {
		out = append(out, r.operation())
	}
	sort.Slice(out, func(i, j int) bool {
		a, _ := parseOpID(out[i].ID)
		b, _ := parseOpID(out[j].ID)
		return a > b
	})
	return out, nil
}

// GetOperation returns the operation with that id, or an error wrapping
// ErrOperationNotFound.
func (p *Manager) GetOperation(ctx context.Context, id string) (Operation, error) {
	seq, ok := parseOpID(id)
	if !ok {
		return Operation{}, fmt.Errorf("%w: %q is not an operation id (op-N)", ErrOperationNotFound, id)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	r, ok := p.ops[seq]
	if !ok {
		return Operation{}, fmt.Errorf("%w: %s", ErrOperationNotFound, id)
	}
	return r.operation(), nil
}
