/**
 * Word lists the synthetic workspace is written from: the vocabulary of an agent working on
 * software projects (English), a smaller Chinese one, and the names of people, projects and topics.
 * Earlier entries are drawn more often (see `pickZipf` in `synth-random.ts`), so term frequencies
 * follow the long tail real notes have.
 */

import { seededRandom } from "./synth-random.js";

/** The hand-picked English content words, most frequent first. */
const EN_COMMON: readonly string[] = (
  "deploy release build test review database schema migration index query cache latency " +
  "server client request response error retry timeout queue worker job pipeline config " +
  "setting feature branch merge commit bug fix patch rollback incident alert metric dashboard " +
  "log trace service endpoint api token auth user account customer invoice payment order " +
  "report meeting decision plan roadmap milestone deadline estimate budget risk owner team " +
  "design document spec draft proposal feedback question answer note summary update status " +
  "backup restore snapshot storage bucket volume disk memory cpu thread process container " +
  "cluster node region zone network dns certificate proxy gateway firewall permission role " +
  "policy secret key rotation audit compliance privacy export import sync watcher parser " +
  "tokenizer embedding vector search ranking score result snippet chunk heading markdown " +
  "file folder path archive retention promotion summary weekly monthly quarterly sprint " +
  "standup retro onboarding handover interview hiring contract vendor license pricing " +
  "benchmark profile regression throughput capacity scaling shard replica leader failover " +
  "upgrade downgrade version changelog tag package dependency lockfile compiler runtime " +
  "frontend backend mobile desktop browser extension plugin theme layout component render " +
  "state store reducer hook callback promise stream buffer socket protocol header payload " +
  "webhook cron schedule calendar reminder travel flight hotel visa expense receipt " +
  "recipe grocery garden running cycling doctor dentist birthday gift family weekend " +
  "tuesday thursday morning afternoon evening tomorrow yesterday urgent blocked done pending " +
  "postgres sqlite redis kafka kubernetes terraform docker nginx grafana prometheus sentry"
).split(/\s+/);

/** English glue words that make sentences read naturally. */
export const EN_GLUE: readonly string[] = (
  "the a to of and in for on with after before because so we it is was will should " +
  "need needs again still now then also only not about from into"
).split(/\s+/);

/** Verbs for log entries ("Fixed the ...", "Moved ..."). */
export const EN_VERBS: readonly string[] = (
  "Fixed Checked Moved Wrote Asked Reviewed Deployed Reverted Measured Planned Discussed " +
  "Updated Removed Added Renamed Tested Paired Booked Called Decided Noted Learned Tried"
).split(/\s+/);

/** The hand-picked Chinese words, most frequent first. */
const ZH_COMMON: readonly string[] = (
  "部署 发布 测试 数据库 索引 查询 缓存 延迟 服务器 客户端 请求 错误 重试 超时 队列 " +
  "配置 功能 分支 合并 提交 修复 回滚 事故 告警 指标 日志 服务 接口 用户 账户 客户 " +
  "订单 支付 报告 会议 决定 计划 路线图 里程碑 截止日期 预算 风险 负责人 团队 设计 " +
  "文档 方案 反馈 问题 答案 笔记 总结 状态 备份 恢复 快照 存储 内存 线程 进程 容器 " +
  "集群 节点 网络 证书 代理 网关 权限 角色 策略 密钥 审计 隐私 导出 导入 同步 分词 " +
  "向量 搜索 排序 结果 片段 标题 文件 归档 周报 月报 季度 迭代 站会 复盘 面试 合同 " +
  "供应商 价格 基准 性能 回归 吞吐量 容量 扩容 分片 副本 升级 版本 依赖 编译器 前端 " +
  "后端 移动端 浏览器 插件 组件 渲染 协议 日程 提醒 出差 机票 酒店 报销 发票 周末 " +
  "早上 下午 晚上 明天 昨天 紧急 阻塞 完成 待办 北京 上海 深圳 杭州"
).split(/\s+/);

/** Chinese function words and connectors. */
export const ZH_GLUE: readonly string[] =
  "的 了 和 在 把 对 给 还 已经 需要 因为 所以 然后 我们 他们 这个 那个 也 都 先".split(" ");

/** People an agent's notes mention. */
export const NAMES: readonly string[] = (
  "Alice Bob Carol Dave Erin Frank Grace Heidi Ivan Judy Mallory Niaj Olivia Peggy Rupert " +
  "Sybil Trent Victor Walter Yuki 王伟 李娜 张敏 刘洋 陈静"
).split(/\s+/);

/** Project ids (folder names under `memory/mid-term/projects/`). */
export const PROJECTS: readonly string[] = (
  "atlas beacon comet delta ember falcon granite harbor iris juniper kestrel lumen meridian " +
  "nimbus orion pylon quartz raven sierra tundra umbra vortex willow xenon yarrow zephyr"
).split(/\s+/);

/** Knowledge-base topics (folder names under `memory/long-term/`). */
export const TOPICS: readonly string[] = (
  "decisions runbooks architecture people preferences vendors recipes health travel " +
  "glossary postmortems howto"
).split(/\s+/);

/**
 * The long tail of a real vocabulary: deterministic made-up words after the common ones. A
 * workspace of 10,000 chunks has tens of thousands of distinct words (Heaps' law); with only the
 * few hundred common ones every term would sit in thousands of chunks, which no real workspace
 * does and which makes keyword search look far slower than it is.
 */
function englishTail(count: number): string[] {
  const onsets = "b c d f g h j k l m n p r s t v w z br cl dr fl gr pl st tr".split(" ");
  const vowels = "a e i o u ai ea oo".split(" ");
  const codas = ["", "", "n", "r", "s", "l", "x", "nd", "st"];
  const words = new Set<string>();
  // A fixed seed: the list is the same everywhere, whatever seed the workspace uses.
  const rng = seededRandom(12_345);
  const next = (n: number) => rng.int(0, n - 1);
  while (words.size < count) {
    let word = "";
    for (let s = 2 + next(2); s > 0; s--) {
      word += `${onsets[next(onsets.length)]}${vowels[next(vowels.length)]}`;
    }
    word += codas[next(codas.length)];
    if (!EN_COMMON.includes(word)) words.add(word);
  }
  return [...words];
}

/** Two-character Chinese words from the CJK block, after the common ones. */
function chineseTail(count: number): string[] {
  const words = new Set<string>();
  const rng = seededRandom(54_321);
  const next = (n: number) => rng.int(0, n - 1);
  // The first 3,000 code points of CJK Unified Ideographs hold most characters in daily use.
  const char = () => String.fromCodePoint(0x4e00 + next(3_000));
  while (words.size < count) words.add(`${char()}${char()}`);
  return [...words];
}

/** English content words, most frequent first: the common ones, then a long tail. */
export const EN_WORDS: readonly string[] = [...EN_COMMON, ...englishTail(20_000)];

/** Chinese words (segmented by the analyser), most frequent first, then a long tail. */
export const ZH_WORDS: readonly string[] = [...ZH_COMMON, ...chineseTail(5_000)];
