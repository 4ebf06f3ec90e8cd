import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { importPath } from '../src/importers';
import { openRunStore } from '../src/store';
import { LARGE, records, writeSession } from './bench/largeSession';
(async () => {
  const dir = '/tmp/files5-probe4'; mkdirSync(dir, { recursive: true });
  const { lines, subagent } = records({ ...LARGE, toolCalls: 1000 });
  const file = writeSession(dir, lines, subagent);
  const store = openRunStore(join(dir, 'r.db'), { create: true });
  await importPath(store, file);
  store.close();
})();
