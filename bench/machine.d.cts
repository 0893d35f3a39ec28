/** Types of machine.cjs for the TypeScript benchmarks. */
export function machineLine(): string;
export function median(values: number[]): number;
export function burnCpu(): () => void;
export function measuredNodeRun(
  args: string[],
  options?: { cwd?: string; env?: NodeJS.ProcessEnv },
): { seconds: number; peakMiB: number; stdout: string };
