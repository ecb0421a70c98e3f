import { inspect } from "node:util";
import { afterAll, beforeAll, expect, it, type TestContext } from "vitest";
import {
  isRetryableFailure,
  type ProviderFailure,
  type ProviderService,
  providerErrorCode,
  providerFailureOf,
} from "../embedding/errors.js";

/**
 * What the provider kits share: the failures a test backend can inject, the hooks through which a
 * provider package's tests hand its backend to a kit, sample texts, and the assertions on
 * classified provider errors (read by code, never by `instanceof`).
 */

/**
 * A failure a test backend (a local server speaking the provider's wire format) can give its next
 * answer, and the error kind the provider must report it as:
 *
 * - `rate_limit`: HTTP 429 as the API sends it → `rate_limit` (retryable);
 * - `auth`: the API's answer to a bad key (401, or what the API uses instead) → `auth` (final);
 * - `server`: HTTP 500 → `server` (retryable);
 * - `malformed`: a 200 whose body is not in the wire format (an HTML page) → `bad_response`;
 * - `slow`: no answer until long after the test's time is up (stall ≥ 120 s, ended when the client
 *   goes away) → `timeout` from a provider with a timeout of its own; otherwise only an abort
 *   ends the call.
 */
export type InjectedFailure = "rate_limit" | "auth" | "server" | "malformed" | "slow";

/** What a provider package's test backend offers a kit besides the provider itself. */
export interface ProviderTestHooks<Failure extends string> {
  /**
   * Requests the backend has received so far. With it the kit checks that a call is one request
   * (providers never retry on their own) and that empty or aborted calls send none.
   */
  requests?: () => number;
  /**
   * Make the backend's next answer fail this way, once. Failures left out are skipped, visibly.
   */
  failNext?: Partial<Record<Failure, () => void>>;
  /** Strings (API keys) that must never appear in `endpoint` or in an error. */
  secrets?: readonly string[];
  /** Called once after the kit's tests, after the provider's own `close()` (stop the server). */
  close?: () => Promise<void>;
}

/** The kind each injected failure must be reported as. */
export const FAILURE_KINDS: Readonly<Record<string, ProviderFailure>> = {
  rate_limit: "rate_limit",
  auth: "auth",
  server: "server",
  malformed: "bad_response",
  slow: "timeout",
  nan_vector: "bad_response",
  nan_score: "bad_response",
  not_json: "bad_response",
  schema_violation: "bad_response",
};

/**
 * Texts every kit sends: English, Chinese, emoji, and a long one (≈ 500 tokens: longer than a
 * default chunk, and than the context of small local models, which must cut or window it).
 */
export const SAMPLE_TEXTS = {
  english: "Deploys run on GitHub Actions; the rollback plan is in ops/rollback.md.",
  chinese: "用户偏好深色模式，回滚计划在 ops 目录里。",
  emoji: "🚀 shipped the release 🎉 — all checks ✅",
  long: Array.from(
    { length: 20 },
    (_, i) =>
      `Note ${i + 1}: the nightly sync re-indexed the workspace, and the agent kept its memory in Markdown files.`,
  ).join(" "),
} as const;

/** Skip the running test, with the reason shown, unless `hook` is there. */
export function requireHook(context: TestContext, hook: unknown, reason: string): void {
  if (hook === undefined || hook === null || hook === false) context.skip(reason);
}

/** Resolve to what `promise` rejected with; fail the test when it resolves. */
export async function rejectionOf(promise: Promise<unknown>, what: string): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  return expect.fail(`${what}: expected the call to fail, but it succeeded`);
}

/** How an error prints, for assertion messages. */
export function describeError(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    return `${error.name}${typeof code === "string" ? ` ${code}` : ""}: ${error.message}`;
  }
  return inspect(error);
}

/** Assert that none of `secrets` shows anywhere in `value` as `inspect` prints it (causes too). */
export function expectNoSecrets(value: unknown, secrets: readonly string[] = [], what = ""): void {
  if (!secrets.length) return;
  const printed = `${inspect(value, { depth: 10 })}\n${typeof value === "string" ? value : ""}`;
  for (const secret of secrets) {
    expect(printed.includes(secret), `${what} shows a secret`).toBe(false);
  }
}

