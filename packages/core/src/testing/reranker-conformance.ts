import { describe, expect, it } from "vitest";
import { providerFailureOf } from "../embedding/errors.js";
import type { Reranker } from "../model/reranker.js";
import {
  type AbortExpectation,
  describeError,
  describeHookedChecks,
  expectAbortedBeforeSending,
  expectAbortInFlight,
  expectCount,
  expectInjectedFailure,
  expectSafeEndpoint,
  expectText,
  type InjectedFailure,
  type ProviderTestHooks,
  requireHook,
  SAMPLE_TEXTS,
  useSubject,
} from "./provider-conformance.js";

/** A failure a reranker's test backend can inject: the shared ones, and a score that is no number. */
export type RerankerFailure = InjectedFailure | "nan_score";

/** What {@link describeRerankerConformance}'s setup gives the kit. */
export interface RerankerConformanceSubject extends ProviderTestHooks<RerankerFailure> {
  /** The reranker under test (closed by the kit after its tests). */
  reranker: Reranker;
  /**
   * The same provider on the same backend with a timeout of its own shorter than the test's: with
   * `failNext.slow`, the kit checks that a slow answer ends in a retryable `timeout` error. Omit
   * for a provider without a timeout (search's rerank deadline aborts it instead).
   */
  shortTimeout?: () => Promise<Reranker>;
}

/** Options of {@link describeRerankerConformance}. */
export interface RerankerConformanceOptions {
  /**
   * Also check meaning: a relevant document scores above an irrelevant one (English and Chinese).
   * Only for a real model: a test server's scores are scripted.
   */
  semantic?: boolean;
  /**
   * The reranker grades a call's documents together (a language model reading the list), so a
   * document's score may change with its neighbours and its place: the kit then skips the check
   * that a document scores the same alone, and in any order.
   */
  listwise?: boolean;
}

const QUERY = "rollback plan for the deploy";
const DOCUMENTS: readonly string[] = [
  "The rollback plan for the deploy is in ops/rollback.md.",
  SAMPLE_TEXTS.chinese,
  SAMPLE_TEXTS.emoji,
  "Lunch was noodles on Friday.",
];
/** With a long document (longer than a small reranker's context), sent once. */
const WITH_LONG: readonly string[] = [
  ...DOCUMENTS.slice(0, 2),
  SAMPLE_TEXTS.long,
  ...DOCUMENTS.slice(2),
];

/** Scores are equal when they differ by at most this share of their size (or of 1). */
const SCORE_TOLERANCE = 1e-3;

function expectScores(scores: unknown, count: number, what: string): number[] {
  expect(Array.isArray(scores), `${what} is an array`).toBe(true);
  const list = scores as unknown[];
  expect(list, `${what}: one score per document`).toHaveLength(count);
  list.forEach((score, i) => {
    expect(
      typeof score === "number" && Number.isFinite(score),
      `${what}: score ${i} is ${String(score)}`,
    ).toBe(true);
  });
  return list as number[];
}

function expectSameScores(actual: readonly number[], expected: readonly number[], what: string) {
  expect(actual).toHaveLength(expected.length);
  expected.forEach((e, i) => {
    const a = actual[i] as number;
    const room = SCORE_TOLERANCE * Math.max(1, Math.abs(a), Math.abs(e));
    expect(Math.abs(a - e), `${what}: score ${i} is ${a}, expected ${e}`).toBeLessThanOrEqual(room);
  });
}

/**
 * How a reranker rejects an aborted call: the contract does not say, so either the signal's reason
 * (node-llama-cpp's) or a `timeout` provider error (an HTTP reranker's reading of the abort).
 */
const reasonOrTimeout: AbortExpectation = (error, reason) => {
  const ok = error === reason || providerFailureOf(error)?.kind === "timeout";
  expect(ok, `expected the signal's reason or a timeout error, got ${describeError(error)}`).toBe(
    true,
  );
};

/**
 * The reranker kit's checks, one function per test, each taking the subject (exported so that a
 * check can be proven to fail on a reranker that breaks it).
 */
