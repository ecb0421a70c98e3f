import { createHash } from "node:crypto";
import { open, stat } from "node:fs/promises";
import { localError, messageOf } from "./errors.js";
import { checkGgufLayout, GgufLayoutError } from "./gguf-layout.js";
import { importNodeLlamaCpp } from "./sdk.js";

/** What the GGUF header says about an embedding model, read without loading any weights. */
export interface ModelHeader {
  /** The file (absolute). */
  path: string;
  /** `general.architecture`, e.g. `bert`, `nomic-bert`, `qwen3`. */
  architecture: string;
  /** Vector size: `<arch>.embedding_length_out` when present, else `<arch>.embedding_length`. */
  dims: number;
  /** `<arch>.context_length`, the training context, when the header has it. */
  contextLength: number | undefined;
  /** `general.name`, when present. */
  name: string | undefined;
  /** A short content fingerprint (size + first and last MiB): different files never share one. */
  fingerprint: string;
}

/** Arrays the header reader can skip: only dims, context and the tensor table are needed. */
const SKIPPED_KEYS = [
  "tokenizer.ggml.tokens",
  "tokenizer.ggml.token_type",
  "tokenizer.ggml.scores",
  "tokenizer.ggml.merges",
  "tokenizer.chat_template",
];

const FINGERPRINT_SPAN = 1024 * 1024;

/**
 * Read a GGUF model's header (node-llama-cpp's `readGgufFileInfo`: metadata and tensor table,
 * never tensor data): its architecture, vector size and training context, plus a content
 * fingerprint.
 *
 * @throws EmbeddingError `bad_input` naming the path and the fix when the file is missing, not a
 *   GGUF file, damaged, or has no embedding length.
 */
export async function readModelHeader(path: string): Promise<ModelHeader> {
  const fileStat = await stat(path).catch((cause: unknown) => {
    const missing = (cause as NodeJS.ErrnoException).code === "ENOENT";
    throw localError(
      "bad_input",
      missing ? `model file not found: ${path}` : `cannot read ${path}: ${messageOf(cause)}`,
      { hint: FIX_PATH, cause },
    );
  });
  if (!fileStat.isFile()) {
    throw localError("bad_input", `model path is not a file: ${path}`, { hint: FIX_PATH });
  }
  if (!(await hasGgufMagic(path))) {
    throw localError("bad_input", `${path} is not a GGUF file (it does not start with "GGUF")`, {
      hint: FIX_PATH,
    });
  }
  try {
    // node-llama-cpp's reader trusts the header's counts: a damaged one makes it loop and
    // allocate without end. Walk the structure within the file's size first.
    await checkGgufLayout(path, fileStat.size);
  } catch (cause) {
    if (!(cause instanceof GgufLayoutError)) throw cause;
    throw localError(
      "bad_input",
      `${path} is not a usable GGUF model: ${cause.message} (byte ${cause.at} of ${fileStat.size}); the file is damaged or truncated, or is not a model`,
      { hint: FIX_DAMAGED, cause },
    );
  }
  const { readGgufFileInfo } = await importNodeLlamaCpp();
  let metadata: Record<string, unknown>;
  try {
    const info = await readGgufFileInfo(path, {
      readTensorInfo: true,
      logWarnings: false,
      ignoreKeys: SKIPPED_KEYS,
      sourceType: "filesystem",
      // A second bound: a header that passed the walk is read in well under a second.
      signal: AbortSignal.timeout(HEADER_READ_TIMEOUT_MS),
    });
    if ((info.infoEndOffset ?? 0) > fileStat.size) {
      throw new Error(`the header ends at byte ${info.infoEndOffset}, past the end of the file`);
    }
    metadata = info.metadata as unknown as Record<string, unknown>;
  } catch (cause) {
    throw localError(
      "bad_input",
      `cannot read the GGUF header of ${path}; the file is damaged or truncated (${messageOf(cause)})`,
      { hint: FIX_DAMAGED, cause },
    );
  }
  const general = record(metadata.general);
  const architecture = typeof general.architecture === "string" ? general.architecture : "";
  const arch = record(metadata[architecture]);
  const dims = positive(arch.embedding_length_out) ?? positive(arch.embedding_length);
  if (!architecture || dims === undefined) {
    throw localError(
      "bad_input",
      `${path} has no ${architecture || "<architecture>"}.embedding_length in its GGUF header`,
      { hint: "use a GGUF embedding model converted by llama.cpp's convert_hf_to_gguf.py" },
    );
  }
  return {
    path,
    architecture,
    dims,
    contextLength: positive(arch.context_length),
    name: typeof general.name === "string" ? general.name : undefined,
    fingerprint: await fingerprint(path, fileStat.size),
  };
}

const FIX_PATH =
  "set modelPath (ENGRAM_LOCAL_MODEL_PATH) to an existing .gguf embedding model file";
const FIX_DAMAGED =
  "download the model again (compare its size or checksum with the source), or set modelPath (ENGRAM_LOCAL_MODEL_PATH) to another .gguf embedding model file";
/** Longest the header read may take once the layout walk passed (it takes milliseconds). */
const HEADER_READ_TIMEOUT_MS = 30_000;

/** True when the file at `path` starts with the GGUF magic (reads 4 bytes). */
export async function hasGgufMagic(path: string): Promise<boolean> {
  const file = await open(path, "r");
  try {
    const magic = Buffer.alloc(4);
    const { bytesRead } = await file.read(magic, 0, 4, 0);
    return bytesRead === 4 && magic.toString("latin1") === "GGUF";
  } finally {
    await file.close();
  }
}

async function fingerprint(path: string, size: number): Promise<string> {
  const hash = createHash("sha256").update(`gguf:${size}\n`);
  const file = await open(path, "r");
  try {
    const head = Buffer.alloc(Math.min(size, FINGERPRINT_SPAN));
    await file.read(head, 0, head.length, 0);
    hash.update(head);
    if (size > FINGERPRINT_SPAN) {
      const tail = Buffer.alloc(Math.min(size - FINGERPRINT_SPAN, FINGERPRINT_SPAN));
      await file.read(tail, 0, tail.length, size - tail.length);
      hash.update(tail);
    }
  } finally {
    await file.close();
  }
  return hash.digest("hex").slice(0, 16);
}

function record(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === "object" ? (value as Record<string, unknown>) : {};
}

function positive(value: unknown): number | undefined {
  const n = typeof value === "bigint" ? Number(value) : value;
  return typeof n === "number" && Number.isInteger(n) && n > 0 ? n : undefined;
}
