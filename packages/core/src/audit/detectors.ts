/** What a detector found: an offset range of the text and the rule that matched. */
export interface Detection {
  rule: string;
  kind: "secret" | "pii";
  /** Offsets in the text scanned. */
  start: number;
  end: number;
}

/** A rule: a global regular expression, and an optional check of each match (checksums). */
export interface DetectorRule {
  name: string;
  kind: "secret" | "pii";
  pattern: RegExp;
  /** Keep a match only when this says so (e.g. a card number's Luhn check). */
  valid?: (match: string) => boolean;
}

const digits = (s: string) => s.replace(/\D/g, "");

/** Luhn checksum of a card number. */
export function luhnValid(number: string): boolean {
  const d = digits(number);
  if (d.length < 13 || d.length > 19 || /^(\d)\1+$/.test(d)) return false;
  let sum = 0;
  for (let i = 0; i < d.length; i++) {
    let n = Number(d[d.length - 1 - i]);
    if (i % 2 === 1) {
      n *= 2;
      if (n > 9) n -= 9;
    }
    sum += n;
  }
  return sum % 10 === 0;
}

/**
 * A Chinese resident identity number (GB 11643-1999): 17 digits and a check character (ISO 7064
 * MOD 11-2), with a real birth date.
 */
export function chineseIdValid(id: string): boolean {
  if (!/^\d{17}[\dXx]$/.test(id)) return false;
  const weights = [7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2];
  let sum = 0;
  for (let i = 0; i < 17; i++) sum += Number(id[i]) * (weights[i] as number);
  const check = "10X98765432"[sum % 11];
  if (id[17]?.toUpperCase() !== check) return false;
  const y = Number(id.slice(6, 10));
  const m = Number(id.slice(10, 12));
  const d = Number(id.slice(12, 14));
  const date = new Date(Date.UTC(y, m - 1, d));
  return y >= 1900 && date.getUTCMonth() === m - 1 && date.getUTCDate() === d;
}

const CN = "\\u4e00-\\u9fff";

/**
 * Issuer prefixes of the card networks (Visa 4, Mastercard 51–55 and 2221–2720, Amex 34/37,
 * Discover 6011/65, UnionPay 62, JCB 35, Diners 30/36/38): a Luhn-valid number without one is
 * more likely an order number or a timestamp.
 */
const CARD_PREFIX =
  /^(?:4|5[1-5]|2(?:2[2-9][1-9]|[3-6]\d\d|7[01]\d|720)|3[47]|6011|65|62|35|30|36|38)/;

/**
 * The built-in detectors, English and Chinese formats. Secrets that secretlint knows (cloud and
 * SaaS tokens) are found by secretlint as well; these add the generic shapes it leaves alone and
 * personal data. Each is tuned to be specific: a finding is a prompt to act, not a guess.
 */
