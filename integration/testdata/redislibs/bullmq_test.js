// BullMQ (v5) against mayfly on the real clock (its workers schedule by
// wall time: delays, backoff and repeat intervals are in milliseconds of
// the client's clock): a Queue with a Worker processing jobs, a delayed
// job, a repeatable job bounded by a limit, a job that fails and then
// succeeds on retry after a fixed backoff, progress and logs, a flow whose
// parent runs after its children, a rate-limited worker, pause and resume,
// and QueueEvents receiving `completed`, `failed` and `progress` (XREAD
// BLOCK on the queue's event stream). Every wait is bounded; the script
// exits non-zero with the failing step's name.
'use strict';

const { Queue, Worker, QueueEvents, FlowProducer } = require('bullmq');
const { assert, host, port, step, main, waitFor } = require('./lib.js');

const connection = { host, port, maxRetriesPerRequest: null, retryStrategy: () => null };

// MAYFLY_BULLMQ_PART=connect runs only the first step, the one that needs
// no Redis Streams command: the Go test runs it alone when the server lacks
// one of them and skips the rest, naming the command.
const part = process.env.MAYFLY_BULLMQ_PART || 'all';

main(async () => {
  await step('queue connects and checks the server', async () => {
    const q = new Queue('hello', { connection });
    await q.waitUntilReady();
    const client = await q.client;
    assert.match(await client.info('server'), /redis_version:7\./);
    assert.equal(await q.isPaused(), false);
    assert.deepEqual(await q.getJobCounts('waiting'), { waiting: 0, paused: 0 });
    await q.close();
  });
  if (part === 'connect') return;

  const queue = new Queue('work', { connection });
  const events = new QueueEvents('work', { connection, blockingTimeout: 1000 });
  await events.waitUntilReady();
  await queue.waitUntilReady();

  const completed = new Map(); // jobId -> returnvalue, from QueueEvents
  events.on('completed', ({ jobId, returnvalue }) => completed.set(jobId, returnvalue));
  const failedEvents = [];
  events.on('failed', ({ jobId, failedReason }) => failedEvents.push({ jobId, failedReason }));

  const attempts = new Map(); // job name -> times the processor saw it
  const worker = new Worker('work', async (job) => {
    attempts.set(job.id, (attempts.get(job.id) || 0) + 1);
    switch (job.name) {
      case 'double':
        return job.data.n * 2;
      case 'flaky':
        if (job.attemptsMade < 2) throw new Error(`flaky attempt ${job.attemptsMade + 1}`);
        return 'finally';
      case 'tick':
        return `tick ${job.data.i}`;
      case 'report':
        await job.updateProgress(50);
        await job.log('half way');
        await job.updateProgress({ done: true });
        return 'reported';
      case 'child':
        return job.data.part * 10;
      case 'parent': {
        const values = await job.getChildrenValues();
        return Object.values(values).reduce((a, b) => a + b, 0);
      }
      default:
        return job.name;
    }
  }, { connection, concurrency: 2, drainDelay: 1 });
  worker.on('error', (err) => console.error('worker error:', err));
  await worker.waitUntilReady();

  try {
    await step('worker processes jobs', async () => {
      const jobs = await queue.addBulk([1, 2, 3, 4, 5].map((n) => ({ name: 'double', data: { n } })));
      await waitFor('five completed events', () => jobs.every((j) => completed.has(j.id)));
      for (const j of jobs) {
        const done = await queue.getJob(j.id);
        assert.equal(done.returnvalue, j.data.n * 2);
        assert.equal(await done.getState(), 'completed');
        assert.equal(completed.get(j.id), j.data.n * 2, 'QueueEvents carries the return value');
        // timestamp is the adding client's clock and processedOn the worker's, taken before
        // its fetch reached the server, so only the worker's own two are ordered.
        assert.ok(done.timestamp > 0 && done.processedOn > 0);
        assert.ok(done.finishedOn >= done.processedOn);
      }
      const counts = await queue.getJobCounts('completed', 'waiting', 'active', 'failed');
      assert.deepEqual(counts, { completed: 5, waiting: 0, paused: 0, active: 0, failed: 0 });
    });

    await step('delayed job', async () => {
      const job = await queue.add('later', {}, { delay: 400 });
      assert.equal(await job.getState(), 'delayed');
      assert.equal((await queue.getDelayed()).length, 1);
      await waitFor('the delayed job completed', () => completed.has(job.id));
      const done = await queue.getJob(job.id);
      assert.ok(done.processedOn - done.timestamp >= 400, `processed ${done.processedOn - done.timestamp} ms after it was added`);
      assert.equal(done.returnvalue, 'later');
    });

    await step('job fails, then succeeds on retry with backoff', async () => {
      const job = await queue.add('flaky', {}, { attempts: 3, backoff: { type: 'fixed', delay: 200 } });
      await waitFor('the flaky job completed', () => completed.has(job.id));
      const done = await queue.getJob(job.id);
      assert.equal(done.returnvalue, 'finally');
      assert.equal(done.attemptsMade, 3);
      assert.equal(attempts.get(job.id), 3);
      assert.deepEqual(done.stacktrace.length, 2, 'one stack trace per failed attempt');
      // A failed attempt that will be retried is reported as `failed` only
      // once the attempts are used up; this one never was.
      assert.equal(failedEvents.filter((e) => e.jobId === job.id).length, 0);
      assert.ok(done.finishedOn - done.timestamp >= 400, 'two backoffs of 200 ms');
    });

    await step('job that runs out of attempts fails', async () => {
      const job = await queue.add('flaky', {}, { attempts: 2, backoff: { type: 'fixed', delay: 50 } });
      await waitFor('the failed event', () => failedEvents.some((e) => e.jobId === job.id));
      const failed = await queue.getJob(job.id);
      assert.equal(await failed.getState(), 'failed');
      assert.equal(failed.failedReason, 'flaky attempt 2');
      assert.equal(failed.attemptsMade, 2);
      // retry() moves it back to wait; the third attempt succeeds.
      await failed.retry();
      await waitFor('the retried job completed', () => completed.has(job.id));
    });

    await step('repeatable job every 100 ms, limited to 3', async () => {
      const ticks = [];
      const onTick = ({ jobId, returnvalue }) => {
        if (String(returnvalue).startsWith('tick')) ticks.push(jobId);
      };
      events.on('completed', onTick);
      await queue.add('tick', { i: 0 }, { repeat: { every: 100, limit: 3 } });
      await waitFor('three repetitions', () => ticks.length >= 3);
      // Give a fourth repetition the time it would need, then check the
      // limit held.
      await new Promise((r) => setTimeout(r, 300));
      assert.equal(ticks.length, 3, `ticks: ${ticks}`);
      assert.equal(new Set(ticks).size, 3, 'each repetition is its own job');
      const schedulers = await queue.getJobSchedulers();
      assert.equal(schedulers.length, 1);
      assert.equal(schedulers[0].every, 100);
      assert.equal(await queue.removeJobScheduler(schedulers[0].key), true);
      assert.equal((await queue.getJobSchedulers()).length, 0);
      events.off('completed', onTick);
    });

    await step('progress and logs', async () => {
      const progress = [];
      const onProgress = ({ jobId, data }) => progress.push([jobId, data]);
      events.on('progress', onProgress);
      const job = await queue.add('report', {}, { removeOnComplete: false });
      await waitFor('the report job completed', () => completed.has(job.id));
      await waitFor('two progress events', () => progress.filter(([id]) => id === job.id).length === 2);
      assert.deepEqual(progress.filter(([id]) => id === job.id).map(([, d]) => d), [50, { done: true }]);
      const done = await queue.getJob(job.id);
      assert.deepEqual(done.progress, { done: true });
      const logs = await queue.getJobLogs(job.id);
      assert.deepEqual(logs, { logs: ['half way'], count: 1 });
      events.off('progress', onProgress);
    });

    await step('removeOnComplete', async () => {
      const job = await queue.add('gone', {}, { removeOnComplete: true });
      await waitFor('the job completed', () => completed.has(job.id));
      await waitFor('the job removed', async () => (await queue.getJob(job.id)) === undefined);
    });

    await step('a flow: the parent runs after its children', async () => {
      const flow = new FlowProducer({ connection });
      try {
        const tree = await flow.add({
          name: 'parent', queueName: 'work', data: {},
          children: [1, 2, 3].map((part) => ({ name: 'child', queueName: 'work', data: { part } })),
        });
        assert.equal(await tree.job.getState(), 'waiting-children');
        await waitFor('the parent completed', () => completed.has(tree.job.id));
        const parent = await queue.getJob(tree.job.id);
        assert.equal(parent.returnvalue, 60);
        for (const child of tree.children) {
          assert.equal(await child.job.getState(), 'completed');
        }
        const deps = await parent.getDependenciesCount();
        assert.equal(deps.processed, 3);
        assert.equal(deps.unprocessed, 0);
      } finally {
        await flow.close();
      }
    });

    await step('a rate-limited worker', async () => {
      const limited = new Queue('limited', { connection });
      const finished = [];
      const w = new Worker('limited', async (job) => { finished.push([job.id, Date.now()]); return job.id; },
        { connection, limiter: { max: 2, duration: 400 }, drainDelay: 1 });
      try {
        await w.waitUntilReady();
        const start = Date.now();
        await limited.addBulk([1, 2, 3, 4].map((i) => ({ name: 'l', data: { i } })));
        await waitFor('four limited jobs', () => finished.length === 4);
        const last = Math.max(...finished.map(([, at]) => at));
        assert.ok(last - start >= 400, `four jobs at two per 400 ms finished after ${last - start} ms`);
      } finally {
        await w.close();
        await limited.obliterate({ force: true }).catch(() => {});
        await limited.close();
      }
    });

    await step('pause and resume', async () => {
      await queue.pause();
      assert.equal(await queue.isPaused(), true);
      const job = await queue.add('held', {});
      await new Promise((r) => setTimeout(r, 200));
      assert.equal(await job.getState(), 'waiting', 'a paused queue hands out no job');
      await queue.resume();
      await waitFor('the held job completed', () => completed.has(job.id));
    });
  } finally {
    await worker.close();
    await events.close();
    await queue.obliterate({ force: true }).catch(() => {});
    await queue.close();
  }
});
