"""Is a string an ECMA-262 regular expression (``u`` flag)? A linear, non-recursive check.

The ``regex`` format judges **request data**, so it must never compile it (Python's ``re``
takes super-linear time and memory on long patterns, caches them, recurses on nested
groups and accepts Python-only syntax such as ``(?P<n>...)``, ``(?#...)`` and ``(?i)``).
This module only parses the ES2018+ pattern grammar as Ajv uses it (``new RegExp(s, "u")``):
one pass, one stack of open groups, no caches, no recursion.

Checked: groups ``(...)``, ``(?:...)``, named groups ``(?<n>...)`` (unique names),
lookahead ``(?=``/``(?!`` and lookbehind ``(?<=``/``(?<!`` (not quantifiable in ``u``
mode), quantifiers ``* + ? {n} {n,} {n,m}`` (+ lazy ``?``, ``n <= m``, only after
something quantifiable), escapes valid in ``u`` mode (``\\d\\w\\s\\b``, ``\\p{...}``,
``\\cX``, ``\\xHH``, ``\\uHHHH``, ``\\u{H...}``, ``\\0``, identity escapes of syntax
characters and ``/``, ``\\k<n>`` and ``\\N`` referring to existing groups), character
classes (ranges in order, no class escape as a range end), and that a lone ``{ } ] )``
is an error as the ``u`` flag makes it.
"""
from __future__ import annotations

import re

_SYNTAX = frozenset("^$\\.*+?()[]{}|/")
_CONTROL = {"f": 0x0C, "n": 0x0A, "r": 0x0D, "t": 0x09, "v": 0x0B}
# Each regex is used with .match() at a position: one greedy run, no alternatives to retry.
_HEX2 = re.compile(r"[0-9A-Fa-f]{2}")
_HEX4 = re.compile(r"[0-9A-Fa-f]{4}")
_BRACED_HEX = re.compile(r"\{([0-9A-Fa-f]+)\}")
_DIGITS = re.compile(r"[0-9]+")
_QUANTIFIER = re.compile(r"\{([0-9]+)(,([0-9]*))?\}")
_NAME = re.compile(r"[\w$\u200c\u200d]+")
_ORDINARY = re.compile(r"[^\\^$*+?()[\]{}|]+")
_PROPERTY = re.compile(r"\{([A-Za-z_]+)(?:=([A-Za-z0-9_]+))?\}")

# \p{...} names (ECMA-262 table-driven; the lists Ajv's engine, V8, accepts).
_GENERAL_CATEGORIES = frozenset("""
C Other Cc Control cntrl Cf Format Cn Unassigned Co Private_Use Cs Surrogate
L Letter LC Cased_Letter Ll Lowercase_Letter Lm Modifier_Letter Lo Other_Letter Lt Titlecase_Letter
Lu Uppercase_Letter M Mark Combining_Mark Mc Spacing_Mark Me Enclosing_Mark Mn Nonspacing_Mark
N Number Nd Decimal_Number digit Nl Letter_Number No Other_Number P Punctuation punct
Pc Connector_Punctuation Pd Dash_Punctuation Pe Close_Punctuation Pf Final_Punctuation
Pi Initial_Punctuation Po Other_Punctuation Ps Open_Punctuation S Symbol Sc Currency_Symbol
Sk Modifier_Symbol Sm Math_Symbol So Other_Symbol Z Separator Zl Line_Separator
Zp Paragraph_Separator Zs Space_Separator""".split())
_BINARY_PROPERTIES = frozenset("""
ASCII ASCII_Hex_Digit AHex Alphabetic Alpha Any Assigned Bidi_Control Bidi_C Bidi_Mirrored Bidi_M
Case_Ignorable CI Cased Changes_When_Casefolded CWCF Changes_When_Casemapped CWCM
Changes_When_Lowercased CWL Changes_When_NFKC_Casefolded CWKCF Changes_When_Titlecased CWT
Changes_When_Uppercased CWU Dash Default_Ignorable_Code_Point DI Deprecated Dep Diacritic Dia
Emoji Emoji_Component EComp Emoji_Modifier EMod Emoji_Modifier_Base EBase Emoji_Presentation EPres
Extended_Pictographic ExtPict Extender Ext Grapheme_Base Gr_Base Grapheme_Extend Gr_Ext Hex_Digit Hex
IDS_Binary_Operator IDSB IDS_Trinary_Operator IDST ID_Continue IDC ID_Start IDS Ideographic Ideo
Join_Control Join_C Logical_Order_Exception LOE Lowercase Lower Math Noncharacter_Code_Point NChar
Pattern_Syntax Pat_Syn Pattern_White_Space Pat_WS Quotation_Mark QMark Radical Regional_Indicator RI
Sentence_Terminal STerm Soft_Dotted SD Terminal_Punctuation Term Unified_Ideograph UIdeo Uppercase
Upper Variation_Selector VS White_Space space XID_Continue XIDC XID_Start XIDS""".split())
_SCRIPT_KEYS = frozenset(("Script", "sc", "Script_Extensions", "scx"))
_CATEGORY_KEYS = frozenset(("General_Category", "gc"))

