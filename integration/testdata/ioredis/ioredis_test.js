// Drives a mayfly server started with --manual-clock through ioredis and
// checks every reply with node:assert. integration/ioredis_test.go runs it
// with NODE_PATH pointing at the installed ioredis, MAYFLY_RESP_ADDR and
// MAYFLY_HTTP_ADDR (the admin address, whose POST /debug/clock moves the
// server's clock: no step waits for real time to pass). It exits non-zero
// on the first failed assertion.
'use strict';

const assert = require('node:assert/strict');
const Redis = require('ioredis');

const [host, port] = splitAddr(process.env.MAYFLY_RESP_ADDR);
const httpAddr = process.env.MAYFLY_HTTP_ADDR;

function splitAddr(addr) {
  const i = addr.lastIndexOf(':');
  return [addr.slice(0, i), Number(addr.slice(i + 1))];
}

function connect() {
  return new Redis({ host, port, maxRetriesPerRequest: 1, retryStrategy: () => null });
}

// advance moves the server's clock forward by ms milliseconds and wakes its
// sweeper.
async function advance(ms) {
  const res = await fetch(`http://${httpAddr}/debug/clock?advance=${ms}ms`, { method: 'POST' });
  assert.equal(res.status, 200, `advance clock: ${await res.text()}`);
}

// step runs one named check, so a failure says where it was.
async function step(name, f) {
  try {
    await f();
  } catch (err) {
    err.message = `${name}: ${err.message}`;
    throw err;
  }
}

async function strings(r) {
  assert.equal(await r.set('s', 'v', 'EX', 100), 'OK');
  assert.equal(await r.ttl('s'), 100);
  assert.equal(await r.set('sp', 'v', 'PX', 5500), 'OK');
  assert.equal(await r.pttl('sp'), 5500);
  assert.equal(await r.ttl('sp'), 6); // rounded, as Redis does
  assert.equal(await r.set('s', 'w', 'XX', 'GET'), 'v');
  assert.equal(await r.ttl('s'), -1); // SET without KEEPTTL clears it
  assert.equal(await r.set('s', 'x', 'NX'), null);
  assert.equal(await r.incrby('n', 5), 5);
  assert.equal(await r.incrbyfloat('n', '0.5'), '5.5');
  assert.deepEqual(await r.mget('s', 'missing', 'n'), ['w', null, '5.5']);
  await advance(6000);
  assert.equal(await r.get('sp'), null);
  assert.equal(await r.exists('sp'), 0);
}

async function expireFamily(r) {
  await r.set('p', 'v');
  assert.equal(await r.ttl('p'), -1);
  assert.equal(await r.ttl('nokey'), -2);
  assert.equal(await r.expire('p', 100, 'XX'), 0); // no TTL yet
  assert.equal(await r.expire('p', 100, 'NX'), 1);
  assert.equal(await r.expire('p', 200, 'NX'), 0);
  assert.equal(await r.expire('p', 200, 'XX'), 1);
  assert.equal(await r.expire('p', 150, 'GT'), 0);
  assert.equal(await r.expire('p', 300, 'GT'), 1);
  assert.equal(await r.expire('p', 400, 'LT'), 0);
  assert.equal(await r.expire('p', 150, 'LT'), 1);
  assert.equal(await r.ttl('p'), 150);
  assert.equal(await r.pexpire('p', 90500), 1);
  assert.equal(await r.pttl('p'), 90500);
  const now = Number((await r.time())[0]);
  assert.equal(await r.expireat('p', now + 50), 1);
  assert.equal(await r.expiretime('p'), now + 50);
  assert.equal(await r.pexpireat('p', (now + 60) * 1000), 1);
  assert.equal(await r.pexpiretime('p'), (now + 60) * 1000);
  assert.equal(await r.persist('p'), 1);
  assert.equal(await r.persist('p'), 0);
  assert.equal(await r.ttl('p'), -1);
  // A TTL in the past deletes the key.
  assert.equal(await r.expire('p', -1), 1);
  assert.equal(await r.exists('p'), 0);
}

async function hashes(r) {
  assert.equal(await r.hset('h', { a: '1', b: '2', c: '3' }), 3);
  assert.deepEqual(await r.hgetall('h'), { a: '1', b: '2', c: '3' });
  assert.deepEqual(await r.call('HEXPIRE', 'h', 100, 'FIELDS', 2, 'a', 'zz'), [1, -2]);
  assert.deepEqual(await r.call('HEXPIRE', 'h', 50, 'GT', 'FIELDS', 1, 'a'), [0]);
  assert.deepEqual(await r.call('HTTL', 'h', 'FIELDS', 2, 'a', 'b'), [100, -1]);
  assert.deepEqual(await r.call('HPEXPIRE', 'h', 1500, 'FIELDS', 1, 'b'), [1]);
  assert.deepEqual(await r.call('HPTTL', 'h', 'FIELDS', 1, 'b'), [1500]);
  assert.deepEqual(await r.call('HPERSIST', 'h', 'FIELDS', 2, 'a', 'c'), [1, -1]);
  await advance(2000);
  assert.deepEqual(await r.hgetall('h'), { a: '1', c: '3' });
  assert.equal(await r.hlen('h'), 2);
  assert.equal(await r.hincrby('h', 'c', 2), 5);
  // When every field has expired the hash is gone at once, whatever the
  // reaper has done yet.
  assert.deepEqual(await r.call('HPEXPIRE', 'h', 100, 'FIELDS', 2, 'a', 'c'), [1, 1]);
  await advance(200);
  assert.equal(await r.exists('h'), 0);
  assert.equal(await r.type('h'), 'none');
  assert.deepEqual(await r.hgetall('h'), {});
}

