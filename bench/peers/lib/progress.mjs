// A peers run that survives being stopped: run.mjs writes its JSON after every job, and
// RESUME=<that file> carries on where it stopped, so a full run (hours on 2 cores) can be split
// over several quiet windows. Only the same code may add to a file: the commit of the resumed
// run must differ from the file's by nothing but files under a suite's results/ folder
// (bench/<suite>/results/: the partial results themselves may have been committed in between),
// and the work tree must be clean.
import { execFileSync } from 'node:child_process';
import { renameSync, writeFileSync } from 'node:fs';

export const pairKey = (job, workload) => `${job} on ${workload}`;

// The pairs a resumed run skips: every recorded one, or with retryFailed only those that
// finished (a failed pair is then run again and its entry replaced).
export function donePairs(results, { retryFailed = false } = {}) {
  return new Set(results.filter((r) => !retryFailed || r.status === 'ok').map((r) => pairKey(r.job, r.workload)));
}

// Every pair of `jobs` x `workloads` (names) that `results` has no entry for, in run order
// (workload by workload).
export function missingPairs(results, jobs, workloads) {
  const have = donePairs(results);
  const out = [];
  for (const workload of workloads)
    for (const job of jobs) if (!have.has(pairKey(job, workload))) out.push({ job, workload });
  return out;
}

// Replaces the entry of the same pair, or appends.
export function recordResult(results, entry) {
  const at = results.findIndex((r) => r.job === entry.job && r.workload === entry.workload);
  if (at >= 0) results[at] = entry;
  else results.push(entry);
}

// Paths that differ between `commit` and the work tree, outside the suites' results folders
// (bench/<suite>/results/); throws when git cannot compare them (an unknown commit, no
// repository).
export function codeChangesSince(root, commit) {
  const git = (...args) =>
    execFileSync('git', args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  const changed = git('diff', '--name-only', commit).split('\n').filter(Boolean);
  return changed.filter((p) => !/^bench\/[^/]+\/results\//.test(p));
}

// Why `previous` (a peers JSON) cannot be resumed here, or null when it can. `quick` and the
// knobs must match; `codeChanges(commit)` lists the code paths changed since its commit.
export function resumeRefusal(previous, { quick, knobs, codeChanges }) {
  if (previous?.benchmark !== 'peers' || !Array.isArray(previous.results)) return 'it is not a peers results file';
  if (!!previous.quick !== quick) return `it is a ${previous.quick ? 'QUICK' : 'full'} run and this one is not`;
  if (JSON.stringify(previous.knobs) !== JSON.stringify(knobs)) return "its knobs differ from this run's";
  const commit = String(previous.commit ?? '');
  if (!/^[0-9a-f]{7,40}$/.test(commit)) return `its commit (${commit || 'none'}) does not name the exact code it ran`;
  let changes;
  try {
    changes = codeChanges(commit);
  } catch (e) {
    return `its commit ${commit} cannot be compared with this checkout (${String(e.message).split('\n')[0]})`;
  }
  if (changes.length) {
    return (
      `the code changed since its commit ${commit} (${changes.slice(0, 5).join(', ')}${changes.length > 5 ? ', …' : ''}): ` +
      'check out that commit to resume, or start a new run'
    );
  }
  return null;
}

// Written whole or not at all: a run stopped mid-write leaves the previous version.
export function writeJsonAtomic(path, value) {
  writeFileSync(`${path}.partial`, JSON.stringify(value, null, 1) + '\n');
  renameSync(`${path}.partial`, path);
}
