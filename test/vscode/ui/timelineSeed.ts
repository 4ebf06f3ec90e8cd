/**
 * Records the Timeline scale flow's long runs into a store, in a child process (`node --import tsx timelineSeed.ts
 * <store> <size>...`), so the workbench's steps go on meanwhile: each run as test/helpers/timelineRun.ts records it,
 * `seeded <size>` printed when it is in the store. Not a flow file.
 */
import { recordTimelineRun, scaleRunId } from '../../helpers/timelineRun';

const [store, ...sizes] = process.argv.slice(2);
if (store) {
  for (const size of sizes.map(Number)) {
    recordTimelineRun(store, size, scaleRunId(size));
    process.stdout.write(`seeded ${size}\n`);
  }
}
