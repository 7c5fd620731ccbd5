package script

import (
	"errors"
	"maps"
	"slices"

	"github.com/mayfly/mayfly/internal/rdb"
)

// FUNCTION DUMP and FUNCTION RESTORE use Redis's payload (see
// rdb.DumpFunctions), so a payload from redis-server restores here and
// back.

// RestorePolicy is how FUNCTION RESTORE treats the libraries loaded.
type RestorePolicy int

// The restore policies.
const (
	// RestoreAppend adds the payload's libraries, failing when one exists.
	RestoreAppend RestorePolicy = iota
	// RestoreReplace adds them, replacing those of the same names.
	RestoreReplace
	// RestoreFlush deletes every library, then adds them.
	RestoreFlush
)

// DumpLibraries is FUNCTION DUMP: every library in Redis's payload.
func (e *Engine) DumpLibraries() []byte {
	libs := e.Libraries()
	codes := make([][]byte, len(libs))
	for i, l := range libs {
		codes[i] = l.Code
	}
	return rdb.DumpFunctions(codes)
}

// libraryCodes decodes a payload into the libraries' codes.
func libraryCodes(payload []byte) ([][]byte, error) {
	codes, err := rdb.LoadFunctions(payload)
	switch {
	case err == nil:
		return codes, nil
	case errors.Is(err, rdb.ErrVersion):
		return nil, replyError("ERR DUMP payload version or checksum are wrong")
	}
	return nil, replyError("ERR " + err.Error())
}

// RestoreLibraries is FUNCTION RESTORE: it loads the libraries of a
// payload (from DumpLibraries or redis-server) under policy, all or none.
func (e *Engine) RestoreLibraries(payload []byte, policy RestorePolicy) error {
	codes, err := libraryCodes(payload)
	if err != nil {
		return err
	}
	e.fvmMu.Lock()
	defer e.fvmMu.Unlock()
	set := newFunctionSet()
	for _, code := range codes {
		if _, err := e.loadInto(set, code, false, 0); err != nil {
			return err
		}
	}
	e.fmu.Lock()
	defer e.fmu.Unlock()
	if policy == RestoreFlush {
		e.funcs = set
		return nil
	}
	var replaced []*library
	names := slices.Sorted(maps.Keys(set.libs))
	for _, name := range names {
		l := set.libs[name]
		if old := e.funcs.libs[l.name]; old != nil {
			if policy != RestoreReplace {
				e.relink(replaced)
				return replyError("ERR Library " + l.name + " already exists")
			}
			e.funcs.unlink(old)
			replaced = append(replaced, old)
		}
	}
	for _, key := range slices.Sorted(maps.Keys(set.fns)) {
		f := set.fns[key]
		if _, ok := e.funcs.fns[key]; ok {
			e.relink(replaced)
			return replyError("ERR Function " + f.info.Name + " already exists")
		}
	}
	for _, l := range set.libs {
		e.funcs.link(l)
	}
	return nil
}

func (e *Engine) relink(libs []*library) {
	for _, l := range libs {
		e.funcs.link(l)
	}
}
