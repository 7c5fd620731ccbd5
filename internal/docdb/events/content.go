package events

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/mayfly/mayfly/internal/docdb/catalog"
	"github.com/mayfly/mayfly/internal/docdb/change"
	"github.com/mayfly/mayfly/internal/storage"
)

// A record keeps no document bytes itself, only the document key. What an
// event shows of a document's content (the post-image of an insert or a
// replace, an update's description, pre- and post-images) lives in a
// content entry apart from the record, named by the record's content id
// (Record.Ref), so that it can be erased by age on its own:
//
//   - An insert writes no content: its record refers to the document as
//     stored, with a hash of the document's bytes, and its content id is
//     the record's own sequence number. The write that next replaces,
//     updates or deletes the document (or drops its collection) finds the
//     insert from the log (insertIndex) and writes the document as it was
//     into the insert's content entry, in its own batch, unless the entry
//     is there already. A reader that finds the stored document with the
//     hash shows it; otherwise it reads the content entry.
//   - Updates and replaces write their content entry with their record.
//   - Content entries are trimmed by age, at ContentRetention, by one range
//     deletion; records stay for Retention. An event whose content is gone
//     cannot be shown: reading it gives ErrContentLost.

// ContentRetentionFor returns the content retention that keeps the purge
// bound purgeAfter: a quarter of it. The range deletion that trims content
// is purged like any deletion, by a purge cycle that starts once it is
// half the bound old, so content deleted at a quarter of the bound leaves
// every file before the bound has passed since the deletion of the
// document it copied.
func ContentRetentionFor(purgeAfter time.Duration) time.Duration { return purgeAfter / 4 }

// ErrContentLost is returned by Read for a record whose content was
// trimmed.
var ErrContentLost = errors.New("events: the content of a change was trimmed")

// contentPrefix is the keyspace of the content entries.
var contentPrefix = []byte{storage.PrefixEvents, 'c'}

// contentKey returns the storage key of content id x.
func contentKey(x uint64) []byte {
	return binary.BigEndian.AppendUint64(append([]byte(nil), contentPrefix...), x)
}

// docHash returns the hash the insert records written before their
// compact form (insert_record.go) keep of the document's bytes.
func docHash(raw []byte) []byte {
	h := sha256.Sum256(raw)
	return h[:16]
}

// content is what a content entry holds.
type content struct {
	Full   bson.Raw           `bson:"full,omitempty"`
	Pre    bson.Raw           `bson:"pre,omitempty"`
	Update *UpdateDescription `bson:"upd,omitempty"`
}

// encodeContent encodes a content entry.
func encodeContent(full, pre bson.Raw, upd *UpdateDescription) ([]byte, error) {
	start, out := bsoncore.AppendDocumentStart(make([]byte, 0, 32+len(full)+len(pre)))
	if len(full) > 0 {
		out = bsoncore.AppendDocumentElement(out, "full", full)
	}
	if len(pre) > 0 {
		out = bsoncore.AppendDocumentElement(out, "pre", pre)
	}
	if upd != nil {
		raw, err := bson.Marshal(upd)
		if err != nil {
			return nil, fmt.Errorf("events: encode update description: %w", err)
		}
		out = bsoncore.AppendDocumentElement(out, "upd", raw)
	}
	return bsoncore.AppendDocumentEnd(out, start)
}

// reserve returns a new content id: a number from the same sequence as the
// records', so that it is unique across restarts (Open continues after
// the last record, and a record is committed after the ids its batch
// reserved) and its high 32 bits are the Unix seconds it was given at.
func (l *Log) reserve() uint64 {
	now := l.opts.Now()
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.nextSeq(now)
}

// contentCut returns the first content id kept: by ContentRetention at
// the log's clock, and no content older than a second before the last
// record trimmed (a content id is given before its record's sequence
// number, in the same second or an earlier one); zero when all is kept.
func (l *Log) contentCut() uint64 {
	var cut uint64
	if l.opts.ContentRetention > 0 {
		if s := l.opts.Now().Add(-l.opts.ContentRetention).Unix(); s > 0 {
			cut = uint64(s) << 32
		}
	}
	l.mu.Lock()
	trimmed := l.trimmed
	l.mu.Unlock()
	if s := trimmed >> 32; s > 1 && (s-1)<<32 > cut {
		cut = (s - 1) << 32
	}
	return cut
}

