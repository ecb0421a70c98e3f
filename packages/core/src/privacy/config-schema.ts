import * as v from "valibot";

const unknownKey = () => "unknown key (check its spelling; every key is listed in the README)";

/** One user rule of `engram audit`: a regular expression that marks text as sensitive. */
const auditRule = v.strictObject(
  {
    /** Short name shown in findings (e.g. `employee-id`). */
    name: v.pipe(v.string(), v.minLength(1)),
    /** JavaScript regular expression source (e.g. `EMP-\\d{6}`). */
    pattern: v.pipe(
      v.string(),
      v.minLength(1),
      v.check((p) => {
        try {
          new RegExp(p, "u");
          return true;
        } catch {
          return false;
        }
      }, "not a valid regular expression"),
    ),
    /** `secret` (a credential: seal or forget it) or `pii` (personal data: mark or seal it). */
    kind: v.optional(v.picklist(["secret", "pii"]), "pii"),
  },
  unknownKey,
);

/**
 * The `privacy` section: sealing, the unlock the agent tools need for sensitive long-term memory,
 * and the audit.
 */
export const privacySchema = v.strictObject(
  {
    /**
     * When a key is configured (`ENGRAM_KEY` / `ENGRAM_KEY_FILE`), seal a file marked
     * `sensitive: true` as soon as engram writes to it (default true).
     */
    autoSeal: v.optional(v.boolean(), true),
    /**
     * When a key is configured, seal the private spans of a file in place (as `engram seal
     * --spans` does) as soon as engram appends to it (default false). A file with a span never
     * closed is left as it is (sync warns about it).
     */
    sealSpans: v.optional(v.boolean(), false),
    /**
     * `required`: the agent tools (`memory_search`, `memory_get`, MCP) withhold sensitive long-term
     * content — sealed files, `sensitive: true` files, private spans of long-term files — unless
     * the host unlocked the session (`--unlock`, or `unlock: true` granted by the host).
     * `off` (default): the main scope sees them.
     */
    unlock: v.optional(v.picklist(["off", "required"]), "off"),
    audit: v.optional(
      v.strictObject(
        {
          /** A long-term entry older than this and never recalled is reported stale. */
          staleDays: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1)), 90),
          /** Extra detectors, added to the built-in ones. */
          rules: v.optional(v.array(auditRule), []),
        },
        unknownKey,
      ),
      {},
    ),
  },
  unknownKey,
);