export const BUILT_IN_RULES: readonly DetectorRule[] = [
  // Secrets.
  {
    name: "private-key",
    kind: "secret",
    pattern: /-----BEGIN (?:[A-Z]+ )*PRIVATE KEY-----/g,
  },
  {
    name: "api-key",
    kind: "secret",
    pattern:
      /\b(?:sk|pk|rk)-(?:proj-|live-|test-|ant-)?[A-Za-z0-9_-]{20,}|\bAKIA[0-9A-Z]{16}\b|\bAIza[0-9A-Za-z_-]{35}\b|\bgh[pousr]_[A-Za-z0-9]{36,}\b|\bxox[abpors]-[A-Za-z0-9-]{10,}/g,
  },
  {
    name: "jwt",
    kind: "secret",
    pattern: /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g,
  },
  {
    name: "credential-assignment",
    kind: "secret",
    pattern:
      /\b(?:api[_ -]?key|access[_ -]?token|auth[_ -]?token|secret[_ -]?key|client[_ -]?secret|bearer)\b\s*(?:[:=]|is)?\s*["']?[A-Za-z0-9_\-./+]{16,}/gi,
  },
  {
    name: "password",
    kind: "secret",
    pattern:
      /\b(?:password|passwd|pwd|passphrase|passcode|PIN)\b(?:\s+(?:is|was))?\s*[:=：]?\s*["'`]?[^\s"'`，。,;]{4,}/gi,
  },
  {
    name: "password-zh",
    kind: "secret",
    pattern: /(?:密码|口令|支付密码|登录密码|PIN码)\s*(?:是|为|[:：=])\s*[^\s，。,;；]{3,}/g,
  },
  // Personal data.
  {
    name: "email",
    kind: "pii",
    pattern: /\b[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}\b/g,
  },
  {
    name: "cn-resident-id",
    kind: "pii",
    pattern: /(?<![0-9A-Za-z])\d{17}[\dXx](?![0-9A-Za-z])/g,
    valid: chineseIdValid,
  },
  {
    name: "card-number",
    kind: "pii",
    pattern: /(?<![\d-])(?:\d[ -]?){12,18}\d(?![\d-])/g,
    valid: (m) => luhnValid(m) && CARD_PREFIX.test(digits(m)),
  },
  {
    name: "us-ssn",
    kind: "pii",
    pattern: /(?<!\d)(?!000|666|9\d\d)\d{3}-(?!00)\d{2}-(?!0000)\d{4}(?!\d)/g,
  },
  {
    name: "cn-mobile",
    kind: "pii",
    pattern: /(?<![\d])(?:\+?86[- ]?)?1[3-9]\d[- ]?\d{4}[- ]?\d{4}(?![\d])/g,
  },
  {
    name: "phone",
    kind: "pii",
    pattern: /(?<![\w+])(?:\+\d{1,3}[ .-]?)?\(?\d{3}\)?[ .-]\d{3}[ .-]\d{4}(?!\d)/g,
  },
  {
    name: "postal-address",
    kind: "pii",
    pattern:
      /\b\d{1,5}\s+(?:[A-Z][a-z]+\s+){1,3}(?:Street|St|Avenue|Ave|Road|Rd|Boulevard|Blvd|Lane|Ln|Drive|Dr|Court|Ct|Way|Place|Pl)\b\.?(?:,?\s+(?:Apt|Suite|Unit)\s*\w+)?/g,
  },
  {
    name: "postal-address-zh",
    kind: "pii",
    pattern: new RegExp(
      `[${CN}]{2,8}(?:省|自治区|市)[${CN}]{0,8}(?:市|区|县|州)?[${CN}\\d]{0,12}?(?:路|街|大道|道|巷|弄|胡同)[\\d一二三四五六七八九十]+号(?:[${CN}\\d]{0,8}(?:室|楼|栋|单元))?`,
      "g",
    ),
  },
];

/** Runs `rules` over `text`; overlapping detections keep the first rule's (rules run in order). */
export function detect(text: string, rules: readonly DetectorRule[]): Detection[] {
  const found: Detection[] = [];
  for (const rule of rules) {
    const re = new RegExp(
      rule.pattern.source,
      rule.pattern.flags.includes("g") ? rule.pattern.flags : `${rule.pattern.flags}g`,
    );
    for (const m of text.matchAll(re)) {
      const start = m.index;
      const end = start + m[0].length;
      if (m[0].length === 0) continue;
      if (rule.valid && !rule.valid(m[0].trim())) continue;
      if (found.some((f) => f.start < end && start < f.end)) continue;
      found.push({ rule: rule.name, kind: rule.kind, start, end });
    }
  }
  return found.sort((a, b) => a.start - b.start);
}

/** The user's rules from `privacy.audit.rules`, as detector rules. */
export function userRules(
  rules: ReadonlyArray<{ name: string; pattern: string; kind?: "secret" | "pii" }>,
): DetectorRule[] {
  return rules.map((r) => ({
    name: r.name,
    kind: r.kind ?? "pii",
    pattern: new RegExp(r.pattern, "gu"),
  }));
}
