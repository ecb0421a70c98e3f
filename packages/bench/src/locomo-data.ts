import { readFile } from "node:fs/promises";
import { EngramError } from "@engram/core";

/** One dialog turn of a LoCoMo session. */
export interface LocomoTurn {
  /** Dialog id, `D<session>:<turn>`. */
  id: string;
  speaker: string;
  text: string;
  /** Caption of an image the speaker shared, when there is one. */
  caption?: string;
}

/** One session: the turns spoken at one date and time. */
export interface LocomoSession {
  /** `session_<n>` number. */
  index: number;
  /** When the session took place (local time, as written in the data). */
  date: Date;
  turns: LocomoTurn[];
}

/** A question whose answer lies in some turns (categories 1–4; 5 has no answer to retrieve). */
export interface LocomoQuestion {
  question: string;
  /** 1 multi-hop, 2 temporal, 3 open-domain, 4 single-hop. */
  category: 1 | 2 | 3 | 4;
  /** Evidence dialog ids as given (after splitting `"D8:6; D9:17"`); some may name no turn. */
  evidence: string[];
}

/** One LoCoMo conversation: its sessions in order and its retrievable questions. */
export interface LocomoConversation {
  id: string;
  sessions: LocomoSession[];
  questions: LocomoQuestion[];
}

const MONTHS = [
  "january",
  "february",
  "march",
  "april",
  "may",
  "june",
  "july",
  "august",
  "september",
  "october",
  "november",
  "december",
];

/**
 * Parse LoCoMo's session time, e.g. `1:56 pm on 8 May, 2023`, as a local date and time.
 *
 * @throws EngramError `INVALID_ARGUMENT` when the text has another shape.
 */
export function parseLocomoDate(text: string): Date {
  const m = /^\s*(\d{1,2}):(\d{2})\s*(am|pm)\s+on\s+(\d{1,2})\s+([A-Za-z]+),?\s+(\d{4})\s*$/i.exec(
    text,
  );
  const month = m ? MONTHS.indexOf((m[5] as string).toLowerCase()) : -1;
  if (!m || month < 0) {
    throw new EngramError("INVALID_ARGUMENT", `"${text}" is not a LoCoMo session date`, {
      hint: 'session_<n>_date_time must look like "1:56 pm on 8 May, 2023"',
    });
  }
  const hour12 = Number(m[1]) % 12;
  const hours = (m[3] as string).toLowerCase() === "pm" ? hour12 + 12 : hour12;
  const date = new Date(Number(m[6]), month, Number(m[4]), hours, Number(m[2]));
  if (date.getDate() !== Number(m[4]) || Number(m[2]) > 59 || Number(m[1]) > 12) {
    throw new EngramError("INVALID_ARGUMENT", `"${text}" names no real date and time`, {
      hint: 'session_<n>_date_time must look like "1:56 pm on 8 May, 2023"',
    });
  }
  return date;
}

/**
 * Read a LoCoMo JSON file (a list of `{ sample_id, conversation, qa }`). Keeps questions of
 * categories 1–4; category 5 (adversarial, no answer in the conversation) is left out.
 *
 * @throws EngramError `INVALID_ARGUMENT` when the file is missing, not JSON or not LoCoMo-shaped.
 */
export async function readLocomo(file: string): Promise<LocomoConversation[]> {
  const hint =
    "pass --file with a LoCoMo JSON file (a list of { sample_id, conversation, qa }), e.g. ../shared/data/locomo/locomo-dev.json";
  const text = await readFile(file, "utf8").catch((error: Error) => {
    throw new EngramError("INVALID_ARGUMENT", `cannot read ${file}: ${error.message}`, { hint });
  });
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new EngramError("INVALID_ARGUMENT", `${file} is not JSON: ${(error as Error).message}`, {
      hint,
    });
  }
  if (!Array.isArray(data) || data.length === 0) {
    throw new EngramError("INVALID_ARGUMENT", `${file} holds no list of conversations`, { hint });
  }
  return data.map((item, i) => readConversation(item, `${file}[${i}]`, hint));
}

function readConversation(item: unknown, where: string, hint: string): LocomoConversation {
  const record = asRecord(item);
  const conversation = asRecord(record?.conversation);
  if (!record || !conversation || !Array.isArray(record.qa)) {
    throw new EngramError(
      "INVALID_ARGUMENT",
      `${where} has no "conversation" object or "qa" list`,
      {
        hint,
      },
    );
  }
  const id = typeof record.sample_id === "string" ? record.sample_id : `conv-${where}`;
  const sessions: LocomoSession[] = [];
  for (const [key, value] of Object.entries(conversation)) {
    const n = /^session_(\d+)$/.exec(key)?.[1];
    if (n === undefined || !Array.isArray(value)) continue;
    const when = conversation[`${key}_date_time`];
    if (typeof when !== "string") {
      throw new EngramError("INVALID_ARGUMENT", `${where}: ${key} has no ${key}_date_time`, {
        hint,
      });
    }
    sessions.push({
      index: Number(n),
      date: parseLocomoDate(when),
      turns: value.map((turn, t) => readTurn(turn, `${where}.${key}[${t}]`, hint)),
    });
  }
  sessions.sort((a, b) => a.index - b.index);
  const questions: LocomoQuestion[] = [];
  for (const qa of record.qa) {
    const q = asRecord(qa);
    const category = Number(q?.category);
    if (!q || typeof q.question !== "string" || !(category >= 1 && category <= 4)) continue;
    const raw = Array.isArray(q.evidence) ? q.evidence : [q.evidence];
    const evidence = raw
      .filter((e): e is string => typeof e === "string")
      .flatMap((e) => e.split(";"))
      .map((e) => e.trim())
      .filter(Boolean);
    questions.push({ question: q.question, category: category as 1 | 2 | 3 | 4, evidence });
  }
  return { id, sessions, questions };
}

function readTurn(turn: unknown, where: string, hint: string): LocomoTurn {
  const t = asRecord(turn);
  if (
    !t ||
    typeof t.dia_id !== "string" ||
    typeof t.speaker !== "string" ||
    typeof t.text !== "string"
  ) {
    throw new EngramError("INVALID_ARGUMENT", `${where} is not a { speaker, dia_id, text } turn`, {
      hint,
    });
  }
  return {
    id: t.dia_id,
    speaker: t.speaker,
    text: t.text,
    ...(typeof t.blip_caption === "string" && t.blip_caption.trim()
      ? { caption: t.blip_caption }
      : {}),
  };
}

function asRecord(value: unknown): Record<string, unknown> | undefined {
  return value !== null && typeof value === "object" && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}
