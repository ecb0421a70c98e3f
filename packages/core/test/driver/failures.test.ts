import { once } from "node:events";
import { type AddressInfo, createServer } from "node:net";
import { describe, expect, it } from "vitest";
import {
  errorSummary,
  newerLayoutError,
  storeFailedError,
  transportFailure,
} from "../../src/driver/index.js";

describe("transportFailure", () => {
  it("reads a real refused fetch as network, with its socket code", async () => {
    // A port just released by a server of this test: nothing listens there any more.
    const server = createServer().listen(0, "127.0.0.1");
    await once(server, "listening");
    const { port } = server.address() as AddressInfo;
    await new Promise((resolve) => server.close(resolve));
    const error = await fetch(`http://127.0.0.1:${port}/`).catch((e: unknown) => e);
    expect(transportFailure(error)).toEqual({ kind: "network", code: "ECONNREFUSED" });
  });

  it("reads a real AbortSignal.timeout abort as timeout", async () => {
    const server = createServer(() => {}); // accepts, never answers
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as { port: number };
    const error = await fetch(`http://127.0.0.1:${port}/`, {
      signal: AbortSignal.timeout(50),
    }).catch((e: unknown) => e);
    server.close();
    expect(transportFailure(error)?.kind).toBe("timeout");
  });

  it("reads undici's timeouts as timeout, deep in the cause chain", () => {
    const error = new TypeError("fetch failed", {
      cause: Object.assign(new Error("Headers Timeout Error"), { code: "UND_ERR_HEADERS_TIMEOUT" }),
    });
    expect(transportFailure(error)).toEqual({ kind: "timeout", code: "UND_ERR_HEADERS_TIMEOUT" });
    expect(transportFailure(new TypeError("fetch failed"))).toEqual({
      kind: "network",
      code: undefined,
    });
  });

  it("leaves HTTP answers and bugs to the caller", () => {
    expect(transportFailure(Object.assign(new Error("Bad Request"), { status: 400 }))).toBe(
      undefined,
    );
    expect(transportFailure(new RangeError("bug"))).toBe(undefined);
    expect(transportFailure(undefined)).toBe(undefined);
  });
});

describe("errorSummary", () => {
  it("keeps the first line, cut at the limit", () => {
    expect(errorSummary(new Error("first line\n  at stack"))).toBe("first line");
    expect(errorSummary("x".repeat(10), 4)).toBe("xxxx…");
    expect(errorSummary(new Error("用户偏好：深色模式\n详情"))).toBe("用户偏好：深色模式");
  });
});

describe("storeFailedError", () => {
  it("words every driver's backend failure one way", () => {
    const cause = new Error("disk I/O error");
    const error = storeFailedError({
      action: "write chunks",
      problem: "disk I/O error",
      where: "/w/.engram/index.sqlite",
      hint: "Free some disk space.",
      cause,
    });
    expect(error).toMatchObject({
      code: "STORE_FAILED",
      message: "Could not write chunks: disk I/O error (/w/.engram/index.sqlite).",
      hint: "Free some disk space.",
      cause,
    });
  });
});

describe("newerLayoutError", () => {
  it("refuses storage a newer driver wrote, saying where the data can go instead", () => {
    const error = newerLayoutError({
      store: "index /w/.engram/记忆.lance",
      found: 3,
      reader: "@engram/store-lancedb (version 2)",
      instead: "delete /w/.engram/记忆.lance and run `engram sync`.",
    });
    expect(error).toMatchObject({
      code: "STORE_FAILED",
      message:
        "The index /w/.engram/记忆.lance has layout version 3, which this @engram/store-lancedb (version 2) does not understand.",
      hint: "Upgrade engram, or delete /w/.engram/记忆.lance and run `engram sync`.",
    });
  });
});
