"""Mathematics in the report: TeX to MathML by latex2mathml, and the same names for matplotlib.

Current Chromium, Firefox and Safari render MathML natively: no script, no font download, offline.

* :func:`text_html` — prose with ``$...$``, ``$$...$$``, ``\\(...\\)`` and ``\\[...\\]`` (statements,
  hypothesis descriptions, errata).
* :func:`label_html` — a short name written in code (a hypothesis, a comparison, a quantity, a series):
  its ``$...$`` parts, and otherwise its pseudo-TeX tokens (``w_+^T``, ``C_{delta/2}``, ``W_max^2``,
  ``\\gamma``), become MathML; everything else stays text.
* :func:`label_mathtext` — the same name for a matplotlib label (mathtext between ``$``).

latex2mathml copies ``\\text{...}`` and ``\\href`` through unescaped, so its output is rebuilt here from
a whitelist of MathML elements and attributes with every text escaped; TeX it cannot convert is shown
as escaped source.
"""

from __future__ import annotations

import re
from functools import lru_cache
from html import escape
from html.parser import HTMLParser

from latex2mathml.converter import convert

MAX_TEX_CHARS = 4000  # longer formulas (or runaway $) are shown as source

MATHML_TAGS = frozenset("""
math mrow mi mn mo ms mtext mspace msub msup msubsup mfrac msqrt mroot mover munder munderover mtable mtr
mtd mstyle mpadded mphantom menclose merror mmultiscripts mprescripts none semantics
""".split())
MATHML_ATTRS = frozenset("""
xmlns display mathvariant stretchy fence form lspace rspace columnalign rowalign columnspacing rowspacing
displaystyle scriptlevel accent accentunder movablelimits linethickness width height depth separator
notation minsize maxsize symmetric largeop columnlines rowlines frame framespacing mathsize
""".split())


# Attributes that say what HTML assumes anyway (MathML inside HTML needs no namespace).
_DEFAULT_ATTRS = frozenset({("xmlns", "http://www.w3.org/1998/Math/MathML"), ("display", "inline")})


