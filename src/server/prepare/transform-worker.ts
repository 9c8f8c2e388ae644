import { needsLoading } from './job-loading.ts';
import { measureBeside } from './measure-beside.ts';
import { loadFor, runPixelDiff, runTask, type FromWorker, type ToWorker } from './transform-task.ts';

/**
 * The entry of a transform process (transform-pool.ts): it says when it is ready, then runs each
 * job it is sent (transform-task.ts) and answers with its outcome.
 */

const send = process.send?.bind(process);
/** The measuring thread's entry, given by the pool (transform-pool.ts); absent: measure here. */
const besideEntry = process.argv[2];
const beside = send && besideEntry ? measureBeside(besideEntry) : undefined;
if (send) {
  process.on('message', (message: ToWorker) => {
    const { task } = message;
    if ('pixelDiff' in task) {
      send({ id: message.id, outcome: runPixelDiff(task) } satisfies FromWorker);
      return;
    }
    void (async () => {
      if (needsLoading(task.input)) {
        await loadFor();
        // Delivered before the job runs: a job that never yields would otherwise hold the message.
        await new Promise((sent) => send({ id: message.id, loaded: true } satisfies FromWorker, sent));
      }
      const outcome = await runTask(task, beside);
      send({ id: message.id, outcome } satisfies FromWorker);
    })();
  });
  // The parent going away (even by SIGKILL) closes the channel: nothing is left to work for.
  process.on('disconnect', () => process.exit(0));
  send({ ready: true } satisfies FromWorker);
}
