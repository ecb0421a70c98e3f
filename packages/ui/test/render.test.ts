import { createAnalyzer, queryTermsOf } from "@engram/core/internal";
import { describe, expect, it } from "vitest";
import { markTerms } from "../src/data/search.js";
import { splitEntries } from "../src/data/timeline.js";
import { renderMarkdown } from "../src/markdown.js";
import { publicView } from "../src/scope.js";
import { hostAllowed, sameOrigin } from "../src/security/hosts.js";
import { highlightBlocks } from "../src/views/file.js";

const source = {
  path: "memory/2026-01-02.md",
  fileHref: (p: string) => `/file?path=${encodeURIComponent(p)}`,
};

describe("Markdown rendering", () => {
  it("never lets HTML, scripts or javascript: links through", () => {
    const out = renderMarkdown(
      [
        "<script>alert(1)</script>",
        '<img src=x onerror="alert(2)">',
        "[click](javascript:alert(3))",
        "[data](data:text/html;base64,PHNjcmlwdD4=)",
        '<a href="https://evil.example" onclick="x()">raw link</a>',
        "![remote](https://evil.example/track.png)",
      ].join("\n\n"),
      source,
    );
    // Only markdown-it's own tags survive: no script, no event handler, no script URL, no remote image.
    expect(out).not.toMatch(/<script/i);
    expect(out).not.toMatch(/<[^>]*\son\w+=/i);
    expect(out).not.toMatch(/href="(javascript|data):/i);
    expect(out).not.toMatch(/src="https?:/i);
    // The HTML is shown as the text it is.
    expect(out).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
    expect(out).toContain("&lt;img src=x onerror=");
  });

  it("marks every block with its lines in the file, offset for a slice", () => {
    const out = renderMarkdown("# Title\n\nfirst\nstill first\n\n- a\n- b\n", {
      ...source,
      lineOffset: 10,
    });
    expect(out).toContain('<h1 data-line="11" data-line-end="11">');
    expect(out).toContain('<p data-line="13" data-line-end="14">');
    expect(out).toContain('<li data-line="16" data-line-end="16">');
  });

  it("points relative .md links at the file page, external ones to a new tab, and shows private markers as badges", () => {
    const out = renderMarkdown(
      "see [runbook](long-term/runbook.md#steps), [up](../../etc/x.md), [site](https://example.com)\n\n<!-- engram:private -->\nPIN 1234\n<!-- /engram:private -->",
      source,
    );
    expect(out).toContain('href="/file?path=memory%2Flong-term%2Frunbook.md"');
    expect(out).toContain('href="../../etc/x.md"');
    expect(out).toContain('target="_blank" rel="noopener noreferrer"');
    expect(out).toContain('<span class="private-mark"');
    expect(out).not.toContain("engram:private");
  });

  it("renders Chinese as Chinese", () => {
    expect(renderMarkdown("## 用户偏好\n\n回答**先给结论**", source)).toContain(
      "<strong>先给结论</strong>",
    );
  });

  it("highlights the blocks that show the cited lines, the first one as #hl", () => {
    const out = highlightBlocks(renderMarkdown("a\n\nb\n\nc\n", source), 3, 5);
    expect(out).toMatch(/<p data-line="1" data-line-end="1">a/);
    expect(out).toMatch(/<p id="hl" data-hl="" data-line="3" data-line-end="3">b/);
    expect(out).toMatch(/<p data-hl="" data-line="5" data-line-end="5">c/);
  });
});

describe("timeline entries", () => {
  it("splits a daily log at its ## headings with exact line ranges, leaving out a bare title", () => {
    const text =
      "# 2026-01-02\n\n## 09:15\n\nDeployed v2.\n\n## 10:40\n\n```\n## not a heading\n```\n\n\n";
    expect(splitEntries(text)).toEqual([
      { heading: "09:15", startLine: 3, endLine: 5, text: "## 09:15\n\nDeployed v2." },
      {
        heading: "10:40",
        startLine: 7,
        endLine: 11,
        text: "## 10:40\n\n```\n## not a heading\n```",
      },
    ]);
  });

  it("keeps text above the first heading as an entry of its own", () => {
    expect(splitEntries("# 2026-01-02\nnotes before any entry\n## 09:00\nlater\n")).toEqual([
      { heading: null, startLine: 1, endLine: 2, text: "# 2026-01-02\nnotes before any entry" },
      { heading: "09:00", startLine: 3, endLine: 4, text: "## 09:00\nlater" },
    ]);
  });
});

describe("private spans outside the main scope", () => {
  it("redacts an inline span in place", () => {
    const out = publicView(
      "# Notes\n\nCall Lin at <!-- engram:private -->555-0101<!-- /engram:private --> tomorrow.\n",
    );
    expect(out).toBe("# Notes\n\nCall Lin at [private] tomorrow.\n");
  });

  it("replaces a private block by one [private], keeping the line count", () => {
    const text = "a\n<!-- engram:private -->\nsecret 1\nsecret 2\n<!-- /engram:private -->\nb";
    const out = publicView(text);
    expect(out.split("\n")).toEqual(["a", "[private]", "", "", "", "b"]);
  });
});

describe("search term marks", () => {
  const analyzer = createAnalyzer();
  const marks = (text: string, query: string) =>
    markTerms(text, new Set(queryTermsOf(analyzer, query)), (t) => analyzer.terms(t)).map(
      ([a, b]) => text.slice(a, b),
    );

  it("marks English words by their stems", () => {
    expect(marks("Memory of deployments; the deploy plan", "memories deploy")).toEqual([
      "Memory",
      "deployments",
      "deploy",
    ]);
  });

  it("marks the Chinese characters a query's bigrams cover, not single shared characters", () => {
    expect(marks("长期记忆存储用户偏好，用的户口", "用户偏好")).toEqual(["用户偏好"]);
    expect(marks("猫和狗", "猫")).toEqual(["猫"]);
    expect(marks("SQLite存储向量", "sqlite 向量")).toEqual(["SQLite", "向量"]);
  });
});

describe("hosts and origins", () => {
  it("allows loopback names and IP literals on the server's port, and the --host name", () => {
    expect(hostAllowed("127.0.0.1:4780", "127.0.0.1", 4780)).toBe(true);
    expect(hostAllowed("localhost:4780", "127.0.0.1", 4780)).toBe(true);
    expect(hostAllowed("[::1]:4780", "127.0.0.1", 4780)).toBe(true);
    expect(hostAllowed("192.168.1.20:4780", "0.0.0.0", 4780)).toBe(true);
    expect(hostAllowed("box.lan:4780", "box.lan", 4780)).toBe(true);
    expect(hostAllowed("box.lan:4780", "0.0.0.0", 4780)).toBe(false);
    expect(hostAllowed("evil.example:4780", "127.0.0.1", 4780)).toBe(false);
    expect(hostAllowed("localhost:4781", "127.0.0.1", 4780)).toBe(false);
    expect(hostAllowed("localhost", "127.0.0.1", 4780)).toBe(false);
    expect(hostAllowed(undefined, "127.0.0.1", 4780)).toBe(false);
  });

  it("same origin means same scheme, name and port", () => {
    expect(sameOrigin("http://127.0.0.1:4780", "127.0.0.1:4780")).toBe(true);
    expect(sameOrigin("http://localhost:4780", "127.0.0.1:4780")).toBe(false);
    expect(sameOrigin("https://127.0.0.1:4780", "127.0.0.1:4780")).toBe(false);
    expect(sameOrigin("null", "127.0.0.1:4780")).toBe(false);
  });
});