#: A class escape (\d, \p{..}...) as a range end is an error: marks such an atom.
_SET = -1


def _group_name(name: str) -> bool:
    # RegExpIdentifierName: ID_Start / $ / _ then ID_Continue / $ / ZWNJ / ZWJ.
    return bool(name) and name.replace("$", "_").replace("\u200c", "").replace("\u200d", "").isidentifier() \
        and not name[0] in "\u200c\u200d"


def _property(pattern: str, at: int) -> int:
    """``at`` is on the ``{`` after ``\\p``; the index after ``}``, or -1."""
    match = _PROPERTY.match(pattern, at)
    if match is None:
        return -1
    name, value = match.groups()
    if value is None:
        ok = name in _GENERAL_CATEGORIES or name in _BINARY_PROPERTIES
    elif name in _CATEGORY_KEYS:
        ok = value in _GENERAL_CATEGORIES
    else:
        ok = name in _SCRIPT_KEYS  # script names: syntax only (no table of them here)
    return match.end() if ok else -1


def _char_escape(pattern: str, at: int, in_class: bool) -> tuple[int, int]:
    """A CharacterEscape or class escape at ``at`` (just after the backslash).

    Returns (index after it, code point or ``_SET``), or (-1, 0) when invalid.
    """
    n = len(pattern)
    if at >= n:
        return -1, 0
    char = pattern[at]
    if char in "dDsSwW":
        return at + 1, _SET
    if char in "pP":
        end = _property(pattern, at + 1)
        return (end, _SET) if end > 0 else (-1, 0)
    if char in _CONTROL:
        return at + 1, _CONTROL[char]
    if char == "c":
        if at + 1 < n and pattern[at + 1].isascii() and pattern[at + 1].isalpha():
            return at + 2, ord(pattern[at + 1]) % 32
        return -1, 0
    if char == "0":
        if at + 1 < n and pattern[at + 1].isdigit() and pattern[at + 1].isascii():
            return -1, 0  # octal escapes are Annex B only
        return at + 1, 0
    if char == "x":
        match = _HEX2.match(pattern, at + 1)
        return (match.end(), int(match.group(), 16)) if match else (-1, 0)
    if char == "u":
        match = _BRACED_HEX.match(pattern, at + 1)
        if match:
            digits = match.group(1).lstrip("0")
            if len(digits) > 6 or (digits and int(digits, 16) > 0x10FFFF):
                return -1, 0
            return match.end(), int(digits or "0", 16)
        match = _HEX4.match(pattern, at + 1)
        if match is None:
            return -1, 0
        value = int(match.group(), 16)
        # A surrogate pair written as two escapes is one code point under the u flag.
        if 0xD800 <= value <= 0xDBFF and pattern.startswith("\\u", match.end()):
            low = _HEX4.match(pattern, match.end() + 2)
            if low and 0xDC00 <= int(low.group(), 16) <= 0xDFFF:
                return low.end(), 0x10000 + ((value - 0xD800) << 10) + int(low.group(), 16) - 0xDC00
        return match.end(), value
    if char in _SYNTAX:
        return at + 1, ord(char)
    if in_class and char == "b":
        return at + 1, 0x08
    if in_class and char == "-":
        return at + 1, 0x2D
    return -1, 0


