import { describe, expect, it } from "vitest";
import type { Embedder } from "../embedding/embedder.js";
import {
  cosine,
  describeHookedChecks,
  expectAbortedBeforeSending,
  expectAbortInFlight,
  expectCount,
  expectInjectedFailure,
  expectSafeEndpoint,
  expectText,
  type InjectedFailure,
  type ProviderTestHooks,
  rejectsWithReason,
  requireHook,
  SAMPLE_TEXTS,
  useSubject,
} from "./provider-conformance.js";

/** A failure an embedder's test backend can inject: the shared ones, and a NaN in a vector. */
export type EmbedderFailure = InjectedFailure | "nan_vector";

/** What {@link describeEmbedderConformance}'s setup gives the kit. */
export interface EmbedderConformanceSubject extends ProviderTestHooks<EmbedderFailure> {
  /** The embedder under test (closed by the kit after its tests). */
  embedder: Embedder;
  /**
   * The same provider on the same backend with a timeout of its own shorter than the test's (for
   * example `timeoutMs: 1500`): with `failNext.slow`, the kit checks that a slow answer ends in a
   * retryable `EMBEDDING_TIMEOUT`. Omit for a provider without a timeout.
   */
  shortTimeout?: () => Promise<Embedder>;
}

/** Options of {@link describeEmbedderConformance}. */
export interface EmbedderConformanceOptions {
  /**
   * Also check meaning: related texts (English, Chinese) are closer than unrelated ones. Only for
   * a real model: a test server's vectors are hashes of the text.
   */
  semantic?: boolean;
}

const TEXTS: readonly string[] = Object.values(SAMPLE_TEXTS);

/** At least this cosine similarity counts as "the same vector" (batching, reruns). */
const SAME = 0.999;

/** A vector of the contract: a Float32Array of `dims` finite numbers, L2-normalised. */
function expectVector(vector: unknown, dims: number, what: string): void {
  expect(vector, what).toBeInstanceOf(Float32Array);
  const v = vector as Float32Array;
  expect(v.length, `${what}'s length`).toBe(dims);
  const bad = v.findIndex((x) => !Number.isFinite(x));
  expect(bad, `${what} holds ${v[bad]} at ${bad}`).toBe(-1);
  let norm = 0;
  for (const x of v) norm += x * x;
  // Core's stores and cache expect unit vectors (drivers pass answers through `unitVector`).
  expect(Math.sqrt(norm), `${what}'s L2 norm`).toBeCloseTo(1, 3);
}

function expectSame(a: Float32Array | undefined, b: Float32Array | undefined, what: string): void {
  expect(cosine(a ?? [], b ?? []), what).toBeGreaterThanOrEqual(SAME);
}

/**
 * The embedder kit's checks, one function per test, each taking the subject. The kit's tests call
 * them; they are exported so that a check can be proven to fail on a provider that breaks it.
 */
