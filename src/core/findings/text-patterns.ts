import type { RuleId } from "./rules.js";

/** One instruction-like text rule: what it looks for, and how the text is read for it. */
export interface TextPattern {
  rule: RuleId;
  patterns: RegExp[];
  /**
   * Phrases: also matched in the folded readings (letters spaced out joined,
   * leetspeak read as letters) and in what an encoded run decodes to.
   */
  phrase: boolean;
}

// Words that address the model's instructions, and what it is told to do with them.
const INSTRUCTIONS =
  "instructions?|prompts?|rules?|guidelines?|directions?|directives?|constraints?|context|policies|policy|guardrails?|safety|restrictions?|guidance|orders?|commands?";
const OVERRIDE_VERBS =
  "ignore|disregard|forget|override|bypass|skip|abandon|dismiss|neglect|discard|set\\s+aside|pay\\s+no\\s+attention\\s+to|(?:do\\s+not|don['\\u2019]?t|stop|no\\s+longer)\\s+follow(?:ing)?";
const USER = "user|human|them|anyone|operator|person|customer|client|people|nobody|no\\s+one";
const ACTIONS =
  "call|invoke|run|execute|read|send|include|pass|fetch|forward|upload|post|attach|copy|append|share|transmit";

/**
 * What each instruction-like text rule looks for. The text is matched as a
 * model reads it (read-text.ts: references decoded, look-alike letters read
 * as ASCII, marks and invisible characters removed); a phrase counts only
 * when the old text did not hold it already, so the patterns may be broad
 * without flagging every change of a description that always had one.
 */
