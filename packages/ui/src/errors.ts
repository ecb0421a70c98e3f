import { isEngramError } from "@engram/core";

/** A request the page refuses, with the HTTP status and the same code/message/hint shape as core's errors. */
export class UiRefusal extends Error {
  override readonly name = "UiRefusal";
  constructor(
    readonly status: 400 | 401 | 403 | 404 | 409 | 413 | 422 | 500,
    readonly code: string,
    message: string,
    readonly hint?: string,
  ) {
    super(message);
  }
}

/** The JSON body of an error answer: `{ error: { code, message, hint? } }`. */
export interface ErrorBody {
  error: { code: string; message: string; hint?: string };
}

/** How core's error codes map to HTTP: bad paths are 400 (nothing was read), conflicts 409. */
const STATUS_OF: Record<string, UiRefusal["status"]> = {
  INVALID_ARGUMENT: 400,
  PATH_OUTSIDE_WORKSPACE: 400,
  PATH_NOT_ALLOWED: 400,
  FILE_NOT_FOUND: 404,
  FILE_TOO_LARGE: 413,
  INVALID_ENCODING: 422,
  FRONT_MATTER_INVALID: 422,
  LIFECYCLE_CONFLICT: 409,
  LOCK_TIMEOUT: 409,
  RECALL_GUARD: 409,
};

/** The status and body for any error a handler threw. */
export function describeError(error: unknown): { status: UiRefusal["status"]; body: ErrorBody } {
  if (error instanceof UiRefusal) {
    return {
      status: error.status,
      body: {
        error: {
          code: error.code,
          message: error.message,
          ...(error.hint ? { hint: error.hint } : {}),
        },
      },
    };
  }
  if (isEngramError(error)) {
    return {
      status: STATUS_OF[error.code] ?? 500,
      body: {
        error: {
          code: error.code,
          message: error.message,
          ...(error.hint ? { hint: error.hint } : {}),
        },
      },
    };
  }
  return {
    status: 500,
    body: { error: { code: "INTERNAL", message: (error as Error)?.message ?? String(error) } },
  };
}
