// Redlock (the npm redlock package, v5) over ioredis against a mayfly
// started with --manual-clock: acquire, extend and release of a lock, two
// clients contending for one resource, a multi-resource lock, using() with
// automatic extension, and a lock that expires on its own once the server's
// clock passes its duration.
'use strict';

const Redis = require('ioredis');
const { default: Redlock, ExecutionError, ResourceLockedError } = require('redlock');
const { assert, host, port, advance, step, main } = require('./lib.js');

function connect() {
  return new Redis({ host, port, maxRetriesPerRequest: 1, retryStrategy: () => null });
}

// failsToLock asserts that p rejects with Redlock's ExecutionError after the
// given number of attempts, each of which found the resource locked.
async function failsToLock(p, attempts) {
  let err;
  try {
    await p;
  } catch (e) {
    err = e;
  }
  assert.ok(err instanceof ExecutionError, `expected an ExecutionError, got ${err}`);
  assert.equal(err.attempts.length, attempts);
  const stats = await err.attempts[0];
  assert.equal(stats.membershipSize, 1);
  assert.equal(stats.votesAgainst.size, 1);
  for (const e of stats.votesAgainst.values()) {
    assert.ok(e instanceof ResourceLockedError, `vote against: ${e}`);
  }
}

main(async () => {
  const a = connect();
  const b = connect();
  const plain = connect();
  const one = new Redlock([a], { retryCount: 0 });
  const two = new Redlock([b], { retryCount: 2, retryDelay: 20, retryJitter: 5 });
  try {
    await step('acquire, extend, release', async () => {
      const lock = await one.acquire(['res:a'], 60000);
      assert.equal(await plain.get('res:a'), lock.value);
      assert.equal(await plain.pttl('res:a'), 60000);
      await advance(10000);
      assert.equal(await plain.pttl('res:a'), 50000);
      const extended = await lock.extend(120000);
      assert.equal(extended.value, lock.value);
      assert.equal(await plain.pttl('res:a'), 120000);
      const stats = await extended.release();
      assert.equal(stats.attempts.length, 1);
      assert.equal(await plain.exists('res:a'), 0);
    });

    await step('contention between two clients', async () => {
      const held = await one.acquire(['res:c'], 60000);
      await failsToLock(two.acquire(['res:c'], 60000), 3);
      assert.equal(await plain.get('res:c'), held.value, 'the loser did not touch the lock');
      // The loser cannot release or extend what it does not hold.
      const forged = new (require('redlock').Lock)(two, ['res:c'], 'not-the-value', [], Date.now() + 60000);
      await failsToLock(forged.extend(1000), 3);
      await failsToLock(two.release(forged, { retryCount: 0 }), 1);
      assert.equal(await plain.get('res:c'), held.value, 'a release with the wrong value deletes nothing');
      await held.release();
      const won = await two.acquire(['res:c'], 60000);
      assert.equal(await plain.get('res:c'), won.value);
      await won.release();
    });

    await step('multi-resource lock is all or nothing', async () => {
      const held = await one.acquire(['res:m2'], 60000);
      await failsToLock(two.acquire(['res:m1', 'res:m2', 'res:m3'], 60000), 3);
      assert.equal(await plain.exists('res:m1', 'res:m3'), 0, 'no partial lock left behind');
      await held.release();
      const all = await two.acquire(['res:m1', 'res:m2', 'res:m3'], 60000);
      assert.deepEqual(await plain.mget('res:m1', 'res:m2', 'res:m3'), [all.value, all.value, all.value]);
      await all.release();
      assert.equal(await plain.exists('res:m1', 'res:m2', 'res:m3'), 0);
    });

    await step('a lock expires on its own', async () => {
      const lock = await one.acquire(['res:e'], 5000);
      await failsToLock(two.acquire(['res:e'], 5000), 3);
      await advance(5001);
      assert.equal(await plain.exists('res:e'), 0);
      const next = await two.acquire(['res:e'], 5000);
      assert.notEqual(next.value, lock.value);
      assert.equal(await plain.get('res:e'), next.value);
      // The first holder's extend now finds another value and fails.
      await failsToLock(lock.extend(5000), 1);
      await next.release();
    });

    await step('using() extends the lock while the routine runs', async () => {
      // The extension is due 500 ms in (duration minus threshold); the
      // lock would be lost on the client's clock only if it came 500 ms
      // late, which a loaded machine does not make it.
      const auto = new Redlock([a], { retryCount: 0, automaticExtensionThreshold: 500 });
      let extendedPttl;
      await auto.using(['res:u'], 1000, async (signal) => {
        const first = await plain.get('res:u');
        assert.ok(first, 'locked inside using()');
        // The server's clock moves 300 ms, then the client's passes the
        // extension point (duration minus threshold): the extension sets
        // PX 1000 again.
        await advance(300);
        assert.equal(await plain.pttl('res:u'), 700);
        await new Promise((r) => setTimeout(r, 600));
        assert.equal(signal.aborted, false, `aborted: ${signal.error}`);
        assert.equal(await plain.get('res:u'), first);
        extendedPttl = await plain.pttl('res:u');
      });
      assert.equal(extendedPttl, 1000, 'extended: PX 1000 set anew after 300 ms of the server clock');
      assert.equal(await plain.exists('res:u'), 0, 'released when the routine ended');
    });
  } finally {
    a.disconnect();
    b.disconnect();
    plain.disconnect();
  }
});
