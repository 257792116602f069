/**
 * The catalogue of findings: every rule id a user can meet, its severity, a
 * one-line title and a help paragraph. The docs (docs/findings.md, checked
 * against this table by a test), the JSON report, SARIF and CI annotations
 * all read this one table. Ids are stable: a rule may be added, never renamed.
 *
 * Severity informs the reader. By default it never changes a verdict or an
 * exit code (spec 6): a low-severity drift still fails. Only an opt-in
 * threshold (verify --fail-on) or audit, whose verdict it is, reads it.
 */

/** How much a finding matters to a reviewer, most severe first. */
export const SEVERITIES = ["critical", "high", "medium", "low"] as const;
export type Severity = (typeof SEVERITIES)[number];

/** True when `finding` is at least as severe as `threshold`. */
export function atOrAbove(finding: { severity: Severity }, threshold: Severity): boolean {
  return SEVERITIES.indexOf(finding.severity) <= SEVERITIES.indexOf(threshold);
}

/** A severity named on the command line, or undefined when it is not one. */
export function severityNamed(name: string): Severity | undefined {
  return (SEVERITIES as readonly string[]).includes(name) ? (name as Severity) : undefined;
}

/** What the catalogue says about one rule. */
export interface RuleSpec {
  severity: Severity;
  /** One line, no trailing period. */
  title: string;
  /** One paragraph: what changed, why it matters, what to check. */
  help: string;
}

