import type { Schemas } from "@qdrant/js-client-rest";
import { describe, expect, it } from "vitest";
import {
  chunkCollectionConfig,
  chunkCollectionShape,
  missingIndexes,
  RECORD_INDEXES,
} from "../src/collections.js";

/** Collection info as Qdrant reports it, with only the parts the store reads. */
const info = (params: Partial<Schemas["CollectionParams"]>) =>
  ({ config: { params } }) as unknown as Schemas["CollectionInfo"];

describe("chunk collection config", () => {
  it("has a named cosine dense vector sized dims and a sparse bm25 vector with IDF", () => {
    expect(chunkCollectionConfig(384)).toEqual({
      vectors: { dense: { size: 384, distance: "Cosine" } },
      sparse_vectors: { bm25: { modifier: "idf" } },
    });
    expect(chunkCollectionConfig(null)).toEqual({
      vectors: {},
      sparse_vectors: { bm25: { modifier: "idf" } },
    });
  });

  it("reads dims back from the collection's info", () => {
    const sparse = { bm25: { modifier: "idf" as const } };
    expect(
      chunkCollectionShape(
        info({ vectors: { dense: { size: 8, distance: "Cosine" } }, sparse_vectors: sparse }),
      ),
    ).toEqual({ dims: 8, problems: [] });
    expect(chunkCollectionShape(info({ sparse_vectors: sparse }))).toEqual({
      dims: null,
      problems: [],
    });
    expect(chunkCollectionShape(info({ vectors: {}, sparse_vectors: sparse }))).toEqual({
      dims: null,
      problems: [],
    });
  });

  it("names what makes a collection not one of engram's", () => {
    expect(
      chunkCollectionShape(info({ vectors: { size: 4, distance: "Cosine" } })).problems,
    ).toEqual(['no sparse vector "bm25"', "an unnamed dense vector"]);
    expect(
      chunkCollectionShape(
        info({ vectors: { dense: { size: 4, distance: "Dot" } }, sparse_vectors: { bm25: {} } }),
      ).problems,
    ).toEqual([
      'sparse vector "bm25" lacks the idf modifier',
      "dense vector distance Dot, not Cosine",
    ]);
  });
});

describe("records collection indexes", () => {
  it("a collection from layout 1 gets the key_folders index it lacks, and nothing else", () => {
    const layout1 = {
      payload_schema: {
        kind: { data_type: "keyword" },
        source: { data_type: "keyword" },
        last_used: { data_type: "integer" },
      },
    } as unknown as Schemas["CollectionInfo"];
    expect(missingIndexes(layout1, RECORD_INDEXES)).toEqual([
      { field_name: "key_folders", field_schema: "keyword" },
    ]);
    expect(missingIndexes({ payload_schema: {} }, RECORD_INDEXES)).toHaveLength(3);
  });
});