export const embedderChecks = {
  identity({ embedder, secrets }: EmbedderConformanceSubject): void {
    expectText(embedder.id, "id");
    expectText(embedder.model, "model");
    expectCount(embedder.dims, "dims");
    expectCount(embedder.maxBatchSize, "maxBatchSize");
    expectCount(embedder.maxTokensPerRequest, "maxTokensPerRequest", true);
    expectCount(embedder.maxConcurrency, "maxConcurrency", true);
    expectSafeEndpoint(embedder.endpoint, secrets);
  },

  async vectors({ embedder }: EmbedderConformanceSubject): Promise<void> {
    const vectors = await embedder.embedBatch(TEXTS);
    expect(vectors, "one vector per text").toHaveLength(TEXTS.length);
    vectors.forEach((v, i) => {
      expectVector(v, embedder.dims, `vector ${i}`);
    });
    for (let i = 0; i < vectors.length; i++) {
      for (let j = i + 1; j < vectors.length; j++) {
        expect(
          cosine(vectors[i] as Float32Array, vectors[j] as Float32Array),
          `texts ${i} and ${j} got one vector`,
        ).toBeLessThan(0.9999);
      }
    }
  },

  async batchMatchesSingles({ embedder }: EmbedderConformanceSubject): Promise<void> {
    const batch = await embedder.embedBatch(TEXTS);
    for (const [i, text] of TEXTS.entries()) {
      const [single] = await embedder.embedBatch([text]);
      expectSame(batch[i], single, `text ${i} in a batch vs alone`);
    }
  },

  async deterministic({ embedder }: EmbedderConformanceSubject): Promise<void> {
    const first = await embedder.embedBatch(TEXTS);
    const again = await embedder.embedBatch(TEXTS);
    TEXTS.forEach((_, i) => {
      expectSame(first[i], again[i], `text ${i} embedded twice`);
    });
  },

  async query({ embedder, requests }: EmbedderConformanceSubject): Promise<void> {
    const before = requests?.();
    const english = await embedder.embedQuery(SAMPLE_TEXTS.english);
    if (before !== undefined && requests) expect(requests() - before, "requests").toBe(1);
    expectVector(english, embedder.dims, "the query vector");
    const chinese = await embedder.embedQuery(SAMPLE_TEXTS.chinese);
    expectVector(chinese, embedder.dims, "the Chinese query vector");
    expect(cosine(english, chinese), "two queries got one vector").toBeLessThan(0.9999);
    expectSame(english, await embedder.embedQuery(SAMPLE_TEXTS.english), "a query embedded twice");
  },

  async emptyBatch({ embedder, requests }: EmbedderConformanceSubject): Promise<void> {
    const before = requests?.();
    expect(await embedder.embedBatch([])).toEqual([]);
    if (before !== undefined && requests) expect(requests() - before, "requests").toBe(0);
  },

  async abortedBeforeSending(subject: EmbedderConformanceSubject): Promise<void> {
    const { embedder } = subject;
    await expectAbortedBeforeSending(
      subject,
      (signal) => embedder.embedBatch([SAMPLE_TEXTS.english], signal),
      rejectsWithReason,
    );
    await expectAbortedBeforeSending(
      subject,
      (signal) => embedder.embedQuery(SAMPLE_TEXTS.english, signal),
      rejectsWithReason,
    );
  },

  async abortedInFlight(subject: EmbedderConformanceSubject): Promise<void> {
    await expectAbortInFlight(
      subject,
      (signal) => subject.embedder.embedBatch([SAMPLE_TEXTS.english], signal),
      rejectsWithReason,
    );
  },

  async failure(subject: EmbedderConformanceSubject, failure: EmbedderFailure): Promise<void> {
    const { embedder } = subject;
    await expectInjectedFailure(
      subject,
      failure,
      ["embedding"],
      () => embedder.embedBatch([SAMPLE_TEXTS.english]),
      async () => {
        const [vector] = await embedder.embedBatch([SAMPLE_TEXTS.chinese]);
        expectVector(vector, embedder.dims, "the vector after the failure");
      },
    );
  },

  async timeout(subject: EmbedderConformanceSubject): Promise<void> {
    if (!subject.shortTimeout) return expect.fail("needs shortTimeout()");
    const embedder = await subject.shortTimeout();
    try {
      await expectInjectedFailure(
        subject,
        "slow",
        ["embedding"],
        () => embedder.embedBatch([SAMPLE_TEXTS.english]),
        // The main instance, whose timeout a busy machine cannot trip.
        () => subject.embedder.embedBatch([SAMPLE_TEXTS.english]),
      );
    } finally {
      await embedder.close?.();
    }
  },

  async semantic({ embedder }: EmbedderConformanceSubject): Promise<void> {
    const [cat, kitten, revenue, darkMode, darkTheme, income] = await embedder.embedBatch([
      "The cat sits on the mat.",
      "A kitten is sitting on a rug.",
      "Quarterly revenue grew by five percent.",
      "用户喜欢深色模式",
      "用户偏好暗色主题",
      "季度收入增长了百分之五",
    ]);
    const sim = (a: Float32Array | undefined, b: Float32Array | undefined) =>
      cosine(a ?? [], b ?? []);
    expect(sim(cat, kitten)).toBeGreaterThan(sim(cat, revenue));
    expect(sim(darkMode, darkTheme)).toBeGreaterThan(sim(darkMode, income));
    const query = await embedder.embedQuery("Where is the rollback plan?");
    const [plan, lunch] = await embedder.embedBatch([
      "The rollback plan is in ops/rollback.md.",
      "Lunch was noodles on Friday.",
    ]);
    expect(sim(query, plan)).toBeGreaterThan(sim(query, lunch));
  },
};

