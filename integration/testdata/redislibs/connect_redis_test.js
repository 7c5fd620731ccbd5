// connect-redis (v9, over node-redis v5) as express-session's store against
// a mayfly started with --manual-clock: the store API (set, get, touch,
// destroy, length, ids, all, clear) with the TTL it puts on each key, and
// the session middleware itself behind a node:http server on 127.0.0.1:0,
// whose cookie brings the session back on the next request.
'use strict';

const http = require('node:http');
const { createClient } = require('redis');
const session = require('express-session');
const { RedisStore } = require('connect-redis');
const { assert, host, port, advance, step, main } = require('./lib.js');

// request sends a GET to the server at addr with the given cookie header and
// returns the status, the Set-Cookie header's first cookie and the body.
function request(addr, path, cookie) {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: addr.address, port: addr.port, path, headers: cookie ? { cookie } : {} }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c) => { body += c; });
      res.on('end', () => {
        const set = res.headers['set-cookie'];
        resolve({ status: res.statusCode, cookie: set ? set[0].split(';')[0] : undefined, body });
      });
    });
    req.on('error', reject);
  });
}

main(async () => {
  const client = createClient({ socket: { host, port, reconnectStrategy: false } });
  client.on('error', (err) => console.error('redis client:', err));
  await client.connect();
  try {
    await step('store set/get/touch/destroy with TTL', async () => {
      const store = new RedisStore({ client, prefix: 'sess:', ttl: 3600 });
      const sess = { cookie: { originalMaxAge: null }, user: 'ada', n: 1 };
      await store.set('s1', sess);
      assert.deepEqual(await store.get('s1'), sess);
      assert.equal(await client.ttl('sess:s1'), 3600);
      assert.equal(JSON.parse(await client.get('sess:s1')).user, 'ada');

      await advance(1000 * 1000);
      assert.equal(await client.ttl('sess:s1'), 2600);
      await store.touch('s1', sess);
      assert.equal(await client.ttl('sess:s1'), 3600, 'touch renews the TTL');

      // A cookie with an expiry sets the key's TTL from it, rounded up.
      const withExpiry = { cookie: { expires: new Date(Date.now() + 90 * 1000).toISOString() }, user: 'bob' };
      await store.set('s2', withExpiry);
      assert.equal(await client.ttl('sess:s2'), 90);
      assert.equal(await store.length(), 2);
      assert.deepEqual((await store.ids()).sort(), ['s1', 's2']);
      const all = await store.all();
      assert.deepEqual(all.map((s) => `${s.id}:${s.user}`).sort(), ['s1:ada', 's2:bob']);

      // The key goes when its TTL passes, and the session with it.
      await advance(90 * 1000 + 1);
      assert.equal(await store.get('s2'), null);
      assert.equal(await client.exists('sess:s2'), 0);

      // A cookie already expired destroys the session instead of storing it.
      await store.set('s3', { cookie: { expires: new Date(Date.now() - 1000).toISOString() } });
      assert.equal(await client.exists('sess:s3'), 0);

      await store.destroy('s1');
      assert.equal(await store.get('s1'), null);
      assert.equal(await client.exists('sess:s1'), 0);

      await store.set('s4', sess);
      await store.set('s5', sess);
      await store.clear();
      assert.equal(await store.length(), 0);
    });

    await step('session middleware over http', async () => {
      const store = new RedisStore({ client, prefix: 'web:' });
      const mw = session({
        store,
        secret: 'mayfly-test-secret',
        resave: false,
        saveUninitialized: false,
        rolling: true,
        cookie: { maxAge: 600 * 1000 },
      });
      const server = http.createServer((req, res) => {
        mw(req, res, () => {
          if (req.url === '/logout') {
            req.session.destroy((err) => res.end(err ? `error ${err}` : 'bye'));
            return;
          }
          req.session.views = (req.session.views || 0) + 1;
          res.end(String(req.session.views));
        });
      });
      await new Promise((r) => server.listen(0, '127.0.0.1', r));
      const addr = server.address();
      try {
        const first = await request(addr, '/');
        assert.equal(first.body, '1');
        assert.ok(first.cookie && first.cookie.startsWith('connect.sid='), `cookie: ${first.cookie}`);
        const keys = await client.keys('web:*');
        assert.equal(keys.length, 1);
        assert.equal(await client.ttl(keys[0]), 600);
        await advance(100 * 1000);
        assert.equal(await client.ttl(keys[0]), 500);
        const second = await request(addr, '/', first.cookie);
        assert.equal(second.body, '2', 'the cookie brought the stored session back');
        assert.equal(await client.ttl(keys[0]), 600, 'a rolling session renews the TTL');
        assert.equal(JSON.parse(await client.get(keys[0])).views, 2);
        const bye = await request(addr, '/logout', first.cookie);
        assert.equal(bye.body, 'bye');
        assert.equal(await client.exists(keys[0]), 0);
        const again = await request(addr, '/', first.cookie);
        assert.equal(again.body, '1', 'a destroyed session starts over');
      } finally {
        server.close();
      }
    });
  } finally {
    await client.quit().catch(() => {});
  }
});
