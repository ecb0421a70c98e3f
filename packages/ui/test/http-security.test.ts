import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startUi } from "../src/index.js";
import { type Answer, request, startSample } from "./fixtures.js";

/**
 * The refusals of the issue, over real HTTP against a real server on 127.0.0.1: no token → 401,
 * wrong Origin or Host → 403, `../` and symlink escapes → 400 with nothing read, writes in
 * --read-only → 403; plus the cookie hand-off and CSRF.
 */
describe("engram ui over HTTP: token, host, origin, CSRF", () => {
  let s: Awaited<ReturnType<typeof startSample>>;
  const auth = () => ({ authorization: `Bearer ${s.ui.token}` });

  beforeAll(async () => {
    s = await startSample();
  });
  afterAll(() => s.stop());

  it("listens on 127.0.0.1 by default and prints a URL with the token", () => {
    expect(s.ui.origin).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(s.ui.url).toBe(`${s.ui.origin}/timeline?token=${s.ui.token}`);
    expect(s.ui.token.length).toBeGreaterThanOrEqual(40);
  });

  it("a port in use is refused with the fix, leaving nothing running", async () => {
    await expect(startUi({ memory: s.memory, port: s.port })).rejects.toMatchObject({
      code: "CONFIG_INVALID",
      hint: expect.stringContaining("--port"),
    });
  });

  it("no token, or a wrong one → 401, on pages and on the API", async () => {
    for (const p of [
      "/timeline",
      "/api/status",
      "/api/file?path=MEMORY.md&scope=main",
      "/api/events",
    ]) {
      expect((await request(s.port, p)).status, p).toBe(401);
    }
    const wrong = await request(s.port, "/api/status", {
      headers: { authorization: "Bearer nope" },
    });
    expect(wrong.status).toBe(401);
    expect(JSON.parse(wrong.body).error.code).toBe("TOKEN_REQUIRED");
    expect((await request(s.port, "/timeline?token=nope")).status).toBe(401);
    const page = await request(s.port, "/timeline", { headers: { accept: "text/html" } });
    expect(page.status).toBe(401);
    expect(page.body).not.toContain("Deployed");
  });

  it("the bearer token opens the API", async () => {
    const res = await request(s.port, "/api/status", { headers: auth() });
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body).store.files).toBeGreaterThan(5);
  });

  it("a wrong Origin → 403, even with the token", async () => {
    for (const origin of [
      "http://evil.example",
      "null",
      `http://127.0.0.1:${s.port + 1}`,
      `https://127.0.0.1:${s.port}`,
    ]) {
      const res = await request(s.port, "/api/status", { headers: { ...auth(), origin } });
      expect(res.status, origin).toBe(403);
      expect(JSON.parse(res.body).error.code).toBe("ORIGIN_REFUSED");
    }
    const same = await request(s.port, "/api/status", {
      headers: { ...auth(), origin: `http://127.0.0.1:${s.port}` },
    });
    expect(same.status).toBe(200);
  });

  it("a Host that is not this server (DNS rebinding) → 403, even with the token", async () => {
    for (const host of [
      `evil.example:${s.port}`,
      `127.0.0.1.nip.io:${s.port}`,
      "127.0.0.1",
      `localhost:${s.port + 1}`,
    ]) {
      const res = await request(s.port, "/api/status", { headers: { ...auth(), host } });
      expect(res.status, host).toBe(403);
      expect(JSON.parse(res.body).error.code).toBe("HOST_REFUSED");
    }
    for (const host of [`localhost:${s.port}`, `127.0.0.1:${s.port}`]) {
      expect(
        (await request(s.port, "/api/status", { headers: { ...auth(), host } })).status,
        host,
      ).toBe(200);
    }
  });

  it("?token= on a page trades the token for an HttpOnly, SameSite=Strict cookie and drops it from the URL", async () => {
    const first = await request(s.port, `/search?q=rollback&token=${s.ui.token}`, {
      headers: { accept: "text/html" },
    });
    expect(first.status).toBe(303);
    expect(first.headers.location).toBe("/search?q=rollback");
    const cookie = String(first.headers["set-cookie"]);
    expect(cookie).toMatch(new RegExp(`^engram_ui_${s.port}=`));
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Strict/);
    const value = cookie.split(";")[0] as string;
    expect(value).not.toContain(s.ui.token);
    const page = await request(s.port, "/search?q=rollback", {
      headers: { cookie: value, accept: "text/html" },
    });
    expect(page.status).toBe(200);
    expect(page.body).toContain("rollback");
  });

  it("a write with the cookie needs the CSRF token and the page's own Origin", async () => {
    const first = await request(s.port, `/timeline?token=${s.ui.token}`);
    const cookie = String(first.headers["set-cookie"]).split(";")[0] as string;
    const page = await request(s.port, "/curate?scope=main", {
      headers: { cookie, accept: "text/html" },
    });
    const csrf = /name="_csrf" value="([^"]+)"/.exec(page.body)?.[1] as string;
    expect(csrf).toBeTruthy();
    const origin = `http://127.0.0.1:${s.port}`;
    const form = "application/x-www-form-urlencoded";
    const post = (headers: Record<string, string>, body: string): Promise<Answer> =>
      request(s.port, "/actions/lifecycle/undo", {
        method: "POST",
        headers: { cookie, "content-type": form, ...headers },
        body,
      });

    const noCsrf = await post({ origin }, "scope=main");
    expect(noCsrf.status).toBe(403);
    expect(JSON.parse(noCsrf.body).error.code).toBe("CSRF_REFUSED");
    expect((await post({ origin }, "scope=main&_csrf=forged")).status).toBe(403);
    expect((await post({ origin: "http://evil.example" }, `scope=main&_csrf=${csrf}`)).status).toBe(
      403,
    );
    expect((await post({}, `scope=main&_csrf=${csrf}`)).status).toBe(403); // no Origin at all
    expect(
      (await post({ origin, "sec-fetch-site": "cross-site" }, `scope=main&_csrf=${csrf}`)).status,
    ).toBe(403);
    // The real thing reaches the action: nothing to undo yet, said on a page.
    const ok = await post({ origin, accept: "text/html" }, `scope=main&_csrf=${csrf}`);
    expect(ok.status).toBe(400);
    expect(ok.body).toContain("there is no lifecycle apply to undo");
  });
});