class _Rebuild(HTMLParser):
    """Re-serialise latex2mathml's output keeping only MathML elements and attributes, text escaped, and
    a row of one element replaced by that element (the same mathematics, a third fewer bytes)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root: list = ["", "", []]
        self.stack: list[list] = [self.root]

    def handle_starttag(self, tag: str, attrs: list) -> None:
        if tag not in MATHML_TAGS:
            return
        kept = "".join(f' {a}="{escape(v or "", quote=True)}"' for a, v in attrs
                       if a in MATHML_ATTRS and (a, v) not in _DEFAULT_ATTRS)
        node: list = [tag, kept, []]
        self.stack[-1][2].append(node)
        self.stack.append(node)

    def handle_startendtag(self, tag: str, attrs: list) -> None:
        self.handle_starttag(tag, attrs)
        self.handle_endtag(tag)

    def handle_endtag(self, tag: str) -> None:
        if tag in MATHML_TAGS and any(n[0] == tag for n in self.stack[1:]):
            while len(self.stack) > 1:
                if self.stack.pop()[0] == tag:
                    break

    def handle_data(self, data: str) -> None:
        self.stack[-1][2].append(escape(data, quote=False))

    @staticmethod
    def _serialise(node: list | str) -> str:
        if isinstance(node, str):
            return node
        tag, attrs, children = node
        if tag == "mrow" and not attrs and len(children) == 1 and not isinstance(children[0], str):
            return _Rebuild._serialise(children[0])
        inner = "".join(_Rebuild._serialise(c) for c in children)
        return f"<{tag}{attrs}>{inner}</{tag}>" if tag else inner

    def result(self) -> str:
        self.close()
        return self._serialise(self.root)


_UNKNOWN = re.compile(r"<m[io][^>]*>\\[A-Za-z]+</m[io]>")


@lru_cache(maxsize=4096)
def math_html(tex: str, display: bool = False) -> str:
    """One formula as MathML (``display`` for a block); escaped source when it cannot be converted."""
    tex = tex.strip()
    if not tex or len(tex) > MAX_TEX_CHARS:
        return f'<code class="tex">{escape(tex)}</code>'
    try:
        raw = convert(tex, display="block" if display else "inline")
    except Exception:  # latex2mathml raises many types on malformed input; show the source instead
        return f'<code class="tex">{escape(tex)}</code>'
    rebuilt = _Rebuild()
    rebuilt.feed(raw)
    out = rebuilt.result()
    # A command latex2mathml does not know is copied as an identifier: show it as an upright name.
    out = _UNKNOWN.sub(lambda m: m.group(0).replace("\\", ""), out)
    return out


_MATH = re.compile(r"\$\$(.+?)\$\$|\\\[(.+?)\\\]|\$(.+?)\$|\\\((.+?)\\\)", re.S)


def text_html(text: object) -> str:
    """Prose with TeX math segments: the math as MathML, the rest escaped, pseudo-TeX names too."""
    return _text_html("" if text is None else str(text))


@lru_cache(maxsize=16384)
def _text_html(text: str) -> str:
    # A standard report converts ~40,000 texts, ~7,000 of them distinct (the same names in every fixture).
    out, pos = [], 0
    for m in _MATH.finditer(text):
        out.append(_plain_html(text[pos:m.start()]))
        display = m.group(1) is not None or m.group(2) is not None
        tex = next(g for g in m.groups() if g is not None)
        out.append(math_html(tex, display))
        pos = m.end()
    out.append(_plain_html(text[pos:]))
    return "".join(out)


def label_html(text: object) -> str:
    """A short name from code: ``$...$`` parts and pseudo-TeX tokens as MathML, the rest escaped."""
    return text_html(text)


FIRST_LINE_CHARS = 160
_MATH_SPLIT = re.compile(r"(\$\$.+?\$\$|\$.+?\$|\\\(.+?\\\)|\\\[.+?\\\])", re.S)


def first_line(statement: str, limit: int = FIRST_LINE_CHARS) -> str:
    """The statement's first line (or sentence), cut at ``limit`` characters outside math only."""
    text = statement.strip().split("\n\n", 1)[0].replace("\n", " ")
    out, n = [], 0
    for k, piece in enumerate(_MATH_SPLIT.split(text)):
        if k % 2:  # a formula: whole or not at all
            if n and n + len(piece) > limit * 1.5:
                return "".join(out).rstrip() + " …"
            out.append(piece)
            n += len(piece) // 2
            continue
        # the first sentence end at least 40 characters in (an abbreviation early on is not one)
        skip = max(0, 40 - n)
        sentence_end = re.search(r"(?<=[a-z0-9)\]>])\.\s", piece[skip:]) if n + len(piece) > 40 else None
        if sentence_end and n + skip + sentence_end.start() <= limit:
            out.append(piece[:skip + sentence_end.start() + 1])
            return "".join(out)
        if n + len(piece) > limit:
            cut = piece[:max(0, limit - n)].rsplit(" ", 1)[0]
            return ("".join(out) + cut).rstrip() + " …"
        out.append(piece)
        n += len(piece)
    return "".join(out)



# --- pseudo-TeX in plain text ---------------------------------------------------------------------

GREEK = ("alpha beta gamma delta epsilon varepsilon eps zeta eta theta vartheta iota kappa lambda mu nu xi "
         "pi rho sigma tau upsilon phi varphi chi psi omega Gamma Delta Theta Lambda Xi Pi Sigma Phi Psi "
         "Omega").split()
OPERATORS = ("max min sup inf log exp lim argmax argmin sgn sign diag tr cos sin tan ln").split()
_BASE = (r"(?:\\?(?:" + "|".join(sorted(GREEK, key=len, reverse=True)) + r")(?![A-Za-z])"
         r"|(?:" + "|".join(OPERATORS) + r")(?=[_^])|[A-Za-z])'*")
