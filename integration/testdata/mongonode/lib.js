// Shared by the scripts in this directory: the server's addresses from the
// environment integration/mongonode_test.go sets, a step wrapper that names
// the failing check, the manual clock's advance, and the exit rule.
'use strict';

const assert = require('node:assert/strict');

const mongoAddr = process.env.MAYFLY_MONGO_ADDR;
const httpAddr = process.env.MAYFLY_HTTP_ADDR;

// advance moves the server's clock (started with --manual-clock) forward by
// ms milliseconds and wakes its sweeper.
async function advance(ms) {
  const res = await fetch(`http://${httpAddr}/debug/clock?advance=${ms}ms`, { method: 'POST' });
  assert.equal(res.status, 200, `advance clock: ${await res.text()}`);
}

// step runs one named check, so a failure says where it was.
async function step(name, f) {
  try {
    await f();
  } catch (err) {
    if (err instanceof Error) {
      err.message = `${name}: ${err.message}`;
      throw err;
    }
    throw new Error(`${name}: rejected with ${JSON.stringify(err)}`);
  }
  console.log(`ok ${name}`);
}

// rejects asserts that promise p fails with a server error of code.
async function rejects(p, code) {
  let err;
  try {
    await p;
  } catch (e) {
    err = e;
  }
  assert.ok(err, `expected error code ${code}, got success`);
  assert.equal(err.code, code, `expected error code ${code}, got ${err.code}: ${err.message}`);
  return err;
}

// main runs f and exits 0 when it resolves, 1 with the error when it
// rejects, so an open connection cannot keep the process alive.
function main(f) {
  f().then(
    () => process.exit(0),
    (err) => {
      console.error(err && err.stack ? err.stack : err);
      process.exit(1);
    },
  );
}

module.exports = { assert, mongoAddr, advance, step, rejects, main };