describe("engram ui over HTTP: every path through the workspace sandbox", () => {
  let s: Awaited<ReturnType<typeof startSample>>;
  let outside: string;
  const get = (p: string) =>
    request(s.port, p, { headers: { authorization: `Bearer ${s.ui.token}` } });

  beforeAll(async () => {
    s = await startSample();
    outside = await realpath(await mkdtemp(path.join(os.tmpdir(), "engram-ui-outside-")));
    await writeFile(
      path.join(outside, "secret.md"),
      "# Outside\n\nTOP SECRET outside the workspace\n",
    );
    await mkdir(path.join(outside, "dir"));
    await writeFile(path.join(outside, "dir", "secret.md"), "TOP SECRET in a linked folder\n");
    await symlink(path.join(outside, "secret.md"), path.join(s.ws, "memory", "linked.md"));
    await symlink(path.join(outside, "dir"), path.join(s.ws, "memory", "linked-dir"));
    await writeFile(path.join(s.ws, ".env"), "TOKEN=TOP SECRET env\n");
  });
  afterAll(async () => {
    await s.stop();
    await rm(outside, { recursive: true, force: true });
  });

  it("`../`, absolute, symlinked and non-memory paths → 400 with nothing read", async () => {
    const rel = path.relative(s.ws, path.join(outside, "secret.md"));
    const attempts = [
      rel,
      `memory/../${rel}`,
      path.join(outside, "secret.md"),
      "memory/linked.md",
      "memory/linked-dir/secret.md",
      ".env",
      ".engram/index.sqlite",
      "engram.config.json",
      "memory",
      "",
    ];
    for (const p of attempts) {
      for (const route of ["/api/file", "/file"]) {
        const res = await get(`${route}?scope=main&path=${encodeURIComponent(p)}`);
        expect(res.status, `${route} ${p}`).toBe(400);
        expect(res.body).not.toContain("TOP SECRET");
      }
    }
    const json = JSON.parse((await get(`/api/file?path=${encodeURIComponent(rel)}`)).body);
    expect(json.error.code).toBe("PATH_OUTSIDE_WORKSPACE");
    expect(JSON.parse((await get("/api/file?path=memory%2Flinked.md")).body).error.message).toMatch(
      /symbolic link/,
    );
  });

  it("a memory file that is not there → 404; one that is → 200", async () => {
    expect((await get("/api/file?path=memory%2Fnope.md")).status).toBe(404);
    const ok = await get("/api/file?path=memory%2Flong-term%2Frunbook.md&from=3&lines=1");
    expect(ok.status).toBe(200);
    expect(JSON.parse(ok.body)).toMatchObject({
      startLine: 3,
      endLine: 3,
      text: "1. Roll back with `deploy rollback v2.2`.",
    });
  });
});