async function lists(r) {
  assert.equal(await r.rpush('l', 'a', 'b', 'c'), 3);
  assert.equal(await r.lpush('l', 'z'), 4);
  assert.deepEqual(await r.lrange('l', 0, -1), ['z', 'a', 'b', 'c']);
  assert.equal(await r.lpop('l'), 'z');
  assert.deepEqual(await r.rpop('l', 2), ['c', 'b']);
  assert.equal(await r.llen('l'), 1);
  assert.equal(await r.lmove('l', 'l2', 'LEFT', 'RIGHT'), 'a');
  assert.equal(await r.exists('l'), 0); // emptied lists are deleted
  assert.equal(await r.lindex('l2', 0), 'a');
}

async function sets(r) {
  assert.equal(await r.sadd('st', 'a', 'b', 'c'), 3);
  assert.equal(await r.sadd('st', 'a'), 0);
  assert.deepEqual((await r.smembers('st')).sort(), ['a', 'b', 'c']);
  assert.equal(await r.sismember('st', 'b'), 1);
  assert.equal(await r.srem('st', 'b', 'zz'), 1);
  assert.equal(await r.scard('st'), 2);
  await r.sadd('st2', 'c', 'd');
  assert.deepEqual(await r.sinter('st', 'st2'), ['c']);
  assert.deepEqual((await r.sunion('st', 'st2')).sort(), ['a', 'c', 'd']);
}

async function sortedSets(r) {
  assert.equal(await r.zadd('z', 1, 'a', 2, 'b', 3, 'c'), 3);
  assert.deepEqual(await r.zrange('z', 0, -1, 'WITHSCORES'), ['a', '1', 'b', '2', 'c', '3']);
  assert.equal(await r.zscore('z', 'b'), '2');
  assert.equal(await r.zincrby('z', 2.5, 'a'), '3.5');
  assert.deepEqual(await r.zrangebyscore('z', 2, '(3.5'), ['b', 'c']);
  assert.equal(await r.zrank('z', 'a'), 2);
  assert.equal(await r.zrem('z', 'b'), 1);
  assert.equal(await r.zcard('z'), 2);
  assert.deepEqual(await r.zrevrange('z', 0, 0), ['a']);
}

async function transactions(r) {
  const res = await r.multi().set('m', '1').incr('m').expire('m', 30).get('m').exec();
  assert.deepEqual(res, [[null, 'OK'], [null, 2], [null, 1], [null, '2']]);
  assert.equal(await r.ttl('m'), 30);
  // A command that fails inside EXEC fails alone.
  const mixed = await r.multi().set('m2', 'x').incr('m2').get('m2').exec();
  assert.equal(mixed[0][1], 'OK');
  assert.match(mixed[1][0].message, /not an integer/);
  assert.equal(mixed[2][1], 'x');
  const piped = await r.pipeline().set('pp', 'v', 'PX', 1000).pttl('pp').get('pp').exec();
  assert.deepEqual(piped, [[null, 'OK'], [null, 1000], [null, 'v']]);
  const watcher = connect();
  try {
    await watcher.watch('w');
    await r.set('w', 'changed');
    assert.equal(await watcher.multi().set('w', 'mine').exec(), null); // aborted
  } finally {
    watcher.disconnect();
  }
}

async function objectIdleTime(r) {
  await r.set('idle', 'v');
  await advance(7000);
  assert.equal(await r.object('IDLETIME', 'idle'), 7);
  assert.equal(await r.get('idle'), 'v');
  assert.equal(await r.object('IDLETIME', 'idle'), 0);
}

async function notifications(r) {
  assert.equal(await r.config('SET', 'notify-keyspace-events', 'KEA'), 'OK');
  const sub = connect();
  const seen = [];
  let wake = () => {};
  sub.on('pmessage', (_pattern, channel, message) => {
    seen.push(`${channel.slice(channel.indexOf(':') + 1)} ${message}`);
    wake();
  });
  await sub.psubscribe('__keyevent@0__:*');
  const waitFor = (want) =>
    new Promise((resolve, reject) => {
      const check = () => {
        if (want.every((w) => seen.includes(w))) {
          clearTimeout(timer);
          resolve();
        }
      };
      // A bound on a broken server, not a wait for expiry: the clock moves
      // by advance only.
      const timer = setTimeout(() => reject(new Error(`events ${JSON.stringify(seen)}, want ${want}`)), 10000);
      wake = check;
      check();
    });
  try {
    await r.set('e', 'v', 'PX', 100);
    await r.hset('hx', 'f', 'v');
    await r.call('HPEXPIRE', 'hx', 100, 'FIELDS', 1, 'f');
    await waitFor(['set e', 'hset hx', 'hexpire hx']);
    await advance(200); // the sweeper deletes both
    await waitFor(['expired e', 'hexpired hx', 'del hx']);
    const info = await r.info('stats');
    assert.match(info, /\r\nexpired_keys:[1-9]/);
    assert.match(info, /\r\nexpired_subkeys:[1-9]/);
  } finally {
    sub.disconnect();
  }
}

async function main() {
  const r = connect();
  try {
    assert.equal(await r.ping(), 'PONG');
    for (const [name, f] of Object.entries({
      strings, expireFamily, hashes, lists, sets, sortedSets, transactions, objectIdleTime, notifications,
    })) {
      await step(name, () => f(r));
    }
    assert.equal(await r.flushdb(), 'OK');
    assert.equal(await r.dbsize(), 0);
  } finally {
    r.disconnect();
  }
  console.log('ioredis: all checks passed');
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
