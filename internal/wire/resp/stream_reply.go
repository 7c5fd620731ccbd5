package resp

import (
	"errors"
	"math"

	"github.com/mayfly/mayfly/internal/kv"
)

// Replies and errors shared by the stream commands.

var (
	errInvalidStreamID = replyErr("ERR Invalid stream ID specified as stream command argument")
	errStreamIDSmall   = replyErr("ERR The ID specified in XADD is equal or smaller than the target stream top item")
	errStreamIDZero    = replyErr("ERR The ID specified in XADD must be greater than 0-0")
	errStreamExhausted = replyErr("ERR The stream has exhausted the last possible ID, unable to add more items")
	errBusyGroup       = replyErr("BUSYGROUP Consumer Group name already exists")
	errXGroupNoKey     = replyErr("ERR The XGROUP subcommand requires the key to exist. Note that for CREATE you may want to use the MKSTREAM option to create an empty stream automatically.")
	errStartInterval   = replyErr("ERR invalid start ID for the interval")
	errEndInterval     = replyErr("ERR invalid end ID for the interval")
)

// errNoGroup is the NOGROUP error of the commands that name a key and a
// group; suffix follows the group's name (" in XREADGROUP with GROUP
// option" for XREADGROUP).
func errNoGroup(key, group []byte, suffix string) replyErr {
	return replyErr("NOGROUP No such key '" + string(key) + "' or consumer group '" + string(group) + "'" + suffix)
}

// errNoSuchGroup is the NOGROUP error of XGROUP and XINFO CONSUMERS.
func errNoSuchGroup(key, group []byte) replyErr {
	return replyErr("NOGROUP No such consumer group '" + string(group) + "' for key name '" + string(key) + "'")
}

// streamErr maps kv's stream errors to Redis's replies; others pass.
func streamErr(err error, key, group []byte) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, kv.ErrNoGroup):
		return errNoGroup(key, group, "")
	case errors.Is(err, kv.ErrXGroupNoGroup):
		return errNoSuchGroup(key, group)
	case errors.Is(err, kv.ErrXGroupNoKey):
		return errXGroupNoKey
	case errors.Is(err, kv.ErrBusyGroup):
		return errBusyGroup
	case errors.Is(err, kv.ErrStreamIDTooSmall):
		return errStreamIDSmall
	case errors.Is(err, kv.ErrStreamEntryTooLarge):
		return replyErr("ERR Elements are too large to be stored")
	case errors.Is(err, kv.ErrStreamExhausted):
		return errStreamExhausted
	case errors.Is(err, kv.ErrStreamSetIDSmall):
		return replyErr("ERR The ID specified in XSETID is smaller than the target stream top item")
	case errors.Is(err, kv.ErrStreamSetIDAdded):
		return replyErr("ERR The entries_added specified in XSETID is smaller than the target stream length")
	}
	return err
}

// parseStrictID parses an ID where "-" and "+" are not allowed.
func parseStrictID(b []byte) (kv.StreamID, error) {
	id, _, ok := kv.ParseStreamID(b, 0, true, false)
	if !ok {
		return id, errInvalidStreamID
	}
	return id, nil
}

// parseRangeStart parses the start of an ID interval (missing sequence
// 0, "(" exclusive) as an inclusive start.
func parseRangeStart(b []byte) (kv.StreamID, error) {
	id, excl, ok := kv.ParseIntervalID(b, 0)
	if !ok {
		return id, errInvalidStreamID
	}
	if excl {
		if id, ok = id.Next(); !ok {
			return id, errStartInterval
		}
	}
	return id, nil
}

// parseRangeEnd parses the end of an ID interval (missing sequence the
// largest, "(" exclusive) as an inclusive end.
func parseRangeEnd(b []byte) (kv.StreamID, error) {
	id, excl, ok := kv.ParseIntervalID(b, math.MaxUint64)
	if !ok {
		return id, errInvalidStreamID
	}
	if excl {
		if id, ok = id.Prev(); !ok {
			return id, errEndInterval
		}
	}
	return id, nil
}

// writeStreamID writes an ID as a bulk string.
func writeStreamID(w *Writer, id kv.StreamID) { w.BulkString(id.String()) }

// writeStreamEntry writes [id, [field, value, ...]], the fields a null
// array for an entry that no longer exists.
func writeStreamEntry(w *Writer, e kv.StreamEntry) {
	w.Array(2)
	writeStreamID(w, e.ID)
	if e.Fields == nil {
		w.NullArray()
		return
	}
	w.Array(len(e.Fields))
	for _, f := range e.Fields {
		w.Bulk(f)
	}
}

// writeStreamEntries writes an array of entries.
func writeStreamEntries(w *Writer, es []kv.StreamEntry) {
	w.Array(len(es))
	for _, e := range es {
		writeStreamEntry(w, e)
	}
}

// writeStreamIDs writes an array of the entries' IDs (JUSTID).
func writeStreamIDs(w *Writer, es []kv.StreamEntry) {
	w.Array(len(es))
	for _, e := range es {
		writeStreamID(w, e.ID)
	}
}

// writeXReadReply writes XREAD's reply for the streams that have
// entries: an array of [key, entries] in RESP2, a map in RESP3.
func writeXReadReply(w *Writer, rs []kv.XReadResult) {
	if w.Proto() >= 3 {
		w.Map(len(rs))
	} else {
		w.Array(len(rs))
	}
	for _, r := range rs {
		if w.Proto() < 3 {
			w.Array(2)
		}
		w.Bulk(r.Key)
		writeStreamEntries(w, r.Entries)
	}
}
