import type { Detection } from "./detectors.js";

/**
 * Secrets found by secretlint's recommended preset (cloud and SaaS tokens: AWS, GCP, GitHub,
 * Slack, OpenAI, npm, private keys, basic-auth URLs, …), loaded on first use. secretlint is a
 * maintained, widely used scanner (2.7 M downloads a month); 11.7 is its newest line that runs on
 * Node 20. Its findings are strict (few false positives); engram's own rules add generic shapes.
 */
export async function secretlintDetections(text: string): Promise<Detection[]> {
  const [{ lintSource }, { creator }, { secretLintProfiler }] = await Promise.all([
    import("@secretlint/core"),
    import("@secretlint/secretlint-rule-preset-recommend"),
    import("@secretlint/profiler"),
  ]);
  // secretlint 11 times every rule on every text with `performance.mark`, kept for the life of the
  // process and matched against all earlier marks (O(n²)): auditing 2,728 files spent ~30 s there,
  // and a process that audits again and again would keep every mark. Nobody reads these timings.
  // Fixed upstream in 13.0.5 (secretlint/secretlint#1673), which needs Node 22.
  secretLintProfiler.mark = () => {};
  const result = await lintSource({
    source: { filePath: "memory.md", content: text, ext: ".md", contentType: "text" },
    options: {
      maskSecrets: true,
      noPhysicFilePath: true,
      config: { rules: [{ id: "@secretlint/secretlint-rule-preset-recommend", rule: creator }] },
    },
  });
  return result.messages
    .filter((m) => Array.isArray(m.range))
    .map((m) => ({
      rule: `secretlint:${String(m.ruleId).replace(/^@secretlint\/secretlint-rule-/, "")}`,
      kind: "secret" as const,
      start: m.range[0],
      end: m.range[1],
    }));
}