/** Assert that `endpoint` is absent or a string without secrets or URL credentials. */
export function expectSafeEndpoint(
  endpoint: unknown,
  secrets: readonly string[] | undefined,
): void {
  if (endpoint === undefined) return;
  expect(typeof endpoint, "endpoint").toBe("string");
  expectNoSecrets(endpoint, secrets, "endpoint");
  if (URL.canParse(endpoint as string)) {
    const url = new URL(endpoint as string);
    expect(url.username || url.password, "endpoint carries URL credentials").toBe("");
  }
}

/** Assert a non-empty string. */
export function expectText(value: unknown, what: string): void {
  expect(typeof value, what).toBe("string");
  expect((value as string).length, `${what} is empty`).toBeGreaterThan(0);
}

/** Assert a positive integer, or undefined when `optional`. */
export function expectCount(value: unknown, what: string, optional = false): void {
  if (optional && value === undefined) return;
  expect(Number.isInteger(value) && (value as number) > 0, `${what} = ${String(value)}`).toBe(true);
}

/**
 * Assert that `error` is a classified provider failure of `kind`, read from its code
 * (`EMBEDDING_<KIND>` or `MODEL_<KIND>`, for the `services` allowed), with the retryability the
 * kind has, a message and a hint, and no secret in it (message, hint, stack, cause chain).
 */
export function expectProviderFailure(
  error: unknown,
  kind: ProviderFailure,
  services: readonly ProviderService[],
  secrets?: readonly string[],
): void {
  const info = providerFailureOf(error);
  expect(
    info,
    `expected a provider error of kind ${kind}, got ${describeError(error)}`,
  ).toBeDefined();
  const e = error as { code?: unknown; retryable?: unknown; message?: unknown; hint?: unknown };
  expect(services.map((service) => providerErrorCode(service, kind))).toContain(e.code);
  expect(e.retryable, `${String(e.code)}.retryable`).toBe(isRetryableFailure(kind));
  expectText(e.message, `${String(e.code)}'s message`);
  expectText(e.hint, `${String(e.code)}'s hint`);
  expectNoSecrets(error, secrets, String(e.code));
}

/** Wait until the backend has counted more than `before` requests (polled every 5 ms). */
export async function untilRequested(requests: () => number, before: number): Promise<void> {
  while (requests() <= before) await new Promise((resolve) => setTimeout(resolve, 5));
}

/**
 * Arm `failure` on the backend, make `call` (which must fail with the failure's kind, after exactly
 * one request when requests are counted), then make `recover` (which must succeed: the failure was
 * the backend's, once, and the provider is not stuck in it).
 */
export async function expectInjectedFailure<Failure extends string>(
  hooks: ProviderTestHooks<Failure>,
  failure: Failure,
  services: readonly ProviderService[],
  call: () => Promise<unknown>,
  recover: () => Promise<unknown>,
): Promise<void> {
  const arm = hooks.failNext?.[failure];
  if (!arm) return expect.fail(`the backend cannot inject ${failure}`);
  const kind = FAILURE_KINDS[failure];
  if (!kind) return expect.fail(`no kind is known for ${failure}`);
  const before = hooks.requests?.();
  arm();
  const error = await rejectionOf(call(), `with ${failure} injected`);
  expectProviderFailure(error, kind, services, hooks.secrets);
  if (before !== undefined && hooks.requests) {
    expect(hooks.requests() - before, `requests sent for one call that met ${failure}`).toBe(1);
  }
  await recover();
}

/** Cosine similarity of two vectors (0 when either is all zeros). */
export function cosine(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    const x = a[i] ?? 0;
    const y = b[i] ?? 0;
    dot += x * y;
    na += x * x;
    nb += y * y;
  }
  return na && nb ? dot / Math.sqrt(na * nb) : 0;
}

/** How a provider must reject a call whose signal aborted: `reason` is the signal's. */
export type AbortExpectation = (error: unknown, reason: Error) => void;

/** The convention of embedders and language models (and core's retry loop): the signal's reason. */
export const rejectsWithReason: AbortExpectation = (error, reason) => {
  expect(error === reason, `expected the signal's reason, got ${describeError(error)}`).toBe(true);
};

