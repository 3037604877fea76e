/**
 * How big a benchmark runs. Each size comes from its environment variable when set; otherwise,
 * under BENCH_SMOKE=1 (what `npm run bench:smoke` and CI set), the tiny size that only proves
 * the benchmark still reaches its table; otherwise the size it measures at.
 */
export const SMOKE = process.env.BENCH_SMOKE === '1';

/** The number in `process.env[name]`, else `tiny` in a smoke run, else `normal`. */
export function size(name: string, normal: number, tiny: number): number {
  const value = process.env[name];
  if (value !== undefined && value !== '') {
    const n = Number(value.replace(/_/g, ''));
    if (!Number.isFinite(n) || n < 0) throw new Error(`${name} must be a number ≥ 0, got '${value}'`);
    return n;
  }
  return SMOKE ? tiny : normal;
}

/** The value of `--name value` or `--name=value` among a benchmark's arguments. */
export function flagValue(argv: readonly string[], name: string): string | undefined {
  const at = argv.indexOf(`--${name}`);
  if (at >= 0) return argv[at + 1];
  return argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
}

/** A positive whole number given as a flag or an environment variable (`1_000_000` allowed), else `fallback`. */
export function wholeNumber(value: string | undefined, fallback: number, name: string): number {
  if (value === undefined || value === '') return fallback;
  const n = Number(value.replace(/_/g, ''));
  if (!Number.isInteger(n) || n < 1) throw new Error(`${name} must be a positive whole number, got '${value}'`);
  return n;
}
