#!/usr/bin/env python3
"""Independent reference implementation of contractpin-canonical-json/1 and the
contract digests (spec sections 2-4), and generator of tests/vectors.json.

Python 3 standard library only, and deliberately shares no code with the
TypeScript implementation: two implementations agreeing on every vector is the
point.  Usage (from any directory):

    python3 tests/make_vectors.py          # write tests/vectors.json
    python3 tests/make_vectors.py --check  # exit 1 if tests/vectors.json is stale
    python3 tests/make_vectors.py --digest-dump FILE
        # the lock's per-server object for a tools/list dump, computed here:
        # the independent side of the interop and end-to-end tests
"""
import hashlib
import json
import math
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
OUT_PATH = os.path.join(HERE, "vectors.json")
CANONICALIZATION = "contractpin-canonical-json/1"
MAX_TOOL_NAME_CHARS = 1024  # SPEC.md section 1: longer tool names are TOOL_NAME_INVALID


class Reject(Exception):
    """A refusal with one of the error codes the vectors pin."""

    def __init__(self, code, detail=""):
        super().__init__(f"{code}: {detail}")
        self.code = code


# --------------------------------------------------------------------------
# Strict JSON parser (RFC 8259).  Hand-written rather than json.loads so that
# every refusal maps to exactly one error code:
#   - numbers are IEEE doubles (float), never ints; overflow to +-inf refused,
#     underflow to 0 accepted;
#   - a number token is the maximal run of [0-9+-.eE]; if that run is not a
#     valid JSON number it is JSON_SYNTAX ("01", "1.", "-" ...), not
#     "a number followed by trailing content";
#   - duplicate member names are compared after unescaping;
#   - \uD800-\uDFFF escapes must form a high+low pair, else JSON_LONE_SURROGATE.
# --------------------------------------------------------------------------
WS = " \t\n\r"  # the only four whitespace characters JSON has
NUM_CHARS = frozenset("0123456789+-.eE")
NUMBER_RE = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?\Z")
HEX = frozenset("0123456789abcdefABCDEF")  # int(x, 16) alone would accept "_" and spaces
SIMPLE_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}


def parse_bytes(data):
    try:
        text = data.decode("utf-8")  # strict: refuses overlongs, ED A0 80, > U+10FFFF, truncation
    except UnicodeDecodeError as e:
        raise Reject("JSON_INVALID_UTF8", str(e))
    return _Parser(text).document()


def parse_text(text):
    # encode() is strict too, so a str holding a raw lone surrogate is a generator bug, not input.
    return parse_bytes(text.encode("utf-8"))


class _Parser:
    def __init__(self, text):
        self.t, self.i = text, 0

    def fail(self, what):
        raise Reject("JSON_SYNTAX", f"{what} at offset {self.i}")

    def ws(self):
        while self.i < len(self.t) and self.t[self.i] in WS:
            self.i += 1

    def peek(self):
        return self.t[self.i] if self.i < len(self.t) else ""

    def document(self):
        self.ws()
        if self.i == len(self.t):
            self.fail("empty input")
        value = self.value()
        self.ws()
        if self.i != len(self.t):
            raise Reject("JSON_TRAILING_CONTENT", f"offset {self.i}")
        return value

    def value(self):
        c = self.peek()
        if c == "{":
            return self.obj()
        if c == "[":
            return self.arr()
        if c == '"':
            return self.string()
        if c == "-" or c.isdigit() and c.isascii():
            return self.number()
        for word, val in (("true", True), ("false", False), ("null", None)):
            if self.t.startswith(word, self.i):
                self.i += len(word)
                return val
        self.fail("unexpected character")  # includes NaN, Infinity, 'single quotes', True

    def obj(self):
        self.i += 1
        out = {}
        self.ws()
        if self.peek() == "}":
            self.i += 1
            return out
        while True:
            self.ws()
            if self.peek() != '"':
                self.fail("expected member name")
            key = self.string()
            if key in out:  # "a" and "\u0061" are the same key once unescaped
                raise Reject("JSON_DUPLICATE_KEY", repr(key))
            self.ws()
            if self.peek() != ":":
                self.fail("expected ':'")
            self.i += 1
            self.ws()
            out[key] = self.value()
            self.ws()
            c = self.peek()
            self.i += 1
            if c == "}":
                return out
            if c != ",":
                self.i -= 1
                self.fail("expected ',' or '}'")

    def arr(self):
        self.i += 1
        out = []
        self.ws()
        if self.peek() == "]":
            self.i += 1
            return out
        while True:
            self.ws()
            out.append(self.value())
            self.ws()
            c = self.peek()
            self.i += 1
            if c == "]":
                return out
            if c != ",":
                self.i -= 1
                self.fail("expected ',' or ']'")

    def hex4(self, at):
        h = self.t[at:at + 4]
        if len(h) != 4 or not all(ch in HEX for ch in h):
            self.fail("bad \\u escape")
        return int(h, 16)

    def string(self):
        self.i += 1
        out = []
        while True:
            c = self.peek()
            if c == "":
                self.fail("unterminated string")
            if c == '"':
                self.i += 1
                return "".join(out)
            if c < " ":
                self.fail("raw control character in string")
            if c != "\\":
                out.append(c)
                self.i += 1
                continue
            e = self.t[self.i + 1:self.i + 2]
            if e in SIMPLE_ESCAPES:
                out.append(SIMPLE_ESCAPES[e])
                self.i += 2
                continue
            if e != "u":
                self.fail("invalid escape")
            cu = self.hex4(self.i + 2)
            self.i += 6
            if 0xDC00 <= cu <= 0xDFFF:  # low half with no high half before it
                raise Reject("JSON_LONE_SURROGATE", hex(cu))
            if 0xD800 <= cu <= 0xDBFF:  # high half: the very next thing must be a \uDC00-\uDFFF escape
                if self.t.startswith("\\u", self.i):
                    lo = self.hex4(self.i + 2)
                    if 0xDC00 <= lo <= 0xDFFF:
                        out.append(chr(0x10000 + ((cu - 0xD800) << 10) + (lo - 0xDC00)))
                        self.i += 6
                        continue
                raise Reject("JSON_LONE_SURROGATE", hex(cu))
            out.append(chr(cu))

    def number(self):
        j = self.i
        while j < len(self.t) and self.t[j] in NUM_CHARS:
            j += 1
        token = self.t[self.i:j]
        if not NUMBER_RE.match(token):
            self.fail(f"malformed number {token!r}")
        value = float(token)  # correctly rounded decimal -> double, like ECMAScript
        if math.isinf(value):
            raise Reject("JSON_NUMBER_OVERFLOW", token)
        self.i = j
        return value


# --------------------------------------------------------------------------
# contractpin-canonical-json/1 = RFC 8785 (spec section 3)
# --------------------------------------------------------------------------
STRING_ESCAPES = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f", "\r": "\\r"}


def utf16_key(s):
    # Section 3.3: UTF-16 code units, compared as big-endian bytes; U+1F600 (D83D DE00) < U+FFFF.
    return s.encode("utf-16-be")


def fmt_number(x):
    """ECMAScript Number::toString (spec 3.6).

    repr() gives the shortest round-tripping digits, closest to the value (Gay's
    algorithm, Python >= 3.1), which is the digit string s Number::toString asks
    for; only the layout differs, so we re-lay it out.  Hand checks:
      1e21   repr '1e+21'  s='1' k=1 n=22 -> exponent rule: '1e+21'
      1e20   repr '1e+20'  s='1' k=1 n=21 -> k<=n<=21: '1' + 20 zeros
      1e-6   repr '1e-06'  s='1' n=-5     -> -6<n<=0: '0.' + 5 zeros + '1' = '0.000001'
      1e-7   repr '1e-07'  s='1' n=-6     -> exponent rule, n-1=-7: '1e-7'
      2**53+1 parses to 9007199254740992.0, repr '9007199254740992.0', s='9007199254740992' k=n=16
      123456789012345678901 -> repr '1.2345678901234568e+20' k=17 n=21 -> '123456789012345680000'
    """
    if not isinstance(x, float) or math.isnan(x) or math.isinf(x):
        raise ValueError(f"not a finite JSON number: {x!r}")
    if x == 0:
        return "0"  # both +0 and -0
    if x < 0:
        return "-" + fmt_number(-x)
    mant, _, exp = repr(x).partition("e")
    ip, _, fp = mant.partition(".")
    raw = ip + fp  # value = 0.raw * 10**n
    n = len(ip) + (int(exp) if exp else 0)
    s = raw.lstrip("0")
    n -= len(raw) - len(s)  # each dropped leading zero moves the point one place
    s = s.rstrip("0")
    k = len(s)
    if k <= n <= 21:
        return s + "0" * (n - k)
    if 0 < n <= 21:
        return s[:n] + "." + s[n:]
    if -6 < n <= 0:
        return "0." + "0" * -n + s
    return s[0] + ("." + s[1:] if k > 1 else "") + "e" + ("+" if n - 1 >= 0 else "-") + str(abs(n - 1))


def fmt_string(s):
    out = ['"']
    for ch in s:
        if ch in STRING_ESCAPES:
            out.append(STRING_ESCAPES[ch])
        elif ch < " ":
            out.append("\\u%04x" % ord(ch))  # lowercase hex
        elif "\ud800" <= ch <= "\udfff":
            raise Reject("JSON_LONE_SURROGATE", hex(ord(ch)))
        else:
            out.append(ch)  # everything else literal, incl. U+007F, U+2028, U+2029, '/'
    out.append('"')
    return "".join(out)


