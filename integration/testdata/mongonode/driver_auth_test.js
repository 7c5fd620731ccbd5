// The Node MongoDB driver and mongoose with credentials in the URI against
// mayfly --auth: SCRAM-SHA-256 and SCRAM-SHA-1 log in, a readWrite user
// works in its database and is refused elsewhere with Unauthorized (13), a
// wrong password is AuthenticationFailed (18).
'use strict';

const { MongoClient } = require('mongodb');
const mongoose = require('mongoose');
const { assert, mongoAddr, step, rejects, main } = require('./lib');

const uri = (user, pwd, extra = '') =>
  `mongodb://${encodeURIComponent(user)}:${encodeURIComponent(pwd)}@${mongoAddr}/shop?authSource=shop${extra}`;

main(async () => {
  for (const mech of ['SCRAM-SHA-256', 'SCRAM-SHA-1']) {
    await step(`${mech}: log in, write and read`, async () => {
      const client = await MongoClient.connect(uri('app', 'app secret', `&authMechanism=${mech}`),
        { serverSelectionTimeoutMS: 10000 });
      try {
        const orders = client.db('shop').collection('orders');
        await orders.insertOne({ _id: mech, total: 42 });
        assert.equal((await orders.findOne({ _id: mech })).total, 42);
        const status = await client.db('shop').command({ connectionStatus: 1 });
        assert.deepEqual(status.authInfo.authenticatedUsers, [{ user: 'app', db: 'shop' }]);
      } finally {
        await client.close();
      }
    });
  }

  await step('a readWrite user is refused another database', async () => {
    const client = await MongoClient.connect(uri('app', 'app secret'), { serverSelectionTimeoutMS: 10000 });
    try {
      const err = await rejects(client.db('other').collection('x').insertOne({ a: 1 }), 13);
      assert.match(err.message, /not authorized on other to execute command/);
      await rejects(client.db('shop').dropDatabase(), 13);
    } finally {
      await client.close();
    }
  });

  await step('a wrong password is AuthenticationFailed', async () => {
    const client = new MongoClient(uri('app', 'wrong'), { serverSelectionTimeoutMS: 10000 });
    await rejects(client.connect(), 18);
    await client.close();
  });

  await step('mongoose with credentials in the URI', async () => {
    const conn = await mongoose.createConnection(uri('app', 'app secret'), { serverSelectionTimeoutMS: 10000 }).asPromise();
    try {
      const Order = conn.model('Order', new mongoose.Schema({ _id: String, total: Number }));
      await Order.create({ _id: 'm1', total: 7 });
      assert.equal((await Order.findById('m1').lean()).total, 7);
    } finally {
      await conn.close();
    }
  });

  await step('mongoose with a wrong password fails to connect', async () => {
    const conn = mongoose.createConnection(uri('app', 'wrong'), { serverSelectionTimeoutMS: 10000 });
    await rejects(conn.asPromise(), 18);
    await conn.close();
  });
});