_ONE = r"(?:\{[^{}]{0,60}\}|\\[A-Za-z]+|[A-Za-z0-9]+|[+\-*])"
_SCRIPTS = r"(?:_" + _ONE + r"(?:\^" + _ONE + r")?|\^" + _ONE + r"(?:_" + _ONE + r")?)"  # one of each at most
_TOKEN = re.compile(r"(?<![A-Za-z0-9_\\])(?:" + _BASE + r")" + _SCRIPTS + r"(?![A-Za-z0-9_^{])"
                    r"|(?<![A-Za-z0-9\\])\\[A-Za-z]+" + _SCRIPTS + r"?(?![A-Za-z0-9_^{])")
_GREEK_WORD = re.compile(r"(?<![A-Za-z\\])(" + "|".join(sorted(GREEK, key=len, reverse=True)) + r")(?![A-Za-z])")
_WORD = re.compile(r"(?<![A-Za-z\\])([A-Za-z]{2,})(?![A-Za-z])")


def _greek(name: str) -> str:
    return {"eps": "varepsilon"}.get(name, name)


def _script_tex(body: str) -> str:
    """A subscript or superscript body: greek names as commands, other words upright."""
    def word(m: re.Match) -> str:
        w = m.group(1)
        if w in GREEK:
            return "\\" + _greek(w)
        if w in OPERATORS:
            return "\\operatorname{" + w + "}"
        return "\\text{" + w + "}"

    return _WORD.sub(word, body)


def token_tex(token: str) -> str:
    """A pseudo-TeX token of plain text (``W_max^2``, ``C_{delta/2}``, ``x_-``) as TeX."""
    m = re.match(_BASE, token)
    base, rest = (m.group(0), token[m.end():]) if m else ("", token)
    bare = base.lstrip("\\").rstrip("'")
    primes = base[len(base.rstrip("'")):]
    if bare in GREEK:
        base_tex = "\\" + _greek(bare)
    elif bare in OPERATORS:
        base_tex = "\\operatorname{" + bare + "}"
    else:
        base_tex = base.rstrip("'")
    out = [base_tex + primes]
    for kind, body in re.findall(r"([_^])(\{[^{}]*\}|\\[A-Za-z]+|[A-Za-z0-9]+|[+\-*])", rest):
        inner = body[1:-1] if body.startswith("{") else body
        if not body.startswith("\\"):
            inner = _script_tex(inner)
        out.append(kind + "{" + inner + "}")
    return "".join(out)


_POWER = re.compile(r"(?<=[)|\]])\^(\{[^{}]{1,20}\}|[A-Za-z0-9+\-]{1,4})")


def _escape_plain(text: str) -> str:
    """Escaped text, with a power after a bracket or a norm (``||w||^2``, ``(1+t)^-1``) raised."""
    out, pos = [], 0
    for m in _POWER.finditer(text):
        out.append(escape(text[pos:m.start()]))
        out.append("<sup>" + escape(m.group(1).strip("{}")) + "</sup>")
        pos = m.end()
    out.append(escape(text[pos:]))
    return "".join(out)


def _plain_html(text: str) -> str:
    out, pos = [], 0
    for m in _TOKEN.finditer(text):
        out.append(_escape_plain(text[pos:m.start()]))
        out.append(math_html(token_tex(m.group(0))))
        pos = m.end()
    out.append(_escape_plain(text[pos:]))
    return "".join(out)


# --- matplotlib -----------------------------------------------------------------------------------


@lru_cache(maxsize=2048)
def _mathtext_ok(s: str) -> bool:
    from matplotlib.mathtext import MathTextParser

    try:
        MathTextParser("path").parse(s)
        return True
    except Exception:  # mathtext raises ValueError (and others) on what it cannot typeset
        return False


def _mathtext_escape(text: str) -> str:
    return text.replace("$", r"\$")


def label_mathtext(text: object) -> str:
    """A label for matplotlib: ``$...$`` kept where mathtext can typeset it, pseudo-TeX tokens
    wrapped in ``$...$``; anything mathtext cannot typeset is shown as plain text."""
    text = "" if text is None else str(text)
    if text.count("$") >= 2 and text.count("$") % 2 == 0:
        return text if _mathtext_ok(text) else _mathtext_escape(text)
    out, pos = [], 0
    for m in _TOKEN.finditer(text):
        out.append(_mathtext_escape(text[pos:m.start()]))
        piece = "$" + token_tex(m.group(0)).replace("\\operatorname", "\\mathrm").replace("\\text{", "\\mathrm{") + "$"
        out.append(piece if _mathtext_ok(piece) else _mathtext_escape(m.group(0)))
        pos = m.end()
    out.append(_mathtext_escape(text[pos:]))
    return "".join(out)


