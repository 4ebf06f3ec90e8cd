/**
 * Child process of import.bench.ts: the floor an import is measured against — reading a file line by line
 * (readline) and JSON.parse-ing each line, nothing kept — started exactly as importWorker.ts is (same node
 * flags, same loader), so the two peak resident memories compare like for like. Prints
 * `{ seconds, cpuSeconds, maxRssMiB, lines }` as JSON.
 */
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';

async function main(): Promise<void> {
  const [file] = process.argv.slice(2) as [string];
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  let lines = 0;
  let typed = 0;
  const rl = createInterface({ input: createReadStream(file), crlfDelay: Infinity });
  for await (const line of rl) {
    if (line === '') continue;
    lines++;
    if ((JSON.parse(line) as { type?: string }).type) typed++;
  }
  if (typed === 0) throw new Error('no lines parsed');
  const seconds = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(c0);
  process.stdout.write(
    JSON.stringify({
      seconds,
      cpuSeconds: (cpu.user + cpu.system) / 1e6,
      maxRssMiB: process.resourceUsage().maxRSS / 1024,
      lines,
    }) + '\n',
  );
}

main().catch((e: unknown) => {
  process.stderr.write(`${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  process.exitCode = 1;
});
