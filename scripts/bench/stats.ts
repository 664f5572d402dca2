// Shared by the bench sections: order statistics, formatting, the machine's load.
import { loadavg } from 'node:os';

export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) throw new Error('percentile of no values');
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
}

export const median = (values: readonly number[]) => percentile(values, 0.5);

/** Median, p90 and count of a list of times. */
export function summarize(times: readonly number[]) {
  return { medianMs: median(times), p90Ms: percentile(times, 0.9), runs: times.length };
}

export const ms = (value: number) => `${value.toFixed(1).padStart(6)} ms`;

export const seconds = (value: number) => `${(value / 1000).toFixed(1)} s`;

/** The 1, 5 and 15 minute load averages: the numbers only mean something next to these on a shared machine. */
export const loadAverage = () => loadavg().map((value) => Math.round(value * 100) / 100);
