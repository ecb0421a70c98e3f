import { isEngramError } from "@engram/core/driver";
import { describe, expect, it } from "vitest";
import { parseBaseUrl } from "../src/base-url.js";
import { planRequests } from "../src/request-plan.js";

describe("parseBaseUrl", () => {
  it("defaults to OpenAI's API", () => {
    expect(parseBaseUrl(undefined)).toEqual({
      sdkBaseUrl: "https://api.openai.com/v1",
      query: undefined,
      endpoint: "https://api.openai.com/v1",
      isOpenAI: true,
    });
  });

  it("drops a trailing slash and fragment, and moves the query out of the endpoint", () => {
    expect(parseBaseUrl("https://proxy.example.com/openai/v1/?api-version=2024-10-21#x")).toEqual({
      sdkBaseUrl: "https://proxy.example.com/openai/v1",
      query: { "api-version": "2024-10-21" },
      endpoint: "https://proxy.example.com/openai/v1",
      isOpenAI: false,
    });
  });

  it("refuses credentials without echoing them", () => {
    let caught: unknown;
    try {
      parseBaseUrl("https://alice:s3cret@proxy.example.com/v1");
    } catch (error) {
      caught = error;
    }
    expect(isEngramError(caught, "CONFIG_INVALID")).toBe(true);
    expect(String((caught as Error).message)).not.toContain("s3cret");
  });

  it("refuses a URL that is not http(s), masking what looks like credentials", () => {
    expect(() => parseBaseUrl("ftp://files.example.com")).toThrow(/http\(s\) URL/);
    expect(() => parseBaseUrl("not a url//bob:pw@x")).toThrow(/not a URL: not a url\/\/\*\*\*@x/);
  });
});

describe("planRequests", () => {
  it("bounds requests by inputs and estimated tokens, a long text alone", () => {
    const texts = ["aaaa", "bbbb", "c".repeat(400), "dddd", "eeee", "ffff"];
    // estimated tokens: 1, 1, 100, 1, 1, 1
    expect(planRequests(texts, 2, 50)).toEqual([
      { start: 0, end: 2 },
      { start: 2, end: 3 },
      { start: 3, end: 5 },
      { start: 5, end: 6 },
    ]);
    expect(planRequests([], 2, 50)).toEqual([]);
  });
});
