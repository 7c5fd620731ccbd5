package script

import (
	"context"
	"maps"
	"slices"
	"strings"
	"time"

	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/parse"
)

// functionChunk is the chunk name libraries are compiled under, as Redis
// names them.
const functionChunk = "user_function"

// LoadTimeout bounds how long FUNCTION LOAD runs a library's code (which
// should only register functions) before failing it.
const LoadTimeout = 500 * time.Millisecond

// Library is a loaded function library as FUNCTION LIST shows it.
type Library struct {
	Name   string
	Engine string
	// Code is the library's code as loaded, shebang line included.
	Code []byte
	// Functions are the library's functions, by name.
	Functions []FunctionInfo
}

// FunctionInfo is a registered function as FUNCTION LIST shows it.
type FunctionInfo struct {
	Name string
	// Description is the description given to register_function;
	// HasDescription is false when none was given.
	Description    string
	HasDescription bool
	Flags          Flags
}

// library is a loaded library: its functions by their exact name.
type library struct {
	name string
	code []byte
	fns  map[string]*function
}

// function is a registered function: its Lua callback lives in the
// functions' Lua state, where the library's locals stay shared by its
// functions from one call to the next.
type function struct {
	info FunctionInfo
	lib  *library
	vm   *vm // the Lua state fn lives in
	fn   *lua.LFunction
}

// functionSet is a set of libraries and the functions they register:
// library names are case-sensitive, function names are not, and no two
// libraries register the same function.
type functionSet struct {
	libs map[string]*library
	fns  map[string]*function // by lowercase name
}

func newFunctionSet() *functionSet {
	return &functionSet{libs: make(map[string]*library), fns: make(map[string]*function)}
}

func (s *functionSet) link(l *library) {
	s.libs[l.name] = l
	for _, f := range l.fns {
		s.fns[strings.ToLower(f.info.Name)] = f
	}
}

func (s *functionSet) unlink(l *library) {
	delete(s.libs, l.name)
	for _, f := range l.fns {
		delete(s.fns, strings.ToLower(f.info.Name))
	}
}

// loadState is the library being loaded, to which register_function adds.
type loadState struct {
	lib *library
}

// Errors of the function libraries, in Redis's words.
const (
	errLibraryName      = "ERR Library names can only contain letters, numbers, or underscores(_) and must be at least one character long"
	errFunctionNotFound = "ERR Function not found"
	errLibraryNotFound  = "ERR Library not found"
)

