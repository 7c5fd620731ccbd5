// mongoose's Model.watch() against mayfly --change-streams: a stream on a
// model receives an insert (with fullDocument), an update (with its
// updateDescription), a user delete, and a TTL deletion marked with
// expiredBy once the server's clock passes the document's expiry; a
// stream that selects expirations only receives the TTL deletion.
'use strict';

const mongoose = require('mongoose');
const { assert, mongoAddr, advance, step, main } = require('./lib');

// next waits for the stream's next change.
function next(stream) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('no change within 20 s')), 20000);
    stream.once('change', (ev) => { clearTimeout(timer); resolve(ev); });
    stream.once('error', (err) => { clearTimeout(timer); reject(err); });
  });
}

main(async () => {
  await mongoose.connect(`mongodb://${mongoAddr}/watchshop`, { serverSelectionTimeoutMS: 10000 });
  const Cart = mongoose.model('Cart', new mongoose.Schema({
    owner: String,
    items: Number,
    createdAt: { type: Date, default: Date.now, expires: 60 },
  }));
  await Cart.init();

  const all = Cart.watch();
  const expired = Cart.watch([{ $match: { operationType: 'delete', expiredBy: { $exists: true } } }]);
  // A stream starts once its first aggregate has answered.
  await Promise.all([all, expired].map((s) => new Promise((resolve) => s.once('resumeTokenChanged', resolve))));

  let kept, gone;
  await step('an insert', async () => {
    const changed = next(all);
    kept = await Cart.create({ owner: 'ann', items: 1 });
    const ev = await changed;
    assert.equal(ev.operationType, 'insert');
    assert.equal(ev.fullDocument.owner, 'ann');
    assert.equal(String(ev.documentKey._id), String(kept._id));
  });
  await step('an update', async () => {
    const changed = next(all);
    await Cart.updateOne({ _id: kept._id }, { $set: { items: 2 } });
    const ev = await changed;
    assert.equal(ev.operationType, 'update');
    assert.deepEqual(ev.updateDescription.updatedFields, { items: 2 });
  });
  await step('a user delete carries no expiredBy', async () => {
    // A change the stream emits while nobody listens is lost, so each
    // wait starts before the write it waits for.
    const inserted = next(all);
    gone = await Cart.create({ owner: 'bob', items: 1 });
    await inserted;
    const changed = next(all);
    await Cart.deleteOne({ _id: gone._id });
    const ev = await changed;
    assert.equal(ev.operationType, 'delete');
    assert.equal(ev.expiredBy, undefined);
  });
  await step('a TTL deletion is marked, and the expirations stream gets only it', async () => {
    const changed = next(all);
    const onlyExpired = next(expired);
    await advance(2 * 60 * 1000);
    const ev = await changed;
    assert.equal(ev.operationType, 'delete');
    assert.equal(String(ev.documentKey._id), String(kept._id));
    assert.equal(ev.expiredBy.source, 'ttl');
    assert.equal(ev.expiredBy.index, 'createdAt_1');
    const ex = await onlyExpired;
    assert.equal(String(ex.documentKey._id), String(kept._id));
  });
  await all.close();
  await expired.close();
  await mongoose.disconnect();
});