def has_raw_tex(text: str) -> bool:
    """Whether visible text still shows TeX: a ``\\command``, or a ``_{`` / ``^{`` group."""
    return bool(re.search(r"\\[A-Za-z]{2,}|[_^]\{", text))


# --- plain-text mathematics in prose (errata fields, quotes, summaries) ---------------------------------

_GREEK_ALT = "|".join(sorted(GREEK, key=len, reverse=True))
_SIGN = r"(?:\+-|\+|-)"
# What may follow a converted token: not a letter or digit (it would be part of a word), not a script (the
# pseudo-TeX tokens handle those).
_END = r"(?![A-Za-z0-9_^~])"
_PLAIN_MATH = re.compile(
    r"(?P<norm>\|\|(?P<inner>[^|\n]{1,48}?)\|\|(?P<nsub>_\{[^{}]{1,12}\}|_[A-Za-z0-9]{1,3})?"
    r"(?P<npow>\^\{[^{}]{1,12}\}|\^[0-9]{1,2})?)"
    r"|(?P<exp>(?<![A-Za-z0-9])e\^\{(?P<ebody>[^{}\n]{1,48})\})"
    r"|(?P<sqrt>(?<![A-Za-z])sqrt\((?P<sbody>[^()\n]{1,32})\))"
    r"|(?P<ppow>(?<![A-Za-z0-9\\])(?P<pbase>" + _GREEK_ALT + r"|[A-Za-z])\^\((?P<pbody>[^()\n]{1,16})\))"
    r"|(?P<tilde>(?<![A-Za-z0-9\\])(?P<tbase>" + _GREEK_ALT + r"|[A-Za-z])~(?P<tscripts>" + _SCRIPTS + r")?(?![A-Za-z0-9]))"
    r"|(?P<bar>(?<![A-Za-z0-9\\])(?P<bbase>" + _GREEK_ALT + r"|[A-Za-z])bar(?P<bdigits>[0-9]{0,2})(?P<bsign>" + _SIGN
    + r")?(?P<bscripts>" + _SCRIPTS + r")?" + _END + r")"
    r"|(?P<hat>(?<![A-Za-z0-9\\])(?P<hbase>" + _GREEK_ALT + r"|[A-Za-z])\^(?=[\s,.;:)]|$))"
    r"|(?P<greek>(?<![A-Za-z0-9\\])(?P<gname>" + _GREEK_ALT + r")(?P<gdigits>[0-9]{0,2})(?P<gsign>" + _SIGN
    + r")?" + _END + r")")
_RELATIONS = (("<=", r"\le "), (">=", r"\ge "), ("!=", r"\ne "), ("->", r"\to "), ("+-", r"\pm "))


def _sign_tex(sign: str) -> str:
    return r"\pm" if sign == "+-" else sign


def _piece_tex(m: re.Match) -> str:
    """One match of :data:`_PLAIN_MATH` as TeX (no dollars)."""
    if m.group("norm"):
        out = r"\|" + plain_expr_tex(m.group("inner")) + r"\|"
        for g in ("nsub", "npow"):
            part = m.group(g)
            if part:
                body = part[1:].strip("{}")
                out += part[0] + "{" + _script_tex(body) + "}"
        return out
    if m.group("exp"):
        return "e^{" + plain_expr_tex(m.group("ebody")) + "}"
    if m.group("ppow"):
        return token_tex(m.group("pbase")) + "^{" + plain_expr_tex(m.group("pbody")) + "}"
    if m.group("sqrt"):
        return r"\sqrt{" + plain_expr_tex(m.group("sbody")) + "}"
    if m.group("tilde"):
        base = m.group("tbase")
        scripts = m.group("tscripts") or ""
        return r"\tilde{" + token_tex(base) + "}" + (token_tex("x" + scripts)[1:] if scripts else "")
    if m.group("hat"):
        return r"\hat{" + token_tex(m.group("hbase")) + "}"
    if m.group("bar"):
        out = r"\bar{" + token_tex(m.group("bbase")) + "}"
        digits, sign, scripts = m.group("bdigits"), m.group("bsign") or "", m.group("bscripts") or ""
        if scripts:
            return out + token_tex("x" + scripts)[1:]
        return out + _suffix_tex(digits, sign)
    name, digits, sign = m.group("gname"), m.group("gdigits"), m.group("gsign") or ""
    return "\\" + _greek(name) + _suffix_tex(digits, sign)


