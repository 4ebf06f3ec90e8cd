/**
 * `npm run icon`: rasterises media/icon.svg to media/icon.png (128x128, transparent corners) with the Debian
 * chromium the VS Code tests use, so the committed PNG (package.json "icon", the Marketplace tile) is made from the
 * SVG beside it. Run it after editing the SVG and commit both.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { launchBrowser } from './browser';
import { REPO_ROOT } from './codeServer';

async function main(): Promise<void> {
  const svg = fs.readFileSync(path.join(REPO_ROOT, 'media', 'icon.svg'), 'utf8');
  const browser = await launchBrowser();
  try {
    const page = await browser.newPage({ viewport: { width: 128, height: 128 }, deviceScaleFactor: 1 });
    await page.setContent(`<html><body style="margin:0;background:transparent">${svg}</body></html>`);
    const out = path.join(REPO_ROOT, 'media', 'icon.png');
    await page.locator('svg').screenshot({ path: out, omitBackground: true });
    process.stdout.write(`${path.relative(process.cwd(), out)}: ${fs.statSync(out).size} bytes\n`);
  } finally {
    await browser.close();
  }
}

main().catch((e: unknown) => {
  process.stderr.write(`${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
});
