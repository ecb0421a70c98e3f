import { createServer } from "node:net";
import { EngramError } from "@engram/core/driver";
import { describe, expect, it } from "vitest";
import { createQdrantStore } from "../src/index.js";

/** A localhost port nothing listens on (taken, then released). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (!address || typeof address === "string") throw new Error("no port");
  return address.port;
}

describe("a store whose server does not answer (a real refused connection)", () => {
  it("fails init with STORE_FAILED naming the URL and how to start Qdrant", async () => {
    const url = `http://127.0.0.1:${await closedPort()}`;
    const store = createQdrantStore({
      url,
      collection: "engram_unreachable",
      retry: { retries: 2, minDelayMs: 1, maxDelayMs: 2 },
    });
    const failure = await store.init().then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(EngramError);
    const error = failure as EngramError;
    expect(error.code).toBe("STORE_FAILED");
    expect(error.message).toContain(url);
    expect(error.message).toContain("did not answer (fetch failed: ECONNREFUSED)");
    expect(error.hint).toContain("docker run -p 6333:6333 qdrant/qdrant");
    // Not initialised: every call says so instead of sending requests.
    await expect(store.getMeta("k")).rejects.toMatchObject({ code: "STORE_FAILED" });
    await expect(store.searchText(["x"], 5)).rejects.toThrow(/not initialised/);
    await store.close();
    await store.close();
    await expect(store.init()).rejects.toMatchObject({ code: "CLOSED" });
  });

  it("checks a batch before sending anything", async () => {
    const store = createQdrantStore({ url: "http://127.0.0.1:1", collection: "engram_x" });
    await expect(store.write({})).rejects.toThrow(/not initialised/);
    await store.close();
    await expect(store.dims()).rejects.toMatchObject({ code: "CLOSED" });
  });
});