// keepInsertImage is called for a document about to be replaced, updated
// or deleted: when the record of a committed insert still refers to it,
// the document as it is (prev) becomes that insert's content, unless the
// content is there already. r reads and writes the batch of the change; a
// batch that cannot be read back is one of deletions of documents read
// from the store, whose content entries are read from the store.
func (l *Log) keepInsertImage(r batchRW, cid uint64, idEnc []byte, prev bson.Raw) error {
	x, ok, err := l.insertOf(cid, idEnc)
	if err != nil || !ok {
		return err
	}
	ck := contentKey(x)
	_, err = r.Get(ck)
	if errors.Is(err, storage.ErrNotIndexed) {
		_, err = l.store.Get(ck)
	}
	switch {
	case err == nil:
		return nil // an earlier change kept it
	case !errors.Is(err, storage.ErrNotFound):
		return fmt.Errorf("events: read content: %w", err)
	}
	c, err := encodeContent(prev, nil, nil)
	if err != nil {
		return err
	}
	return r.Set(ck, c)
}

// batchRW is a batch that can be read back and written.
type batchRW interface {
	Get(key []byte) ([]byte, error)
	Set(key, value []byte) error
}

var _ batchRW = (*change.Batch)(nil)

// CollectionDropped writes into b, the batch that drops collection m, the
// content of every insert whose record still refers to one of m's
// documents, as they are before b commits.
func (l *Log) CollectionDropped(b *storage.Batch, m *catalog.CollMeta) error {
	inserts, err := l.insertsIn(m.ID)
	if err != nil {
		return fmt.Errorf("events: drop: %w", err)
	}
	for idEnc, x := range inserts {
		ck := contentKey(x)
		if _, err := l.store.Get(ck); err == nil {
			continue
		} else if !errors.Is(err, storage.ErrNotFound) {
			return fmt.Errorf("events: drop: %w", err)
		}
		doc, err := l.store.Get(catalog.DocKey(m.ID, []byte(idEnc)))
		if errors.Is(err, storage.ErrNotFound) {
			continue
		}
		if err != nil {
			return fmt.Errorf("events: drop: %w", err)
		}
		c, err := encodeContent(doc, nil, nil)
		if err != nil {
			return err
		}
		if err := b.Set(ck, c); err != nil {
			return err
		}
	}
	return nil
}

// Resolve fills in ev's content: from its content entry, or, for an
// insert still referring to its document, from the document; and the
// document key of an insert whose record leaves it to its document. It
// returns ErrContentLost when the content was trimmed.
func (l *Log) Resolve(ev *Event) error {
	if ev.Ref == 0 {
		return nil
	}
	if ev.Op == OpInsert && len(ev.Hash) > 0 {
		doc, err := l.store.Get(catalog.DocKey(ev.CollID, ev.IDEnc))
		switch {
		case err == nil:
			if bytes.Equal(hashFor(doc, len(ev.Hash)), ev.Hash) {
				ev.Full = doc
				return ev.fillKey()
			}
		case !errors.Is(err, storage.ErrNotFound):
			return fmt.Errorf("events: read an inserted document: %w", err)
		}
	}
	raw, err := l.store.Get(contentKey(ev.Ref))
	if errors.Is(err, storage.ErrNotFound) {
		return ErrContentLost
	}
	if err != nil {
		return fmt.Errorf("events: read content: %w", err)
	}
	var c content
	if err := bson.Unmarshal(raw, &c); err != nil {
		return fmt.Errorf("events: decode content: %w", err)
	}
	ev.Full, ev.Pre, ev.Update = c.Full, c.Pre, c.Update
	return ev.fillKey()
}

// hashFor returns the hash of doc an insert record keeps, by its length:
// insertHash, or docHash in records written before.
func hashFor(doc []byte, n int) []byte {
	if n == insertHashLen {
		return insertHash(doc)
	}
	return docHash(doc)
}

// fillKey sets the document key of an insert whose record has none from
// its document.
func (ev *Event) fillKey() error {
	if len(ev.Key) > 0 || ev.Op != OpInsert || len(ev.Full) == 0 {
		return nil
	}
	id, err := ev.Full.LookupErr("_id")
	if err != nil {
		return fmt.Errorf("events: inserted document without _id: %w", err)
	}
	key, err := bson.Marshal(bson.D{{Key: "_id", Value: id}})
	if err != nil {
		return fmt.Errorf("events: document key: %w", err)
	}
	ev.Key = key
	return nil
}

// trimContent deletes the content entries older than ContentRetention, by
// one range deletion, when there are any.
func (l *Log) trimContent() error {
	cut := l.contentCut()
	if cut == 0 {
		return nil
	}
	end := contentKey(cut)
	it, err := l.store.NewIter(contentPrefix, end)
	if err != nil {
		return err
	}
	any := it.First()
	if err := errors.Join(it.Error(), it.Close()); err != nil {
		return err
	}
	if !any {
		return nil
	}
	b := l.store.NewBatch()
	defer b.Close()
	if err := b.DeleteRange(contentPrefix, end); err != nil {
		return err
	}
	if err := b.Commit(); err != nil {
		return fmt.Errorf("events: trim content: %w", err)
	}
	return nil
}