// validName reports whether name is a valid library or function name:
// one or more letters, digits or underscores.
func validName(name string) bool {
	if name == "" {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// libraryMetadata reads a library's shebang line "#!ENGINE name=NAME" and
// returns the engine, the name, and the code after the line (starting with
// its newline, so that line numbers stay the library's).
func libraryMetadata(code []byte) (engine, name string, body []byte, err error) {
	if !strings.HasPrefix(string(code), "#!") {
		return "", "", nil, replyError("ERR Missing library metadata")
	}
	nl := strings.IndexByte(string(code), '\n')
	if nl < 0 {
		return "", "", nil, replyError("ERR Invalid library metadata")
	}
	parts, ok := splitArgs(string(code[:nl]))
	if !ok || len(parts) == 0 {
		return "", "", nil, replyError("ERR Invalid library metadata")
	}
	engine = parts[0][min(2, len(parts[0])):]
	named := false
	for _, p := range parts[1:] {
		if len(p) >= 5 && strings.EqualFold(p[:5], "name=") {
			if named {
				return "", "", nil, replyError("ERR Invalid metadata value, name argument was given multiple times")
			}
			name, named = p[5:], true
			continue
		}
		return "", "", nil, replyError("ERR Invalid metadata value given: " + p)
	}
	if !named {
		return "", "", nil, replyError("ERR Library name was not given")
	}
	return engine, name, code[nl:], nil
}

// LoadLibrary is FUNCTION LOAD: it runs the library's code, which
// registers its functions, and adds the library, replacing the one of the
// same name when replace is set. It returns the library's name, or the
// error in Redis's words. The code runs with only register_function, log
// and the version fields of the redis table reachable, for at most
// LoadTimeout.
func (e *Engine) LoadLibrary(code []byte, replace bool) (string, error) {
	e.fvmMu.Lock()
	defer e.fvmMu.Unlock()
	e.fmu.Lock()
	defer e.fmu.Unlock()
	l, err := e.loadInto(e.funcs, code, replace, LoadTimeout)
	if err != nil {
		return "", err
	}
	return l.name, nil
}

// loadInto loads code into set as LoadLibrary does, with timeout (0 for
// none). The caller holds fvmMu, and fmu when set is the engine's.
func (e *Engine) loadInto(set *functionSet, code []byte, replace bool, timeout time.Duration) (*library, error) {
	engine, name, body, err := libraryMetadata(code)
	if err != nil {
		return nil, err
	}
	if !validName(name) {
		return nil, replyError(errLibraryName)
	}
	if !strings.EqualFold(engine, "LUA") {
		return nil, replyError("ERR Engine '" + engine + "' not found")
	}
	old := set.libs[name]
	if old != nil && !replace {
		return nil, replyError("ERR Library '" + name + "' already exists")
	}
	l, err := e.runLibrary(name, code, body, timeout)
	if err != nil {
		return nil, err
	}
	for _, name := range slices.Sorted(maps.Keys(l.fns)) {
		f := l.fns[name]
		if g, ok := set.fns[strings.ToLower(f.info.Name)]; ok && g.lib != old {
			return nil, replyError("ERR Function " + f.info.Name + " already exists")
		}
	}
	if old != nil {
		set.unlink(old)
	}
	set.link(l)
	return l, nil
}

// runLibrary compiles a library's body and runs it in the functions' Lua
// state, returning the library with the functions it registered.
func (e *Engine) runLibrary(name string, code, body []byte, timeout time.Duration) (*library, error) {
	chunk, err := parse.Parse(strings.NewReader(string(body)), functionChunk)
	if err != nil {
		return nil, replyError("ERR Error compiling function: " + compileMessage(err, body, functionChunk))
	}
	proto, err := lua.Compile(chunk, functionChunk)
	if err != nil {
		return nil, replyError("ERR Error compiling function: " + functionChunk + ": " + err.Error())
	}
	v := e.functionsVM()
	l := &library{name: name, code: append([]byte(nil), code...), fns: make(map[string]*function)}
	ctx, cancel := context.Background(), context.CancelFunc(func() {})
	if timeout > 0 {
		ctx, cancel = context.WithTimeout(ctx, timeout)
	}
	defer cancel()
	L := v.L
	L.SetContext(ctx)
	v.loading = &loadState{lib: l}
	defer func() {
		v.loading = nil
		L.RemoveContext()
		L.SetTop(0)
	}()
	fn := L.NewFunctionFromProto(proto)
	fn.Env = v.globals
	L.Push(fn)
	if err := L.PCall(0, 0, nil); err != nil {
		if ae, ok := err.(*lua.ApiError); ok && ae.Type == lua.ApiErrorPanic {
			v.broken = true
		}
		msg := "ERR FUNCTION LOAD timeout"
		if ctx.Err() == nil {
			msg = errorMessage(err)
		}
		return nil, replyError("ERR Error registering functions: " + msg)
	}
	if len(l.fns) == 0 {
		return nil, replyError("ERR No functions registered")
	}
	return l, nil
}

// errorMessage is the message of a Lua error: the err field of an error
// object, or ERR and the text of any other value.
func errorMessage(err error) string {
	var obj lua.LValue = lua.LString(err.Error())
	if ae, ok := err.(*lua.ApiError); ok && ae.Object != nil {
		obj = ae.Object
	}
	if t, ok := obj.(*lua.LTable); ok {
		if s, ok := t.RawGetString("err").(lua.LString); ok {
			return string(s)
		}
	}
	return "ERR " + obj.String()
}

// functionsVM returns the functions' Lua state, a new one when there is
// none or the interpreter panicked in the last one. The caller holds fvmMu.
func (e *Engine) functionsVM() *vm {
	if e.fvm == nil || e.fvm.broken {
		e.fvm = newVM(e, true)
		e.fvm.chunk = functionChunk
	}
	return e.fvm
}

// revive loads f's library again into a new Lua state when the state its
// functions live in is broken (the interpreter panicked there). The caller
// holds fvmMu.
func (e *Engine) revive(f *function) error {
	if !f.vm.broken {
		return nil
	}
	_, _, body, err := libraryMetadata(f.lib.code)
	if err != nil {
		return err
	}
	nl, err := e.runLibrary(f.lib.name, f.lib.code, body, 0)
	if err != nil {
		return err
	}
	e.fmu.Lock()
	defer e.fmu.Unlock()
	for name, g := range nl.fns {
		if old := f.lib.fns[name]; old != nil {
			old.fn, old.vm = g.fn, g.vm
		}
	}
	return nil
}

// Function returns the function named name (case-insensitive).
func (e *Engine) Function(name string) (FunctionInfo, bool) {
	e.fmu.Lock()
	defer e.fmu.Unlock()
	f, ok := e.funcs.fns[strings.ToLower(name)]
	if !ok {
		return FunctionInfo{}, false
	}
	return f.info, true
}

// Call is FCALL: it runs the function named name (case-insensitive) with
// its keys and arguments as the callback's two arguments, calling
// commands through h, as Eval runs a script; a function flagged no-writes
// has its writes refused. The function's name stands for the script's
// SHA1 in error replies.
func (e *Engine) Call(ctx context.Context, name string, keys, args [][]byte, h Host) Reply {
	e.fmu.Lock()
	f := e.funcs.fns[strings.ToLower(name)]
	e.fmu.Unlock()
	if f == nil {
		return ErrorReply(errFunctionNotFound)
	}
	e.fvmMu.Lock()
	defer e.fvmMu.Unlock()
	if err := e.revive(f); err != nil {
		return ErrorReply(err.Error())
	}
	r, panicked := f.vm.invoke(ctx, f.info.Name, f.fn, true, f.info.Flags&FlagNoWrites != 0, keys, args, h)
	if panicked != nil {
		panic(panicked)
	}
	return r
}

// DeleteLibrary is FUNCTION DELETE.
func (e *Engine) DeleteLibrary(name string) error {
	e.fmu.Lock()
	defer e.fmu.Unlock()
	l, ok := e.funcs.libs[name]
	if !ok {
		return replyError(errLibraryNotFound)
	}
	e.funcs.unlink(l)
	return nil
}

// FlushLibraries is FUNCTION FLUSH: it deletes every library.
func (e *Engine) FlushLibraries() {
	e.fmu.Lock()
	defer e.fmu.Unlock()
	e.funcs = newFunctionSet()
}

// Libraries returns the loaded libraries, by name.
func (e *Engine) Libraries() []Library {
	e.fmu.Lock()
	defer e.fmu.Unlock()
	out := make([]Library, 0, len(e.funcs.libs))
	for _, l := range e.funcs.libs {
		lib := Library{Name: l.name, Engine: "LUA", Code: l.code}
		for _, f := range l.fns {
			lib.Functions = append(lib.Functions, f.info)
		}
		slices.SortFunc(lib.Functions, func(a, b FunctionInfo) int { return strings.Compare(a.Name, b.Name) })
		out = append(out, lib)
	}
	slices.SortFunc(out, func(a, b Library) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// FunctionCounts returns how many libraries and functions are loaded.
func (e *Engine) FunctionCounts() (libraries, functions int) {
	e.fmu.Lock()
	defer e.fmu.Unlock()
	return len(e.funcs.libs), len(e.funcs.fns)
}
