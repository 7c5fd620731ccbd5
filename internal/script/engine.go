package script

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"log/slog"
	"strings"
	"sync"

	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/parse"
)

// MaxCached bounds the script cache: past it the script cached first is
// forgotten (EVALSHA then answers NOSCRIPT for it until it is sent again).
const MaxCached = 10000

// Host runs the commands a script calls. Call runs args as a command in
// the transaction the script runs in and returns its reply in RESP
// version proto (2 or 3); a refusal is an Error reply in Redis's words
// ("ERR Unknown Redis command called from script", ...). noWrites is set
// for a script declared "#!lua flags=no-writes", whose write commands the
// Host refuses as EVAL_RO's. CheckACL is redis.acl_check_cmd: whether the
// user running the script may run args (its command, keys and channels),
// found false when args name no command.
type Host interface {
	Call(args [][]byte, proto int, noWrites bool) Reply
	CheckACL(args [][]byte) (allowed, found bool)
}

// compiled is a cached script: its code and its shebang flags.
type compiled struct {
	proto *lua.FunctionProto
	flags Flags
}

// Engine compiles, caches and runs scripts. It is safe for concurrent use.
type Engine struct {
	log *slog.Logger

	mu      sync.Mutex
	scripts map[string]*compiled
	order   []string // SHA1s in the order they were cached

	vms sync.Pool // *vm

	// fmu guards funcs, the function libraries.
	fmu   sync.Mutex
	funcs *functionSet
	// fvmMu serializes the use of fvm, the Lua state the libraries are
	// loaded and their functions run in; it is taken before fmu.
	fvmMu sync.Mutex
	fvm   *vm
}

// New returns an engine whose scripts log to log through redis.log.
func New(log *slog.Logger) *Engine {
	if log == nil {
		log = slog.Default()
	}
	e := &Engine{log: log, scripts: make(map[string]*compiled), funcs: newFunctionSet()}
	e.vms.New = func() any { return newVM(e, false) }
	return e
}

// SHA1 returns the lowercase hex SHA1 of body, the name of its script.
func SHA1(body []byte) string {
	h := sha1.Sum(body)
	return hex.EncodeToString(h[:])
}

// Load compiles body and caches it, returning its SHA1, or the compile
// error as Redis words it ("ERR Error compiling script ...").
func (e *Engine) Load(body []byte) (string, error) {
	sha := SHA1(body)
	_, err := e.compiled(sha, body)
	return sha, err
}

// Flags returns the shebang flags of the script Eval would run for the
// same sha and body (compiling and caching it), FlagEvalCompat for a
// script without a shebang, or Eval's error for it.
func (e *Engine) Flags(sha string, body []byte) (Flags, error) {
	p, err := e.compiled(strings.ToLower(sha), body)
	if err != nil {
		return 0, err
	}
	return p.flags, nil
}

// Exists reports whether the script named sha (hex, any case) is cached.
func (e *Engine) Exists(sha string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	_, ok := e.scripts[strings.ToLower(sha)]
	return ok
}

// Flush forgets every cached script.
func (e *Engine) Flush() {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.scripts = make(map[string]*compiled)
	e.order = nil
}

// Len returns the number of cached scripts.
func (e *Engine) Len() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.scripts)
}