/** A call with an already aborted signal rejects as `expectation` says and sends no request. */
export async function expectAbortedBeforeSending(
  hooks: ProviderTestHooks<string>,
  call: (signal: AbortSignal) => Promise<unknown>,
  expectation: AbortExpectation,
): Promise<void> {
  const reason = new Error("conformance: aborted before the call");
  const before = hooks.requests?.();
  const error = await rejectionOf(call(AbortSignal.abort(reason)), "with an aborted signal");
  expectation(error, reason);
  if (before !== undefined && hooks.requests) {
    expect(hooks.requests() - before, "requests sent with an aborted signal").toBe(0);
  }
}

/**
 * A call whose answer is slow (`failNext.slow`) rejects as `expectation` says once its signal
 * aborts, after the backend has the request. The answer would come only after the test's time is
 * up, so a provider that ignores the abort fails by timing out: no duration is asserted.
 */
export async function expectAbortInFlight(
  hooks: ProviderTestHooks<"slow">,
  call: (signal: AbortSignal) => Promise<unknown>,
  expectation: AbortExpectation,
): Promise<void> {
  const { requests } = hooks;
  const arm = hooks.failNext?.slow;
  if (!arm || !requests) return expect.fail("needs failNext.slow and requests()");
  const before = requests();
  arm();
  const controller = new AbortController();
  const reason = new Error("conformance: aborted in flight");
  const pending = rejectionOf(call(controller.signal), "aborted in flight");
  await untilRequested(requests, before);
  controller.abort(reason);
  expectation(await pending, reason);
}

/**
 * Run the kit's `setup` once before its tests and close what it made after them (the provider
 * `provider(subject)` names, then the backend); returns the subject's getter for the tests.
 */
export function useSubject<S extends ProviderTestHooks<string>>(
  name: string,
  setup: () => Promise<S>,
  provider: (subject: S) => { close?(): Promise<void> },
): () => S {
  let subject: S | undefined;
  beforeAll(async () => {
    subject = await setup();
  });
  afterAll(async () => {
    if (subject) await provider(subject).close?.();
    await subject?.close?.();
  });
  return () => {
    if (!subject) throw new Error(`the ${name} setup did not finish`);
    return subject;
  };
}

/** The checks a kit runs through its backend's hooks (see {@link describeHookedChecks}). */
export interface HookedChecks<Failure extends string, Subject> {
  /** How the test names show an error code: `EMBEDDING_`, `MODEL_`, or "" for a kind only. */
  codePrefix: string;
  /** The failures besides `slow`, in the order tested. */
  failures: readonly Failure[];
  /** What the in-flight abort must reject with, for the test's name. */
  abortRejection: string;
  abortedInFlight(subject: Subject): Promise<void>;
  failure(subject: Subject, failure: Failure): Promise<void>;
  timeout(subject: Subject): Promise<void>;
}

/**
 * Register the tests every kit runs through the backend's hooks: an abort while the answer is
 * pending, each injected failure, and a slow answer against the provider's own timeout. A test
 * whose hook the setup does not give is skipped with the reason shown.
 */
export function describeHookedChecks<
  Failure extends string,
  Subject extends ProviderTestHooks<Failure | "slow"> & { shortTimeout?: unknown },
>(name: string, subject: () => Subject, checks: HookedChecks<Failure, Subject>): void {
  const label = (kind: string | undefined) =>
    checks.codePrefix ? `${checks.codePrefix}${kind?.toUpperCase()}` : String(kind);
  it(`aborting while the answer is pending rejects with ${checks.abortRejection}`, async (context) => {
    const s = subject();
    requireHook(context, s.failNext?.slow && s.requests, `${name} gives no slow backend`);
    await checks.abortedInFlight(s);
  });
  for (const failure of checks.failures) {
    it(`${failure} → ${label(FAILURE_KINDS[failure])}, one request, then recovers`, async (context) => {
      requireHook(context, subject().failNext?.[failure], `${name} cannot inject ${failure}`);
      await checks.failure(subject(), failure);
    });
  }
  it(`a slow answer → ${label("timeout")} from the provider's own timeout`, async (context) => {
    const s = subject();
    requireHook(
      context,
      s.failNext?.slow && s.shortTimeout,
      `${name} gives no slow backend or no provider with a short timeout`,
    );
    await checks.timeout(s);
  });
}
