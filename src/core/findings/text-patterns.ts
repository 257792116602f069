import type { RuleId } from "./rules.js";

/**
 * What each instruction-like text rule looks for. The text is matched after
 * NFKC and with invisible characters removed (text-checks.ts); a phrase
 * counts only when the old text did not hold it already, so the patterns may
 * be broad without flagging every change of a description that always had one.
 */
export const PATTERNS: [RuleId, RegExp[]][] = [
  [
    "description-override",
    [
      /\b(?:ignore|disregard|forget|override|bypass)\b[^.\n]{0,40}?\b(?:instructions?|prompts?|rules?|guidelines?|directions?|constraints?|context)\b/giu,
      /\b(?:ignore|disregard|forget)\s+(?:all\s+|any\s+|everything\s+)?(?:of\s+)?(?:the\s+)?(?:previous|prior|above|earlier|preceding)\b/giu,
      /\bsystem\s+prompt\b/giu,
      /\bnew\s+instructions?\b/giu,
    ],
  ],
  [
    "description-directive",
    [
      /\bbefore\s+(?:using|calling|invoking|running|executing|you\s+(?:use|call|invoke|run))\b/giu,
      // Injections rarely say "before using": they order the model around its answer.
      /\bbefore\s+(?:answering|responding|replying|returning|proceeding|continuing|doing\s+anything|any\s+other)\b/giu,
      /\b(?:(?:also|then),?|next,)\s+(?:call|invoke)\b/giu,
      /\b(?:always|first|must|should)\s+(?:call|use|invoke|run|read|send|include|pass|fetch)\b/giu,
      // "when you need to read a file" describes the tool's use, not an order.
      /(?<!\b(?:when|whenever|if|where|unless|once)\s+)\byou\s+(?:must|should|are\s+required\s+to|need\s+to|have\s+to)\b/giu,
      /\bas\s+an?\s+(?:ai|assistant|language\s+model)\b/giu,
    ],
  ],
  [
    "description-concealment",
    [
      /\b(?:do\s+not|don['\u2019]?t|never)\s+(?:tell|inform|mention|reveal|show|notify|alert|let)\b[^.\n]{0,30}?\b(?:user|human|them|anyone)\b/giu,
      /\b(?:do\s+not|don['\u2019]?t|never)\s+(?:mention|reveal|disclose)\s+(?:this|it|that|these|any\s+of\s+this)\b/giu,
      /\bwithout\s+(?:telling|informing|notifying|asking|alerting)\b/giu,
      /\b(?:keep|hide)\s+(?:this|it|that)\s+(?:secret|hidden|from)\b/giu,
      /\b(?:secretly|covertly)\b/giu,
    ],
  ],
  [
    "description-markup",
    [
      /<\s*\/?\s*(?:important|system|instructions?|secret|admin|critical|hidden|prompt)\b[^>]{0,40}>/giu,
      /\[\/?(?:INST|SYSTEM)\]/giu,
      /<\|[a-z_]+\|>/giu,
    ],
  ],
  [
    "description-url",
    [/\b(?:https?|ftps?|wss?|file):\/\/[^\s<>"'`)\]]*/giu, /\bwww\.[\w-]+\.[\w.-]+/giu],
  ],
  [
    "description-sensitive-path",
    [
      /(?:~|\$HOME|\$\{HOME\}|%USERPROFILE%|\/home\/[^\s/]+|\/Users\/[^\s/]+|\/root|[A-Z]:\\Users\\[^\s\\]+)[\\/][^\s"'`)]*/giu,
      /\.(?:ssh|aws|gnupg|kube|docker|npmrc|netrc|pgpass|git-credentials|bash_history|zsh_history)\b/giu,
      /\bid_(?:rsa|dsa|ecdsa|ed25519)\b/giu,
      /\/etc\/(?:passwd|shadow|sudoers)\b/giu,
      /(?:^|[\s"'`(/])\.env\b/giu,
      /\b(?:credentials|secrets?)\.(?:json|ya?ml|toml)\b/giu,
      /\bmcp\.json\b/giu,
    ],
  ],
  [
    "description-env-variable",
    [
      /\$\{[A-Za-z_]\w*\}|\$[A-Z_][A-Z0-9_]{2,}\b/gu,
      /%[A-Za-z_]\w*%/gu,
      /\b(?:process\.env|os\.environ|os\.getenv|System\.getenv)\b(?:\.\w+|\[[^\]\n]{0,40}\]|\([^)\n]{0,40}\))?/gu,
      /\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*_(?:KEY|TOKEN|SECRET|PASSWORD|PASSWD|PAT|CREDENTIALS?)\b/gu,
    ],
  ],
];
