package docdb

import (
	"cmp"
	"fmt"
	"slices"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
)

// A change stream whose pipeline ends with $changeStreamSplitLargeEvent
// splits an event too large for one BSON document into fragments. Each
// fragment holds its own resume token as _id, then splitEvent: {fragment:
// n, of: total} (n counts from 1), then some of the event's other fields.
// The fields are distributed smallest first (by the size of their BSON
// element, then by name), each fragment taking as many as fit, so the
// first fragments hold the small fields and each large one may need its
// own. Resuming from a fragment's token continues with the next fragment.

// splitStage is the name of the stage that splits large events.
const splitStage = "$changeStreamSplitLargeEvent"

// maxBSONInternalSize is the largest BSON document MongoDB handles
// internally (16 MB and 16 KB); a change event over it cannot be handed
// out.
const maxBSONInternalSize = 16<<20 + 16<<10

// maxChangeEventSize is the largest event handed out whole by a stream
// that splits large events: 8 KB less than maxBSONInternalSize, leaving
// room for the rest of the cursor's reply.
const maxChangeEventSize = maxBSONInternalSize - 8<<10

// tooLargeEvent is the error of an event of size bytes, token t, over
// maxBSONInternalSize on a stream that does not split large events.
func tooLargeEvent(size int, t changeToken) error {
	return mongoerr.Newf(mongoerr.BSONObjectTooLarge,
		"BSONObj size: %d (0x%X) is invalid. Size must be between 0 and %d(%dMB) First element: _id: %s",
		size, size, maxBSONInternalSize, maxBSONInternalSize>>20, fmtDoc(t.doc()))
}

// splitEvent returns the fragments of raw, the event of token t, each at
// most maxChangeEventSize less the size of t's document.
func splitEvent(raw bson.Raw, t changeToken) ([]bson.Raw, error) {
	elems, err := raw.Elements()
	if err != nil {
		return nil, fmt.Errorf("docdb: splitting a change event: %w", err)
	}
	fields := make([]bson.RawElement, 0, len(elems))
	for _, el := range elems {
		if el.Key() != "_id" {
			fields = append(fields, el)
		}
	}
	if len(fields) == 0 {
		return nil, mongoerr.New(mongoerr.Location7182502, "Cannot split an empty event or an event containing solely '_id' field")
	}
	slices.SortStableFunc(fields, func(a, b bson.RawElement) int {
		return cmp.Or(cmp.Compare(len(a), len(b)), cmp.Compare(a.Key(), b.Key()))
	})
	tokenDoc, err := bson.Marshal(t.doc())
	if err != nil {
		return nil, err
	}
	limit := maxChangeEventSize - len(tokenDoc)
	// Each fragment is laid out as its fields are chosen; "of" is filled
	// in once the count is known.
	type fragment struct {
		token  changeToken
		fields []bson.RawElement
	}
	var frags []fragment
	for i := 0; i < len(fields); {
		ft := t
		ft.fragmented, ft.fragment = true, uint32(len(frags))
		head, err := fragmentHead(ft, len(frags)+1, 0)
		if err != nil {
			return nil, err
		}
		size := len(head) + 1 // and the document's final 0
		f := fragment{token: ft}
		for {
			f.fields = append(f.fields, fields[i])
			size += len(fields[i])
			i++
			if i == len(fields) || size+len(fields[i]) > limit {
				break
			}
		}
		if size > limit {
			return nil, mongoerr.Newf(mongoerr.Location7182500,
				"Splitting change event failed: fragment size %d is greater than maximum allowed fragment size %d", size, limit)
		}
		frags = append(frags, f)
	}
	var out []bson.Raw
	for n, f := range frags {
		head, err := fragmentHead(f.token, n+1, len(frags))
		if err != nil {
			return nil, err
		}
		doc := head
		for _, el := range f.fields {
			doc = append(doc, el...)
		}
		doc = append(doc, 0)
		bsoncore.UpdateLength(doc, 0, int32(len(doc)))
		out = append(out, doc)
	}
	return out, nil
}

// fragmentHead is the start of fragment n of total, token t: its length,
// _id and splitEvent, without the final 0.
func fragmentHead(t changeToken, n, total int) ([]byte, error) {
	d, err := bson.Marshal(bson.D{
		{Key: "_id", Value: t.doc()},
		{Key: "splitEvent", Value: bson.D{{Key: "fragment", Value: int32(n)}, {Key: "of", Value: int32(total)}}},
	})
	if err != nil {
		return nil, err
	}
	return d[:len(d)-1], nil
}
