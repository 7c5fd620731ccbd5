// mongoose's session.withTransaction against mayfly: the account transfer
// commits whole, an error thrown inside aborts it, and transfers racing on
// the same accounts are retried (TransientTransactionError) until each has
// committed exactly once.
'use strict';

const mongoose = require('mongoose');
const { assert, mongoAddr, step, main } = require('./lib');

main(async () => {
  const uri = process.env.MAYFLY_MONGO_URI || `mongodb://${mongoAddr}/bank`;
  await mongoose.connect(uri, { serverSelectionTimeoutMS: 10000 });
  const Account = mongoose.model('Account', new mongoose.Schema({
    _id: String,
    balance: Number,
  }));
  await Account.init();
  await Account.create([{ _id: 'alice', balance: 1000 }, { _id: 'bob', balance: 0 }]);

  const transfer = async (from, to, amount) => {
    const session = await mongoose.startSession();
    try {
      await session.withTransaction(async () => {
        const src = await Account.findById(from).session(session);
        if (src.balance < amount) throw new Error('insufficient funds');
        await Account.updateOne({ _id: from }, { $inc: { balance: -amount } }).session(session);
        await Account.updateOne({ _id: to }, { $inc: { balance: amount } }).session(session);
      });
    } finally {
      await session.endSession();
    }
  };

  await step('a transfer commits both updates', async () => {
    await transfer('alice', 'bob', 100);
    const [a, b] = await Promise.all([Account.findById('alice').lean(), Account.findById('bob').lean()]);
    assert.equal(a.balance, 900);
    assert.equal(b.balance, 100);
  });

  await step('an error inside the transaction aborts it', async () => {
    await assert.rejects(transfer('bob', 'alice', 5000), /insufficient funds/);
    const b = await Account.findById('bob').lean();
    assert.equal(b.balance, 100);
  });

  await step('racing transfers are retried and each commits once', async () => {
    await Promise.all(Array.from({ length: 20 }, () => transfer('alice', 'bob', 10)));
    const [a, b] = await Promise.all([Account.findById('alice').lean(), Account.findById('bob').lean()]);
    assert.equal(a.balance, 700);
    assert.equal(b.balance, 300);
  });

  await mongoose.disconnect();
});