def _class(pattern: str, at: int) -> int:
    """``at`` is on ``[``; the index after the closing ``]``, or -1 when invalid."""
    n = len(pattern)
    at += 1
    if at < n and pattern[at] == "^":
        at += 1
    previous = None  # the code point (or _SET) of an atom that may start a range
    while at < n:
        char = pattern[at]
        if char == "]":
            return at + 1
        if char == "\\":
            at, value = _char_escape(pattern, at + 1, in_class=True)
            if at < 0:
                return -1
        else:
            at, value = at + 1, ord(char)
        if previous is not None and previous[1]:
            # previous = (start value, saw "-"): this atom ends a range.
            if previous[0] == _SET or value == _SET or previous[0] > value:
                return -1
            previous = None
            continue
        if at < n - 1 and pattern[at] == "-" and pattern[at + 1] != "]":
            previous = (value, True)
            at += 1
        else:
            previous = None
    return -1


def is_ecma_regex(pattern: str) -> bool:
    """Whether ``new RegExp(pattern, "u")`` would compile, in one linear pass."""
    n = len(pattern)
    at = 0
    open_groups: list[bool] = []  # per open group: is it quantifiable (not a lookaround)?
    captures = 0
    names: set[str] = set()
    named_references: list[str] = []
    highest_reference = 0
    quantifiable = False
    while at < n:
        char = pattern[at]
        if char == "(":
            if pattern.startswith("(?", at):
                if pattern.startswith("(?:", at):
                    open_groups.append(True)
                    at += 3
                elif pattern.startswith("(?=", at) or pattern.startswith("(?!", at):
                    open_groups.append(False)
                    at += 3
                elif pattern.startswith("(?<=", at) or pattern.startswith("(?<!", at):
                    open_groups.append(False)
                    at += 4
                elif pattern.startswith("(?<", at):
                    match = _NAME.match(pattern, at + 3)
                    if match is None or match.end() >= n or pattern[match.end()] != ">":
                        return False
                    name = match.group()
                    if not _group_name(name) or name in names:
                        return False
                    names.add(name)
                    captures += 1
                    open_groups.append(True)
                    at = match.end() + 1
                else:
                    return False  # (?P<n>, (?#, (?i) and other non-ECMAScript groups
            else:
                captures += 1
                open_groups.append(True)
                at += 1
            quantifiable = False
        elif char == ")":
            if not open_groups:
                return False
            quantifiable = open_groups.pop()
            at += 1
        elif char in "*+?":
            if not quantifiable:
                return False
            at += 2 if pattern.startswith("?", at + 1) else 1
            quantifiable = False
        elif char == "{":
            match = _QUANTIFIER.match(pattern, at)
            if match is None or not quantifiable:
                return False
            low, _comma, high = match.groups()
            if high:
                low, high = low.lstrip("0"), high.lstrip("0")
                # Compare as numbers without int() (quadratic on long digit strings).
                if (len(low), low) > (len(high), high):
                    return False
            at = match.end()
            at += 1 if pattern.startswith("?", at) else 0
            quantifiable = False
        elif char in "}]|^$":
            if char in "}]":
                return False  # a lone brace or bracket is an error under the u flag
            quantifiable = False
            at += 1
        elif char == "[":
            at = _class(pattern, at)
            if at < 0:
                return False
            quantifiable = True
        elif char == "\\":
            if at + 1 >= n:
                return False
            following = pattern[at + 1]
            if following in "bB":
                at += 2
                quantifiable = False
                continue
            if following == "k":
                if not pattern.startswith("<", at + 2):
                    return False
                match = _NAME.match(pattern, at + 3)
                if match is None or match.end() >= n or pattern[match.end()] != ">":
                    return False
                named_references.append(match.group())
                at = match.end() + 1
            elif following in "123456789":
                # (always a match: the character there is a digit)
                digits = _DIGITS.match(pattern, at + 1).group()  # type: ignore[union-attr]
                if len(digits) > 7:  # more than any pattern of this length can have groups
                    return False
                highest_reference = max(highest_reference, int(digits))
                at += 1 + len(digits)
            else:
                at, _ = _char_escape(pattern, at + 1, in_class=False)
                if at < 0:
                    return False
            quantifiable = True
        else:
            # A run of ordinary characters (and "."): one regex step instead of one loop
            # turn per character; a quantifier after it applies to its last character.
            at = _ORDINARY.match(pattern, at).end()  # type: ignore[union-attr]  # (always a match here)
            quantifiable = True
    return not open_groups and highest_reference <= captures and all(name in names for name in named_references)

