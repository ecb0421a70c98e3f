/**
 * Embeddings per second of the local provider on the generated tiny BERT model (32 dims, 2 layers),
 * CPU only. It measures the driver and node-llama-cpp's per-text overhead more than model compute:
 * real models (e.g. bge-small, 33M parameters) are far slower per text.
 *
 *   node --import tsx bench/embeddings-per-second.ts [--threads 2] [--runs 7]
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { localEmbedder } from "../src/index.js";
import { writeTinyBertGguf } from "../test/fixtures/tiny-bert-gguf.js";

const { values } = parseArgs({
  options: { threads: { type: "string", default: "2" }, runs: { type: "string", default: "7" } },
});
const threads = Number(values.threads);
const runs = Number(values.runs);

const WORDS = "memory agent search index vector model query result deploy release plan staging"
  .split(" ")
  .concat("用 户 偏 好 深 色 模 式".split(" "));
const text = (tokens: number, seed: number) =>
  Array.from({ length: tokens }, (_, i) => WORDS[(seed * 7 + i * 3) % WORDS.length]).join(" ");

const dir = await mkdtemp(join(tmpdir(), "engram-embed-local-bench-"));
try {
  const modelPath = await writeTinyBertGguf(dir, { contextLength: 512 });
  const embedder = await localEmbedder({ modelPath, gpu: "cpu", threads });
  const suites = [
    { name: "short texts (~16 tokens)", texts: Array.from({ length: 256 }, (_, i) => text(16, i)) },
    { name: "chunks (~400 tokens)", texts: Array.from({ length: 64 }, (_, i) => text(400, i)) },
  ];
  await embedder.embedBatch(suites.map((s) => s.texts[0] ?? "")); // load + warm up
  console.log(`tiny BERT (32 dims, 2 layers), CPU, ${threads} threads, ${runs} runs, median:`);
  for (const suite of suites) {
    const rates: number[] = [];
    for (let run = 0; run < runs; run++) {
      const started = performance.now();
      for (let i = 0; i < suite.texts.length; i += embedder.maxBatchSize) {
        await embedder.embedBatch(suite.texts.slice(i, i + embedder.maxBatchSize));
      }
      rates.push(suite.texts.length / ((performance.now() - started) / 1000));
    }
    rates.sort((a, b) => a - b);
    const median = rates[Math.floor(rates.length / 2)] ?? 0;
    const spread = `${Math.round(rates[0] ?? 0)}–${Math.round(rates.at(-1) ?? 0)}`;
    console.log(`  ${suite.name}: ${Math.round(median)} embeddings/s (runs: ${spread})`);
  }
  await embedder.close();
} finally {
  await rm(dir, { recursive: true, force: true });
}
