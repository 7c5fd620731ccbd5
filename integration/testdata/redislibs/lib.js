// Shared by the library scripts in this directory: the server's addresses
// from the environment integration/redislibs_test.go sets, a step wrapper
// that names the failing check, and the manual clock's advance.
'use strict';

const assert = require('node:assert/strict');

function splitAddr(addr) {
  const i = addr.lastIndexOf(':');
  return [addr.slice(0, i), Number(addr.slice(i + 1))];
}

const [host, port] = splitAddr(process.env.MAYFLY_RESP_ADDR);
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

// main runs f and exits 0 when it resolves, 1 with the error when it
// rejects: a dangling handle (a blocked client, a timer) cannot keep the
// process alive past the end of its checks.
function main(f) {
  f().then(
    () => process.exit(0),
    (err) => {
      console.error(err && err.stack ? err.stack : err);
      process.exit(1);
    },
  );
}

// waitFor polls cond every 10 ms until it returns true, failing after ms
// milliseconds with what it waited for.
async function waitFor(what, cond, ms = 10000) {
  const deadline = Date.now() + ms;
  for (;;) {
    if (await cond()) return;
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

module.exports = { assert, host, port, httpAddr, advance, step, main, waitFor };
