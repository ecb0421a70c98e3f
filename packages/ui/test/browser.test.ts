import { existsSync } from "node:fs";
import { mkdir, readFile, stat } from "node:fs/promises";
import path from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHROMIUM, launchChromium } from "./chromium.js";
import { day, startSample } from "./fixtures.js";

/**
 * The page in a real browser: Debian's Chromium (`apt-get install -y chromium`, which `.ci/run`
 * does) driven by playwright-core, never a browser Playwright downloads. One browser and one page
 * for the whole file; screenshots of every page go to `test-results/screenshots/`.
 */
const present = existsSync(CHROMIUM);
const SKIP_REASON = `${CHROMIUM} is absent (install it: apt-get install -y chromium)`;
if (!present) {
  if (process.env.CI) throw new Error(`browser tests cannot run in CI: ${SKIP_REASON}`);
  console.warn(`\n*** engram ui browser tests SKIPPED: ${SKIP_REASON} ***\n`);
}
const SHOTS = path.join(import.meta.dirname, "..", "test-results", "screenshots");

describe.skipIf(!present)("engram ui in Chromium", () => {
  let s: Awaited<ReturnType<typeof startSample>>;
  let browser: Browser;
  let page: Page;
  const shot = (name: string) =>
    page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });
  const exists = (rel: string) =>
    stat(path.join(s.ws, rel)).then(
      () => true,
      () => false,
    );

  beforeAll(async () => {
    await mkdir(SHOTS, { recursive: true });
    // The repository's own benchmark results, for the health page's chart.
    s = await startSample({
      watch: true,
      benchDir: path.join(import.meta.dirname, "../../../bench/results"),
    });
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
    page.setDefaultTimeout(10_000);
    page.on("dialog", (dialog) => void dialog.accept());
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await s?.stop();
  });

  it("opens the timeline from the printed URL: today and yesterday on top, entries rendered with their lines", async () => {
    await page.goto(s.ui.url);
    // The token was traded for a cookie and left the address bar.
    expect(page.url()).toBe(`${s.ui.origin}/timeline`);
    await page.getByRole("heading", { name: /Timeline/ }).waitFor();
    const days = await page.locator("section.day > h2").allTextContents();
    expect(days[0]).toContain(`today ${day(0)}`);
    expect(days[1]).toContain(`yesterday ${day(-1)}`);
    expect(days.slice(2).map((d) => d.trim())).toEqual([day(-10), day(-11), day(-12), day(-13)]);
    const today = page.locator(`#d-${day(0)}`);
    await today.getByText(/Deployed v2\.3 to staging/).waitFor();
    expect(await today.locator(".cite").first().textContent()).toBe(`memory/${day(0)}.md:3-5`);
    expect(await today.locator(".md").nth(1).textContent()).toContain("长期记忆存储用户偏好");
    // Group scope (the default): the private span is redacted, the script is text.
    const yesterday = await page.locator(`#d-${day(-1)}`).textContent();
    expect(yesterday).not.toContain("4921");
    expect(yesterday).toContain("[private]");
    expect(yesterday).toContain("<script>alert(1)</script>");
    await shot("timeline");
  });

  it("shows an agent's write live, without a reload", async () => {
    await s.ui.watching;
    await s.memory.appendDaily("Live note from the agent: 实时更新");
    await page.getByText("Live note from the agent: 实时更新").waitFor({ timeout: 20_000 });
    await shot("timeline-live");
  });

  it("searches in English and opens a result at its lines", async () => {
    await page.getByRole("link", { name: "Search", exact: true }).click();
    await page.getByRole("searchbox").fill("rollback plan");
    await page.getByRole("searchbox").press("Enter");
    const first = page.locator(".result").first();
    await first.waitFor();
    expect(await first.locator(".cite").textContent()).toMatch(
      new RegExp(`^memory/${day(0)}\\.md:\\d+-\\d+$`),
    );
    expect(await first.locator("mark").allTextContents()).toEqual(
      expect.arrayContaining(["rollback", "plan"]),
    );
    expect(await first.locator(".why").textContent()).toContain("tier short × 0.94");
    await shot("search-en");
    await first.locator(".cite").click();
    await page.waitForURL(/\/file\?/);
    expect(await page.locator("#hl").count()).toBe(1);
    expect(await page.locator("[data-hl]").allTextContents()).toEqual(
      expect.arrayContaining([expect.stringContaining("rollback plan")]),
    );
    await shot("file-at-lines");
  });

  it("searches in Chinese and opens a result at its lines", async () => {
    await page.goto(`${s.ui.origin}/search?q=${encodeURIComponent("用户偏好")}`);
    const first = page.locator(".result").first();
    await first.waitFor();
    // Group scope: MEMORY.md (personal) is left out; today's log holds the words.
    expect(await first.locator(".cite").textContent()).toContain(`memory/${day(0)}.md`);
    expect(await first.locator("mark").allTextContents()).toContain("用户偏好");
    await shot("search-zh");
    await first.locator(".cite").click();
    await page.waitForURL(/\/file\?/);
    expect(await page.locator("[data-hl]").allTextContents()).toEqual(
      expect.arrayContaining([expect.stringContaining("长期记忆存储用户偏好")]),
    );
    // The raw view highlights the exact lines.
    await page.getByRole("link", { name: "raw" }).click();
    const rows = await page.locator("table.raw tr[data-hl] td.code").allTextContents();
    expect(rows).toContain("长期记忆存储用户偏好，检索时优先返回。");
    await shot("file-raw-zh");
  });

  it("approves half of the lifecycle plan, applies it, and undoes it", async () => {
    await page.goto(`${s.ui.origin}/curate`);
    // Curation needs the main scope: the page says so and links to it.
    await page.getByRole("link", { name: /Switch to the main scope/ }).click();
    await page.waitForURL(/\/curate\?scope=main/);
    const moves = page.locator("#lifecycle li.move");
    expect(await moves.count()).toBe(4);
    const froms = await moves.locator("code").evaluateAll((els) => els.map((e) => e.textContent));
    await moves.nth(0).getByRole("checkbox").check();
    await moves.nth(2).getByRole("checkbox").check();
    expect(await page.locator("#lifecycle [data-count]").textContent()).toBe("2 of 4 approved");
    await shot("curate-plan");
    await page.getByRole("button", { name: "Apply approved moves" }).click();
    await page.locator(".flash").waitFor();
    expect(await page.locator(".flash").textContent()).toMatch(
      /Applied 2 approved move\(s\); 2 rejected/,
    );
    // Moves 0 and 2 happened; 1 and 3 did not, and are planned again.
    const logOf = (i: number) => froms[i * 2] as string;
    expect(await exists(logOf(0))).toBe(false);
    expect(await exists(`memory/archive/daily/${path.basename(logOf(0))}`)).toBe(true);
    expect(await exists(logOf(2))).toBe(false);
    expect(await exists(logOf(1))).toBe(true);
    expect(await exists(logOf(3))).toBe(true);
    expect(await page.locator("#lifecycle li.move").count()).toBe(2);
    expect(await page.locator("#audit").textContent()).toContain("committed");
    await shot("curate-applied");

    await page.getByRole("button", { name: "Undo the last apply" }).click();
    await page.locator(".flash", { hasText: "Undid apply" }).waitFor();
    for (let i = 0; i < 4; i++) expect(await exists(logOf(i))).toBe(true);
    expect(await page.locator("#lifecycle li.move").count()).toBe(4);
    await shot("curate-undone");
  });

  it("approves half of the consolidation plan, applies it, and undoes it", async () => {
    const read = (rel: string) => readFile(path.join(s.ws, rel), "utf8");
    const before = await read("MEMORY.md");
    await page.goto(`${s.ui.origin}/curate?scope=main`);
    const ops = page.locator("#consolidation li.move");
    expect(await ops.count()).toBe(2);
    expect(await ops.locator(".op-text").allTextContents()).toEqual([
      "Deploys freeze on Fridays.",
      "每周五冻结部署，周一恢复",
    ]);
    expect(await page.locator("#consolidation details.diff summary").allTextContents()).toContain(
      "MEMORY.md",
    );
    // Approve the Chinese operation only; the English one is rejected.
    await ops.nth(1).getByRole("checkbox").check();
    expect(await page.locator("#consolidation [data-count]").textContent()).toBe("1 of 2 approved");
    await shot("consolidation-plan");
    await page.getByRole("button", { name: "Apply approved operations" }).click();
    await page
      .locator(".flash", { hasText: "Applied 1 approved operation(s); 1 rejected" })
      .waitFor();
    const after = await read("MEMORY.md");
    expect(after).toContain("- 每周五冻结部署，周一恢复");
    expect(after).not.toContain("Deploys freeze on Fridays.");
    expect(await page.locator("#audit").textContent()).toContain("committed");
    await shot("consolidation-applied");

    await page.getByRole("button", { name: "Undo the last consolidation" }).click();
    await page.locator(".flash", { hasText: "Undid the last consolidation" }).waitFor();
    expect(await read("MEMORY.md")).toBe(before);
    expect(await exists(`memory/dreams/${day(0)}.md`)).toBe(false);
    // Both operations are proposed again.
    expect(await page.locator("#consolidation li.move").count()).toBe(2);
    await shot("consolidation-undone");
  });

  it("forgets a line of long-term memory with a reason and brings it back, then edits it and undoes the edit", async () => {
    await page.goto(`${s.ui.origin}/file?path=MEMORY.md&raw=1&scope=main`);
    const line = (await readFile(path.join(s.ws, "MEMORY.md"), "utf8"))
      .split("\n")
      .indexOf("The staging database is db-staging-2.");
    await page.locator(`a[data-line="${line + 1}"]`).click();
    await page.getByPlaceholder(/why/).first().fill("moved to the ops wiki");
    await page.getByRole("button", { name: "Forget" }).click();
    await page.locator(".flash", { hasText: "Forgotten" }).waitFor();
    expect(await readFile(path.join(s.ws, "MEMORY.md"), "utf8")).not.toContain("db-staging-2");
    await shot("forget-done");
    await page.getByRole("button", { name: "Bring them back" }).click();
    await page.locator(".flash", { hasText: "Brought back" }).waitFor();
    expect(await readFile(path.join(s.ws, "MEMORY.md"), "utf8")).toContain("db-staging-2");
    await shot("forget-undone");

    // Edit the same line with a reason; the old text goes to the archive; undo puts it back.
    const original = await readFile(path.join(s.ws, "MEMORY.md"), "utf8");
    await page.goto(
      `${s.ui.origin}/file?path=MEMORY.md&raw=1&scope=main&lines=${line + 1}-${line + 1}&edit=1`,
    );
    const form = page.locator(".edit-form");
    await form.locator("textarea").fill("The staging database is db-staging-3 (moved 2026-11).");
    await form.getByPlaceholder(/why/).fill("the database moved");
    await form.getByRole("button", { name: "Save edit" }).click();
    await page.locator(".flash", { hasText: "Saved the edit" }).waitFor();
    expect(await readFile(path.join(s.ws, "MEMORY.md"), "utf8")).toContain("db-staging-3");
    await shot("edit-done");
    await page.getByRole("button", { name: "Undo the edit" }).click();
    await page.locator(".flash", { hasText: "Undid the edit" }).waitFor();
    expect(await readFile(path.join(s.ws, "MEMORY.md"), "utf8")).toBe(original);
  });

  it("shows status as a health page, with the benchmark chart", async () => {
    await page.goto(`${s.ui.origin}/health`);
    const index = await page.locator(".card").first().textContent();
    expect(index).toMatch(/store\s*sqlite/);
    expect(index).toMatch(/files\s*\d+/);
    expect(await page.locator(".card").nth(1).textContent()).toMatch(/watcher\s*running/);
    expect(await page.locator("svg.chart rect.bar").count()).toBeGreaterThan(5);
    expect(await page.locator("svg.chart").textContent()).toContain("sqlite 10,000");
    await shot("health");
  });

  it("is usable at phone width: nothing wider than the screen", async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    for (const [name, url] of [
      ["phone-timeline", "/timeline?scope=main"],
      ["phone-search", `/search?scope=main&q=${encodeURIComponent("locks 用户偏好")}`],
      ["phone-curate", "/curate?scope=main"],
      ["phone-tiers", "/tiers?dir=memory&scope=main"],
      ["phone-health", "/health"],
    ] as const) {
      await page.goto(`${s.ui.origin}${url}`);
      const overflow = (await page.evaluate(
        "document.documentElement.scrollWidth - window.innerWidth",
      )) as number;
      expect(overflow, name).toBeLessThanOrEqual(0);
      await shot(name);
    }
  });
});

if (!present) {
  describe("engram ui in Chromium", () => {
    it.skip(`SKIPPED: ${SKIP_REASON}`, () => {});
  });
}
