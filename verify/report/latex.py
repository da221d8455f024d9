"""Readable HTML for LaTeX statements, without MathJax: Unicode symbols, sub/superscripts, fractions.

Every piece of the source that reaches the output passes through :func:`html.escape`; the only markup
produced is a fixed set of tags (``span``, ``i``, ``b``, ``sub``, ``sup``, ``br``). Anything the
converter does not understand is shown as its source text.
"""

from __future__ import annotations

import re
from html import escape

GREEK = {
    "alpha": "α", "beta": "β", "gamma": "γ", "delta": "δ", "epsilon": "ϵ", "varepsilon": "ε",
    "zeta": "ζ", "eta": "η", "theta": "θ", "vartheta": "ϑ", "iota": "ι", "kappa": "κ", "lambda": "λ",
    "mu": "μ", "nu": "ν", "xi": "ξ", "pi": "π", "rho": "ρ", "varrho": "ϱ", "sigma": "σ", "tau": "τ",
    "upsilon": "υ", "phi": "ϕ", "varphi": "φ", "chi": "χ", "psi": "ψ", "omega": "ω", "Gamma": "Γ",
    "Delta": "Δ", "Theta": "Θ", "Lambda": "Λ", "Xi": "Ξ", "Pi": "Π", "Sigma": "Σ", "Upsilon": "Υ",
    "Phi": "Φ", "Psi": "Ψ", "Omega": "Ω",
}
RELATIONS = {
    "le": "≤", "leq": "≤", "leqslant": "⩽", "ge": "≥", "geq": "≥", "geqslant": "⩾", "neq": "≠", "ne": "≠",
    "approx": "≈", "sim": "∼", "simeq": "≃", "equiv": "≡", "propto": "∝", "to": "→", "rightarrow": "→",
    "leftarrow": "←", "Rightarrow": "⇒", "Leftarrow": "⇐", "implies": "⇒", "iff": "⇔",
    "Leftrightarrow": "⇔", "mapsto": "↦", "in": "∈", "notin": "∉", "ni": "∋", "subset": "⊂",
    "subseteq": "⊆", "supset": "⊃", "supseteq": "⊇", "gg": "≫", "ll": "≪", "prec": "≺", "succ": "≻",
    "preceq": "⪯", "succeq": "⪰", "perp": "⊥", "mid": "∣", "triangleq": "≜", "coloneqq": "≔",
    "coloneq": "≔", "parallel": "∥", "searrow": "↘", "nearrow": "↗", "downarrow": "↓", "uparrow": "↑",
}
SYMBOLS = {
    "infty": "∞", "cup": "∪", "cap": "∩", "setminus": "∖", "emptyset": "∅", "varnothing": "∅",
    "forall": "∀", "exists": "∃", "neg": "¬", "lnot": "¬", "land": "∧", "wedge": "∧", "lor": "∨",
    "vee": "∨", "sum": "∑", "prod": "∏", "int": "∫", "oint": "∮", "partial": "∂", "nabla": "∇",
    "cdot": "·", "times": "×", "circ": "∘", "pm": "±", "mp": "∓", "langle": "⟨", "rangle": "⟩",
    "lVert": "‖", "rVert": "‖", "Vert": "‖", "|": "‖", "vert": "|", "lvert": "|", "rvert": "|",
    "ldots": "…", "cdots": "⋯", "dots": "…", "vdots": "⋮", "ddots": "⋱", "ell": "ℓ", "top": "⊤",
    "star": "⋆", "ast": "∗", "odot": "⊙", "otimes": "⊗", "oplus": "⊕", "lfloor": "⌊", "rfloor": "⌋",
    "lceil": "⌈", "rceil": "⌉", "colon": ":", "prime": "′", "dagger": "†", "bullet": "•", "{": "{",
    "}": "}", "%": "%", "$": "$", "&": "&", "_": "_", "#": "#", "angle": "∠", "square": "□",
    "lbrace": "{", "rbrace": "}", "backslash": "\\", "hbar": "ℏ", "Re": "ℜ", "Im": "ℑ",
}
FUNCTIONS = {
    "log", "ln", "exp", "sin", "cos", "tan", "tanh", "lim", "liminf", "limsup", "max", "min", "sup",
    "inf", "arg", "argmax", "argmin", "det", "dim", "ker", "rank", "sign", "sgn", "tr", "Pr", "deg",
    "diag", "span", "supp", "conv", "cone", "Var", "Cov", "poly", "polylog", "dist", "vol",
}
SPACES = {",": "\u2009", ";": "\u2005", ":": "\u2005", "!": "", " ": " ", "quad": "\u2003",
          "qquad": "\u2003\u2003", "enspace": "\u2002"}
