#!/usr/bin/env python3
"""The change log's cost on inserts through the wire (BENCHMARKS.md, session 9).

Usage: changelog-wire-cost.py BENCH_BIN ROUNDS DURATION [LABEL=SERVER_BIN ...]

Starts one `mayfly serve` per LABEL=SERVER_BIN on loopback with data under
a temporary directory, removed at the end (a label ending in "on" gets --change-streams, one ending in
"off" not; default: off and on, both BENCH_BIN), runs `BENCH_BIN bench doc`
(50 lean clients, DURATION per phase) against each in rotating order for
ROUNDS rounds, and prints the insert and insert_many throughput and the
server's CPU time (user + system, /proc/PID/stat) per document of each
phase, then medians and the on/off ratio of each LABEL pair. With
MAYFLY_PORT_BASE=N the servers listen on ports N, N+1, ... instead of free
ephemeral ones."""
import json, os, shutil, socket, statistics, subprocess, sys, tempfile, threading, time
BIN = sys.argv[1]; ROUNDS = int(sys.argv[2]); DUR = sys.argv[3]; CLIENTS = "50"
SERVERS = [a.split('=', 1) for a in sys.argv[4:]] or [['off', BIN], ['on', BIN]]
TCK = os.sysconf('SC_CLK_TCK')
NEXT_PORT = [int(os.environ['MAYFLY_PORT_BASE'])] if os.environ.get('MAYFLY_PORT_BASE') else None
def port():
    if NEXT_PORT:
        NEXT_PORT[0] += 1; return NEXT_PORT[0] - 1
    s = socket.socket(); s.bind(('127.0.0.1', 0)); p = s.getsockname()[1]; s.close(); return p
def cpu(pid):
    f = open(f'/proc/{pid}/stat').read().rsplit(')', 1)[1].split()
    return (int(f[11]) + int(f[12])) / TCK
TMP = tempfile.mkdtemp(prefix='changelog-wire-cost-')
servers = {}
for label, sbin in SERVERS:
    on = label.endswith('on')
    d = os.path.join(TMP, label); os.makedirs(d)
    mp = port()
    args = [sbin, 'serve', '--dir', d, '--mongo-addr', f'127.0.0.1:{mp}', '--resp-addr', f'127.0.0.1:{port()}', '--http-addr', f'127.0.0.1:{port()}', f'--change-streams={"true" if on else "false"}']
    p = subprocess.Popen(args, stdout=open(d + '.log', 'w'), stderr=subprocess.STDOUT)
    servers[label] = (p, mp)
for label, (p, mp) in servers.items():
    for _ in range(100):
        try: socket.create_connection(('127.0.0.1', mp), 0.2).close(); break
        except OSError: time.sleep(0.1)
res = {l: {} for l in servers}
try:
    for r in range(ROUNDS):
        labels = [l for l, _ in SERVERS]
        order = labels[r % len(labels):] + labels[:r % len(labels)]
        for label in order:
            p, mp = servers[label]
            b = subprocess.Popen([BIN, 'bench', '--mongo-uri', f'mayfly=mongodb://127.0.0.1:{mp}/', '--clients', CLIENTS, '--duration', DUR, '--progress', 'plain', '--format', 'json', 'doc'], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            marks = []
            def rd():
                for line in b.stderr:
                    line = line.removeprefix('bench: ')
                    if line.startswith('doc ') and 'clients for' in line:
                        marks.append((line.split()[1], time.time(), cpu(p.pid)))
            t = threading.Thread(target=rd); t.start()
            out = b.stdout.read(); b.wait(); t.join()
            marks.append(('end', time.time(), cpu(p.pid)))
            rep = json.loads(out)
            mets = {m['name']: m['value'] for m in rep['results'][0]['metrics']}
            for i in range(len(marks) - 1):
                ph = marks[i][0]
                if ph not in ('insert', 'insert_many'): continue
                ops = mets.get(ph + '.ops', 0)
                secs = marks[i+1][1] - marks[i][1]
                cpus = marks[i+1][2] - marks[i][2]
                docs = ops * float(DUR.rstrip('s'))
                res[label].setdefault(ph, []).append((ops, cpus / docs * 1e6 if docs else 0))
                print(f'round {r} {label} {ph}: {ops:.0f} docs/s, server CPU {cpus/docs*1e6 if docs else 0:.1f} µs/doc', flush=True)
finally:
    for p, _ in servers.values(): p.terminate(); p.wait()
    shutil.rmtree(TMP, ignore_errors=True)
print('medians:')
pairs = [(l[:-3], l, l[:-3] + 'on') for l, _ in SERVERS if l.endswith('off')] or [('', 'off', 'on')]
for name, lo, ln in pairs:
  for ph in ('insert', 'insert_many'):
    o = res[lo].get(ph, []); n = res[ln].get(ph, [])
    if not o or not n: continue
    print(name, end=' ')
    mo, mn = statistics.median(x[0] for x in o), statistics.median(x[0] for x in n)
    co, cn = statistics.median(x[1] for x in o), statistics.median(x[1] for x in n)
    print(f'{ph}: off {mo:.0f} docs/s {co:.1f} µs/doc | on {mn:.0f} docs/s {cn:.1f} µs/doc | throughput {mn/mo-1:+.1%} CPU {cn/co-1:+.1%}')
