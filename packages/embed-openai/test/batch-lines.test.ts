import { isEmbeddingError } from "@engram/core/driver";
import { describe, expect, it } from "vitest";
import { readBatchLine, streamLines } from "../src/batch-lines.js";
import { toBase64 } from "./openai-wire-server.js";

function streamOf(chunks: Uint8Array[]): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.close();
    },
  });
}

describe("streamLines", () => {
  it("splits lines across chunk and multi-byte character boundaries, CRLF and no final newline", async () => {
    const bytes = new TextEncoder().encode('{"a":"深色"}\r\n\n{"b":"模式"}');
    // cut inside the first 3-byte character and inside the second line
    const chunks = [bytes.slice(0, 8), bytes.slice(8, 20), bytes.slice(20)];
    const lines: string[] = [];
    for await (const line of streamLines(streamOf(chunks))) lines.push(line);
    expect(lines).toEqual(['{"a":"深色"}', '{"b":"模式"}']);
  });
});

describe("readBatchLine", () => {
  const expected = new Map([["engram-0", 1]]);

  it("reads a 200 line's embeddings", () => {
    const line = JSON.stringify({
      id: "batch_req_1",
      custom_id: "engram-0",
      response: {
        status_code: 200,
        request_id: "req_1",
        body: {
          object: "list",
          data: [{ object: "embedding", index: 0, embedding: toBase64([0, 2]) }],
        },
      },
      error: null,
    });
    const result = readBatchLine(line, expected, 2, []);
    expect("vectors" in result && Array.from(result.vectors[0] ?? [])).toEqual([0, 1]);
  });

  it("reads a request that never ran (batch_expired) as a timeout", () => {
    const line = JSON.stringify({
      id: "batch_req_2",
      custom_id: "engram-0",
      response: null,
      error: {
        code: "batch_expired",
        message: "This request could not be executed before the completion window expired.",
      },
    });
    const result = readBatchLine(line, expected, 2, []);
    expect("error" in result && result.error.kind).toBe("timeout");
  });

  it("refuses an unknown custom_id or a line that is not JSON", () => {
    for (const line of ['{"custom_id":"other","response":null,"error":null}', "not json"]) {
      let caught: unknown;
      try {
        readBatchLine(line, expected, 2, []);
      } catch (error) {
        caught = error;
      }
      expect(isEmbeddingError(caught) && caught.kind).toBe("bad_response");
    }
  });
});
