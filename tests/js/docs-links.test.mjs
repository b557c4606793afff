// The README and docs/ hold together: every relative Markdown link and image in README.md,
// docs/*.md and the benchmark READMEs (bench/README.md, bench/<suite>/README.md) names a file or
// folder that exists, every #anchor (same file or file.md#anchor)
// names a heading of its target (GitHub's slugs), and the README stays a short first read that
// starts with the two commands. No dependencies: a small Markdown scanner, enough for our docs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));

// Lines outside fenced code blocks (``` or ~~~), with their 1-based numbers.
function proseLines(text) {
  const out = [];
  let fence = null;
  text.split('\n').forEach((line, i) => {
    const m = /^ {0,3}(`{3,}|~{3,})/.exec(line);
    if (fence) {
      if (m && m[1][0] === fence[0] && m[1].length >= fence.length && /^ {0,3}[`~]+\s*$/.test(line)) fence = null;
      return;
    }
    if (m) {
      fence = m[1];
      return;
    }
    out.push({ line, n: i + 1 });
  });
  return out;
}

// The text outside fenced code blocks, fenced lines blanked (so offsets keep their line), and
// inline code spans blanked too: `[&](size_t i)` in a code span is not a link. A code span
// may wrap onto the next line but not cross a blank line.
function prose(text) {
  const kept = new Set(proseLines(text).map(({ n }) => n));
  const lines = text.split('\n').map((line, i) => (kept.has(i + 1) ? line : ''));
  return lines.join('\n').replace(/(`+)(?:(?!\1)[^\n]|\n(?!\s*\n))+?\1/g, (s) => s.replace(/[^\n]/g, ' '));
}

// GitHub's heading anchors: the heading's text (links reduced to their text, inline markup
// dropped), lowercased, every character that is not a letter, digit, mark, space, '-' or '_'
// removed, each space turned into '-'; a repeated slug gets -1, -2, ...
export function slug(heading) {
  const text = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, '')
    .trim()
    .toLowerCase();
  return text.replace(/[^\p{L}\p{N}\p{M} _-]/gu, '').replace(/ /g, '-');
}

export function anchorsOf(text) {
  const seen = new Map();
  const anchors = new Set();
  for (const { line } of proseLines(text)) {
    for (const m of line.matchAll(/<a\s+(?:name|id)="([^"]+)"/g)) anchors.add(m[1]);
    const h = /^ {0,3}#{1,6}\s+(.*?)(?:\s+#+)?\s*$/.exec(line);
    if (!h) continue;
    const base = slug(h[1]);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

// Every link target in prose: inline links and images [text](target "title"), reference
// definitions [id]: target, and HTML href/src attributes.
export function linksOf(text) {
  const links = [];
  const body = prose(text);
  const lineAt = (index) => body.slice(0, index).split('\n').length;
  for (const m of body.matchAll(/!?\[(?:[^\]\\]|\\.)*\]\(\s*<?([^)\s>]*)>?(?:\s+["'(][^)]*)?\)/g))
    links.push({ target: m[1], n: lineAt(m.index) });
  for (const m of body.matchAll(/^ {0,3}\[[^\]\n]+\]:[ \t]*<?(\S+?)>?(?=\s|$)/gm))
    links.push({ target: m[1], n: lineAt(m.index) });
  for (const m of body.matchAll(/\b(?:href|src)="([^"]*)"/g)) links.push({ target: m[1], n: lineAt(m.index) });
  return links;
}

const external = (target) => /^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//');

// Problems with the links of one Markdown file (path absolute), as readable strings. `fs`
// can be replaced (the checker's own test runs it on made-up files).
const realFs = {
  read: (p) => readFileSync(p, 'utf8'),
  exists: (p) => existsSync(p),
  isFile: (p) => statSync(p).isFile(),
};
export function checkFile(path, fs = realFs) {
  const problems = [];
  const where = (n) => `${relative(root, path)}:${n}`;
  for (const { target, n } of linksOf(fs.read(path))) {
    if (target === '') {
      problems.push(`${where(n)}: empty link target`);
      continue;
    }
    if (external(target)) continue;
    const hash = target.indexOf('#');
    const filePart = decodeURIComponent(hash < 0 ? target : target.slice(0, hash));
    const anchor = hash < 0 ? null : decodeURIComponent(target.slice(hash + 1));
    if (filePart.startsWith('/')) {
      problems.push(`${where(n)}: ${target}: absolute path (use a relative one)`);
      continue;
    }
    const file = filePart === '' ? path : resolve(dirname(path), filePart);
    if (file !== root.replace(/\/$/, '') && !file.startsWith(root)) {
      problems.push(`${where(n)}: ${target}: points outside the repository`);
      continue;
    }
    if (!fs.exists(file)) {
      problems.push(`${where(n)}: ${target}: no such file`);
      continue;
    }
    if (anchor === null) continue;
    if (!/\.md$/i.test(file) || !fs.isFile(file)) {
      problems.push(`${where(n)}: ${target}: an anchor into a file that is not Markdown`);
      continue;
    }
    if (!anchorsOf(fs.read(file)).has(anchor)) {
      problems.push(`${where(n)}: ${target}: no heading #${anchor} in ${relative(root, file)}`);
    }
  }
  return problems;
}

