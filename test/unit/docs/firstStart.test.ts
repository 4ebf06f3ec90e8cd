/**
 * The first `npm start` says before it begins what it will install and how long that takes: the Debian packages
 * (as root, with apt-get) and Node with code-server; not as root, that it prints the apt-get line instead.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { firstUseNotice } from '../../vscode/codeServer';

test('a first start names the Debian packages it installs and how long it takes', () => {
  const text = firstUseNotice({ missingPackages: ['chromium', 'ripgrep'], codeServer: false, root: true });
  assert.match(
    text ?? '',
    /^First start: this installs the Debian packages chromium ripgrep with apt-get \(about 2–5 minutes\)/,
  );
  assert.match(text ?? '', /then Node and code-server from the npm registry into \.cache\/ \(about 4–5 minutes\)\./);
  const user = firstUseNotice({ missingPackages: ['chromium'], codeServer: true, root: false });
  assert.match(user ?? '', /prints the apt-get line for the packages chromium/);
  assert.equal(
    firstUseNotice({ missingPackages: [], codeServer: true, root: true }),
    undefined,
    'later starts: no notice',
  );
});
