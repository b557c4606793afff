import { readFileSync } from 'node:fs';
import { launchChromium } from '../../../../tests/browser/support.mjs';
const b64 = readFileSync(new URL('./dot.wasm', import.meta.url)).toString('base64');
const extra = process.argv.slice(2);
const browser = await launchChromium({ extraArgs: extra });
const page = await browser.newPage();
await page.goto('about:blank');
const out = await page.evaluate(async (b64) => {
  const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
  const { instance } = await WebAssembly.instantiate(bytes, {});
  const e = instance.exports;
  e.init();
  const lines = ['verify ' + e.verify() + ' ' + navigator.userAgent];
  for (let round = 0; round < 4; round++) {
    for (const name of ['plain', 'relaxed2', 'relaxed1']) {
      e[name](20);
      const t0 = performance.now();
      e[name](300);
      const t = performance.now() - t0;
      lines.push(`${name} ${((t / 300 / 4096) * 1e6).toFixed(2)} ns/row`);
    }
  }
  return lines.join('\n');
}, b64);
console.log(out);
await browser.close();
