export interface BenchContext {
  readonly quick: boolean;
  readonly runs: number;
  readonly pgUrl: string | undefined;
  log(line: string): void;
}

/** One measured figure, as printed and written to results/<date>.json. */
export interface Row {
  workload: string;
  backend: string;
  batch?: number;
  unit: string;
  value: number;
  spread: number;
  runs: number;
  /** The same run's raw baseline, where the target is a ratio. */
  baseline?: number;
  ratio?: number;
  /** What `ratio` compares with when it is not the baseline, shown as `2.1× <versus>`. */
  versus?: string;
  target?: string;
  met?: boolean;
}