// compiled returns the compiled script sha, compiling and caching body
// when it is not cached; body nil means EVALSHA, which finds it or fails.
func (e *Engine) compiled(sha string, body []byte) (*compiled, error) {
	e.mu.Lock()
	p := e.scripts[sha]
	e.mu.Unlock()
	if p != nil {
		return p, nil
	}
	if body == nil {
		return nil, errNoScript
	}
	p, err := compile(body)
	if err != nil {
		return nil, err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if _, ok := e.scripts[sha]; !ok {
		if len(e.order) >= MaxCached {
			delete(e.scripts, e.order[0])
			e.order = e.order[1:]
		}
		e.scripts[sha] = p
		e.order = append(e.order, sha)
	}
	return p, nil
}

// errNoScript is EVALSHA's reply for a script not cached.
var errNoScript = replyError("NOSCRIPT No matching script. Please use EVAL.")

type replyError string

func (e replyError) Error() string { return string(e) }

// chunkName is the name scripts are compiled under, as Redis names them.
const chunkName = "user_script"

// compile parses and compiles a script body, after its shebang line
// ("#!lua [flags=f1,f2]", Redis 7's) when it has one; the line is compiled
// as an empty one so that line numbers stay the script's.
func compile(body []byte) (*compiled, error) {
	c := &compiled{flags: FlagEvalCompat}
	src := string(body)
	if strings.HasPrefix(src, "#!") {
		nl := strings.IndexByte(src, '\n')
		if nl < 0 {
			return nil, replyError("ERR Invalid script shebang")
		}
		c.flags = 0
		parts, ok := splitArgs(src[:nl])
		if !ok || len(parts) == 0 {
			return nil, replyError("ERR Invalid engine in script shebang")
		}
		if parts[0] != "#!lua" {
			return nil, replyError("ERR Unexpected engine in script shebang: " + parts[0])
		}
		for _, p := range parts[1:] {
			list, ok := strings.CutPrefix(p, "flags=")
			if !ok {
				return nil, replyError("ERR Unknown lua shebang option: " + p)
			}
			if list == "" {
				continue
			}
			for _, f := range strings.Split(list, ",") {
				flag, ok := flagNamed(f)
				if !ok || strings.ToLower(f) != f {
					return nil, replyError("ERR Unexpected flag in script shebang: " + f)
				}
				c.flags |= flag
			}
		}
		src = src[nl:]
	}
	chunk, err := parse.Parse(strings.NewReader(src), chunkName)
	if err != nil {
		return nil, replyError("ERR Error compiling script (new function): " + compileMessage(err, body, chunkName))
	}
	p, err := lua.Compile(chunk, chunkName)
	if err != nil {
		return nil, replyError("ERR Error compiling script (new function): " + chunkName + ": " + err.Error())
	}
	// A script is Lua's main chunk, a vararg function without the local
	// arg table that Lua 5.1 gives other vararg functions; the compiler
	// marks it as needing one all the same, and the interpreter would
	// build one that nothing can reach on every run.
	p.IsVarArg &^= lua.VarArgNeedsArg
	c.proto = p
	return c, nil
}

// compileMessage words a parse error of body, compiled as chunk, as Lua
// does: "CHUNK:LINE: MESSAGE near 'TOKEN'", a syntax error being an
// "unexpected symbol" and the end of the script '<eof>' on its last line.
func compileMessage(err error, body []byte, chunk string) string {
	pe, ok := err.(*parse.Error)
	if !ok {
		return chunk + ": " + strings.TrimSpace(err.Error())
	}
	msg := strings.TrimSpace(pe.Message)
	if msg == "syntax error" {
		msg = "unexpected symbol"
	}
	line, token := pe.Pos.Line, pe.Token
	if line == parse.EOF {
		line, token = 1+strings.Count(string(body), "\n"), "<eof>"
	}
	return fmt.Sprintf("%s:%d: %s near '%s'", chunk, line, msg, token)
}

// Eval runs a script (EVAL when body is given, EVALSHA by sha when body is
// nil) with its KEYS and ARGV, calling commands through h. The reply is
// what the client gets, an Error reply for every failure in Redis's words.
// Once ctx is done the script raises an error at its next instruction and
// Eval returns the Error reply Killed.
func (e *Engine) Eval(ctx context.Context, sha string, body []byte, keys, args [][]byte, h Host) Reply {
	sha = strings.ToLower(sha)
	p, err := e.compiled(sha, body)
	if err != nil {
		return ErrorReply(err.Error())
	}
	v := e.vms.Get().(*vm)
	r, panicked := v.run(ctx, sha, p.proto, p.flags&FlagNoWrites != 0, keys, args, h)
	if !v.broken {
		e.vms.Put(v)
	}
	if panicked != nil {
		// A command the script called panicked: the caller rolls the
		// transaction back as for any command that panics.
		panic(panicked)
	}
	return r
}

// Killed is the reply of a script stopped before its end (Eval's context
// was done): SCRIPT KILL, or the server stopping.
const Killed = "ERR Script killed by user with SCRIPT KILL..."
