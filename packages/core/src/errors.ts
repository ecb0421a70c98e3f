/**
 * Every failure engram reports on purpose is an {@link EngramError}: a stable `code` a program can
 * branch on, a message that names the problem, and a `hint` that names the fix.
 */
export type EngramErrorCode =
  | "CONFIG_INVALID"
  | "WORKSPACE_MISSING"
  | "PATH_OUTSIDE_WORKSPACE"
  | "PATH_NOT_ALLOWED"
  | "FILE_NOT_FOUND"
  | "FILE_TOO_LARGE"
  | "INVALID_ENCODING"
  | "FRONT_MATTER_INVALID"
  | "FILE_INVALID"
  | "LIFECYCLE_CONFLICT"
  | "RECALL_GUARD"
  | "INVALID_ARGUMENT"
  | "LOCK_TIMEOUT"
  | "STORE_FAILED"
  | "STORE_DIMS_MISMATCH"
  | "EMBEDDING_FAILED"
  | "EMBEDDING_AUTH"
  | "EMBEDDING_QUOTA"
  | "EMBEDDING_RATE_LIMIT"
  | "EMBEDDING_BAD_INPUT"
  | "EMBEDDING_TOO_LONG"
  | "EMBEDDING_NETWORK"
  | "EMBEDDING_TIMEOUT"
  | "EMBEDDING_SERVER"
  | "EMBEDDING_BAD_RESPONSE"
  | "EMBEDDING_UNAVAILABLE"
  | "EMBEDDING_BUDGET"
  | "SEAL_KEY_MISSING"
  | "SEAL_KEY_INVALID"
  | "SEAL_KEY_WRONG"
  | "SEALED_FILE"
  | "MODEL_AUTH"
  | "MODEL_QUOTA"
  | "MODEL_RATE_LIMIT"
  | "MODEL_BAD_INPUT"
  | "MODEL_TOO_LONG"
  | "MODEL_NETWORK"
  | "MODEL_TIMEOUT"
  | "MODEL_SERVER"
  | "MODEL_BAD_RESPONSE"
  | "MODEL_UNAVAILABLE"
  | "MODEL_BUDGET"
  | "MODEL_NONE"
  | "CLOSED";

/** A failure engram reports on purpose, with a code to branch on and a hint that names the fix. */
export class EngramError extends Error {
  override readonly name = "EngramError";
  /** Stable machine-readable code. */
  readonly code: EngramErrorCode;
  /** One sentence telling the user how to fix it, when there is a fix. */
  readonly hint: string | undefined;

  constructor(
    code: EngramErrorCode,
    message: string,
    options: { hint?: string; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.hint = options.hint;
  }

  /** Message and hint on one line, as the CLI prints it. */
  describe(): string {
    return this.hint ? `${this.message} (${this.hint})` : this.message;
  }
}

/**
 * True when `error` is an {@link EngramError}, optionally with the given code. Checked by shape (an
 * `Error` with a string `code` and `describe()`), not by `instanceof` alone, so an error thrown by
 * another installed copy of `@engram/core` (a driver's) is still recognised.
 */
export function isEngramError(error: unknown, code?: EngramErrorCode): error is EngramError {
  const engram =
    error instanceof EngramError ||
    (error instanceof Error &&
      typeof (error as { code?: unknown }).code === "string" &&
      typeof (error as { describe?: unknown }).describe === "function");
  return engram && (code === undefined || (error as EngramError).code === code);
}