IGNORED = {
    "left", "right", "big", "Big", "bigg", "Bigg", "bigl", "bigr", "Bigl", "Bigr", "biggl", "biggr",
    "Biggl", "Biggr", "displaystyle", "textstyle", "scriptstyle", "limits", "nolimits", "nonumber",
    "middle", "label", "tag", "rm", "bf", "it", "sf", "tt",
}
UPRIGHT_TEXT = {"text", "textrm", "mathrm", "operatorname", "mbox", "mathsf", "texttt", "textnormal",
                "textit", "mathit", "emph"}
BOLD = {"mathbf", "boldsymbol", "bm", "textbf", "pmb"}
ACCENTS = {"hat": "\u0302", "widehat": "\u0302", "tilde": "\u0303", "widetilde": "\u0303",
           "bar": "\u0304", "vec": "\u20d7", "dot": "\u0307", "ddot": "\u0308", "check": "\u030c"}
DOUBLE_STRUCK = {"R": "ℝ", "N": "ℕ", "Z": "ℤ", "Q": "ℚ", "C": "ℂ", "E": "𝔼", "P": "ℙ", "S": "𝕊",
                 "1": "𝟙", "H": "ℍ"}
SCRIPT_HOLES = {"B": "ℬ", "E": "ℰ", "F": "ℱ", "H": "ℋ", "I": "ℐ", "L": "ℒ", "M": "ℳ", "R": "ℛ"}
_REL_CHARS = {"=": "=", "<": "&lt;", ">": "&gt;"}
_MATH_SPLIT = re.compile(r"(\$\$.+?\$\$|\\\[.+?\\\]|\\\(.+?\\\)|(?<!\\)\$.+?(?<!\\)\$)", re.S)


def script_letter(c: str) -> str:
    """``\\mathcal{c}``: the Unicode mathematical script capital (U+1D49C block, with its holes)."""
    if c in SCRIPT_HOLES:
        return SCRIPT_HOLES[c]
    if "A" <= c <= "Z":
        return chr(0x1D49C + ord(c) - ord("A"))
    return c


