/** The example workspace `engram demo` writes: a few days of an agent's memory, English and Chinese. */
export function demoFiles(today: Date): Record<string, string> {
  const day = (offset: number) => {
    const d = new Date(today);
    d.setDate(d.getDate() - offset);
    const pad = (n: number) => String(n).padStart(2, "0");
    return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
  };
  return {
    "MEMORY.md": `# Long-term Memory

## User profile
- Name: Lin Wei. Works on the Atlas payments service; prefers concise answers with code.
- Timezone: Asia/Shanghai. Writes notes in both English and Chinese.
- 偏好：回答请先给结论，再给理由；代码示例用 TypeScript。

## Decisions
- ${day(9)}: Atlas moved from MongoDB to PostgreSQL 16 — we need transactions across ledger tables.
- ${day(6)}: Deploys go out on Tuesdays and Thursdays only; a rollback must be possible within 5 minutes.

## 长期记忆存储用户偏好
用户偏好写在这里：喜欢深色主题，常用 Vim 键位，每天早上九点开站会。
`,
    [`memory/${day(2)}.md`]: `# ${day(2)}

## 09:10
Stand-up: Atlas ledger migration is 70% done. Blocker: the sqlite-vec extension failed to load on the CI image (missing glibc 2.34).

## 14:30
Decided with Lin to pin the CI image to Debian 12 so sqlite-vec loads. Ticket OPS-412.

## 17:45
部署计划：周四发布 v2.3，回滚方案写在 ops/rollback.md，负责人是王芳。
`,
    [`memory/${day(1)}.md`]: `# ${day(1)}

## 10:05
Rollback drill for Atlas v2.3: restoring the previous container image took 3m40s, within the 5-minute budget.

## 11:20
Lin asked to remember: the staging database password rotates every 30 days; the rotation job is \`rotate-staging-creds\`.

## 16:00
\`\`\`sql
-- the query that was slow in the ledger report (fixed with an index on (account_id, posted_at))
SELECT account_id, sum(amount) FROM ledger_entries
WHERE posted_at >= now() - interval '30 days'
GROUP BY account_id;
\`\`\`
`,
    "memory/mid-term/projects/atlas/status.md": `# Atlas — status

- Phase: ledger migration (MongoDB → PostgreSQL), 70% done.
- Next: backfill historical entries, then switch reads.
- 风险：历史数据回填可能超过维护窗口。
`,
  };
}

/** The searches `engram demo` runs to show what the index answers. */
export const DEMO_QUERIES = [
  "rollback plan for the deploy",
  "用户偏好",
  "sqlite-vec CI failure",
  "回滚方案",
];
