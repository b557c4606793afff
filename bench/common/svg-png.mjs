// Renders SVG plots to PNG in Chromium (the browser tests' launcher: /usr/bin/chromium, or
// QUIVER_CHROMIUM), to look at a plot before committing it:
//   node bench/common/svg-png.mjs /tmp/plots bench/peers/results/peers-<stamp>-embedding.svg …
// Each PNG is the SVG at its own size, named after it, in the output folder.
import { mkdirSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { launchChromium } from '../../tests/browser/support.mjs';

const [out, ...files] = process.argv.slice(2);
if (!out || !files.length) {
  console.error('usage: node bench/common/svg-png.mjs <output folder> <file.svg>…');
  process.exit(2);
}
mkdirSync(out, { recursive: true });
const browser = await launchChromium();
try {
  for (const file of files) {
    const page = await browser.newPage({ viewport: { width: 2000, height: 1500 } });
    await page.goto(pathToFileURL(resolve(file)).href);
    const box = await page.locator('svg').boundingBox();
    const png = `${out}/${basename(file, '.svg')}.png`;
    await page.screenshot({
      path: png,
      clip: { x: 0, y: 0, width: Math.ceil(box.width), height: Math.ceil(box.height) },
    });
    console.log(`${png}: ${box.width} × ${box.height}`);
    await page.close();
  }
} finally {
  await browser.close();
}
