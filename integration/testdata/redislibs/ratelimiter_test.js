// rate-limiter-flexible's RateLimiterRedis over ioredis (and once over
// node-redis, whose path is EVAL and MULTI instead of EVALSHA) against a mayfly
// started with --manual-clock: consume until blocked, the msBeforeNext the
// key's PTTL gives, penalty and reward, and blockDuration. Time passes only
// through advance, so every msBeforeNext is exact.
'use strict';

const Redis = require('ioredis');
const { createClient } = require('redis');
const { RateLimiterRedis, RateLimiterRes } = require('rate-limiter-flexible');
const { assert, host, port, advance, step, main } = require('./lib.js');

// rejected returns what the promise rejected with, failing if it resolved.
async function rejected(p) {
  try {
    const v = await p;
    assert.fail(`expected a rejection, got ${JSON.stringify(v)}`);
  } catch (err) {
    if (err instanceof assert.AssertionError) throw err;
    return err;
  }
}

main(async () => {
  const redis = new Redis({ host, port, maxRetriesPerRequest: 1, retryStrategy: () => null, enableOfflineQueue: false });
  await new Promise((resolve, reject) => { redis.once('ready', resolve); redis.once('error', reject); });
  try {
    await step('consume until blocked', async () => {
      const rl = new RateLimiterRedis({ storeClient: redis, keyPrefix: 'rl', points: 3, duration: 10 });
      for (let i = 1; i <= 3; i++) {
        const res = await rl.consume('user1');
        assert.equal(res.consumedPoints, i);
        assert.equal(res.remainingPoints, 3 - i);
        assert.equal(res.msBeforeNext, 10000);
      }
      const err = await rejected(rl.consume('user1'));
      assert.ok(err instanceof RateLimiterRes, `rejected with ${err}`);
      assert.equal(err.consumedPoints, 4);
      assert.equal(err.remainingPoints, 0);
      assert.equal(err.msBeforeNext, 10000);
      assert.equal(await redis.pttl('rl:user1'), 10000);
      await advance(4000);
      const later = await rejected(rl.consume('user1'));
      assert.equal(later.msBeforeNext, 6000);
      // At exactly its expiry time a key still exists with PTTL 0, as in
      // Redis; one millisecond later it is gone.
      await advance(6000);
      const edge = await rejected(rl.consume('user1'));
      assert.equal(edge.msBeforeNext, 0);
      await advance(1);
      const res = await rl.consume('user1');
      assert.equal(res.consumedPoints, 1, 'a new window after the key expired');
      assert.equal(res.msBeforeNext, 10000);
    });

    await step('get and delete', async () => {
      const rl = new RateLimiterRedis({ storeClient: redis, keyPrefix: 'rlg', points: 5, duration: 60 });
      assert.equal(await rl.get('nobody'), null);
      await rl.consume('u', 2);
      await advance(1500);
      const got = await rl.get('u');
      assert.equal(got.consumedPoints, 2);
      assert.equal(got.msBeforeNext, 58500);
      assert.equal(await rl.delete('u'), true);
      assert.equal(await rl.get('u'), null);
      assert.equal(await rl.delete('u'), false);
    });

    await step('penalty and reward', async () => {
      const rl = new RateLimiterRedis({ storeClient: redis, keyPrefix: 'rlp', points: 5, duration: 30 });
      await rl.consume('u', 2);
      const pen = await rl.penalty('u', 2);
      assert.equal(pen.consumedPoints, 4);
      assert.equal(pen.remainingPoints, 1);
      const rew = await rl.reward('u', 3);
      assert.equal(rew.consumedPoints, 1);
      assert.equal(rew.remainingPoints, 4);
      assert.equal(await redis.get('rlp:u'), '1');
      assert.equal(await redis.pttl('rlp:u'), 30000);
      // A penalty on a key that does not exist yet starts a window.
      const fresh = await rl.penalty('v', 1);
      assert.equal(fresh.consumedPoints, 1);
      assert.equal(fresh.msBeforeNext, 30000);
    });

    await step('block duration', async () => {
      const rl = new RateLimiterRedis({ storeClient: redis, keyPrefix: 'rlb', points: 2, duration: 5, blockDuration: 60 });
      await rl.consume('u');
      await rl.consume('u');
      const err = await rejected(rl.consume('u'));
      assert.equal(err.msBeforeNext, 60000, 'the key is blocked for blockDuration, not the window');
      assert.equal(await redis.pttl('rlb:u'), 60000);
      await advance(5000);
      const still = await rejected(rl.consume('u'));
      assert.equal(still.msBeforeNext, 55000, 'still blocked after the window would have ended');
      // block() sets a key's block directly.
      const b = await rl.block('w', 20);
      assert.equal(b.msBeforeNext, 20000);
      const blocked = await rejected(rl.consume('w'));
      assert.equal(blocked.msBeforeNext, 20000);
      await advance(55001);
      const res = await rl.consume('u');
      assert.equal(res.consumedPoints, 1, 'unblocked once blockDuration passed');
      assert.equal(await redis.pttl('rlb:w'), -2);
    });

    await step('concurrent consumes each count once', async () => {
      const rl = new RateLimiterRedis({ storeClient: redis, keyPrefix: 'rle', points: 4, duration: 1, execEvenly: false });
      const results = await Promise.all([1, 2, 3, 4].map(() => rl.consume('u')));
      assert.deepEqual(results.map((r) => r.consumedPoints).sort(), [1, 2, 3, 4]);
      assert.equal(await redis.get('rle:u'), '4');
    });

    await step('over node-redis', async () => {
      const client = createClient({ socket: { host, port, reconnectStrategy: false } });
      client.on('error', (err) => console.error('redis client:', err));
      await client.connect();
      try {
        const rl = new RateLimiterRedis({ storeClient: client, useRedisPackage: true, keyPrefix: 'rln', points: 2, duration: 20 });
        assert.equal((await rl.consume('u')).remainingPoints, 1);
        assert.equal((await rl.consume('u')).remainingPoints, 0);
        const err = await rejected(rl.consume('u'));
        assert.equal(err.msBeforeNext, 20000);
        await advance(2500);
        const got = await rl.get('u');
        assert.equal(got.consumedPoints, 3);
        assert.equal(got.msBeforeNext, 17500);
        // set() goes through MULTI: SET ... EX and PTTL.
        const set = await rl.set('w', 1, 30);
        assert.equal(set.consumedPoints, 1);
        assert.equal(set.msBeforeNext, 30000);
      } finally {
        await client.quit().catch(() => {});
      }
    });
  } finally {
    redis.disconnect();
  }
});
