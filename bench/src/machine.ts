/**
 * What the benchmark ran on: CPU model and cores, memory, OS, Node version.
 *
 * @example describeMachine() // { cpu: 'AMD EPYC', cores: 2, memoryGb: 23.5, os: 'Linux 6.1 x64', node: 'v20.20.2' }
 */
import { cpus, release, totalmem, type, arch } from 'node:os';

export interface Machine {
  cpu: string;
  cores: number;
  memoryGb: number;
  os: string;
  node: string;
}

export function describeMachine(): Machine {
  const list = cpus();
  return {
    cpu: list[0]?.model.trim() ?? 'unknown',
    cores: list.length,
    memoryGb: Math.round((totalmem() / 1024 ** 3) * 10) / 10,
    os: `${type()} ${release()} ${arch()}`,
    node: process.version,
  };
}