const FAILURES: readonly Exclude<EmbedderFailure, "slow">[] = [
  "rate_limit",
  "auth",
  "server",
  "malformed",
  "nan_vector",
];

/**
 * The embedder conformance kit: registers vitest tests proving that an {@link Embedder} keeps the
 * contract (`embedding/embedder.ts`), whatever its wire format. Call it at the top level of a test
 * file of your provider package, with a setup that starts your test backend and creates the
 * embedder (run once, before the kit's tests):
 *
 * ```ts
 * import { describeEmbedderConformance } from "@engram/core/testing";
 *
 * describeEmbedderConformance("my-provider", async () => {
 *   const server = await startMyWireServer();
 *   return {
 *     embedder: await myEmbedder({ baseUrl: server.url, apiKey: KEY }),
 *     secrets: [KEY],
 *     requests: () => server.requests.length,
 *     failNext: {
 *       rate_limit: () => server.failNext({ status: 429, body: RATE_LIMITED }),
 *       auth: () => server.failNext({ status: 401, body: BAD_KEY }),
 *       server: () => server.failNext({ status: 500, body: INTERNAL }),
 *       malformed: () => server.failNext({ status: 200, text: "<html>proxy login</html>" }),
 *       nan_vector: () => server.failNext({ status: 200, body: VECTOR_WITH_NULL }),
 *       slow: () => server.failNext({ stallMs: 120_000 }),
 *     },
 *     shortTimeout: () => myEmbedder({ baseUrl: server.url, apiKey: KEY, timeoutMs: 1500 }),
 *     close: () => server.close(),
 *   };
 * });
 * ```
 *
 * It checks identity (id, model, dims, limits, an endpoint without secrets); one finite unit
 * vector of `dims` per text, in order, for English, Chinese, emoji and a long text; that a batch
 * equals the texts embedded alone and a rerun (cosine ≥ 0.999); `embedQuery`; an empty batch
 * (no request); aborted signals (rejected with the signal's reason, before sending or in flight);
 * and that each injected failure is one request and surfaces with the right `EMBEDDING_*` code,
 * retryability and hint (read by code), no secret in it. Checks needing a hook the setup does not
 * give are skipped with the reason shown.
 */
export function describeEmbedderConformance(
  name: string,
  setup: () => Promise<EmbedderConformanceSubject>,
  options: EmbedderConformanceOptions = {},
): void {
  describe(`Embedder conformance: ${name}`, () => {
    const s = useSubject(name, setup, (subject) => subject.embedder);
    const checks = embedderChecks;

    it("identity: id, model, dims and limits; an endpoint without secrets", () =>
      checks.identity(s()));
    it("one finite unit vector of dims per text (English, Chinese, emoji, long), all different", () =>
      checks.vectors(s()));
    it("a batch equals its texts embedded one by one, in order", () =>
      checks.batchMatchesSingles(s()));
    it("is deterministic: the same texts again give the same vectors", () =>
      checks.deterministic(s()));
    it("embedQuery: one vector of dims per query, deterministic", () => checks.query(s()));
    it("an empty batch is [] and sends no request", () => checks.emptyBatch(s()));
    it("an aborted signal rejects with its reason before any request", () =>
      checks.abortedBeforeSending(s()));
    describeHookedChecks(name, s, {
      codePrefix: "EMBEDDING_",
      failures: FAILURES,
      abortRejection: "the signal's reason",
      abortedInFlight: checks.abortedInFlight,
      failure: checks.failure,
      timeout: checks.timeout,
    });
    it("semantic: related texts are closer than unrelated ones (English, Chinese)", async (context) => {
      requireHook(context, options.semantic, `${name} is not a real model (semantic: false)`);
      await checks.semantic(s());
    });
  });
}