export const rerankerChecks = {
  identity({ reranker, secrets }: RerankerConformanceSubject): void {
    expectText(reranker.id, "id");
    expectText(reranker.model, "model");
    expectCount(reranker.maxDocuments, "maxDocuments", true);
    expectSafeEndpoint(reranker.endpoint, secrets);
  },

  async scores({ reranker }: RerankerConformanceSubject): Promise<void> {
    expectScores(await reranker.rerank(QUERY, WITH_LONG), WITH_LONG.length, "rerank");
    expectScores(
      await reranker.rerank("回滚计划在哪里？", DOCUMENTS),
      DOCUMENTS.length,
      "CJK query",
    );
  },

  async independent({ reranker }: RerankerConformanceSubject): Promise<void> {
    const scores = expectScores(await reranker.rerank(QUERY, DOCUMENTS), DOCUMENTS.length, "all");
    const reversed = expectScores(
      await reranker.rerank(QUERY, [...DOCUMENTS].reverse()),
      DOCUMENTS.length,
      "reversed",
    );
    expectSameScores([...reversed].reverse(), scores, "the documents in reverse order");
    for (const [i, document] of DOCUMENTS.entries()) {
      const alone = expectScores(await reranker.rerank(QUERY, [document]), 1, `document ${i}`);
      expectSameScores(alone, [scores[i] as number], `document ${i} alone`);
    }
  },

  async deterministic({ reranker }: RerankerConformanceSubject): Promise<void> {
    const first = expectScores(await reranker.rerank(QUERY, DOCUMENTS), DOCUMENTS.length, "1st");
    const again = expectScores(await reranker.rerank(QUERY, DOCUMENTS), DOCUMENTS.length, "2nd");
    expectSameScores(again, first, "the same call again");
  },

  async empty({ reranker, requests }: RerankerConformanceSubject): Promise<void> {
    const before = requests?.();
    expect(await reranker.rerank(QUERY, [])).toEqual([]);
    if (before !== undefined && requests) expect(requests() - before, "requests").toBe(0);
  },

  async abortedBeforeSending(subject: RerankerConformanceSubject): Promise<void> {
    await expectAbortedBeforeSending(
      subject,
      (signal) => subject.reranker.rerank(QUERY, DOCUMENTS, { signal }),
      reasonOrTimeout,
    );
  },

  async abortedInFlight(subject: RerankerConformanceSubject): Promise<void> {
    await expectAbortInFlight(
      subject,
      (signal) => subject.reranker.rerank(QUERY, DOCUMENTS, { signal }),
      reasonOrTimeout,
    );
  },

  async failure(subject: RerankerConformanceSubject, failure: RerankerFailure): Promise<void> {
    const { reranker } = subject;
    await expectInjectedFailure(
      subject,
      failure,
      ["embedding", "model"],
      () => reranker.rerank(QUERY, DOCUMENTS),
      async () => {
        expectScores(await reranker.rerank(QUERY, DOCUMENTS), DOCUMENTS.length, "afterwards");
      },
    );
  },

  async timeout(subject: RerankerConformanceSubject): Promise<void> {
    if (!subject.shortTimeout) return expect.fail("needs shortTimeout()");
    const reranker = await subject.shortTimeout();
    try {
      await expectInjectedFailure(
        subject,
        "slow",
        ["embedding", "model"],
        () => reranker.rerank(QUERY, DOCUMENTS),
        // The main instance, whose timeout a busy machine cannot trip.
        () => subject.reranker.rerank(QUERY, DOCUMENTS),
      );
    } finally {
      await reranker.close?.();
    }
  },

  async semantic({ reranker }: RerankerConformanceSubject): Promise<void> {
    const [relevant, irrelevant] = await reranker.rerank("Where is the rollback plan?", [
      "The rollback plan is in ops/rollback.md.",
      "Lunch was noodles on Friday.",
    ]);
    expect(relevant).toBeGreaterThan(irrelevant as number);
    const [lunch, plan] = await reranker.rerank("回滚计划在哪里？", [
      "午饭吃了面条。",
      "回滚计划在 ops 目录里。",
    ]);
    expect(plan).toBeGreaterThan(lunch as number);
  },
};

const FAILURES: readonly Exclude<RerankerFailure, "slow">[] = [
  "rate_limit",
  "auth",
  "server",
  "malformed",
  "nan_score",
];

/**
 * The reranker conformance kit: registers vitest tests proving that a {@link Reranker} keeps the
 * contract (`model/reranker.ts`), whatever its wire format. Call it at the top level of a test
 * file, with a setup that starts your test backend and creates the reranker (run once):
 *
 * ```ts
 * import { describeRerankerConformance } from "@engram/core/testing";
 *
 * describeRerankerConformance("my-reranker", async () => {
 *   const server = await startMyRerankServer();
 *   return {
 *     reranker: myReranker({ baseUrl: server.url }),
 *     requests: () => server.requests.length,
 *     failNext: { rate_limit: () => server.failNext({ status: 429 }), ... },
 *     close: () => server.close(),
 *   };
 * });
 * ```
 *
 * It checks identity; one finite score per document in order (English, Chinese, emoji, a long
 * document; a CJK query); that a document scores the same alone and in any order (unless
 * `listwise`); determinism; an empty list (no request); aborted signals (the signal's reason or a
 * `timeout` error); each injected failure as one request with the right kind (`EMBEDDING_*` or
 * `MODEL_*` code), retryability and hint; and, with `semantic`, relevance.
 */
export function describeRerankerConformance(
  name: string,
  setup: () => Promise<RerankerConformanceSubject>,
  options: RerankerConformanceOptions = {},
): void {
  describe(`Reranker conformance: ${name}`, () => {
    const s = useSubject(name, setup, (subject) => subject.reranker);
    const checks = rerankerChecks;

    it("identity: id, model, maxDocuments; an endpoint without secrets", () =>
      checks.identity(s()));
    it("one finite score per document, for English, Chinese, emoji and long documents", () =>
      checks.scores(s()));
    it("a document scores the same alone and in any order", async (context) => {
      requireHook(context, !options.listwise, `${name} grades documents together (listwise)`);
      await checks.independent(s());
    });
    it("is deterministic: the same call again gives the same scores", () =>
      checks.deterministic(s()));
    it("no documents: [] and no request", () => checks.empty(s()));
    it("an aborted signal rejects before any request", () => checks.abortedBeforeSending(s()));
    describeHookedChecks(name, s, {
      codePrefix: "",
      failures: FAILURES,
      abortRejection: "the signal's reason or a timeout error",
      abortedInFlight: checks.abortedInFlight,
      failure: checks.failure,
      timeout: checks.timeout,
    });
    it("semantic: a relevant document scores above an irrelevant one (English, Chinese)", async (context) => {
      requireHook(context, options.semantic, `${name} is not a real model (semantic: false)`);
      await checks.semantic(s());
    });
  });
}
