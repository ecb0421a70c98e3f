import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { TestProject } from "vitest/node";
import type { Figure } from "./figures.js";

const results = fileURLToPath(new URL("../../results/", import.meta.url));

/** Choose the seed (or take `RELIABILITY_SEED`), print it; print the figures when all is done. */
export default function setup(project: TestProject): () => void {
  const given = process.env.RELIABILITY_SEED;
  const seed = given ? Number(given) >>> 0 : Math.floor(Math.random() * 2 ** 31);
  mkdirSync(results, { recursive: true });
  const figuresFile = `${results}figures.jsonl`;
  writeFileSync(figuresFile, "");
  project.provide("seed", seed);
  project.provide("figuresFile", figuresFile);
  console.log(`\nengram reliability suite — seed ${seed} (rerun with RELIABILITY_SEED=${seed})\n`);
  return () => {
    const figures: Figure[] = existsSync(figuresFile)
      ? readFileSync(figuresFile, "utf8")
          .split("\n")
          .filter(Boolean)
          .map((line) => JSON.parse(line) as Figure)
      : [];
    const byScenario = new Map<string, Map<string, number>>();
    for (const f of figures) {
      const names = byScenario.get(f.scenario) ?? new Map<string, number>();
      names.set(f.name, (names.get(f.name) ?? 0) + f.value);
      byScenario.set(f.scenario, names);
    }
    const lines = [`engram reliability figures (seed ${seed})`];
    for (const [scenario, names] of byScenario) {
      const parts = [...names].map(([name, value]) => `${name} ${round(value)}`);
      lines.push(`  ${scenario.padEnd(42)} ${parts.join(" · ")}`);
    }
    console.log(`\n${lines.join("\n")}\n`);
    writeFileSync(
      `${results}figures.json`,
      `${JSON.stringify({ seed, scenarios: Object.fromEntries([...byScenario].map(([s, n]) => [s, Object.fromEntries(n)])) }, null, 2)}\n`,
    );
  };
}

function round(value: number): string {
  return Number.isInteger(value) ? String(value) : value.toFixed(2);
}
