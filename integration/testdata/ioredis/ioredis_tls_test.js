// Drives a mayfly server whose listeners serve TLS through ioredis with its
// tls option. integration/tls_test.go runs it with NODE_PATH pointing at the
// installed ioredis, MAYFLY_RESP_ADDR (the TLS listener) and
// MAYFLY_TLS_CA_FILE (the authority that signed the server's certificate).
// It exits non-zero on the first failed assertion.
'use strict';

const assert = require('node:assert/strict');
const fs = require('node:fs');
const Redis = require('ioredis');

const addr = process.env.MAYFLY_RESP_ADDR;
const i = addr.lastIndexOf(':');
const host = addr.slice(0, i);
const port = Number(addr.slice(i + 1));
const ca = fs.readFileSync(process.env.MAYFLY_TLS_CA_FILE);

async function main() {
  const r = new Redis({ host, port, tls: { ca }, maxRetriesPerRequest: 1, retryStrategy: () => null });
  try {
    assert.equal(await r.set('tls:k', 'v', 'EX', 100), 'OK');
    assert.equal(await r.get('tls:k'), 'v');
    const ttl = await r.ttl('tls:k');
    assert.ok(ttl > 0 && ttl <= 100, `ttl ${ttl}`);
    const piped = await r.pipeline().incr('tls:n').incr('tls:n').exec();
    assert.deepEqual(piped, [[null, 1], [null, 2]]);
    const [, tlsPort] = await r.config('GET', 'tls-port');
    assert.equal(Number(tlsPort), port);
  } finally {
    r.disconnect();
  }
  // Without the authority the handshake fails.
  const untrusted = new Redis({ host, port, tls: {}, maxRetriesPerRequest: 0, retryStrategy: () => null, lazyConnect: true });
  let refusal;
  untrusted.on('error', (err) => { refusal = refusal || err; });
  await assert.rejects(untrusted.connect());
  assert.match(String(refusal), /certificate/);
  untrusted.disconnect();
  console.log('ioredis over TLS: ok');
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
