// What every benchmark runner records beside its numbers: the commit measured (marked when the
// work tree has uncommitted changes to tracked files) and the machine it ran on.
import { execFileSync } from 'node:child_process';
import os from 'node:os';

export function gitCommit(root) {
  try {
    let commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: root, encoding: 'utf8' }).trim();
    if (execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], { cwd: root, encoding: 'utf8' }).trim()) {
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
    host: os.hostname(), cpu: os.cpus()[0]?.model, cpus: os.cpus().length,
    memory_gib: +(os.totalmem() / 2 ** 30).toFixed(1), os: `${os.type()} ${os.release()}`, node: process.version,
    ...extra,
  };
}