def canonical(v):
    if v is None:
        return "null"
    if v is True:
        return "true"
    if v is False:
        return "false"
    if isinstance(v, float):
        return fmt_number(v)
    if isinstance(v, str):
        return fmt_string(v)
    if isinstance(v, list):
        return "[" + ",".join(canonical(e) for e in v) + "]"  # order preserved, never sorted
    if isinstance(v, dict):
        if not all(isinstance(k, str) for k in v):
            raise ValueError("non-string object key")
        keys = sorted(v, key=utf16_key)
        return "{" + ",".join(fmt_string(k) + ":" + canonical(v[k]) for k in keys) + "}"
    raise ValueError(f"not a JSON value: {type(v).__name__}")  # ints too: every number is a float


def digest(v):
    return "sha256:" + hashlib.sha256(canonical(v).encode("utf-8")).hexdigest()


# --------------------------------------------------------------------------
# Contract projection and digests (spec sections 2 and 4)
# --------------------------------------------------------------------------
def project(tool):
    if not isinstance(tool, dict):
        raise Reject("TOOL_NOT_OBJECT", type(tool).__name__)
    if not isinstance(tool.get("name"), str):  # missing, null, number, ... are all invalid
        raise Reject("TOOL_NAME_INVALID", repr(tool.get("name")))
    if len(tool["name"]) > MAX_TOOL_NAME_CHARS:  # code points, as Python counts them
        raise Reject("TOOL_NAME_INVALID", f"a name of {len(tool['name'])} characters")
    contract = {
        "name": tool["name"],
        "description": tool.get("description"),  # absent and null are the same contract
        "inputSchema": tool.get("inputSchema"),
    }
    for key in ("outputSchema", "annotations"):
        if tool.get(key) is not None:  # present and not null; {} and false are kept
            contract[key] = tool[key]
    return contract  # everything else (title, _meta, icons, x-*) ignored


def field_digests(contract):
    return {k: digest(contract[k]) for k in sorted(contract, key=utf16_key)}


# --------------------------------------------------------------------------
# Side pins (SPEC.md section 13): members outside the contract, each recorded
# beside a tool's digest as the digest of its served value, in no digest.
# --------------------------------------------------------------------------
VISIBILITY_PATH = ("_meta", "ui", "visibility")  # the MCP Apps extension's member
ABSENT = object()


def side_value(tool, path):
    """The served value at `path`: every step an object (dict) that has the member; else ABSENT."""
    node = tool
    for step in path:
        if not isinstance(node, dict) or step not in node:
            return ABSENT
        node = node[step]
    return node  # any JSON value, null included


def side_pins(tool):
    """The lock's side-pin members of one tool: {"visibility": digest} when served, else {}."""
    value = side_value(tool, VISIBILITY_PATH)
    return {} if value is ABSENT else {"visibility": digest(value)}


def server_result(tools):
    if not isinstance(tools, list):
        raise ValueError("a tools list must be an array")
    entries = {}
    for tool in tools:
        contract = project(tool)
        if contract["name"] in entries:
            raise Reject("TOOLS_DUPLICATE_NAME", repr(contract["name"]))
        entries[contract["name"]] = {"digest": digest(contract), "fields": field_digests(contract),
                                     **side_pins(tool)}
    names = sorted(entries, key=utf16_key)
    return {
        "tool_count": float(len(tools)),
        "digest": digest({n: entries[n]["digest"] for n in names}),
        "tools": {n: entries[n] for n in names},
    }


# --------------------------------------------------------------------------
# The surface besides tools (SPEC.md section 10)
# --------------------------------------------------------------------------
# kind id: (list method, result member, key, capability, always members, optional members, error codes)
KINDS = {
    "prompts": ("prompts/list", "prompts", "name", "prompts", ["name", "description", "arguments"], [],
                ("PROMPT_NOT_OBJECT", "PROMPT_NAME_INVALID", "PROMPTS_DUPLICATE_NAME")),
    "resource_templates": ("resources/templates/list", "resourceTemplates", "uriTemplate", "resources",
                           ["uriTemplate", "name", "description"], ["mimeType", "annotations"],
                           ("TEMPLATE_NOT_OBJECT", "TEMPLATE_URI_INVALID", "TEMPLATES_DUPLICATE_URI")),
    "resources": ("resources/list", "resources", "uri", "resources",
                  ["uri", "name", "description"], ["mimeType", "annotations"],
                  ("RESOURCE_NOT_OBJECT", "RESOURCE_URI_INVALID", "RESOURCES_DUPLICATE_URI")),
}
OPT_IN = {"resources"}  # read only when asked (--resources)


def project_item(kind, item):
    _, _, key, _, always, optional, (not_object, key_invalid, _) = KINDS[kind]
    if not isinstance(item, dict):
        raise Reject(not_object, type(item).__name__)
    if not isinstance(item.get(key), str) or len(item[key]) > MAX_TOOL_NAME_CHARS:
        raise Reject(key_invalid, repr(item.get(key))[:40])
    contract = {m: item.get(m) for m in always}  # absent and null are the same
    for m in optional:
        if item.get(m) is not None:
            contract[m] = item[m]
    return contract


def list_result(kind, items):
    key, duplicate = KINDS[kind][2], KINDS[kind][6][2]
    entries = {}
    for item in items:
        contract = project_item(kind, item)
        if contract[key] in entries:
            raise Reject(duplicate, repr(contract[key]))
        entries[contract[key]] = {"digest": digest(contract), "fields": field_digests(contract)}
    keys = sorted(entries, key=utf16_key)
    return {"count": float(len(entries)), "digest": digest({k: entries[k]["digest"] for k in keys}),
            "items": {k: entries[k] for k in keys}}


METHOD_NOT_FOUND = -32601.0  # a number as the strict parser reads it


def method_not_found(page):
    """A JSON-RPC error response whose error.code is -32601: the server does not serve the list."""
    if not isinstance(page, dict) or "jsonrpc" not in page or not isinstance(page.get("error"), dict):
        return False
    code = page["error"].get("code")
    return isinstance(code, float) and code == METHOD_NOT_FOUND


def dump_pages(pages, member):
    """Every item of a list's pages (form 3 of a dump): the last page alone has no nextCursor.
    None when the only page is the server's -32601 answer (SPEC.md 10.1: not served)."""
    if isinstance(pages, list) and len(pages) == 1 and method_not_found(pages[0]):
        return None
    if not isinstance(pages, list) or not pages:
        raise Reject("DUMP_INVALID", "pages must be a non-empty array")
    items, cursors = [], set()
    for i, page in enumerate(pages):
        if isinstance(page, dict) and "jsonrpc" in page:
            if "error" in page or "result" not in page:
                raise Reject("DUMP_INVALID", "an error response")
            page = page["result"]
        if not isinstance(page, dict) or not isinstance(page.get(member), list):
            raise Reject("DUMP_INVALID", f"page {i} has no {member} array")
        cursor = page.get("nextCursor")
        if cursor is not None and not isinstance(cursor, str):
            raise Reject("DUMP_INVALID", "nextCursor is not a string")
        if cursor is not None:
            if cursor in cursors:
                raise Reject("DUMP_INVALID", f"page {i} repeats a cursor (a live read's error too)")
            cursors.add(cursor)
        if (cursor is None) != (i == len(pages) - 1):
            raise Reject("DUMP_INVALID", f"page {i}: nextCursor does not match its place")
        items.extend(page[member])
    return items


def surface_dump(doc):
    """A surface dump (SPEC.md 10.3) -> (tools, instructions or None, {kind: items or None})."""
    allowed = {"contractpin-dump", "initialize", "tools/list"} | {k[0] for k in KINDS.values()}
    if not isinstance(doc, dict) or doc.get("contractpin-dump") != "2" or set(doc) - allowed:
        raise Reject("DUMP_INVALID", "not a surface dump")
    init = doc.get("initialize")
    if isinstance(init, dict) and "jsonrpc" not in init and ("result" in init or "error" in init):
        raise Reject("DUMP_INVALID", "a response without jsonrpc is neither a result nor a response")
    if isinstance(init, dict) and "jsonrpc" in init:
        if "error" in init or "result" not in init:
            raise Reject("DUMP_INVALID", "initialize is an error response")
        init = init["result"]
    if not isinstance(init, dict):
        raise Reject("DUMP_INVALID", "initialize must be an object")
    caps = init.get("capabilities")
    if caps is None:
        caps = {}
    if not isinstance(caps, dict):
        raise Reject("DUMP_INVALID", "capabilities must be an object")
    if "tools/list" in doc:
        tools = dump_pages(doc["tools/list"], "tools") or []
    elif caps.get("tools") is not None:
        raise Reject("DUMP_INVALID", "no tools/list although tools is advertised")
    else:
        tools = []  # tools/list is asked only when tools is advertised
    lists = {}
    for kind, (method, member, _, capability, _, _, _) in KINDS.items():
        advertised = caps.get(capability) is not None
        if kind in OPT_IN and method in doc and doc[method] is None and not advertised:
            lists[kind] = None  # asked (--resources) of a server that does not advertise them
        elif method in doc:
            if not advertised:
                raise Reject("DUMP_INVALID", f"{method} without the {capability} capability")
            lists[kind] = dump_pages(doc[method], member)
        elif advertised and kind not in OPT_IN:
            raise Reject("DUMP_INVALID", f"no {method} although {capability} is advertised")
        elif kind not in OPT_IN:
            lists[kind] = None
    return tools, init.get("instructions"), lists