class _MathReader:
    """Recursive-descent reader of one math segment; each ``atom`` returns safe HTML."""

    def __init__(self, src: str):
        self.s = src
        self.i = 0

    def parse(self, stop: str | None = None) -> str:
        out = []
        while self.i < len(self.s):
            if stop is not None and self.s[self.i] == stop:
                self.i += 1
                return "".join(out)
            out.append(self.atom())
        return "".join(out)

    def peek(self) -> str:
        return self.s[self.i] if self.i < len(self.s) else ""

    def skip_spaces(self) -> None:
        while self.peek().isspace() and self.peek():
            self.i += 1

    def raw_group(self) -> str:
        """The unparsed text of the next ``{...}`` group (or the next character)."""
        self.skip_spaces()
        if self.peek() != "{":
            c = self.peek()
            self.i += len(c)
            return c
        depth, start = 0, self.i
        while self.i < len(self.s):
            c = self.s[self.i]
            depth += (c == "{") - (c == "}")
            self.i += 1
            if depth == 0:
                return self.s[start + 1:self.i - 1]
        return self.s[start + 1:]

    def arg(self) -> str:
        self.skip_spaces()
        if self.peek() == "{":
            self.i += 1
            return self.parse("}")
        if self.peek() == "\\":
            return self.command()
        c = self.peek()
        self.i += len(c)
        return self.char(c)

    def char(self, c: str) -> str:
        if c.isascii() and c.isalpha():
            return f"<i>{c}</i>"
        if c in _REL_CHARS:
            return f" {_REL_CHARS[c]} "
        if c == "-":
            return "\u2009−\u2009"
        if c == "+":
            return "\u2009+\u2009"
        if c == ",":
            return ", "
        if c in "&~":
            return " "
        if c == "'":
            return "′"
        return escape(c)

    def atom(self) -> str:
        c = self.s[self.i]
        if c == "{":
            self.i += 1
            return self.parse("}")
        if c == "}":
            self.i += 1
            return ""
        if c in "^_":
            self.i += 1
            tag = "sup" if c == "^" else "sub"
            return f"<{tag}>{self.arg()}</{tag}>"
        if c == "\\":
            return self.command()
        if c.isspace():
            self.i += 1
            return ""
        if c.isascii() and c.isalpha():
            m = re.match(r"[A-Za-z]+", self.s[self.i:])
            self.i += m.end()
            return f"<i>{escape(m.group())}</i>"
        if c.isdigit():
            m = re.match(r"[0-9.]+", self.s[self.i:])
            self.i += m.end()
            return escape(m.group())
        self.i += 1
        return self.char(c)

    def command(self) -> str:
        self.i += 1  # the backslash
        m = re.match(r"[A-Za-z]+", self.s[self.i:])
        if m is None:
            c = self.peek()
            self.i += len(c)
            if c == "\\":
                return "<br>"
            if c in SPACES:
                return SPACES[c]
            return escape(SYMBOLS.get(c) or c)
        name = m.group()
        self.i += m.end()
        return self.named(name)

    def named(self, name: str) -> str:
        if name in GREEK:
            return f"<i>{GREEK[name]}</i>" if name[0].islower() else GREEK[name]
        if name in RELATIONS:
            return f" {RELATIONS[name]} "
        if name in FUNCTIONS:
            return f'<span class="up">{escape(name)}</span>\u2009'
        if SYMBOLS.get(name):
            return escape(SYMBOLS[name])
        if name in SPACES:
            return SPACES[name]
        if name in IGNORED:
            if name in ("left", "right") and self.peek() == ".":
                self.i += 1
            if name in ("label", "tag"):
                self.raw_group()
            return ""
        if name in ("frac", "dfrac", "tfrac", "cfrac"):
            num, den = self.arg(), self.arg()
            return f'<span class="frac"><span class="num">{num}</span><span class="den">{den}</span></span>'
        if name == "sqrt":
            index = ""
            self.skip_spaces()
            if self.peek() == "[":
                self.i += 1
                index = f"<sup>{self.parse(']')}</sup>"
            return f'{index}√<span class="ovl">{self.arg()}</span>'
        if name in ("mathbb", "mathbbm"):
            text = self.raw_group()
            return escape("".join(DOUBLE_STRUCK.get(c, c) for c in text))
        if name in ("mathcal", "mathscr"):
            return escape("".join(script_letter(c) for c in self.raw_group()))
        if name in UPRIGHT_TEXT:
            return f'<span class="up">{escape(self.raw_group())}</span>'
        if name in BOLD:
            return f"<b>{self.arg()}</b>"
        if name in ("overline", "underline"):
            css = "ovl" if name == "overline" else "unl"
            return f'<span class="{css}">{self.arg()}</span>'
        if name in ACCENTS:
            body = self.arg()
            if body.endswith("</i>"):  # keep the combining mark inside the italic letter
                return f"{body[:-4]}{ACCENTS[name]}</i>"
            return f"{body}{ACCENTS[name]}"
        if name in ("begin", "end"):
            self.raw_group()
            return " "
        if name == "not":
            return f"{self.arg()}\u0338"
        return f'<span class="cmd">\\{escape(name)}</span>'


def math_html(src: str) -> str:
    """HTML for the inside of one math segment (falls back to the escaped source on any failure)."""
    try:
        return _MathReader(src).parse()
    except (RecursionError, ValueError, AttributeError, IndexError):
        return escape(src)


def statement_html(text: str) -> str:
    """A statement with its ``$...$``, ``$$...$$``, ``\\(...\\)`` and ``\\[...\\]`` segments rendered.

    Each math segment becomes ``<span class="math" title="SOURCE">...</span>`` (the source stays on
    hover and in the page); text outside math is escaped as is.
    """
    out = []
    for k, part in enumerate(_MATH_SPLIT.split(text or "")):
        if k % 2 == 0:
            out.append(escape(part.replace("\\$", "$")))
            continue
        display = part.startswith(("$$", "\\["))
        inner = part[2:-2] if display or part.startswith("\\(") else part[1:-1]
        cls = "math display" if display else "math"
        out.append(f'<span class="{cls}" title="{escape(part)}">{math_html(inner)}</span>')
    return "".join(out)