export const PATTERNS: TextPattern[] = [
  {
    rule: "description-override",
    phrase: true,
    patterns: [
      new RegExp(`\\b(?:${OVERRIDE_VERBS})\\b[^.\\n]{0,40}?\\b(?:${INSTRUCTIONS})\\b`, "giu"),
      /\b(?:ignore|disregard|forget)\s+(?:all\s+|any\s+|everything\s+)?(?:of\s+)?(?:the\s+)?(?:previous|prior|above|earlier|preceding)\b/giu,
      new RegExp(
        `\\b(?:previous|prior|earlier|above|preceding|original|initial|other|existing)\\s+(?:${INSTRUCTIONS})\\s+(?:are|is|were|have\\s+been)\\s+(?:now\\s+)?(?:void|null|obsolete|outdated|cancell?ed|revoked|superseded|replaced|invalid|no\\s+longer)`,
        "giu",
      ),
      new RegExp(
        `\\b(?:supersedes?|takes?\\s+precedence\\s+over|overrides?|replaces?)\\s+(?:all\\s+|any\\s+)?(?:other\\s+|previous\\s+|prior\\s+|your\\s+|the\\s+)*(?:${INSTRUCTIONS})\\b`,
        "giu",
      ),
      /\bsystem\s+prompt\b/giu,
      /\b(?:new|updated|real|true|actual)\s+instructions?\b/giu,
      /\b(?:you\s+are\s+now|from\s+now\s+on,?\s+you|developer\s+mode|jailbreak)\b/giu,
    ],
  },
  {
    rule: "description-directive",
    phrase: true,
    patterns: [
      /\bbefore\s+(?:using|calling|invoking|running|executing|you\s+(?:use|call|invoke|run))\b/giu,
      // Injections rarely say "before using": they order the model around its answer.
      /\bbefore\s+(?:answering|responding|replying|returning|proceeding|continuing|doing\s+anything|any\s+other)\b/giu,
      /\b(?:(?:also|then),?|next,)\s+(?:call|invoke)\b/giu,
      /\b(?:always|first)\s+(?:call|use|invoke|run|read|send|include|pass|fetch)\b/giu,
      // "must use forward slashes" is a rule for the argument, not an order.
      /\b(?:must|should)\s+(?:first\s+|also\s+|always\s+)?(?:call|invoke|send|fetch|forward|upload)\b/giu,
      // "when you need to read a file" describes the tool's use, and "you
      // should provide a path" its argument: an order names what to do.
      new RegExp(
        `(?<!\\b(?:when|whenever|if|where|unless|once)\\s+)\\byou\\s+(?:must|should|are\\s+required\\s+to|need\\s+to|have\\s+to)\\s+(?:(?:first|always|also|now|immediately)\\s+)?(?:${ACTIONS})\\b`,
        "giu",
      ),
      /\bas\s+an?\s+(?:ai|assistant|language\s+model)\b/giu,
    ],
  },
  {
    rule: "description-concealment",
    phrase: true,
    patterns: [
      new RegExp(
        `\\b(?:do\\s+not|don['\\u2019]?t|never|must\\s+not|should\\s+not|shouldn['\\u2019]?t)\\s+(?:tell|inform|mention|reveal|show|notify|alert|let|disclose|report|display|explain|acknowledge|say|bring\\s+up|warn)\\b[^.\\n]{0,30}?\\b(?:${USER})\\b`,
        "giu",
      ),
      /\b(?:do\s+not|don['\u2019]?t|never)\s+(?:mention|reveal|disclose|acknowledge|bring\s+up)\s+(?:this|it|that|these|any\s+of\s+this)\b/giu,
      /\bwithout\s+(?:telling|informing|notifying|asking|alerting|letting|showing|the\s+user['\u2019]?s?\s+(?:knowledge|knowing|consent|noticing|approval))\b/giu,
      /\b(?:keep|hide)\s+(?:this|it|that)\s+(?:secret|hidden|from|private|confidential|to\s+yourself|quiet|between\s+us)\b/giu,
      new RegExp(
        `\\b(?:the\\s+)?(?:${USER})\\s+(?:must|should|need|needs|does|do|will)\\s*(?:not|n['\\u2019]t)\\s+(?:know|see|notice|find\\s+out|be\\s+(?:told|informed|aware))\\b`,
        "giu",
      ),
      /\b(?:no\s+need|not\s+necessary|unnecessary)\s+to\s+(?:tell|inform|mention|notify)\b/giu,
      /\b(?:secretly|covertly|stealthily)\b/giu,
      new RegExp(`\\b(?:silently|quietly|discreetly|invisibly)\\s+(?:${ACTIONS})\\b`, "giu"),
    ],
  },
  {
    rule: "description-markup",
    phrase: true,
    patterns: [
      /<\s*\/?\s*(?:important|system|instructions?|secret|admin|critical|hidden|prompt|assistant|developer|override|urgent)\b[^>]{0,40}>/giu,
      /\[\/?(?:INST|SYSTEM)\]/giu,
      /<\|[a-z_]+\|>/giu,
    ],
  },
  {
    rule: "description-url",
    phrase: false,
    patterns: [
      /\b(?:https?|ftps?|wss?|file):\/\/[^\s<>"'`)\]]*/giu,
      /\bwww\.[\w-]+\.[\w.-]+/giu,
      // A bare domain: a host name under a top-level domain that file names do not use.
      /(?<![\w@./-])(?:[a-z\d](?:[a-z\d-]{0,61}[a-z\d])?\.)+(?:com|net|org|io|co|xyz|ru|cn|top|dev|info|biz|site|online|tk|cc|ai|link|click|example)\b(?:[/:?][^\s<>"'`)\]]*)?/giu,
    ],
  },
  {
    rule: "description-sensitive-path",
    phrase: false,
    patterns: [
      /(?:~|\$HOME|\$\{HOME\}|%USERPROFILE%|\/home\/[^\s/]+|\/Users\/[^\s/]+|\/root|[A-Z]:\\Users\\[^\s\\]+)[\\/][^\s"'`)]*/giu,
      /\.(?:ssh|aws|gnupg|kube|docker|npmrc|netrc|pgpass|git-credentials|bash_history|zsh_history)\b/giu,
      /\bid_(?:rsa|dsa|ecdsa|ed25519)\b/giu,
      /\/etc\/(?:passwd|shadow|sudoers)\b/giu,
      /(?:^|[\s"'`(/])\.env\b/giu,
      /\b(?:credentials|secrets?)\.(?:json|ya?ml|toml)\b/giu,
      /\bmcp\.json\b/giu,
    ],
  },
  {
    rule: "description-env-variable",
    phrase: false,
    patterns: [
      /\$\{[A-Za-z_]\w*\}|\$[A-Z_][A-Z0-9_]{2,}\b/gu,
      /%[A-Za-z_]\w*%/gu,
      /\b(?:process\.env|os\.environ|os\.getenv|System\.getenv)\b(?:\.\w+|\[[^\]\n]{0,40}\]|\([^)\n]{0,40}\))?/gu,
      /\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*_(?:KEY|TOKEN|SECRET|PASSWORD|PASSWD|PAT|CREDENTIALS?)\b/gu,
    ],
  },
];

/**
 * A URL is a documentation link when its sentence says so ("see", "docs",
 * "learn more") and nothing in it sends data or asks to fetch instructions,
 * and it carries no query or placeholder: such a link alone is not a finding.
 */
export const DOC_CONTEXT =
  /\b(?:see|docs?|documentation|learn\s+more|more\s+(?:info|information|details)|for\s+details|reference|read\s+more|guide|homepage|website|repository|readme|spec(?:ification)?)\b/iu;
export const SENDS_DATA =
  /\b(?:send|sends|sent|post|posts|upload|uploads|forward|forwards|submit|submits|transmit|transmits|report|exfiltrate|fetch|fetches|load|loads|instructions?|include|append|pass)\b/iu;
/** Wording that makes a mention of another tool an order to call it. */
export const STEERS =
  /\b(?:first|before|prior\s+to|always|must|should|then|also|afterwards?|call|invoke|pass|send|forward|give)\b/iu;
/** A sentence that sends data somewhere: "send the file to", "upload it to", "post ... to". */
export const SENDS_TO =
  /\b(?:send|post|upload|forward|submit|transmit|exfiltrate|report|copy|mirror|beacon|ping)\w*\b[^.\n]{0,60}?\b(?:to|at|via)\b/iu;
