// What every benchmark runner records beside its numbers: the commit measured (marked when the
// work tree has uncommitted changes to tracked files) and the machine it ran on.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import os from 'node:os';

export function gitCommit(root) {
  try {
    let commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: root, encoding: 'utf8' }).trim();
    if (
      execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], { cwd: root, encoding: 'utf8' }).trim()
    ) {
      commit += ' (with uncommitted changes)';
    }
    return commit;
  } catch {
    return 'unknown';
  }
}

// Host, CPU, memory, OS and Node; `extra` fields (ISA, load averages, ...) are appended.
export function machineInfo(extra = {}) {
  return {
    host: os.hostname(),
    cpu: os.cpus()[0]?.model,
    cpus: os.cpus().length,
    memory_gib: +(os.totalmem() / 2 ** 30).toFixed(1),
    os: `${os.type()} ${os.release()}`,
    node: process.version,
    ...extra,
  };
}

// How busy the whole machine was while a benchmark process ran, from /proc/stat (Linux; null
// elsewhere): cpuMeter() starts, the function it returns gives { busy_cores, steal_cores } since
// then — busy: cores running anything, ours included (a single-threaded search on a quiet machine
// keeps it near 1); steal: cores the hypervisor gave to other guests. The 1-minute load average
// sampled between processes cannot see a busy spell inside one (issue 15's variant anomaly).
export function cpuMeter() {
  const read = () => {
    try {
      return readFileSync('/proc/stat', 'utf8').split('\n')[0];
    } catch {
      return null;
    }
  };
  const start = read();
  return () => cpuBetween(start, read(), os.cpus().length);
}

// The pure part: two /proc/stat "cpu ..." lines (user nice system idle iowait irq softirq steal
// ...) and the core count -> { busy_cores, steal_cores }, or null when either line is missing
// or no time passed.
export function cpuBetween(startLine, endLine, cores) {
  const parse = (line) => {
    const v = line.trim().split(/\s+/).slice(1).map(Number);
    return { idle: v[3] + (v[4] ?? 0), steal: v[7] ?? 0, total: v.reduce((a, b) => a + b, 0) };
  };
  if (!startLine || !endLine) return null;
  const a = parse(startLine),
    b = parse(endLine);
  const span = b.total - a.total;
  if (!(span > 0)) return null;
  return {
    busy_cores: +((1 - (b.idle - a.idle) / span) * cores).toFixed(2),
    steal_cores: +(((b.steal - a.steal) / span) * cores).toFixed(2),
  };
}
