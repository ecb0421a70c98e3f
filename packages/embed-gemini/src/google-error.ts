import { parseDurationMs } from "@engram/core/driver";

/**
 * A Google API error body, `{"error":{"code":429,"message":"…","status":"RESOURCE_EXHAUSTED",
 * "details":[…]}}`, with the `google.rpc` details engram acts on.
 */
export interface GoogleErrorBody {
  code: number | undefined;
  /** Google's message, e.g. `API key not valid. Please pass a valid API key.` */
  message: string | undefined;
  /** The canonical status, e.g. `RESOURCE_EXHAUSTED`, `INVALID_ARGUMENT`. */
  status: string | undefined;
  /** `google.rpc.ErrorInfo` reasons, e.g. `API_KEY_INVALID`. */
  reasons: string[];
  /** `google.rpc.QuotaFailure` violations' quota ids, e.g. `EmbedContentRequestsPerDay…`. */
  quotaIds: string[];
  /** `google.rpc.RetryInfo.retryDelay` (`"33s"`), in ms. */
  retryDelayMs: number | undefined;
}

const TYPE_PREFIX = "type.googleapis.com/google.rpc.";

/**
 * Read a Google error body from the SDK's `ApiError` message, which is the body as JSON (the SDK
 * wraps a non-JSON body as `{"error":{"message":"<text>","code":…,"status":"<status text>"}}`).
 * Undefined when the text is not such a body.
 */
export function parseGoogleErrorBody(text: string): GoogleErrorBody | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  // Some Google front ends answer a list holding one error.
  const root = Array.isArray(parsed) ? parsed[0] : parsed;
  const error = field(root, "error");
  if (!isRecord(error)) return undefined;
  const body: GoogleErrorBody = {
    code: typeof error.code === "number" ? error.code : undefined,
    message: typeof error.message === "string" ? error.message : undefined,
    status: typeof error.status === "string" ? error.status : undefined,
    reasons: [],
    quotaIds: [],
    retryDelayMs: undefined,
  };
  for (const detail of Array.isArray(error.details) ? error.details : []) {
    const type = field(detail, "@type");
    if (type === `${TYPE_PREFIX}ErrorInfo`) {
      const reason = field(detail, "reason");
      if (typeof reason === "string") body.reasons.push(reason);
    } else if (type === `${TYPE_PREFIX}QuotaFailure`) {
      const violations = field(detail, "violations");
      for (const violation of Array.isArray(violations) ? violations : []) {
        const quotaId = field(violation, "quotaId");
        if (typeof quotaId === "string") body.quotaIds.push(quotaId);
      }
    } else if (type === `${TYPE_PREFIX}RetryInfo`) {
      body.retryDelayMs = parseDurationMs(field(detail, "retryDelay"));
    }
  }
  return body;
}

/**
 * True when a 429 means a used-up daily quota rather than a per-minute limit: a QuotaFailure
 * violation names a per-day quota (`EmbedContentRequestsPerDayPerUserPerProjectPerModel-FreeTier`).
 * Waiting the few seconds RetryInfo suggests does not help then.
 */
export function isDailyQuota(body: GoogleErrorBody): boolean {
  return body.quotaIds.some((id) => /PerDay/i.test(id));
}

/** True when Google refused the API key itself (it answers 400 `API_KEY_INVALID`, not 401). */
export function isKeyRejected(body: GoogleErrorBody): boolean {
  return body.reasons.some((reason) => /^API_KEY_/.test(reason));
}

function field(value: unknown, key: string): unknown {
  return isRecord(value) ? value[key] : undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