/** The catalogue, in the order the docs list it. */
export const RULES = {
  "annotation-readonly-removed": {
    severity: "high",
    title: "readOnlyHint went from true to false or was removed",
    help: "The tool no longer declares that it only reads. A removed hint counts as its MCP default, false. Clients may have auto-approved this tool because it was read-only; check what it now writes before re-pinning.",
  },
  "annotation-readonly-claimed": {
    severity: "high",
    title: "A tool newly claims readOnlyHint true while it says it writes",
    help: "The tool now declares that it only reads, but its name, description or input properties say that it writes, creates, deletes, moves or overwrites (for example a `content` or `destination` argument). Clients may auto-approve a read-only tool; check what it really does before re-pinning.",
  },
  "annotation-nondestructive-claimed": {
    severity: "high",
    title: "A tool newly claims destructiveHint false while it says it deletes",
    help: "The tool now declares that its updates are not destructive (the MCP default is true), but its name, description or input properties say that it deletes, removes, overwrites, replaces or moves. Clients may ask less before calling a non-destructive tool; check what it really does before re-pinning.",
  },
  "annotation-destructive-added": {
    severity: "medium",
    title: "destructiveHint went from false to true or was removed",
    help: "The tool now declares, or by the MCP default (true) may perform, destructive updates. It declares more danger, so clients ask before calling it; check what it now deletes or overwrites before re-pinning.",
  },
  "annotation-openworld-added": {
    severity: "medium",
    title: "openWorldHint went from false to true or was removed",
    help: "The tool now declares, or by the MCP default (true) may reach, an open world of external entities (the web, other systems) rather than a closed domain. Check where its data can now go.",
  },
  "annotation-idempotent-removed": {
    severity: "low",
    title: "idempotentHint went from true to false or was removed",
    help: "Calling the tool twice with the same arguments may now have an additional effect (the MCP default is false). Clients that retry calls may repeat that effect.",
  },
  "annotation-changed": {
    severity: "low",
    title: "Annotations changed",
    help: "An annotation changed in a way no other rule covers, for example a title, a vendor key, or a hint that became stricter. The structural diff shows what moved.",
  },
  "input-required-removed": {
    severity: "medium",
    title: "A required input property is no longer required",
    help: "The input schema dropped an entry of `required`: calls that omit this argument are now accepted. Check how the tool behaves without it.",
  },
  "input-property-added": {
    severity: "high",
    title: "The input schema gained a property",
    help: "The tool accepts an argument it did not accept before. A new parameter is a common way to make a model send extra data (file contents, conversation text, credentials); read its description and schema.",
  },
  "input-enum-widened": {
    severity: "medium",
    title: "An enum or const was widened or removed",
    help: "A value that was limited to a fixed set (`enum`, `const`) now accepts more values, or any value. Check the new values.",
  },
  "input-constraint-relaxed": {
    severity: "medium",
    title: "A pattern, length, range or count limit was relaxed or removed",
    help: "A limit on an input (`pattern`, `format`, `maxLength`, `minLength`, `maximum`, `minimum`, the exclusive bounds, `maxItems`, `minItems`, `maxProperties`, `minProperties`, `uniqueItems`) was loosened, changed or removed, so inputs it rejected may now be accepted.",
  },
  "input-additional-properties-opened": {
    severity: "high",
    title: "additionalProperties (or unevaluatedProperties) was opened",
    help: "An object that accepted only its listed properties now accepts others, so a model may send arguments the schema does not describe.",
  },
  "input-type-widened": {
    severity: "medium",
    title: "An input type was widened",
    help: "A `type` now allows more kinds of value (for example string to string or null, integer to number), or the type constraint or the whole schema was removed.",
  },
  "input-branch-added": {
    severity: "medium",
    title: "An anyOf or oneOf branch or a $ref was added",
    help: "The schema gained an alternative (`anyOf`/`oneOf` branch) or a new or changed `$ref`, which can accept inputs the old schema rejected. Read the new branch or the referenced schema.",
  },
  "input-schema-changed": {
    severity: "low",
    title: "The input schema changed",
    help: "The input schema changed in a way no other rule covers: a narrowing, a reordering, a changed default or property description. The structural diff shows what moved.",
  },
  "output-schema-changed": {
    severity: "medium",
    title: "The output schema changed, appeared or was removed",
    help: "Clients that validate or parse the tool's structured output may break or accept data they did not expect. The structural diff shows what moved.",
  },
  "tool-name-confusable": {
    severity: "high",
    title: "A tool name is a case or Unicode variant of another name of the server",
    help: "A tool's name reads the same as another tool's, prompt's or resource template's name of the server: they differ only in letter case, in Unicode compatibility forms (NFKC), in invisible or combining characters, or in letters that look alike (the confusables of Unicode TS #39, such as a Cyrillic `а` in `reаd_file`). A look-alike tool can shadow a trusted one; check which of the two is genuine.",
  },
  "name-confusable": {
    severity: "high",
    title: "A prompt or template name is a case or Unicode variant of another name",
    help: "An added prompt's or resource template's name reads the same as a tool's, another prompt's or another template's name of the server, by the skeleton `tool-name-confusable` uses (case, NFKC, invisible and combining characters, Unicode TS #39 look-alike letters). A user picks a prompt by its name and a model reads a template's: a look-alike can pass for the trusted one; check which is genuine.",
  },
  "description-hidden-characters": {
    severity: "critical",
    title: "Text gained invisible, bidirectional, tag or control characters",
    help: "A description gained characters a reviewer cannot see but a model reads: zero-width and other format characters, bidirectional controls (U+202A-U+202E, U+2066-U+2069), tag characters (U+E0000-U+E007F), runs of variation selectors, or terminal controls. They are shown as `<U+XXXX>`. There is rarely an innocent reason: treat it as an attempt to hide instructions.",
  },
  "description-override": {
    severity: "high",
    title: "Text gained an instruction to ignore or override other instructions",
    help: 'A description gained wording such as "ignore previous instructions", "disregard the above", "this supersedes all other rules" or "system prompt", which addresses the model rather than describing the tool. It is matched as a model reads it: look-alike letters, accents, HTML entities, letters spaced out and leetspeak do not hide it.',
  },
  "description-directive": {
    severity: "medium",
    title: "Text gained a directive addressed to the model",
    help: 'A description gained wording such as "before using this tool", "before answering", "always call", "also call", "you must send", which tells the model what to do rather than what the tool does ("you should provide a path" describes an argument and is not one). Check what it asks for.',
  },
  "description-concealment": {
    severity: "high",
    title: "Text gained an instruction to hide something from the user",
    help: 'A description gained wording such as "do not tell the user", "don\'t mention", "without informing", "the user must not know" or "silently send", asking the model to keep something from the person it works for.',
  },
  "description-markup": {
    severity: "high",
    title: "Text gained prompt markup such as `<IMPORTANT>`",
    help: "A description gained tags such as `<IMPORTANT>`, `<SYSTEM>` or `<instructions>` (also written with HTML entities, `&lt;IMPORTANT&gt;`), a common way to make injected text look authoritative to a model.",
  },
  "description-tool-mention": {
    severity: "medium",
    title: "Text gained an order to call another tool of the server",
    help: 'A description now names another tool in a sentence that steers the model to it ("call X first", "pass the result to X", "always use X"), which can make it call that tool or pass data between the two (tool shadowing). A tool that only names its sibling ("use read_text_file instead") is not a finding by itself.',
  },
  "description-url": {
    severity: "medium",
    title: "Text gained a URL",
    help: 'A description gained a URL, a place the model might be told to send data to or fetch instructions from; a bare domain (`collector.example/x`) counts (a defanged one is `description-url-disguised`). A plain link to documentation (in a sentence that says "see", "docs" or "learn more", with no query and nothing sent or fetched) is not a finding by itself.',
  },
  "description-url-disguised": {
    severity: "high",
    title: "Text gained a disguised URL, or a bare domain it sends data to",
    help: "A description gained a URL written so that a reviewer does not read it as one: defanged (`hxxps://evil[.]example`), in HTML references, or with look-alike letters; or a bare domain (`collector.example/in`) in a sentence that sends data to it. Honest documentation writes its links plainly: treat it as a place the model is told to send data to.",
  },
  "description-sensitive-path": {
    severity: "high",
    title: "Text gained a home-directory or key path",
    help: "A description gained a path such as ~/.ssh, id_rsa, ~/.aws/credentials, .env or /etc/passwd: a model may be asked to read a secret and pass it as an argument.",
  },
  "description-env-variable": {
    severity: "medium",
    title: "Text gained an environment variable name",
    help: "A description gained a reference such as $API_KEY, ${TOKEN}, %USERPROFILE% or process.env.X, a way to ask a model for secrets held in the environment.",
  },
  "description-encoded-payload": {
    severity: "high",
    title: "Text gained an encoded payload or an instruction to decode one",
    help: "A description gained a run of base64 or hex that decodes to readable text, text that reads as instructions once decoded from ROT13, or wording that asks the model to decode something and follow it. Nothing honest hides words from the reader this way. The text rules also run over what a run decodes to; their findings quote it decoded, the encoding named in brackets.",
  },
  "description-changed": {
    severity: "low",
    title: "The description's wording changed",
    help: "The description changed and no other description rule matched. Read the word diff: a low severity is not a pass, and the drift still fails verify.",
  },
  "tool-added": {
    severity: "medium",
    title: "A tool was added",
    help: "The server offers a tool that was not pinned. It is shown whole; its description runs the same checks as a changed one.",
  },
  "tool-removed": {
    severity: "low",
    title: "A tool was removed",
    help: "A pinned tool is no longer offered. Agents or prompts that rely on it will fail.",
  },
  "tool-renamed": {
    severity: "medium",
    title: "A tool was likely renamed",
    help: "A pinned tool disappeared and a new tool with the same contract (apart from its name) appeared. Check that the new name is the one you expect.",
  },
  "tool-visibility-changed": {
    severity: "high",
    title: "Whether the model sees a tool changed (_meta.ui.visibility)",
    help: 'The tool\'s `_meta.ui.visibility` (MCP Apps extension) changed, appeared or was removed, while its contract may be the same. `["app"]` keeps a tool from the model; absent, or holding `"model"`, lets the model see and call it. A tool an app was meant to call alone that becomes model-visible is a new tool for the model, which reads its description and may call it. A lock written before contractpin pinned this member records none, so a tool that carries it shows this once: check the value, then `contractpin update` records it.',
  },
  "server-source-changed": {
    severity: "high",
    title: "How the server is reached changed",
    help: "Between the two locks `contractpin diff` compared, the server's command, environment, working directory, URL, headers or dump path changed: the pinned tools would now come from another program or place. A pull request can point a trusted name at a hostile server this way. Check the new source before merging.",
  },
  "package-name-confusable": {
    severity: "critical",
    title: "The package a server runs only looks like the pinned one",
    help: "The server's command now runs a package (npm, PyPI) or container image whose name differs from the pinned one only by characters a reader confuses: case, look-alike letters (a capital `I` for an `l`, a `0` for an `o`, a Cyrillic `а` for a Latin `a`) or added or dropped punctuation. It is another package, published by whoever registered that name: the way a typosquat enters a reviewed line. Both names are shown whole with the differing characters marked; run the pinned name unless you meant to change packages.",
  },
  "package-runner-unpinned": {
    severity: "medium",
    title: "The server runs a package or image without an exact version",
    help: "The server's command runs a package through a package runner without an exact version (`npx -y pkg`, `uvx pkg`, `pipx run pkg`) or an image without a tag or with `latest` (`docker run image`): each start runs whatever the registry offers then, so the code that runs can change with no change to the repository, and a release that changes one line of code reaches every machine at its next start. The finding names the version that would run now, asked of the registry the runner would ask (as `contractpin outdated` does), or why the registry could not be asked, and the `contractpin upgrade` command that pins it. npx or `npm exec` told not to install (`npx --no pkg`) runs only what is already installed, so it is not this finding. The lock pins what the server says, not its code.",
  },
  "server-unreachable": {
    severity: "high",
    title: "The server could not be read",
    help: "contractpin could not list the server's tools (it did not start, timed out, or answered with an error), so nothing about it was verified.",
  },
  "config-server-unpinned": {
    severity: "high",
    title: "A client config defines a server the lock does not pin",
    help: "A project client config (or, with `check --user`, a user-level one) asks a client to launch a server that the lock neither pins nor names as left unpinned (`configs.unpinned`). Nothing about that server is verified, and a rogue entry written into a config is exactly this. Remove it, pin it (`contractpin init --force` or `add`), or, if the team leaves it unpinned on purpose, record that with `contractpin init --force --unpinned NAME`.",
  },
  "config-launch-changed": {
    severity: "critical",
    title: "A pinned server's config entry launches something other than the lock pins",
    help: "The client config's entry for a pinned server has another transport, command, argument, working directory, URL, environment or header than the lock pins (a wrapped entry is read as the server it wraps), or cannot be compared with it. The client runs that entry, not what `verify` checked: an approved entry swapped for another command looks like this. Restore the entry, or re-pin it after review.",
  },
  "config-guard-bypassed": {
    severity: "high",
    title: "A guarded server is reachable around the guard",
    help: "One entry of a client's configs runs the server through `contractpin guard`, and another entry of the same client launches the same server (by name, or by the same launch line) directly. The client can call the server through the second entry, and the guard never sees it. Remove the unguarded entry, or wrap it too.",
  },
  "config-unreadable": {
    severity: "high",
    title: "A client config could not be read",
    help: "A client config that the lock covers (`configs.files`), or one found where clients keep them, is missing, cannot be read, or does not parse, so the servers it defines could not be checked. Could not check is never a pass: fix the file, or run `contractpin init --force` if it was removed on purpose.",
  },
  "tool-drifted": {
    severity: "high",
    title: "A tool's contract changed, with no snapshot to say how",
    help: "The tool's digest differs from the lock, but a contract it changed from or to is not known: no contract snapshot matching the lock was found (pinned with --no-snapshot, before snapshots existed, or the snapshots file is stale, edited or deleted), so the change cannot be classified and which fields changed is unknown. The lock's field digests are advisory and a hand-edited lock can make them name any field, so the fields they name are shown only as unconfirmed. Re-pin a known-good state to get snapshots, and review the whole live tool before accepting it.",
  },
  "instructions-directive": {
    severity: "high",
    title: "The server's instructions gained a directive addressed to the model",
    help: 'The `instructions` a server sends when a client connects gained wording such as "before answering", "always call" or "you must". Clients put them into the model\'s context on every turn, in a trusted place, so a directive there steers every conversation, not one tool call. Read what it asks for.',
  },
  "surface-added": {
    severity: "medium",
    title: "Instructions, a prompt, a resource template or a resource was added",
    help: "The server now serves a part that was not pinned: instructions where there were none, a prompt, a resource template or a resource, or a whole list whose capability it now advertises. It fails verify unless --allow-new; its text runs the same checks as a changed description.",
  },
  "surface-removed": {
    severity: "low",
    title: "Instructions, a prompt, a resource template or a resource was removed",
    help: "A pinned part is no longer served (or the server no longer advertises its capability). Commands and agents that rely on a prompt or template will fail.",
  },
  "surface-changed": {
    severity: "low",
    title: "Instructions, a prompt or a resource template changed",
    help: "The text or arguments changed and no text rule matched. Read the word diff: a low severity is not a pass, and the drift still fails verify.",
  },
  "prompt-argument-added": {
    severity: "medium",
    title: "A prompt gained an argument",
    help: "The prompt asks for an argument it did not ask for before. A client asks the user for its value, or lets the model fill it in, and sends it to the server with the prompt request: a new argument is a way to collect data the prompt did not need (a token, a file's contents, a conversation). Read its name and description, and what the prompt does with it.",
  },
  "surface-drifted": {
    severity: "high",
    title: "Instructions, a prompt or a template changed, with no snapshot to say how",
    help: "The part's digest differs from the lock, but no contract snapshot matching the lock was found, so the change cannot be classified; only the names of the changed members are known. Review the live server before accepting it.",
  },
  "artifact-changed": {
    severity: "critical",
    title: "The registry serves other contents for the pinned version",
    help: "The lock recorded what the registry served for the server's exactly pinned package (`--artifacts`: npm's `dist.integrity`, the sha256 of each file a Python index lists for the version, the manifest digest an image tag names), and the same registry now serves something else under the same version: a re-pushed tag, a replaced file on a private index, a republished package. The same version number no longer means the same code. Find out who published it before accepting it with `contractpin update`.",
  },
  "artifact-unchecked": {
    severity: "high",
    title: "The registry could not be asked for the recorded artifact",
    help: "The lock records the server's artifact, but its registry (the one the runner's configuration names, with its credential) could not be reached, refused the credential, or no longer lists the version, so nothing says that the pinned version still has the recorded contents. verify fails (exit 1): could not check is never a pass.",
  },
} as const satisfies Record<string, RuleSpec>;

/** A rule id of the catalogue. */
export type RuleId = keyof typeof RULES;

/** A rule with its id, as the renderers list it. */
export interface Rule extends RuleSpec {
  id: RuleId;
}

/** Every rule, in catalogue order. */
export function allRules(): Rule[] {
  return (Object.keys(RULES) as RuleId[]).map((id) => ruleOf(id));
}

/** The catalogue entry of `id`. */
export function ruleOf(id: RuleId): Rule {
  const spec: RuleSpec = RULES[id];
  return { id, severity: spec.severity, title: spec.title, help: spec.help };
}
