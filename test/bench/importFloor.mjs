/**
 * Child process of import.bench.ts: the floor an import is measured against — reading a file line by line
 * (readline) and JSON.parse-ing each line, nothing kept — in plain Node (no loader, no flags), as `ocdb import` runs:
 * the two processes' wall times (start to exit) and peak resident memories compare like for like. Prints
 * `{ seconds, cpuSeconds, maxRssMiB, lines }` as JSON; `seconds` is the reading alone (the parent times the process).
 */
import { createReadStream } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';

const [file] = process.argv.slice(2);
const t0 = performance.now();
let lines = 0;
let typed = 0;
for await (const line of createInterface({ input: createReadStream(file), crlfDelay: Infinity })) {
  if (line === '') continue;
  lines++;
  if (JSON.parse(line).type) typed++;
}
if (typed === 0) throw new Error('no lines parsed');
const usage = process.resourceUsage();
process.stdout.write(
  JSON.stringify({
    seconds: (performance.now() - t0) / 1000,
    cpuSeconds: (usage.userCPUTime + usage.systemCPUTime) / 1e6,
    maxRssMiB: usage.maxRSS / 1024,
    lines,
  }) + '\n',
);