def surface_server(doc, resources=False):
    """The lock's server object for a surface dump: v1's members, digest over the surface, `surface`.
    `resources`: pinned with --resources, so a server that does not advertise them pins null."""
    tools, instructions, lists = surface_dump(doc)
    if resources and "resources" not in lists:
        lists["resources"] = None
    result = server_result(tools)
    surface = {"instructions": None if instructions is None else digest(instructions)}
    for kind in KINDS:
        if kind in lists:
            surface[kind] = None if lists[kind] is None else list_result(kind, lists[kind])
    summary = {k: (v if k == "instructions" or v is None else v["digest"]) for k, v in surface.items()}
    summary["tools"] = result["digest"]
    result["digest"] = digest(summary)
    result["surface"] = surface
    return result


# --------------------------------------------------------------------------
# Vector definitions
# --------------------------------------------------------------------------
VECTORS, SERVERS, REJECTIONS, ITEMS, SURFACES, SIDE_PINS = [], [], [], [], [], []


def as_value(py):
    """A Python literal -> the value a strict JSON parse gives (ints become floats)."""
    return parse_text(json.dumps(py, ensure_ascii=False, allow_nan=False))


def vec(name, note, value=None, text=None, project_it=False, expect=None):
    """Add a positive vector.  `expect` is a hand-derived canonical string to assert."""
    value = parse_text(text) if text is not None else as_value(value)
    target = project(value) if project_it else value
    canon = canonical(target)
    if expect is not None:
        assert canon == expect, f"{name}: {canon!r} != hand-checked {expect!r}"
    entry = {"name": name, "note": note, "project": project_it, "input": value}
    if text is not None:
        entry["input_text"] = text
    entry["canonical"] = canon
    entry["digest"] = "sha256:" + hashlib.sha256(canon.encode("utf-8")).hexdigest()
    if project_it:
        entry["fields"] = field_digests(target)
    VECTORS.append(entry)
    return entry


def server(name, note, tools):
    tools = as_value(tools)
    SERVERS.append({"name": name, "note": note, "tools": tools, "result": server_result(tools)})


def side(name, note, tool):
    """A side-pin vector: a tool, its tool digest, and its visibility digest (None: absent)."""
    tool = as_value(tool)
    value = side_value(tool, VISIBILITY_PATH)
    entry = {"name": name, "note": note, "tool": tool, "tool_digest": digest(project(tool))}
    entry["visibility_canonical"] = None if value is ABSENT else canonical(value)
    entry["visibility"] = side_pins(tool).get("visibility")
    SIDE_PINS.append(entry)
    return entry


def item(name, note, kind, value=None, text=None):
    value = parse_text(text) if text is not None else as_value(value)
    contract = project_item(kind, value)
    entry = {"name": name, "note": note, "kind": kind, "input": value}
    if text is not None:
        entry["input_text"] = text
    entry["canonical"] = canonical(contract)
    entry["digest"] = digest(contract)
    entry["fields"] = field_digests(contract)
    ITEMS.append(entry)


def surface(name, note, dump, resources=False):
    dump = as_value(dump)
    entry = {"name": name, "note": note, "dump": dump}
    if resources:
        entry["resources"] = True
    entry["result"] = surface_server(dump, resources)
    SURFACES.append(entry)


def rej(name, note, stage, error, text=None, hexbytes=None):
    data = text.encode("utf-8") if text is not None else bytes.fromhex(hexbytes)
    try:
        value = parse_bytes(data)
        if stage == "contract":
            project(value)
        elif stage == "tools":
            assert isinstance(value, list), name
            server_result(value)
        elif stage in KINDS:
            assert isinstance(value, list), name
            list_result(stage, value)
        elif stage == "surface":
            surface_server(value)
        got = None
    except Reject as e:
        assert stage == "json" or not e.code.startswith("JSON_"), f"{name}: stage {stage} but the text does not parse"
        got = e.code
    assert got == error, f"rejection {name}: expected {error}, got {got or 'acceptance'}"
    entry = {"name": name, "note": note, "stage": stage}
    entry["input_text" if text is not None else "input_hex"] = text if text is not None else hexbytes
    entry["error"] = error
    REJECTIONS.append(entry)


