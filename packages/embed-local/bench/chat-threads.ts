/**
 * Time per structured answer of the local language model on the generated tiny llama model (32
 * dims, 1 layer), CPU only, for each thread count given: the model is tiny, so this measures
 * node-llama-cpp's per-token overhead — and what llama.cpp's spinning threads cost on a machine
 * whose cores are busy with other work. Reports the median of the runs and its ratio to the first
 * thread count, measured in the same run.
 *
 *   node --import tsx bench/chat-threads.ts [--threads 1,2] [--runs 5]
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { localLanguageModel } from "../src/index.js";
import { writeTinyLlamaGguf } from "../test/fixtures/tiny-llama-gguf.js";

const { values } = parseArgs({
  options: { threads: { type: "string", default: "1,2" }, runs: { type: "string", default: "5" } },
});
const threadCounts = values.threads.split(",").map(Number);
const runs = Number(values.runs);
const schema = {
  type: "object",
  properties: {
    keep: { type: "boolean" },
    kind: { enum: ["fact", "preference", "decision"] },
    note: { type: "string", maxLength: 24 },
  },
  required: ["keep", "kind", "note"],
};

const dir = await mkdtemp(join(tmpdir(), "engram-local-llm-bench-"));
try {
  const modelPath = await writeTinyLlamaGguf(dir);
  let baseline: number | undefined;
  console.log(`tiny llama (32 dims, 1 layer), CPU, ${runs} runs per thread count, median:`);
  for (const threads of threadCounts) {
    const model = await localLanguageModel({ modelPath, gpu: "cpu", threads });
    const ask = (i: number) =>
      model.generate({
        messages: [{ role: "user", content: `line ${i}: 用户偏好深色模式` }],
        schema,
        maxTokens: 120,
      });
    await ask(-1); // load + warm up
    const times: number[] = [];
    let tokens = 0;
    for (let run = 0; run < runs; run++) {
      const started = performance.now();
      const result = await ask(run);
      times.push(performance.now() - started);
      tokens += result.usage.outputTokens;
    }
    await model.close();
    times.sort((a, b) => a - b);
    const median = times[Math.floor(times.length / 2)] ?? 0;
    baseline ??= median;
    console.log(
      `  ${threads} thread(s): ${median.toFixed(0)} ms per answer (${(tokens / runs).toFixed(0)} tokens; runs ${times[0]?.toFixed(0)}–${times.at(-1)?.toFixed(0)} ms; ${(median / baseline).toFixed(2)}× the first)`,
    );
  }
} finally {
  await rm(dir, { recursive: true, force: true });
}
