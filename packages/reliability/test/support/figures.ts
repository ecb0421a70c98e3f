import { appendFileSync } from "node:fs";
import { inject } from "vitest";

/** One measured figure of a scenario, e.g. `{ scenario: "kill -9 during sync", name: "kills", value: 8 }`. */
export interface Figure {
  scenario: string;
  name: string;
  value: number;
}

/** Record figures for the summary printed at the end of the run (and `results/figures.json`). */
export function record(scenario: string, figures: Record<string, number>): void {
  const file = inject("figuresFile");
  const lines = Object.entries(figures).map(
    ([name, value]) => `${JSON.stringify({ scenario, name, value } satisfies Figure)}\n`,
  );
  appendFileSync(file, lines.join(""));
}
