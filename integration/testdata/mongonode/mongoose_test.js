// mongoose against mayfly: models, schema-declared indexes (a TTL index
// from `expires`, a unique index), CRUD, a duplicate key, and a session
// that expires: invisible as soon as the server's clock passes its TTL.
'use strict';

const mongoose = require('mongoose');
const { assert, mongoAddr, advance, step, main } = require('./lib');

main(async () => {
  const uri = process.env.MAYFLY_MONGO_URI || `mongodb://${mongoAddr}/shop`;
  await mongoose.connect(uri, { serverSelectionTimeoutMS: 10000 });

  const Session = mongoose.model('Session', new mongoose.Schema({
    token: { type: String, required: true },
    createdAt: { type: Date, default: Date.now, expires: 60 },
  }));
  const User = mongoose.model('User', new mongoose.Schema({
    email: { type: String, required: true, unique: true },
    name: String,
    visits: { type: Number, default: 0 },
  }));

  await step('schema indexes are built', async () => {
    await Session.init();
    await User.init();
    const ttl = (await Session.collection.indexes()).find((ix) => ix.key.createdAt === 1);
    assert.ok(ttl, 'no index on createdAt');
    assert.equal(ttl.expireAfterSeconds, 60);
    const unique = (await User.collection.indexes()).find((ix) => ix.key.email === 1);
    assert.ok(unique && unique.unique, 'no unique index on email');
  });

  await step('create, find, update, delete', async () => {
    const u = await User.create({ email: 'ada@example.com', name: 'Ada' });
    const found = await User.findById(u._id).lean();
    assert.equal(found.name, 'Ada');
    const updated = await User.findOneAndUpdate(
      { email: 'ada@example.com' }, { $inc: { visits: 2 } }, { new: true }).lean();
    assert.equal(updated.visits, 2);
    await User.create({ email: 'bob@example.com', name: 'Bob' });
    assert.equal(await User.countDocuments(), 2);
    const res = await User.deleteOne({ email: 'bob@example.com' });
    assert.equal(res.deletedCount, 1);
    assert.deepEqual((await User.find().sort({ email: 1 }).lean()).map((d) => d.email), ['ada@example.com']);
  });

  await step('a duplicate key is E11000', async () => {
    let err;
    try {
      await User.create({ email: 'ada@example.com' });
    } catch (e) {
      err = e;
    }
    assert.ok(err, 'duplicate accepted');
    assert.equal(err.code, 11000);
    assert.match(err.message, /E11000 duplicate key error/);
  });

  await step('validation runs before the server is asked', async () => {
    await assert.rejects(Session.create({}), /token.*required/);
  });

  await step('an expired session is invisible at once', async () => {
    await Session.create([{ token: 'a' }, { token: 'b' }, { token: 'c' }]);
    assert.equal(await Session.countDocuments(), 3);
    // The server's clock started with it, before the documents were made
    // by the client's clock; two TTLs ahead is past their expiry however
    // long the start took.
    await advance(120000);
    assert.equal(await Session.countDocuments(), 0);
    assert.equal(await Session.findOne({ token: 'a' }), null);
  });

  await mongoose.disconnect();
});
