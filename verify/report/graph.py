"""A paper's dependency graph as inline SVG, laid out by dependency depth (no graphviz needed).

Depth 0 holds the claims that use nothing drawn in this graph; a claim sits one row below the
deepest claim it uses, and arrows run from a dependency down to the claim that uses it (as in Lean
blueprints). Within a depth, nodes are ordered by the mean position of what they use, to shorten
edges. Wide depths wrap onto several rows inside one shaded band labelled with the depth. Each node links to its claim's section.
"""

from __future__ import annotations

from dataclasses import dataclass
from html import escape
from urllib.parse import quote

from .model import ClaimView
from .theme import STATUS_COLOURS

TARGET_WIDTH = 1150  # px: a depth wider than this wraps onto further rows
MIN_PER_ROW = 4
GUTTER = 58  # px at the left for the depth labels
NODE_H = 26
ROW_GAP = 34
COL_GAP = 14
MARGIN = 12
CHAR_W = 6.6  # average advance of an 11px monospace glyph
MAX_LABEL = 30


@dataclass
class Node:
    id: str
    label: str
    status: str | None  # None for a used claim that is not in the report
    external: bool = False  # drawn only because a claim of this paper uses it
    depth: int = 0
    x: float = 0.0
    y: float = 0.0


def anchor(cid: str) -> str:
    """The in-page link target of a claim's section."""
    return "#claim-" + quote(cid, safe="._-~:@!$'()*+,;=")


def short_label(cid: str, paper: str) -> str:
    label = cid[len(paper) + 1:] if cid.startswith(paper + ".") else cid
    return label if len(label) <= MAX_LABEL else label[:MAX_LABEL - 1] + "…"


def depths(uses: dict[str, list[str]]) -> dict[str, int]:
    """Longest-path depth of each node over ``uses`` (a cycle, if any, is cut where it is met)."""
    out: dict[str, int] = {}
    active: set[str] = set()

    def depth(n: str) -> int:
        if n in out:
            return out[n]
        if n in active:
            return 0
        active.add(n)
        d = 1 + max((depth(u) for u in uses.get(n, ()) if u in uses), default=-1)
        active.discard(n)
        out[n] = d
        return d

    for n in uses:
        depth(n)
    return out


@dataclass
class Layout:
    nodes: dict[str, Node]
    edges: list[tuple[str, str]]  # (dependency, claim that uses it)
    node_w: float
    width: float
    height: float
    bands: list[tuple[int, int, int]]  # (depth, first row, last row): wide depths wrap onto rows


def row_top(i: int) -> float:
    return MARGIN + i * (NODE_H + ROW_GAP)


