import { describe, expect, it } from "vitest";
import { porter2Stem } from "../../src/text/english.js";

/**
 * Stems wink-porter2-stemmer and the `porter2` package both give (two implementations of
 * Snowball's algorithm agreeing): Porter2's exceptions, its suffix steps and its `y` rule.
 */
const STEMS: Record<string, string> = {
  deploy: "deploy",
  deployed: "deploy",
  deployment: "deploy",
  deployments: "deploy",
  release: "releas",
  released: "releas",
  releasing: "releas",
  latency: "latenc",
  memories: "memori",
  relational: "relat",
  conditional: "condit",
  rational: "ration",
  hopefulness: "hope",
  generalization: "general",
  happily: "happili",
  dashboard: "dashboard",
  feedback: "feedback",
  skis: "ski",
  skies: "sky",
  dying: "die",
  lying: "lie",
  tying: "tie",
  idly: "idl",
  gently: "gentl",
  ugly: "ugli",
  early: "earli",
  only: "onli",
  singly: "singl",
  sky: "sky",
  news: "news",
  atlas: "atlas",
  cosmos: "cosmos",
  bias: "bias",
  andes: "andes",
  inning: "inning",
  outing: "outing",
  canning: "canning",
  herring: "herring",
  earring: "earring",
  proceed: "proceed",
  exceed: "exceed",
  succeed: "succeed",
  generously: "generous",
  communication: "communic",
  arsenal: "arsenal",
  yes: "yes",
  eyed: "eye",
  yelling: "yell",
  payday: "payday",
  heyday: "heyday",
  employee: "employe",
  consignment: "consign",
  knackeries: "knackeri",
  hopping: "hop",
  controlled: "control",
  agreed: "agre",
  cried: "cri",
  ties: "tie",
};

describe("porter2Stem", () => {
  it("gives Snowball's Porter2 stems", () => {
    const words = Object.keys(STEMS);
    expect(Object.fromEntries(words.map((word) => [word, porter2Stem(word)]))).toEqual(STEMS);
  });

  it("follows the algorithm's y rule (a y after a vowel is a consonant)", () => {
    expect(["byyness", "sses", "playboy"].map(porter2Stem)).toEqual(["byy", "ss", "playboy"]);
  });
});
