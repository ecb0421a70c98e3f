import { describe, expect, it } from "vitest";
import {
  identityChanges,
  indexIdentity,
  parseIdentity,
  serializeIdentity,
} from "../../src/embedding/identity.js";
import { createHashingEmbedder } from "../../src/testing/hashing-embedder.js";

describe("index identity", () => {
  const base = { analyzer: "a/1", chunking: { tokens: 400, overlap: 80 } };

  it("round-trips through its serialised form", () => {
    const id = indexIdentity({ ...base, embedder: createHashingEmbedder({ dims: 8 }) });
    expect(parseIdentity(serializeIdentity(id))).toEqual(id);
    expect(identityChanges(parseIdentity(serializeIdentity(id)), id)).toEqual([]);
  });

  it("names what changed: analyzer, chunking, embedding", () => {
    const keyword = indexIdentity({ ...base, embedder: null });
    const wanted = indexIdentity({
      analyzer: "a/2",
      chunking: { tokens: 300, overlap: 80 },
      embedder: createHashingEmbedder({ dims: 8 }),
    });
    const reasons = identityChanges(keyword, wanted);
    expect(reasons).toHaveLength(3);
    expect(reasons.join(" ")).toContain("none → hashing/hashing-8/8");
  });

  it("treats a missing or unreadable identity as a reason to rebuild", () => {
    const wanted = indexIdentity({ ...base, embedder: null });
    expect(identityChanges(undefined, wanted)).toEqual(["no index yet"]);
    expect(parseIdentity("not json")).toBeUndefined();
  });
});