def _suffix_tex(digits: str, sign: str) -> str:
    """``0`` / ``+`` / ``0+`` after a name: a subscript index, a sign as subscript (or superscript after
    an index)."""
    if digits and sign:
        return "_{" + digits + "}^{" + _sign_tex(sign) + "}"
    if digits or sign:
        return "_{" + (digits or _sign_tex(sign)) + "}"
    return ""


def plain_expr_tex(expr: str) -> str:
    """A short plain-text expression (the inside of a norm, an exponent) as TeX: greek names, tildes,
    pseudo-TeX tokens and relations converted, TeX's special characters escaped."""
    out, pos = [], 0
    for m in re.finditer(_PLAIN_MATH.pattern + r"|(?P<token>" + _TOKEN.pattern + ")", expr):
        out.append(_tex_text(expr[pos:m.start()]))
        out.append(token_tex(m.group("token")) if m.group("token") else _piece_tex(m))
        pos = m.end()
    out.append(_tex_text(expr[pos:]))
    return "".join(out)


def _tex_text(s: str) -> str:
    for a, b in _RELATIONS:
        s = s.replace(a, b)
    return re.sub(r"([#%&$])", r"\\\1", s)


def plain_math_tex(text: object) -> str:
    """Prose whose plain-text mathematics (``||theta0||_M``, ``mu~``, ``lambda0+``, ``e^{-||mu-|| t/2}``,
    ``sqrt(m)``, a greek name) is wrapped as TeX ``$...$``, so that :func:`text_html` typesets it beside the
    TeX already there. Conservative: only these shapes, each whole; anything else stays text (and the
    pseudo-TeX tokens, ``w_+^T``, are typeset by :func:`text_html` anyway). Existing TeX is left as it is."""
    text = "" if text is None else str(text)
    out, pos = [], 0
    for m in _MATH.finditer(text):
        out.append(_plain_segment(text[pos:m.start()]))
        out.append(m.group(0))
        pos = m.end()
    out.append(_plain_segment(text[pos:]))
    return "".join(out)


# Relations written in ASCII between spaces, in the prose around the formulas: their symbols.
_PROSE_RELATIONS = re.compile(r"(?<=\s)(<=|>=|!=|->|~)(?=\s)")
_PROSE_SYMBOLS = {"<=": "≤", ">=": "≥", "!=": "≠", "->": "→", "~": "∼"}


def _prose(text: str) -> str:
    return _PROSE_RELATIONS.sub(lambda m: _PROSE_SYMBOLS[m.group(1)], text)


def _plain_segment(text: str) -> str:
    """Each run of adjacent matches as one ``$...$`` (two spans side by side would read as ``$$``)."""
    out, pos, run = [], 0, []
    for m in _PLAIN_MATH.finditer(text):
        if run and m.start() != pos:
            out.append("$" + "".join(run) + "$")
            run = []
        if not run:
            out.append(_prose(text[pos:m.start()]))
        run.append(_piece_tex(m))
        pos = m.end()
    if run:
        out.append("$" + "".join(run) + "$")
    out.append(_prose(text[pos:]))
    return "".join(out)


def prose_html(text: object) -> str:
    """Prose written in plain text with some TeX (errata fields, summaries): :func:`plain_math_tex`, then
    :func:`text_html`."""
    return text_html(plain_math_tex(text))
