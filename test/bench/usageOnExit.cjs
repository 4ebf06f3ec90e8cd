/**
 * Preloaded (`node --require`) into a process the benchmarks time as a user runs it (`ocdb import`): at exit, writes
 * its CPU time and peak resident memory to stderr as one marked JSON line, without touching what the process does.
 */
const { writeSync } = require('node:fs');

process.on('exit', () => {
  const usage = process.resourceUsage();
  const figures = { cpuSeconds: (usage.userCPUTime + usage.systemCPUTime) / 1e6, maxRssMiB: usage.maxRSS / 1024 };
  writeSync(2, `\nOCDB_BENCH_USAGE ${JSON.stringify(figures)}\n`);
});