const docsDir = join(root, 'docs');
const docs = readdirSync(docsDir)
  .filter((f) => f.endsWith('.md'))
  .sort();
const benchDir = join(root, 'bench');
const benchReadmes = [
  join(benchDir, 'README.md'),
  ...readdirSync(benchDir, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => join(benchDir, d.name, 'README.md'))
    .sort(),
].filter((f) => existsSync(f));
const files = [join(root, 'README.md'), ...docs.map((f) => join(docsDir, f)), ...benchReadmes];

for (const file of files) {
  test(`links in ${relative(root, file)} resolve`, () => {
    const problems = checkFile(file);
    assert.deepEqual(problems, [], `broken links:\n${problems.join('\n')}`);
  });
}

test('the checker itself finds broken files, anchors and skips code', () => {
  const fake = {
    [join(root, 'README.md')]: [
      '# Top',
      '## The `quiver` command',
      '## Partitions (inverted lists)',
      '## Top',
      '[ok](#the-quiver-command) [ok](#partitions-inverted-lists) [ok](#top-1) [ok](docs/a.md#deep-end)',
      '[ok dir](docs/) [ok](https://example.com/x#y) `[&](size_t i)` [ok, the text',
      'wraps](#top)',
      '[bad](docs/missing.md) [bad](#no-such-heading) ![bad](img/none.svg) [bad](docs/a.md#nope) [bad, the',
      'text wraps](#wrapped)',
      '```',
      '[in a code block](nowhere.md)',
      '```',
    ].join('\n'),
    [join(root, 'docs', 'a.md')]: '# A\n\n### Deep: end\n',
  };
  const fs = {
    read: (p) => {
      assert.ok(p in fake, `unexpected read of ${p}`);
      return fake[p];
    },
    exists: (p) => p in fake || p === join(root, 'docs'),
    isFile: (p) => p in fake,
  };
  const problems = checkFile(join(root, 'README.md'), fs);
  assert.deepEqual(
    problems.map((p) => p.split(': ')[1]),
    ['docs/missing.md', '#no-such-heading', 'img/none.svg', 'docs/a.md#nope', '#wrapped'],
    problems.join('\n'),
  );
});

test('README.md is a short first read that starts with the two commands', () => {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const lines = readme.replace(/\n$/, '').split('\n');
  assert.ok(lines.length <= 300, `README.md has ${lines.length} lines (at most 300)`);
  assert.ok(readme.includes('npm run demo'), 'README.md mentions npm run demo');
  assert.ok(readme.includes('npm test'), 'README.md mentions npm test');
  // The first code block is the quick start: exactly the two commands.
  const first = /```[a-z]*\n([\s\S]*?)```/.exec(readme);
  assert.equal(first?.[1], 'npm run demo\nnpm test\n', 'the first code block of README.md is the two commands');
});

test('every file in docs/ is linked from README.md', () => {
  const targets = new Set(
    linksOf(readFileSync(join(root, 'README.md'), 'utf8')).map(({ target }) => target.split('#')[0]),
  );
  const unlinked = docs.filter((f) => !targets.has(`docs/${f}`));
  assert.deepEqual(unlinked, [], `docs not linked from README.md: ${unlinked.join(', ')}`);
});
