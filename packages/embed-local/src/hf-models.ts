import { lookup } from "node:dns/promises";
import { mkdir } from "node:fs/promises";
import { isEngramError } from "@engram/core/driver";
import { localError, messageOf } from "./errors.js";
import { huggingFaceEndpoint } from "./hf-uri.js";
import { importNodeLlamaCpp } from "./sdk.js";

/** How long a download may go without progress before it fails as a network error. */
const STALL_MS = 60_000;
/** How long the endpoint's DNS lookup may take before the download is not even tried. */
const LOOKUP_MS = 10_000;

/** Where an `hf:` URI stands in the cache directory. */
export type CachedHfModel =
  | { found: true; path: string }
  | { found: false; reason: string; invalidUri: boolean };

/**
 * Look an `hf:` URI up in `cacheDir` without touching the network (node-llama-cpp's
 * `resolveModelFile` with `download: false`).
 */
export async function findCachedHfModel(uri: string, cacheDir: string): Promise<CachedHfModel> {
  const { resolveModelFile } = await importNodeLlamaCpp();
  try {
    const path = await resolveModelFile(uri, { directory: cacheDir, download: false, cli: false });
    return { found: true, path };
  } catch (error) {
    const message = messageOf(error);
    return { found: false, reason: message, invalidUri: /invalid/i.test(message) };
  }
}

/**
 * The local file of an `hf:` URI: the cached copy in `cacheDir` when there is one (no network),
 * else downloaded there by node-llama-cpp (`HF_TOKEN` for gated models, `HF_ENDPOINT` for a
 * mirror). Without a network this fails fast: the endpoint's host must resolve first (unless a
 * proxy is set), and a download that makes no progress for a minute is abandoned.
 *
 * @throws EmbeddingError `bad_input` for a malformed URI or a file the repository does not have,
 *   `auth` for a gated or private model, `network` when Hugging Face cannot be reached.
 */
export async function resolveHfModel(
  uri: string,
  cacheDir: string,
  env: Readonly<Record<string, string | undefined>> = process.env,
): Promise<string> {
  const cached = await findCachedHfModel(uri, cacheDir);
  if (cached.found) return cached.path;
  if (cached.invalidUri) {
    throw localError("bad_input", `${cached.reason}`, {
      hint: "write hf:<user>/<repo>:<quant> or hf:<user>/<repo>/<file>.gguf",
    });
  }
  // Behind a proxy the endpoint may not resolve locally: then only the stall guard applies.
  const proxied = ["HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy"].some((k) => env[k]);
  if (!proxied) await reachable(huggingFaceEndpoint(env), uri, cacheDir);
  await mkdir(cacheDir, { recursive: true });
  const { resolveModelFile } = await importNodeLlamaCpp();
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  let progress: () => void = () => {};
  const stalled = new Promise<never>((_, reject) => {
    const arm = () => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        controller.abort();
        reject(offline(uri, cacheDir, `no download progress for ${STALL_MS / 1000} s`));
      }, STALL_MS);
    };
    arm();
    progress = arm;
  });
  try {
    return await Promise.race([
      resolveModelFile(uri, {
        directory: cacheDir,
        cli: false,
        signal: controller.signal,
        onProgress: () => progress(),
      }),
      stalled,
    ]);
  } catch (error) {
    throw classifyDownloadError(error, uri, cacheDir);
  } finally {
    clearTimeout(timer);
  }
}

async function reachable(endpoint: URL, uri: string, cacheDir: string): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      lookup(endpoint.hostname),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error("DNS lookup timed out")), LOOKUP_MS);
      }),
    ]);
  } catch (cause) {
    throw offline(uri, cacheDir, `${endpoint.hostname} cannot be resolved (${messageOf(cause)})`, {
      cause,
    });
  } finally {
    clearTimeout(timer);
  }
}

function offline(
  uri: string,
  cacheDir: string,
  why: string,
  options: { cause?: unknown } = {},
): Error {
  return localError("network", `cannot download ${uri} into ${cacheDir}: ${why}`, {
    hint: "hf: models are downloaded on first use, which needs the network (HF_ENDPOINT selects a mirror); offline, download the .gguf elsewhere and set modelPath to the file",
    ...options,
  });
}

function classifyDownloadError(error: unknown, uri: string, cacheDir: string): Error {
  if (isEngramError(error)) return error;
  const message = messageOf(error);
  if (/\b(401|403)\b|unauthori[sz]ed|forbidden|gated/i.test(message)) {
    return localError("auth", `cannot download ${uri}: ${message}`, {
      hint: "the model is gated or private: accept its terms on huggingface.co and set HF_TOKEN",
      cause: error,
    });
  }
  if (/\b404\b|not found|no .*files? (found|matching)/i.test(message)) {
    return localError("bad_input", `cannot download ${uri}: ${message}`, {
      hint: "check the user, repository and quantization or file name of the hf: URI",
      cause: error,
    });
  }
  return offline(uri, cacheDir, message, { cause: error });
}
