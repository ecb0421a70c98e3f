import { describe, expect, it } from "vitest";
import { factsOf, impliedDates, missingFacts, plainText } from "../../src/consolidation/facts.js";

const kinds = (text: string) => factsOf(text).map((f) => `${f.kind}:${f.value}`);

describe("factsOf", () => {
  it("finds dates in every written form, in canonical form", () => {
    expect(kinds("Deploy on 2026-03-05 at 10:30")).toEqual(
      expect.arrayContaining(["date:2026-03-05", "date:10:30", "name:deploy"]),
    );
    expect(kinds("March 5, 2026")).toContain("date:2026-03-05");
    expect(kinds("5th Mar")).toContain("date:03-05");
    expect(kinds("会议定在2026年3月5日")).toContain("date:2026-03-05");
    expect(kinds("会议定在3月5号")).toContain("date:03-05");
    expect(kinds("2026/3/5")).toContain("date:2026-03-05");
  });

  it("finds numbers (whole), terms, names and negation", () => {
    const f = kinds(
      "Lin moved the staging DB to port 5,433 using `pg_upgrade` and sqlite-vec v2.3",
    );
    expect(f).toEqual(
      expect.arrayContaining([
        "name:lin",
        "name:db",
        "number:5433",
        "term:pg_upgrade",
        "term:sqlite-vec",
        "term:v2.3",
      ]),
    );
    expect(f).not.toContain("name:the");
    expect(kinds("We do not use Redis")).toEqual(
      expect.arrayContaining(["name:redis", "negation:not"]),
    );
    expect(kinds("用户不喜欢冗长的回答")).toContain("negation:not");
    expect(kinds("项目代号「青鸟」，预算 20%")).toEqual(
      expect.arrayContaining(["term:青鸟", "number:20%"]),
    );
    expect(
      kinds("- **Lin** prefers _advisory_ locks <!-- from memory/2026-01-05.md:3 -->"),
    ).toEqual(["name:lin"]);
  });
});

describe("missingFacts", () => {
  it("reports what a rewording drops", () => {
    const old = factsOf("Staging DB listens on port 5433 since 2026-03-05");
    expect(missingFacts(old, "The staging DB listens on port 5433 since March 5, 2026")).toEqual(
      [],
    );
    expect(missingFacts(old, "Staging DB listens on port 5432 since 2026-03-05")).toEqual([
      { kind: "number", value: "5433" },
    ]);
    expect(missingFacts(factsOf("port 5"), "port 15")).toEqual([{ kind: "number", value: "5" }]);
    expect(missingFacts(factsOf("Lin likes tea"), "lin's favourite is tea")).toEqual([]);
    expect(missingFacts(factsOf("Lin does not like Redis"), "Lin likes Redis")).toEqual([
      { kind: "negation", value: "not" },
    ]);
    expect(missingFacts(factsOf("会议在3月5日"), "会议在2026年3月5日")).toEqual([]);
    expect(missingFacts(factsOf("用户的项目叫「青鸟」"), "用户的项目叫青鸟计划")).toEqual([]);
    expect(missingFacts(factsOf("用户的项目叫「青鸟」"), "用户的项目叫白鹭")).toHaveLength(1);
  });

  it("names the days a daily log may mean", () => {
    expect(impliedDates(["memory/2026-03-01.md"]).split(" ").sort()).toEqual([
      "2026-02-28",
      "2026-03-01",
      "2026-03-02",
    ]);
  });
});

describe("plainText", () => {
  it("drops Markdown markup and comments, and leaves text without markup as it is", () => {
    expect(plainText("- **Lin** prefers _advisory_ locks ~~Redis~~ <!-- old -->now")).toBe(
      "Lin prefers advisory locks Redis  now",
    );
    expect(plainText("## 部署 *计划*\n> 周四发布")).toBe("部署 计划\n周四发布");
    // Underscores and asterisks inside words and between spaces are text, not emphasis.
    expect(plainText("snake_case_name and 2 * 3")).toBe("snake_case_name and 2 * 3");
    expect(plainText("1. [x] ＡＢＣ done")).toBe("ABC done");
    expect(plainText("~~Redis~~ gone")).toBe("Redis gone");
  });
});
