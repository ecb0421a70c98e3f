import { readFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { createTierApi } from "../../src/tiers/index.js";
import { readFrontMatter } from "../../src/workspace/front-matter.js";
import { tempDir, writeFiles } from "../workspace/helpers.js";
import { fileHost, steppingClock } from "./host.js";

const DIR = "memory/mid-term/projects";

async function setup() {
  const ws = await tempDir();
  const clock = steppingClock("2026-03-04T10:00:00");
  const host = fileHost(ws, clock);
  return { ws, clock, host, api: createTierApi(host).midTerm };
}
const read = (ws: string, rel: string) => readFile(path.join(ws, rel), "utf8");

describe("mid-term projects", () => {
  it("creates a project with status.md, tasks.json and notes.md in the contract's format", async () => {
    const { ws, host, api } = await setup();
    expect(await api.getProject("网站改版")).toBeNull();
    const p = await api.updateProject("网站改版", {
      title: "网站改版 v2",
      summary: "目标：三月底上线。",
      tasks: [{ title: "选字体" }, { title: "Write tests", done: true }],
      decisions: ["使用 SQLite 做索引"],
      lessons: ["Measure before tuning"],
      notes: "Kick-off call went well.",
    });
    expect(p).toMatchObject({
      id: "网站改版",
      title: "网站改版 v2",
      status: "active",
      updated: "2026-03-04",
      summary: "目标：三月底上线。",
      dir: `${DIR}/网站改版`,
    });
    expect(p.tasks).toEqual([
      { id: "t1", title: "选字体", done: false, updatedAt: expect.any(String) },
      { id: "t2", title: "Write tests", done: true, updatedAt: expect.any(String) },
    ]);
    const status = readFrontMatter(await read(ws, `${DIR}/网站改版/status.md`));
    expect(status.data).toEqual({ status: "active", title: "网站改版 v2", updated: "2026-03-04" });
    expect(JSON.parse(await read(ws, `${DIR}/网站改版/tasks.json`))).toEqual(p.tasks);
    expect(await read(ws, `${DIR}/网站改版/notes.md`)).toBe(
      "# Notes: 网站改版\n\n## Decisions\n\n- 使用 SQLite 做索引\n\n## Lessons\n\n- Measure before tuning\n\n## 2026-03-04 10:00\n\nKick-off call went well.\n",
    );
    expect(host.written).toEqual([`${DIR}/网站改版/notes.md`, `${DIR}/网站改版/status.md`]);
  });

  it("updates keep what is there: tasks merge by id, decisions join their section, extra keys stay", async () => {
    const { ws, clock, api } = await setup();
    await api.updateProject("p1", { tasks: [{ title: "a" }], decisions: ["first"] });
    await writeFiles(ws, {
      [`${DIR}/p1/status.md`]:
        "---\nstatus: active\ntitle: P1\nowner: 李雷\nupdated: 2026-03-04\n---\n\nHand-written summary.\n",
    });
    clock.advance(86_400);
    const p = await api.updateProject("p1", {
      status: "done",
      tasks: [{ id: "t1", done: true }, { title: "b" }],
      decisions: ["second"],
    });
    expect(p.status).toBe("done");
    expect(p.updated).toBe("2026-03-05");
    expect(p.summary).toBe("Hand-written summary.");
    expect(p.tasks.map((t) => [t.id, t.title, t.done])).toEqual([
      ["t1", "a", true],
      ["t2", "b", false],
    ]);
    expect(readFrontMatter(await read(ws, `${DIR}/p1/status.md`)).data).toMatchObject({
      owner: "李雷",
      status: "done",
    });
    expect(p.notes).toContain("## Decisions\n\n- first\n- second\n");
  });

  it("lists active projects, most recently updated first", async () => {
    const { clock, api } = await setup();
    await api.updateProject("old", { title: "Old" });
    clock.advance(86_400);
    await api.updateProject("new", { title: "New" });
    await api.updateProject("finished", { status: "done" });
    await api.updateProject("later", { status: "paused" });
    expect((await api.listActiveProjects()).map((p) => p.id)).toEqual(["new", "old"]);
    expect((await api.listProjects()).map((p) => p.id)).toEqual([
      "finished",
      "later",
      "new",
      "old",
    ]);
  });

  it("validates ids and updates before writing anything", async () => {
    const { ws, api } = await setup();
    for (const id of ["../escape", "a/b", "..", ".git", "", "a\\b"]) {
      await expect(api.updateProject(id, { title: "x" })).rejects.toMatchObject({
        code: "INVALID_ARGUMENT",
      });
      await expect(api.getProject(id)).rejects.toMatchObject({ code: "INVALID_ARGUMENT" });
    }
    const bad = [
      { status: "finished" },
      { title: "two\nlines" },
      { tasks: [{ done: true }] }, // a new task needs a title
      { tasks: [{ id: "t1", done: "yes" }] },
      { decisions: "not a list" },
      { decisions: ["multi\nline"] },
    ];
    for (const update of bad) {
      await expect(api.updateProject("p", update as never)).rejects.toMatchObject({
        code: "INVALID_ARGUMENT",
      });
    }
    expect(await api.getProject("p")).toBeNull();
    await writeFiles(ws, { [`${DIR}/q/status.md`]: "---\nstatus: finished\n---\n" });
    await expect(api.getProject("q")).rejects.toMatchObject({ code: "FRONT_MATTER_INVALID" });
    await writeFiles(ws, { [`${DIR}/r/tasks.json`]: '{"not": "an array"}' });
    await expect(api.updateProject("r", { tasks: [{ title: "x" }] })).rejects.toMatchObject({
      code: "FILE_INVALID",
    });
    expect(await read(ws, `${DIR}/r/tasks.json`)).toBe('{"not": "an array"}');
  });

  it("serialises concurrent updates of one project", async () => {
    const { api } = await setup();
    await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        api.updateProject("p", { tasks: [{ title: `task ${i}` }] }),
      ),
    );
    const p = await api.getProject("p");
    expect(p?.tasks.map((t) => t.id).sort()).toEqual([
      "t1",
      "t2",
      "t3",
      "t4",
      "t5",
      "t6",
      "t7",
      "t8",
    ]);
  });
});