def layout(views: list[ClaimView], paper: str, known: dict[str, ClaimView] | None = None) -> Layout:
    """Node positions by dependency depth, and the edges between them. A used claim of another paper
    is drawn too (coloured by its status when ``known`` holds it)."""
    known = known or {}
    uses: dict[str, list[str]] = {}
    nodes: dict[str, Node] = {}
    for v in views:
        nodes[v.id] = Node(v.id, short_label(v.id, paper), v.display)
        uses[v.id] = [u for u in (v.claim.get("uses") or ()) if isinstance(u, str)]
    for v in views:
        for u in uses[v.id]:
            if u not in nodes:
                nodes[u] = Node(u, short_label(u, paper), known[u].display if u in known else None, external=True)
                uses[u] = []
    edges = [(u, cid) for cid, us in uses.items() for u in us]
    d = depths(uses)
    layers: dict[int, list[str]] = {}
    for n in nodes:
        nodes[n].depth = d[n]
        layers.setdefault(d[n], []).append(n)
    node_w = max(90.0, min(MAX_LABEL, max(len(n.label) for n in nodes.values())) * CHAR_W + 16)
    per_row = max(MIN_PER_ROW, int((TARGET_WIDTH - GUTTER) // (node_w + COL_GAP)))
    order: dict[str, float] = {}
    rows: list[list[str]] = []
    bands: list[tuple[int, int, int]] = []  # (depth, first row, last row)
    for depth in sorted(layers):
        layer = layers[depth]
        if depth > 0:
            def centre(n: str) -> float:
                ps = [order[u] for u in uses[n] if u in order]
                return sum(ps) / len(ps) if ps else float("inf")
            layer = sorted(layer, key=centre)
        first = len(rows)
        for k in range(0, len(layer), per_row):
            row = layer[k:k + per_row]
            offset = (per_row - len(row)) / 2 if len(layer) <= per_row else 0
            for j, n in enumerate(row):
                order[n] = j + offset
            rows.append(row)
        bands.append((depth, first, len(rows) - 1))
    widest = max(len(r) for r in rows)
    width = GUTTER + 2 * MARGIN + widest * node_w + (widest - 1) * COL_GAP
    for i, row in enumerate(rows):
        used = len(row) * node_w + (len(row) - 1) * COL_GAP
        left = GUTTER + (width - GUTTER - used) / 2
        for j, n in enumerate(row):
            nodes[n].x = left + j * (node_w + COL_GAP)
            nodes[n].y = row_top(i)
    height = 2 * MARGIN + len(rows) * NODE_H + (len(rows) - 1) * ROW_GAP
    return Layout(nodes, edges, node_w, width, height, bands)


def dependency_svg(views: list[ClaimView], paper: str, index: int,
                   known: dict[str, ClaimView] | None = None) -> str:
    """Inline SVG of one paper's claims; ``index`` makes the arrow marker's id unique in the page."""
    if not views:
        return ""
    lay = layout(views, paper, known)
    nodes, node_w, width, height = lay.nodes, lay.node_w, lay.width, lay.height
    marker = f"arrow-{index}"
    parts = [
        f'<svg width="{width:.0f}" height="{height:.0f}" '
        f'viewBox="0 0 {width:.0f} {height:.0f}" role="img" aria-label="dependency graph of {escape(paper)}" '
        f'font-family="DejaVu Sans Mono,Menlo,monospace" font-size="11">',
        f'<defs><marker id="{marker}" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" '
        f'markerHeight="7" orient="auto-start-reverse"><path d="M0,0L10,5L0,10z" fill="#666"/></marker></defs>',
    ]
    for depth, first, last in lay.bands:
        top = row_top(first) - ROW_GAP / 2 + 4
        bottom = row_top(last) + NODE_H + ROW_GAP / 2 - 4
        fill = "#f3f6fa" if depth % 2 == 0 else "#ffffff"
        parts.append(f'<rect x="0" y="{max(top, 0):.1f}" width="{width:.0f}" height="{bottom - max(top, 0):.1f}" '
                     f'fill="{fill}"/><text x="6" y="{row_top(first) + NODE_H / 2 + 4:.1f}" fill="#888" '
                     f'font-size="10">depth {depth}</text>')
    for src, dst in lay.edges:
        a, b = nodes[src], nodes[dst]
        x1, y1 = a.x + node_w / 2, a.y + NODE_H
        x2, y2 = b.x + node_w / 2, b.y
        if y2 <= y1:  # same row (a cut cycle): go round the side
            x1, y1, x2, y2 = a.x + node_w, a.y + NODE_H / 2, b.x, b.y + NODE_H / 2
        mid = (y1 + y2) / 2
        parts.append(f'<path d="M{x1:.1f},{y1:.1f} C{x1:.1f},{mid:.1f} {x2:.1f},{mid:.1f} {x2:.1f},{y2:.1f}" '
                     f'fill="none" stroke="#888" stroke-width="1.2" marker-end="url(#{marker})"/>')
    for n in nodes.values():
        if n.status is None:
            fill, text, dash, tip = "#ffffff", "#888888", ' stroke-dasharray="4 3"', "not in this report"
        else:
            fill, text = STATUS_COLOURS.get(n.status, ("#ffffff", "#000000"))
            dash = ' stroke-dasharray="4 3"' if fill in ("#ffffff", "#eeeeee") or n.external else ""
            tip = n.status + (" (another paper)" if n.external else "")
        parts.append(
            f'<a href="{escape(anchor(n.id))}" class="gnode" data-id="{escape(n.id)}">'
            f'<title>{escape(n.id)}: {escape(tip)}</title>'
            f'<rect x="{n.x:.1f}" y="{n.y:.1f}" width="{node_w:.1f}" height="{NODE_H}" rx="5" '
            f'fill="{fill}" stroke="#555"{dash}/>'
            f'<text x="{n.x + node_w / 2:.1f}" y="{n.y + NODE_H / 2 + 4:.1f}" text-anchor="middle" '
            f'fill="{text}">{escape(n.label)}</text></a>')
    parts.append("</svg>")
    return "".join(parts)