describe("engram ui over HTTP: scopes", () => {
  let s: Awaited<ReturnType<typeof startSample>>;
  const get = (p: string) =>
    request(s.port, p, { headers: { authorization: `Bearer ${s.ui.token}` } });

  beforeAll(async () => {
    s = await startSample();
  });
  afterAll(() => s.stop());

  it("the group scope (default) hides personal and sensitive files and redacts private spans", async () => {
    expect((await get("/api/file?path=MEMORY.md")).status).toBe(403);
    expect((await get("/api/file?path=memory%2Flong-term%2Fsecrets.md")).status).toBe(403);
    const log = JSON.parse(
      (await get(`/api/file?path=memory%2F${encodeURIComponent(dayOf(-1))}.md`)).body,
    );
    expect(log.text).not.toContain("4921");
    expect(log.text).toContain("[private]");
    expect(log.text).toContain("Migration blocker");
    // Same line numbers as the file: the redaction keeps every line.
    expect(log.totalLines).toBe(log.text.split("\n").length);
    const timeline = await request(s.port, "/timeline", {
      headers: { authorization: `Bearer ${s.ui.token}`, accept: "text/html" },
    });
    expect(timeline.body).not.toContain("4921");
    const search = JSON.parse((await get(`/api/search?q=${encodeURIComponent("PIN 4921")}`)).body);
    expect(JSON.stringify(search.results)).not.toContain("4921");
    const zh = JSON.parse((await get(`/api/search?q=${encodeURIComponent("回答先给结论")}`)).body);
    expect(zh.results.map((r: { path: string }) => r.path)).not.toContain("MEMORY.md");
    // Curation is main-scope only.
    expect((await get("/api/lifecycle/plan")).status).toBe(403);
  });

  it("the main scope shows them", async () => {
    expect(JSON.parse((await get("/api/file?path=MEMORY.md&scope=main")).body).text).toContain(
      "advisory locks",
    );
    expect(
      JSON.parse((await get("/api/file?path=memory%2Flong-term%2Fsecrets.md&scope=main")).body)
        .text,
    ).toContain("vault");
    const log = JSON.parse(
      (await get(`/api/file?scope=main&path=memory%2F${encodeURIComponent(dayOf(-1))}.md`)).body,
    );
    expect(log.text).toContain("4921");
    const zh = JSON.parse(
      (await get(`/api/search?scope=main&q=${encodeURIComponent("回答先给结论")}`)).body,
    );
    expect(zh.results[0].path).toBe("MEMORY.md");
  });
});

describe("engram ui over HTTP: --read-only", () => {
  let s: Awaited<ReturnType<typeof startSample>>;

  beforeAll(async () => {
    s = await startSample({ readOnly: true, scope: "main" });
  });
  afterAll(() => s.stop());

  it("refuses every write with 403 and leaves the files alone", async () => {
    const headers = { authorization: `Bearer ${s.ui.token}`, "content-type": "application/json" };
    const plan = JSON.parse((await request(s.port, "/api/lifecycle/plan", { headers })).body);
    expect(plan.moves.length).toBe(4);
    for (const [p, body] of [
      [
        "/api/lifecycle/apply",
        JSON.stringify({ approve: plan.moves.map((m: { id: string }) => m.id) }),
      ],
      ["/api/lifecycle/undo", "{}"],
      ["/api/consolidation/apply", "{}"],
      ["/api/forget", JSON.stringify({ path: "MEMORY.md", startLine: 5, endLine: 5, reason: "x" })],
      ["/api/update", "{}"],
      ["/actions/lifecycle/apply", ""],
    ] as const) {
      const res = await request(s.port, p, { method: "POST", headers, body });
      expect(res.status, p).toBe(403);
      expect(JSON.parse(res.body).error.code).toBe("READ_ONLY");
    }
    expect(
      JSON.parse((await request(s.port, "/api/lifecycle/plan", { headers })).body).moves.length,
    ).toBe(4);
  });

  it("hides every write control", async () => {
    const headers = { authorization: `Bearer ${s.ui.token}`, accept: "text/html" };
    const curate = await request(s.port, "/curate", { headers });
    expect(curate.status).toBe(200);
    expect(curate.body).toContain("read-only");
    expect(curate.body).toContain("memory/archive/daily/");
    expect(curate.body).not.toMatch(/<form method="post"/);
    expect(curate.body).not.toContain('name="approve"');
    const file = await request(s.port, "/file?path=MEMORY.md&lines=5-5", { headers });
    expect(file.body).not.toMatch(/<form method="post"/);
  });
});

function dayOf(offset: number): string {
  const now = new Date();
  const d = new Date(now.getFullYear(), now.getMonth(), now.getDate() + offset);
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, "0")}-${String(d.getDate()).padStart(2, "0")}`;
}