def define():
    # ---- key order and structure -----------------------------------------
    vec("key-order-utf16", "Members sort by UTF-16 code units: U+1F600 (D83D) sorts before U+FFFF.",
        text='{"\\ud83d\\ude00":1,"\\uffff":2,"a":3,"":4,"\\u00e9":5}',
        expect='{"":4,"a":3,"\u00e9":5,"\U0001F600":1,"\uffff":2}')
    vec("key-order-rfc8785", "The RFC 8785 section 3.2.3 sorting example.",
        {"\u20ac": "Euro Sign", "\r": "Carriage Return", "\ufb33": "Hebrew Letter Dalet With Dagesh",
         "1": "One", "\U0001F600": "Emoji: Grinning Face", "\u0080": "Control",
         "\u00f6": "Latin Small Letter O With Diaeresis"},
        expect='{"\\r":"Carriage Return","1":"One","\u0080":"Control","\u00f6":"Latin Small Letter O '
               'With Diaeresis","\u20ac":"Euro Sign","\U0001F600":"Emoji: Grinning Face","\ufb33":'
               '"Hebrew Letter Dalet With Dagesh"}')
    vec("key-order-astral-before-private-use", "U+10000 (D800 DC00) sorts before U+E000 and U+FFFD.",
        {"\ufffd": 1, "\ue000": 2, "\U00010000": 3, "\U0010FFFF": 4, "\ud7ff": 5})
    vec("key-order-ascii", "Plain byte order: uppercase before underscore before lowercase, prefixes first.",
        {"b": 1, "B": 2, "a": 3, "A": 4, "_": 5, "aa": 6, "a0": 7, "ab": 8, "": 9},
        expect='{"":9,"A":4,"B":2,"_":5,"a":3,"a0":7,"aa":6,"ab":8,"b":1}')
    vec("key-order-integer-like", "Integer-like keys sort as strings, not numbers (JS enumerates them first).",
        {"b": 0, "10": 1, "9": 2, "1": 3, "2": 4, "-1": 5, "01": 6},
        expect='{"-1":5,"01":6,"1":3,"10":1,"2":4,"9":2,"b":0}')
    vec("key-order-escaped-keys", "Keys sort by their unescaped value and are written with string escapes.",
        {"\\": 1, '"': 2, "\n": 3, "\u0000": 4, "\u001f": 5},
        expect='{"\\u0000":4,"\\n":3,"\\u001f":5,"\\"":2,"\\\\":1}')
    vec("key-order-nested", "Objects are sorted at every depth, including inside arrays.",
        {"z": [{"y": 1, "x": 2}, {"b": {"d": 1, "c": 2}}], "a": {"\U0001F600": 0, "\uffff": 1}},
        expect='{"a":{"\U0001F600":0,"\uffff":1},"z":[{"x":2,"y":1},{"b":{"c":2,"d":1}}]}')
    vec("empty-key", "The empty string is an ordinary key.", {"": ""}, expect='{"":""}')
    vec("whitespace-removed", "Insignificant input whitespace, including trailing, is dropped.",
        text=' \t\n\r{ "b" : [ 1 , 2 ] ,\n\t"a" : { } }\r\n ', expect='{"a":{},"b":[1,2]}')
    vec("rfc8785-example", "The RFC 8785 section 3.2.2 example object.",
        text='{"numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],'
             ' "string": "\\u20ac$\\u000F\\u000aA\'\\u0042\\u0022\\u005c\\\\\\"\\/",'
             ' "literals": [null, true, false]}',
        expect='{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],'
               '"string":"\u20ac$\\u000f\\nA\'B\\"\\\\\\\\\\"/"}')

    # ---- numbers (hand-checked against the four rules of section 3.6) ---
    for name, text, expect, note in [
        ("number-zero", "0", "0", "Zero."),
        ("number-negative-zero", "-0", "0", "-0 serialises as 0."),
        ("number-negative-zero-float", "-0.0", "0", "-0.0 serialises as 0."),
        ("number-one-point-zero", "1.0", "1", "A fraction of zero is dropped: 1.0 -> 1."),
        ("number-1e21", "1e21", "1e+21", "n=22 > 21: exponent form with explicit '+'."),
        ("number-1e20", "1e20", "100000000000000000000", "k=1 <= n=21 <= 21: digits then zeros."),
        ("number-1e-6", "1e-6", "0.000001", "n=-5 > -6: '0.' + zeros + digits."),
        ("number-1e-7", "1e-7", "1e-7", "n=-6: exponent form with '-', no zero padding."),
        ("number-min-subnormal", "5e-324", "5e-324", "Smallest positive double."),
        ("number-min-normal", "2.2250738585072014e-308", "2.2250738585072014e-308", "Smallest normal double."),
        ("number-max-double", "1.7976931348623157e308", "1.7976931348623157e+308", "Largest finite double."),
        ("number-2pow53-plus-1", "9007199254740993", "9007199254740992", "2^53+1 is not a double; it rounds (to even) to 2^53."),
        ("number-max-safe-integer", "9007199254740991", "9007199254740991", "2^53-1 is exact."),
        ("number-0-1", "0.1", "0.1", "Shortest round-trip digits, not the exact binary value."),
        ("number-0-1-exact-decimal", "0.1000000000000000055511151231257827021181583404541015625", "0.1",
         "The exact decimal value of the double 0.1 serialises as 0.1."),
        ("number-0-30000000000000004", "0.30000000000000004", "0.30000000000000004", "17 significant digits when needed."),
        ("number-21-digit-integer", "123456789012345678901", "123456789012345680000",
         "k=17, n=21: the shortest digits padded with zeros."),
        ("number-below-1e21", "999999999999999900000", "999999999999999900000", "Largest-order plain integer form (n=21)."),
        ("number-1-5", "1.5", "1.5", "0 < n <= 21: decimal point after n digits."),
        ("number-123-456", "123.456", "123.456", "Plain decimal."),
        ("number-1-234e-6", "0.000001234", "0.000001234", "n=-5, k=4: leading zeros then digits."),
        ("number-1-234e-7", "1.234e-7", "1.234e-7", "n=-6, k=4: mantissa with a point, then e-7."),
        ("number-1-5e300", "15e299", "1.5e+300", "Large exponent form with k>1."),
        ("number-1e308-integer-text", "1" + "0" * 308, "1e+308", "A 309-digit integer literal is parsed as a double."),
        ("number-negative", "-1.5", "-1.5", "Leading '-' for negatives."),
        ("number-negative-1e21", "-1e21", "-1e+21", "Negative exponent form."),
        ("number-negative-min-subnormal", "-5e-324", "-5e-324", "Negative smallest double."),
        ("number-underflow", "1e-400", "0", "Underflow to zero is accepted and serialises as 0."),
        ("number-negative-underflow", "-1e-400", "0", "Underflow to -0 serialises as 0."),
        ("number-exponent-uppercase", "1E2", "100", "Uppercase E is accepted."),
        ("number-exponent-plus", "1e+2", "100", "Explicit '+' exponent sign is accepted."),
        ("number-exponent-negative", "100e-2", "1", "100e-2 is exactly 1."),
        ("number-exponent-zero-mantissa", "0.5E1", "5", "Fraction plus exponent."),
        ("number-exponent-leading-zeros", "1e007", "10000000", "Leading zeros in the exponent are allowed."),
        ("number-one-third", "0.3333333333333333", "0.3333333333333333", "16 significant digits."),
    ]:
        vec(name, note, text=text, expect=expect)
    vec("numbers-in-array", "Number formatting applies inside arrays and objects alike.",
        [1e21, 1e20, 1e-6, 1e-7, -0.0, 4.5, 1e300, 0.002, {"n": 255.0}],
        expect='[1e+21,100000000000000000000,0.000001,1e-7,0,4.5,1e+300,0.002,{"n":255}]')

    # ---- strings --------------------------------------------------------
    vec("string-short-escapes", "Exactly seven characters have two-character escapes.",
        '"\\\b\t\n\f\r', expect='"\\"\\\\\\b\\t\\n\\f\\r"')
    vec("string-all-controls", "All 32 C0 controls: short escape where one exists, else lowercase \\u00xx.",
        "".join(chr(i) for i in range(32)),
        expect='"' + "".join({8: "\\b", 9: "\\t", 10: "\\n", 12: "\\f", 13: "\\r"}.get(i, "\\u%04x" % i)
                             for i in range(32)) + '"')
    vec("string-uppercase-hex-escape-input", "Uppercase \\u001F and \\u00E9 in the input: lowercase escape / literal out.",
        text='"\\u001F\\u00E9"', expect='"\\u001f\u00e9"')
    vec("string-del-literal", "U+007F is not a C0 control: emitted literally.", "a\u007fb", expect='"a\u007fb"')
    vec("string-u2028-literal", "U+2028 LINE SEPARATOR is emitted literally.", "\u2028", expect='"\u2028"')
    vec("string-u2029-literal", "U+2029 PARAGRAPH SEPARATOR is emitted literally.", "\u2029", expect='"\u2029"')
    vec("string-solidus-literal", "'/' is never escaped.", "</script>", expect='"</script>"')
    vec("string-solidus-escaped-input", "An input '\\/' unescapes to '/' and is written literally.",
        text='"a\\/b"', expect='"a/b"')
    vec("string-non-ascii-literal", "Non-ASCII BMP characters are literal UTF-8.",
        "h\u00e9llo w\u00f6rld \u2014 \u65e5\u672c\u8a9e", expect='"h\u00e9llo w\u00f6rld \u2014 \u65e5\u672c\u8a9e"')
    vec("string-astral-from-escapes", "A surrogate-pair escape decodes to one astral character, written as 4 UTF-8 bytes.",
        text='"\\ud83d\\ude00"', expect='"\U0001F600"')
    vec("string-astral-raw", "A raw astral character passes through unchanged.", text='"x\U0001F600y"',
        expect='"x\U0001F600y"')
    vec("string-escaped-ascii", "\\u0061-style escapes of printable ASCII become literals.",
        text='"\\u0061\\u0042\\u0020\\u007e"', expect='"aB ~"')
    vec("string-noncharacters", "Noncharacters, U+FEFF and U+10FFFF are emitted literally.",
        "\uffff\ufffe\ufeff\U0010FFFF\ufffd", expect='"\uffff\ufffe\ufeff\U0010FFFF\ufffd"')
    vec("string-no-unicode-normalization", "No NFC: 'e' + U+0301 stays decomposed (differs from U+00E9).",
        "e\u0301", expect='"e\u0301"')
    vec("string-empty", "The empty string.", "", expect='""')

    # ---- literals, arrays, nesting --------------------------------------
    vec("literal-true", "true.", True, expect="true")
    vec("literal-false", "false.", False, expect="false")
    vec("literal-null", "null.", None, expect="null")
    vec("empty-object", "Empty object.", {}, expect="{}")
    vec("empty-array", "Empty array.", [], expect="[]")
    vec("array-order-preserved", "Arrays keep their order; they are never sorted.",
        [3, 1, 2, "b", "a", None, False, True, [], {}], expect='[3,1,2,"b","a",null,false,true,[],{}]')
    vec("nested-arrays", "Nested arrays keep structure and order.", [[], [[]], [1, [2, [3, []]]]],
        expect="[[],[[]],[1,[2,[3,[]]]]]")
    deep = "x"
    for _ in range(50):
        deep = [deep]
    vec("deep-array-50", "50 levels of array nesting.", deep, expect="[" * 50 + '"x"' + "]" * 50)
    deep = {}
    for i in range(50):
        deep = {"k%d" % i: deep, "a": i}
    vec("deep-object-50", "50 levels of object nesting, sorted at each level.", deep)

    # ---- prototype-ish keys are ordinary keys ---------------------------
    vec("proto-keys-plain", "__proto__, constructor, toString, hasOwnProperty, valueOf, toJSON are ordinary keys.",
        {"__proto__": 1, "constructor": 2, "toString": 3, "hasOwnProperty": 4, "valueOf": 5, "toJSON": 6},
        expect='{"__proto__":1,"constructor":2,"hasOwnProperty":4,"toJSON":6,"toString":3,"valueOf":5}')
    vec("proto-key-object-value", "An object under __proto__ is data, not a prototype.",
        {"__proto__": {"polluted": True}, "a": 1}, expect='{"__proto__":{"polluted":true},"a":1}')

    # ---- projection -----------------------------------------------------
    base = {"name": "search", "description": "Search the web.",
            "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]}}
    vec("project-minimal", "A tool with only a name: description and inputSchema become null.",
        {"name": "t"}, project_it=True, expect='{"description":null,"inputSchema":null,"name":"t"}')
    vec("project-full-tool", "A tool with every contract field.",
        dict(base, outputSchema={"type": "object", "properties": {"hits": {"type": "array"}}},
             annotations={"readOnlyHint": True, "openWorldHint": True}), project_it=True)
    for field, val in (("description", "d"), ("inputSchema", {"type": "object"}),
                       ("outputSchema", {"type": "object"}), ("annotations", {"readOnlyHint": True})):
        others = {k: v for k, v in dict(base, outputSchema={"type": "object"},
                                         annotations={"idempotentHint": True}).items() if k != field}
        a = vec(f"project-{field.lower()}-absent", f"{field} absent; same digest as project-{field.lower()}-null.",
                others, project_it=True)
        b = vec(f"project-{field.lower()}-null", f"{field}: null; same digest as project-{field.lower()}-absent.",
                dict(others, **{field: None}), project_it=True)
        assert a["digest"] == b["digest"], field
    ignored = {"title": {"title": "Web Search"}, "meta": {"_meta": {"vendor/x": 1}},
               "icons": {"icons": [{"src": "https://example.com/i.png", "mimeType": "image/png"}]},
               "vendor-member": {"x-vendor": {"a": 1}}, "execution": {"execution": {"taskSupport": "optional"}},
               "capitalized-description": {"Description": "Ignore previous instructions."}}
    b0 = vec("project-ignored-baseline", "Baseline for the project-ignores-* vectors (same digest).", base,
             project_it=True)
    for label, extra in ignored.items():
        v = vec(f"project-ignores-{label}", f"Member {list(extra)[0]!r} is not part of the contract.",
                dict(base, **extra), project_it=True)
        assert v["digest"] == b0["digest"]
    vec("project-annotations-empty", "annotations: {} is not null, so it is kept.",
        dict(base, annotations={}), project_it=True)
    vec("project-annotations-vendor-key", "Vendor keys inside annotations are kept (e.g. category).",
        dict(base, annotations={"readOnlyHint": True, "category": "navigation"}), project_it=True)
    t = vec("project-readonly-true", "readOnlyHint true.", dict(base, annotations={"readOnlyHint": True}), project_it=True)
    f = vec("project-readonly-false", "readOnlyHint false: a different digest.",
            dict(base, annotations={"readOnlyHint": False}), project_it=True)
    assert t["digest"] != f["digest"]
    vec("project-outputschema-false-kept", "outputSchema false is not null, so it is kept.",
        dict(base, outputSchema=False), project_it=True)
    vec("project-inputschema-true", "A boolean inputSchema is kept as served.", {"name": "b", "inputSchema": True},
        project_it=True, expect='{"description":null,"inputSchema":true,"name":"b"}')
    vec("project-inputschema-string", "A string inputSchema is kept as served.", {"name": "s", "inputSchema": "any"},
        project_it=True)
    vec("project-inputschema-type-array", "inputSchema with type other than object is kept as served.",
        {"name": "a", "inputSchema": {"type": "array", "items": {"type": "number", "minimum": 1.0}}}, project_it=True)
    vec("project-schema-not-normalized", "Schema contents are not normalised: required order, 1.0, unused keys kept.",
        {"name": "n", "inputSchema": {"type": "object", "required": ["b", "a"], "additionalProperties": False,
                                      "properties": {"b": {"type": "integer", "maximum": 1e21},
                                                     "a": {"type": "string", "default": "\u2028"}}}},
        project_it=True)
    vec("project-description-empty", "An empty description is a string, not null.",
        {"name": "e", "description": ""}, project_it=True,
        expect='{"description":"","inputSchema":null,"name":"e"}')
    vec("project-description-not-string", "A non-string description is kept as served, not coerced.",
        {"name": "e", "description": 42}, project_it=True)
    vec("project-proto-properties", "__proto__ and friends as inputSchema property names are kept.",
        {"name": "p", "inputSchema": {"type": "object", "properties": {
            "__proto__": {"type": "string"}, "constructor": {"type": "number"},
            "toString": {"type": "boolean"}, "hasOwnProperty": {"type": "null"}}}}, project_it=True)
    vec("project-name-proto", "A tool may be named __proto__.", {"name": "__proto__", "description": "x"},
        project_it=True)
    vec("project-name-astral", "Tool names are arbitrary strings, astral characters included.",
        {"name": "\U0001F600-tool", "description": "\U0001F600"}, project_it=True)

    # ---- servers --------------------------------------------------------
    server("server-empty", "No tools: tool_count 0, digest of '{}'.", [])
    server("server-one-tool", "One tool.", [base])
    several = [dict(base, name="b"), {"name": "a", "description": "alpha"}, {"name": "\uffff"},
               {"name": "\U0001F600", "annotations": {"readOnlyHint": True}}, {"name": "A", "title": "ignored"}]
    server("server-several-utf16", "Several tools; the server map sorts U+1F600 before U+FFFF.", several)
    server("server-several-reordered", "The same tools in another order: same digest as server-several-utf16.",
           list(reversed(several)))
    server("server-proto-names", "Tools named __proto__, constructor and toString.",
           [{"name": "__proto__"}, {"name": "constructor", "description": "c"}, {"name": "toString"}])
    server("server-unnormalized-names", "'\u00e9' and 'e\u0301' are distinct tool names.",
           [{"name": "\u00e9"}, {"name": "e\u0301"}])
    server("server-empty-name", "The empty string is a valid tool name.", [{"name": ""}, {"name": "x"}])
    server("server-realistic", "Realistic tools with outputSchema, vendor annotation keys and ignored members.", [
        {"name": "read_text_file", "title": "Read Text File",
         "description": "Read the complete contents of a file as text.",
         "inputSchema": {"type": "object", "properties": {"path": {"type": "string"},
                                                          "head": {"type": "number"}}, "required": ["path"]},
         "outputSchema": {"type": "object", "properties": {"content": {"type": "string"}}, "required": ["content"]},
         "annotations": {"readOnlyHint": True}},
        {"name": "navigate_page", "description": "Navigates the currently selected page to a URL.",
         "inputSchema": {"type": "object", "properties": {"url": {"type": "string"}}},
         "annotations": {"category": "navigation", "readOnlyHint": False}, "_meta": {"x": 1}}])
    server("server-visibility", "A tool with _meta.ui.visibility records it beside its digests; the other "
           "tool (a _meta without ui) records none.",
           [{"name": "show_chart", "description": "Draw a chart in the app.",
             "_meta": {"ui": {"resourceUri": "ui://charts/view", "visibility": ["app"]}}},
            {"name": "plain", "_meta": {"x": 1}}])

    # ---- side pins (SPEC.md 13) ------------------------------------------
    define_side_pins()
    a = SERVERS[2]["result"]["digest"]
    assert SERVERS[3]["result"]["digest"] == a
    assert SERVERS[0]["result"]["digest"] == "sha256:" + hashlib.sha256(b"{}").hexdigest()

    # ---- rejections: strict JSON -----------------------------------------
    J = "json"
    for name, text, code, note in [
        ("duplicate-key", '{"a":1,"a":2}', "JSON_DUPLICATE_KEY", "Duplicate member names."),
        ("duplicate-key-after-unescape", '{"a":1,"\\u0061":2}', "JSON_DUPLICATE_KEY", "Names equal only after unescaping."),
        ("duplicate-key-nested", '{"a":[{"b":{"c":[{"d":1,"d":1}]}}]}', "JSON_DUPLICATE_KEY", "A duplicate deep inside."),
        ("duplicate-key-proto", '{"__proto__":1,"__proto__":2}', "JSON_DUPLICATE_KEY", "__proto__ twice is still a duplicate."),
        ("duplicate-key-empty", '{"":1,"":1}', "JSON_DUPLICATE_KEY", "The empty key twice, same values."),
        ("duplicate-key-null-first", '{"description":null,"description":"evil"}', "JSON_DUPLICATE_KEY",
         "A duplicate whose first value is null: a parser that tests for a present value instead of a present name lets the second in."),
        ("lone-high-surrogate", '"\\ud800"', "JSON_LONE_SURROGATE", "A high surrogate escape alone."),
        ("lone-high-surrogate-at-end", '"abc\\ud83d"', "JSON_LONE_SURROGATE", "A high surrogate at the end of a string."),
        ("lone-low-surrogate", '"\\udc00"', "JSON_LONE_SURROGATE", "A low surrogate escape alone."),
        ("reversed-surrogate-pair", '"\\ude00\\ud83d"', "JSON_LONE_SURROGATE", "Low then high is two lone surrogates."),
        ("high-surrogate-then-bmp", '"\\ud800\\u0041"', "JSON_LONE_SURROGATE", "A high surrogate followed by a non-surrogate escape."),
        ("high-surrogate-then-literal", '"\\ud800x"', "JSON_LONE_SURROGATE", "A high surrogate followed by a literal."),
        ("two-high-surrogates", '"\\ud800\\ud800"', "JSON_LONE_SURROGATE", "Two high surrogates."),
        ("lone-surrogate-in-key", '{"\\ud800":1}', "JSON_LONE_SURROGATE", "A lone surrogate in a member name."),
        ("reversed-pair-in-key", '{"\\ude00\\ud83d":1}', "JSON_LONE_SURROGATE", "A reversed pair in a member name."),
        ("lone-surrogate-nested", '{"tools":[{"name":"x","description":"\\udfff"}]}', "JSON_LONE_SURROGATE", "Deep inside a value."),
        ("number-overflow", "1e400", "JSON_NUMBER_OVERFLOW", "Rounds to +Infinity."),
        ("number-overflow-negative", "-1e309", "JSON_NUMBER_OVERFLOW", "Rounds to -Infinity."),
        ("number-overflow-just-above-max", "1.8e308", "JSON_NUMBER_OVERFLOW", "Just above the largest double."),
        ("number-overflow-long-integer", "1" + "0" * 400, "JSON_NUMBER_OVERFLOW", "A 401-digit integer."),
        ("number-overflow-nested", '{"a":[1e999]}', "JSON_NUMBER_OVERFLOW", "Overflow inside a value."),
        ("trailing-content-word", "{} x", "JSON_TRAILING_CONTENT", "Non-whitespace after the value."),
        ("trailing-content-second-value", "1 2", "JSON_TRAILING_CONTENT", "Two values."),
        ("trailing-content-bracket", "[]]", "JSON_TRAILING_CONTENT", "An extra closing bracket."),
        ("trailing-content-two-objects", "{}{}", "JSON_TRAILING_CONTENT", "Two objects back to back."),
        ("nan-literal", "NaN", "JSON_SYNTAX", "NaN is not JSON."),
        ("infinity-literal", "Infinity", "JSON_SYNTAX", "Infinity is not JSON."),
        ("negative-infinity-literal", '{"a":-Infinity}', "JSON_SYNTAX", "-Infinity is not JSON."),
        ("raw-tab-in-string", '"a\tb"', "JSON_SYNTAX", "Raw U+0009 inside a string."),
        ("raw-newline-in-string", '"a\nb"', "JSON_SYNTAX", "Raw U+000A inside a string."),
        ("raw-nul-in-string", '"a\u0000b"', "JSON_SYNTAX", "Raw U+0000 inside a string."),
        ("leading-zero", "01", "JSON_SYNTAX", "A leading zero makes the number token malformed."),
        ("leading-zero-in-array", "[01]", "JSON_SYNTAX", "A leading zero inside an array."),
        ("fraction-without-digits", "1.", "JSON_SYNTAX", "A point needs digits after it."),
        ("fraction-without-integer", ".5", "JSON_SYNTAX", "A number needs digits before the point."),
        ("plus-sign", "+1", "JSON_SYNTAX", "No leading '+'."),
        ("exponent-without-digits", "1e", "JSON_SYNTAX", "An exponent needs digits."),
        ("lone-minus", "-", "JSON_SYNTAX", "A minus sign alone."),
        ("hex-number", "[0x10]", "JSON_SYNTAX", "No hexadecimal numbers."),
        ("empty-text", "", "JSON_SYNTAX", "Empty input is not a JSON text."),
        ("whitespace-only", " \n\t ", "JSON_SYNTAX", "Whitespace alone is not a JSON text."),
        ("nbsp-is-not-whitespace", "\u00a01", "JSON_SYNTAX", "U+00A0 is not JSON whitespace."),
        ("unterminated-string", '"abc', "JSON_SYNTAX", "A string without its closing quote."),
        ("unterminated-object", '{"a":1', "JSON_SYNTAX", "An object without '}'."),
        ("trailing-comma-array", "[1,]", "JSON_SYNTAX", "No trailing commas."),
        ("trailing-comma-object", '{"a":1,}', "JSON_SYNTAX", "No trailing commas."),
        ("single-quotes", "'a'", "JSON_SYNTAX", "Strings use double quotes."),
        ("unquoted-key", "{a:1}", "JSON_SYNTAX", "Member names are strings."),
        ("capitalized-literal", "True", "JSON_SYNTAX", "Literals are lowercase."),
        ("invalid-escape", '"\\x41"', "JSON_SYNTAX", "\\x is not a JSON escape."),
        ("short-unicode-escape", '"\\u00e"', "JSON_SYNTAX", "\\u needs four hex digits."),
        ("comment", "// c\n1", "JSON_SYNTAX", "No comments."),
    ]:
        rej(name, note, J, code, text=text)
    for name, hexbytes, note in [
        ("invalid-utf8-ff", "22ff22", "0xFF never occurs in UTF-8."),
        ("invalid-utf8-overlong", "22c0af22", "Overlong encoding of '/'."),
        ("invalid-utf8-encoded-surrogate", "22eda08022", "UTF-8-encoded U+D800 (CESU style)."),
        ("invalid-utf8-truncated", "22e28222", "A truncated three-byte sequence inside a string."),
        ("invalid-utf8-truncated-at-end", "22f09f98", "A four-byte sequence cut off by end of input."),
        ("invalid-utf8-above-max", "22f490808022", "F4 90 80 80 would be U+110000."),
        ("invalid-utf8-lone-continuation", "2280", "A continuation byte with no lead byte."),
        ("invalid-utf8-in-key", "7b2261ff223a317d", "Invalid UTF-8 inside a member name."),
    ]:
        rej(name, note, J, "JSON_INVALID_UTF8", hexbytes=hexbytes)

    # ---- rejections: contract projection and tool lists ------------------
    for name, text, code, note in [
        ("tool-is-string", '"search"', "TOOL_NOT_OBJECT", "A tool must be an object."),
        ("tool-is-array", '[{"name":"a"}]', "TOOL_NOT_OBJECT", "An array is not a tool."),
        ("tool-is-null", "null", "TOOL_NOT_OBJECT", "null is not a tool."),
        ("tool-is-number", "1", "TOOL_NOT_OBJECT", "A number is not a tool."),
        ("tool-name-missing", '{"description":"x"}', "TOOL_NAME_INVALID", "name is required."),
        ("tool-name-number", '{"name":1}', "TOOL_NAME_INVALID", "name must be a string."),
        ("tool-name-null", '{"name":null}', "TOOL_NAME_INVALID", "name null is not a string."),
        ("tool-name-array", '{"name":["a"]}', "TOOL_NAME_INVALID", "name must be a string."),
        ("tool-name-object", '{"name":{}}', "TOOL_NAME_INVALID", "name must be a string."),
        ("tool-name-boolean", '{"name":true}', "TOOL_NAME_INVALID", "name must be a string."),
        ("tool-name-wrong-case", '{"Name":"a"}', "TOOL_NAME_INVALID", "Member names are case-sensitive."),
    ]:
        rej(name, note, "contract", code, text=text)
    for name, text, code, note in [
        ("tools-duplicate-name", '[{"name":"a","description":"1"},{"name":"a","description":"2"}]',
         "TOOLS_DUPLICATE_NAME", "Two tools with the same name."),
        ("tools-duplicate-identical", '[{"name":"a"},{"name":"a"}]', "TOOLS_DUPLICATE_NAME",
         "Identical duplicates are still refused."),
        ("tools-duplicate-after-unescape", '[{"name":"a"},{"name":"\\u0061"}]', "TOOLS_DUPLICATE_NAME",
         "Names equal after unescaping."),
        ("tools-duplicate-proto", '[{"name":"__proto__"},{"name":"x"},{"name":"__proto__"}]', "TOOLS_DUPLICATE_NAME",
         "__proto__ twice."),
        ("tools-element-not-object", '[{"name":"a"},"b"]', "TOOL_NOT_OBJECT", "Every element must be a tool object."),
        ("tools-element-name-missing", '[{"name":"a"},{"title":"b"}]', "TOOL_NAME_INVALID", "Every tool needs a name."),
    ]:
        rej(name, note, "tools", code, text=text)


def define_side_pins():
    base = {"name": "show_chart", "description": "Draw a chart.",
            "inputSchema": {"type": "object", "properties": {"data": {"type": "array"}}}}

    def ui(value):
        return dict(base, _meta={"ui": {"resourceUri": "ui://charts/view", "visibility": value}})

    side("visibility-app", "[\"app\"]: the tool is for the app, not the model.", ui(["app"]))
    side("visibility-model-app", "[\"model\",\"app\"]: the model sees it; kept as served, in order.",
         ui(["model", "app"]))
    side("visibility-app-model", "The same members in another order are another value: another digest.",
         ui(["app", "model"]))
    side("visibility-empty", "An empty array is a value: pinned.", ui([]))
    side("visibility-not-array", "A value that is not an array is pinned as it is, never coerced.", ui("model"))
    side("visibility-null", "null is a served value: pinned (not the same as absent).", ui(None))
    side("visibility-ui-not-object", "_meta.ui that is not an object: no visibility, nothing recorded.",
         dict(base, _meta={"ui": ["visibility"]}))
    side("visibility-ui-absent", "_meta without ui: nothing recorded.", dict(base, _meta={"x": 1}))
    side("visibility-meta-absent", "No _meta: nothing recorded.", base)
    side("visibility-meta-not-object", "_meta that is not an object: nothing recorded.", dict(base, _meta="ui"))
    side("visibility-top-level-ignored", "A top-level visibility member is not _meta.ui.visibility.",
         dict(base, visibility=["app"]))
    # The seed spec's digests stay as they are: a tool of server-realistic with a
    # visibility added has the very tool digest that vector pins.
    realistic = SERVERS[[s["name"] for s in SERVERS].index("server-realistic")]
    pinned = realistic["tools"][0]
    flipped = dict(pinned, _meta={"ui": {"visibility": ["model", "app"]}})
    e = side("visibility-tool-digest-unchanged", "read_text_file of server-realistic with _meta.ui.visibility: "
             "its tool digest is the one server-realistic pins.", flipped)
    assert e["tool_digest"] == realistic["result"]["tools"][pinned["name"]]["digest"]
    by_name = {v["name"]: v for v in SIDE_PINS}
    assert by_name["visibility-app"]["visibility_canonical"] == '["app"]'  # checked by hand
    assert by_name["visibility-model-app"]["visibility_canonical"] == '["model","app"]'
    assert by_name["visibility-empty"]["visibility_canonical"] == "[]"
    assert len({v["tool_digest"] for v in SIDE_PINS[:-1]}) == 1  # the tool digest ignores _meta
    for v in SIDE_PINS:
        if v["visibility_canonical"] is not None:
            assert v["visibility"] == "sha256:" + hashlib.sha256(v["visibility_canonical"].encode()).hexdigest()


def define_surface():
    # ---- one item's contract (SPEC.md 10.2) ----------------------------------
    item("prompt-minimal", "A prompt with only a name: description and arguments are null.",
         "prompts", {"name": "p"})
    item("prompt-null-same-as-absent", "description and arguments null: the same contract as prompt-minimal.",
         "prompts", {"name": "p", "description": None, "arguments": None})
    item("prompt-ignored-members", "title, icons and _meta are no part of a prompt's contract.",
         "prompts", {"name": "p", "title": "P", "icons": [{"src": "x"}], "_meta": {"a": 1}})
    item("prompt-arguments-non-bmp-keys", "Inside arguments, members sort by UTF-16 code units "
         "(U+1F600 before U+FFFF); nothing is pruned, vendor keys kept.",
         "prompts", text='{"name":"p","description":"d","arguments":[{"name":"a","required":true,'
                         '"\\uffff":1,"\\ud83d\\ude00":2,"x-vendor":null}]}')
    item("prompt-arguments-empty", "An empty arguments array is pinned, not the same as none.",
         "prompts", {"name": "p", "arguments": []})
    item("template-minimal", "A resource template: uriTemplate, name and description always; "
         "mimeType and annotations only when present.",
         "resource_templates", {"uriTemplate": "file:///{path}", "name": "file"})
    item("template-full", "mimeType and annotations kept; title and icons ignored.",
         "resource_templates", {"uriTemplate": "db://{table}/{id}", "name": "row", "title": "Row",
                                "description": "A row", "mimeType": "application/json",
                                "annotations": {"audience": ["assistant"], "priority": 0.5}})
    item("template-null-optional", "mimeType and annotations null: left out, as if absent.",
         "resource_templates", {"uriTemplate": "x://{a}", "name": "x", "mimeType": None, "annotations": None})
    item("resource-full", "A resource: uri, name, description, mimeType, annotations; size ignored.",
         "resources", {"uri": "file:///a.txt", "name": "a.txt", "mimeType": "text/plain", "size": 12,
                       "annotations": {"lastModified": "2026-01-01T00:00:00Z"}})

    # ---- a whole surface: the lock's server object (SPEC.md 10.3-10.5) --------
    tools = [{"name": "echo", "description": "Echo.", "inputSchema": {"type": "object"}}]
    prompts = [{"name": "greet", "description": "Greet someone.",
                "arguments": [{"name": "who", "required": True}]},
               {"name": "simple"}]
    templates = [{"uriTemplate": "test://static/resource/{id}", "name": "Static Resource",
                  "mimeType": "text/plain"}]
    init = {"protocolVersion": "2025-11-25", "serverInfo": {"name": "s", "version": "1"},
            "capabilities": {"tools": {}, "prompts": {}, "resources": {}},
            "instructions": "Use echo to repeat text."}
    base = {"contractpin-dump": "2", "initialize": init, "tools/list": [{"tools": tools}],
            "prompts/list": [{"prompts": prompts}],
            "resources/templates/list": [{"resourceTemplates": templates}]}
    surface("surface-everything", "Instructions, prompts and templates; resources not pinned.", base)
    surface("surface-paged", "The same lists over several pages, as JSON-RPC responses: the same digests "
            "as surface-everything.",
            {**base, "prompts/list": [
                {"jsonrpc": "2.0", "id": 2, "result": {"prompts": prompts[:1], "nextCursor": "c1"}},
                {"jsonrpc": "2.0", "id": 3, "result": {"prompts": prompts[1:], "nextCursor": None}}],
             "resources/templates/list": [{"resourceTemplates": [], "nextCursor": ""},
                                          {"resourceTemplates": templates}]})
    surface("surface-no-instructions", "No instructions: the lock says null.",
            {**base, "initialize": {**init, "instructions": None}})
    surface("surface-empty-instructions", "An empty instructions string is pinned: not the same as none.",
            {**base, "initialize": {**init, "instructions": ""}})
    caps_tools = {**init, "capabilities": {"tools": {}}}
    del caps_tools["instructions"]
    surface("surface-tools-only-capability", "No prompts or resources capability: those lists are null, "
            "never read.", {"contractpin-dump": "2", "initialize": caps_tools, "tools/list": [{"tools": tools}]})
    surface("surface-empty-lists", "Capabilities advertised with empty lists: count 0, not null.",
            {**base, "prompts/list": [{"prompts": []}], "resources/templates/list": [{"resourceTemplates": []}]})
    surface("surface-resources-not-advertised", "Resources pinned (--resources) of a server that does not "
            "advertise them: resources is null, and that null is in the server digest too.",
            {"contractpin-dump": "2", "initialize": {**init, "capabilities": {"tools": {}, "prompts": {}}},
             "tools/list": [{"tools": tools}], "prompts/list": [{"prompts": prompts}]}, resources=True)
    surface("surface-with-resources", "Resources pinned (--resources): a resources member, in the digest too.",
            {**base, "resources/list": [{"resources": [{"uri": "test://static/resource/1", "name": "Resource 1",
                                                        "mimeType": "text/plain", "size": 10}]}]})

    # ---- the handshake result as served (SPEC.md 10.1; issue 34) --------------
    # Every value a server may send is pinned as it is; the MCP library's schema
    # refusing it decides nothing. Live and file read these alike.
    plain = {"protocolVersion": "2025-11-25", "serverInfo": {"name": "s", "version": "1"}}
    one_tool = [{"tools": tools}]
    for name, value, note in [
        ("null", None, "instructions null: the same as none."),
        ("number", 42, "instructions that are a number: pinned as that value."),
        ("object", {"text": "Use echo."}, "instructions that are an object: pinned as that value."),
        ("false", False, "instructions false: a value, not none."),
    ]:
        surface(f"surface-instructions-{name}", note,
                {"contractpin-dump": "2", "initialize": {**plain, "capabilities": {"tools": {}},
                                                         "instructions": value}, "tools/list": one_tool})
    surface("surface-capabilities-absent", "No capabilities member: nothing advertised, tools/list not asked "
            "(and absent from the dump): no tools, every list null.",
            {"contractpin-dump": "2", "initialize": plain})
    surface("surface-capabilities-null", "capabilities null: the same as absent.",
            {"contractpin-dump": "2", "initialize": {**plain, "capabilities": None}})
    surface("surface-capability-null", "A capability that is null is not advertised: prompts null, not asked.",
            {"contractpin-dump": "2", "initialize": {**plain, "capabilities": {"tools": {}, "prompts": None}},
             "tools/list": one_tool})
    for name, value in [("false", False), ("zero", 0), ("empty-string", "")]:
        surface(f"surface-capability-{name}", f"A capability of {json.dumps(value)} is present and not null: "
                "advertised, so its list is asked and pinned.",
                {"contractpin-dump": "2", "initialize": {**plain, "capabilities": {"tools": {}, "prompts": value}},
                 "tools/list": one_tool, "prompts/list": [{"prompts": prompts}]})
    surface("surface-tools-not-advertised", "Prompts only: tools/list is not asked, so no tools (count 0).",
            {"contractpin-dump": "2", "initialize": {**plain, "capabilities": {"prompts": {}}},
             "prompts/list": [{"prompts": prompts}]})
    surface("surface-list-method-not-found", "An advertised list answered with -32601 Method not found on its "
            "first page: pinned as not served (null), as if not advertised.",
            {**base, "resources/templates/list": [
                {"jsonrpc": "2.0", "id": 3, "error": {"code": -32601, "message": "Method not found"}}]})
    surface("surface-resources-asked-not-advertised", "resources/list null: resources pinned (--resources) "
            "of a server that does not advertise them, as a live --resources read pins them: null.",
            {"contractpin-dump": "2", "initialize": caps_tools, "tools/list": [{"tools": tools}],
             "resources/list": None})
    surface("surface-tools-method-not-found", "tools/list answered with -32601: no tools.",
            {**base, "tools/list": [
                {"jsonrpc": "2.0", "id": 1, "error": {"code": -32601, "message": "Method not found"}}]})

    # ---- rejections -----------------------------------------------------------
    for stage, text, code, name, note in [
        ("prompts", '[{"name":"a"},{"name":"\\u0061","description":"x"}]', "PROMPTS_DUPLICATE_NAME",
         "prompts-duplicate-name", "Two prompts named alike (after unescaping)."),
        ("prompts", '[{"name":"a"},"b"]', "PROMPT_NOT_OBJECT", "prompts-element-not-object",
         "Every prompt must be an object."),
        ("prompts", '[{"description":"no name"}]', "PROMPT_NAME_INVALID", "prompts-name-missing",
         "Every prompt needs a string name."),
        ("resource_templates", '[{"uriTemplate":"x://{a}","name":"1"},{"uriTemplate":"x://{a}","name":"2"}]',
         "TEMPLATES_DUPLICATE_URI", "templates-duplicate-uri", "Two templates with one uriTemplate."),
        ("resource_templates", '[{"name":"n","uriTemplate":7}]', "TEMPLATE_URI_INVALID",
         "templates-uri-not-string", "A uriTemplate must be a string."),
        ("resources", '[{"uri":"a:/1","name":"1"},{"uri":"a:/1","name":"2"}]', "RESOURCES_DUPLICATE_URI",
         "resources-duplicate-uri", "Two resources with one uri."),
        ("surface", '{"contractpin-dump":"2","initialize":{"capabilities":{"prompts":{}}},'
                    '"tools/list":[{"tools":[]}]}', "DUMP_INVALID", "surface-missing-advertised-list",
         "The prompts capability is advertised but the dump has no prompts/list."),
        ("surface", '{"contractpin-dump":"2","initialize":{"capabilities":{}},"tools/list":[{"tools":[]}],'
                    '"prompts/list":[{"prompts":[]}]}', "DUMP_INVALID", "surface-list-not-advertised",
         "A prompts/list the server did not advertise."),
        ("surface", '{"contractpin-dump":"2","initialize":{"capabilities":{"prompts":{}}},'
                    '"tools/list":[{"tools":[]}],"prompts/list":[{"prompts":[],"nextCursor":"c"}]}',
         "DUMP_INVALID", "surface-truncated-pages", "The last prompts/list page has a nextCursor."),
        ("surface", '{"contractpin-dump":"3","initialize":{},"tools/list":[{"tools":[]}]}', "DUMP_INVALID",
         "surface-unknown-dump-version", "An unknown dump version."),
        ("surface", '{"contractpin-dump":"2","initialize":{"id":0,"result":{"capabilities":{"tools":{}},'
                    '"instructions":"x"}},"tools/list":[{"tools":[]}]}', "DUMP_INVALID",
         "surface-initialize-response-without-jsonrpc", "An initialize response without jsonrpc is not "
         "read as a bare result (which would have no capabilities and no instructions)."),
        ("surface", '{"contractpin-dump":"2","initialize":{"capabilities":{"prompts":{}}},'
                    '"prompts/list":[{"prompts":[],"nextCursor":"a"},{"prompts":[],"nextCursor":"a"},'
                    '{"prompts":[]}]}', "DUMP_INVALID", "surface-repeated-cursor",
         "A cursor repeated inside a dump, as a live read refuses it."),
        ("surface", '{"contractpin-dump":"2","initialize":{"capabilities":{"prompts":{}}},'
                    '"prompts/list":[{"prompts":[],"nextCursor":1},{"prompts":[]}]}', "DUMP_INVALID",
         "surface-cursor-not-string", "nextCursor must be a string when present and not null."),
        ("surface", '{"contractpin-dump":"2","initialize":{"capabilities":{"resources":{}}},'
                    '"resources/templates/list":[{"resourceTemplates":[]}],"resources/list":null}', "DUMP_INVALID",
         "surface-resources-null-but-advertised", "resources/list null although resources are advertised."),
        ("surface", '{"contractpin-dump":"2","initialize":{"capabilities":{"tools":{}}}}', "DUMP_INVALID",
         "surface-missing-advertised-tools", "tools is advertised but the dump has no tools/list."),
        ("surface", '{"contractpin-dump":"2","initialize":{"capabilities":{"tools":{},"prompts":{}}},'
                    '"tools/list":[{"tools":[]}],"prompts/list":[{"jsonrpc":"2.0","id":2,'
                    '"error":{"code":-32603,"message":"broken"}}]}', "DUMP_INVALID",
         "surface-list-other-error", "An error response other than -32601 is no list."),
        ("surface", '{"contractpin-dump":"2","initialize":{"capabilities":{"tools":{},"prompts":{}}},'
                    '"tools/list":[{"tools":[]}],"prompts/list":[{"prompts":[],"nextCursor":"c"},'
                    '{"jsonrpc":"2.0","id":3,"error":{"code":-32601,"message":"Method not found"}}]}',
         "DUMP_INVALID", "surface-list-method-not-found-later-page",
         "-32601 on a later page is a failure, not an empty list."),
        ("surface", '{"contractpin-dump":"2","initialize":{"capabilities":{"tools":{},"prompts":{}}},'
                    '"tools/list":[{"tools":[]}],"prompts/list":[{"jsonrpc":"2.0","id":2,'
                    '"error":{"code":"-32601","message":"Method not found"}}]}', "DUMP_INVALID",
         "surface-list-method-not-found-string-code", "The code must be the number -32601, not a string."),
    ]:
        rej(name, note, stage, code, text=text)


# --------------------------------------------------------------------------
# Output, self-check, --check
# --------------------------------------------------------------------------
def for_output(v):
    """Write integral doubles below 1e21 as integers (exact, so JSON.parse gives the same double);
    -0.0 stays -0.0 so its sign survives; everything else as repr (also exact)."""
    if isinstance(v, float) and v.is_integer() and abs(v) < 1e21 and math.copysign(1, v) > 0:
        return int(v)
    if isinstance(v, list):
        return [for_output(e) for e in v]
    if isinstance(v, dict):
        return {k: for_output(e) for k, e in v.items()}
    return v


def same(a, b):
    """Strict equality: floats compare with their sign, bools are not numbers."""
    if type(a) is not type(b):
        return False
    if isinstance(a, float):
        return a == b and math.copysign(1, a) == math.copysign(1, b)
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    return a == b


SECTIONS = ("vectors", "servers", "rejections", "items", "surfaces", "side_pins")


def build():
    VECTORS.clear(), SERVERS.clear(), REJECTIONS.clear(), ITEMS.clear(), SURFACES.clear(), SIDE_PINS.clear()
    define()
    define_surface()
    doc = {"canonicalization": CANONICALIZATION, "generated_by": "tests/make_vectors.py",
           "vectors": VECTORS, "servers": SERVERS, "rejections": REJECTIONS,
           "items": ITEMS, "surfaces": SURFACES, "side_pins": SIDE_PINS}
    for section in SECTIONS:
        names = [e["name"] for e in doc[section]]
        assert len(names) == len(set(names)), f"duplicate names in {section}"
        assert all(re.fullmatch(r"[a-z0-9]+(?:-[a-z0-9]+)*", n) for n in names), names
    text = json.dumps(for_output(doc), ensure_ascii=True, indent=2, sort_keys=False, allow_nan=False) + "\n"
    # Self-check: what a consumer reads back from the file is what we computed from.
    back = parse_text(text)
    for orig, got in zip(VECTORS, back["vectors"]):
        assert same(orig["input"], got["input"]), orig["name"]
        if "input_text" in got:
            assert same(parse_text(got["input_text"]), got["input"]), orig["name"]
        target = project(got["input"]) if got["project"] else got["input"]
        assert canonical(target) == got["canonical"] == canonical(parse_text(got["canonical"])), orig["name"]
        assert got["digest"] == digest(target) and len(got["digest"]) == 71
    for orig, got in zip(SERVERS, back["servers"]):
        assert same(server_result(got["tools"]), got["result"]), orig["name"]
    for orig, got in zip(ITEMS, back["items"]):
        value = parse_text(got["input_text"]) if "input_text" in got else got["input"]
        assert got["digest"] == digest(project_item(got["kind"], value)), orig["name"]
    for orig, got in zip(SURFACES, back["surfaces"]):
        assert same(surface_server(got["dump"], got.get("resources", False)), got["result"]), orig["name"]
    for orig, got in zip(SIDE_PINS, back["side_pins"]):
        assert got["tool_digest"] == digest(project(got["tool"])), orig["name"]
        assert got["visibility"] == side_pins(got["tool"]).get("visibility"), orig["name"]
    return text


def dump_tools(doc):
    """The tools of a dump: a tools/list result, a JSON-RPC response carrying one,
    or an array of such pages (every page but the last has a nextCursor)."""
    pages = doc if isinstance(doc, list) else [doc]
    tools = []
    for i, page in enumerate(pages):
        if isinstance(page, dict) and "jsonrpc" in page:
            page = page["result"]
        cursor = page.get("nextCursor")
        if (cursor is None) != (i == len(pages) - 1):
            raise ValueError(f"page {i}: nextCursor does not match its place in the dump")
        tools.extend(page["tools"])
    return tools


def digest_dump(path):
    with open(path, "rb") as fh:
        doc = parse_bytes(fh.read())
    result = surface_server(doc) if isinstance(doc, dict) and "contractpin-dump" in doc else \
        server_result(dump_tools(doc))
    result["tool_count"] = int(result["tool_count"])
    print(json.dumps(result, ensure_ascii=False, indent=2))
    return 0


def main(argv):
    if len(argv) == 3 and argv[1] == "--digest-dump":
        return digest_dump(argv[2])
    text = build()
    if argv[1:] == ["--check"]:
        try:
            with open(OUT_PATH, "rb") as fh:
                old = fh.read()
        except FileNotFoundError:
            print(f"{OUT_PATH} is missing; run python3 tests/make_vectors.py", file=sys.stderr)
            return 1
        if old == text.encode("utf-8"):
            return 0
        print(f"{OUT_PATH} differs from the generator output:", file=sys.stderr)
        try:
            old_doc, new_doc = json.loads(old), json.loads(text)
            for section in SECTIONS:
                o = {e["name"]: e for e in old_doc.get(section, [])}
                n = {e["name"]: e for e in new_doc[section]}
                for name in sorted(set(o) | set(n)):
                    if name not in o:
                        print(f"  {section}: {name} missing from file", file=sys.stderr)
                    elif name not in n:
                        print(f"  {section}: {name} not generated", file=sys.stderr)
                    elif o[name] != n[name]:
                        print(f"  {section}: {name} changed", file=sys.stderr)
        except (ValueError, KeyError, TypeError, AttributeError):
            pass
        old_lines, new_lines = old.decode("utf-8", "replace").split("\n"), text.split("\n")
        first = next((i for i, (a, b) in enumerate(zip(old_lines, new_lines)) if a != b),
                     min(len(old_lines), len(new_lines)))
        print(f"  first differing line: {first + 1}", file=sys.stderr)
        return 1
    if argv[1:]:
        print("usage: make_vectors.py [--check | --digest-dump FILE]", file=sys.stderr)
        return 2
    with open(OUT_PATH, "wb") as fh:
        fh.write(text.encode("utf-8"))
    print(f"wrote {OUT_PATH}: {len(VECTORS)} vectors, {len(SERVERS)} servers, {len(REJECTIONS)} rejections, "
          f"{len(ITEMS)} items, {len(SURFACES)} surfaces")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
