"""A paper's dependency graph as inline SVG, laid out in layers (no graphviz needed).

A layered (Sugiyama) drawing, left to right: column 0 holds the claims that use nothing drawn here, a
claim sits one column right of the deepest claim it uses, and arrows run from a dependency to the
claim that uses it. An edge that spans several columns is routed through a waypoint in each column it
crosses, placed in its own slot, so no edge runs through a node. The order within a column minimises
crossings by barycentre sweeps, and nodes are then pulled level with their neighbours. The drawing is
scaled down to its box's width (never up) and the page's script zooms and pans it; each node's full id is
its tooltip. Claims with no
drawn dependency at all are listed apart, as a grid of chips under the graph, so a paper with 100+
items stays legible. Each node links to its claim's section.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from html import escape
from urllib.parse import quote

from .model import ClaimView
from .theme import STATUS_COLOURS

NODE_H = 22
NODE_GAP = 8  # vertical gap between nodes of a column
WAYPOINT_H = 4  # the slot an edge's waypoint takes in a column
COL_GAP = 56  # horizontal gap between columns (where edges run)
MARGIN = 10
HEADER_H = 18  # the column labels
CHAR_W = 6.4  # average advance of an 11px monospace glyph
MAX_LABEL = 26
SWEEPS = 12
CHIP_COLUMNS_WIDTH = 1150


@dataclass
class Node:
    id: str
    label: str
    status: str | None  # None for a used claim that is not in the report
    external: bool = False  # drawn only because a claim of this paper uses it
    depth: int = 0
    x: float = 0.0
    y: float = 0.0
    waypoint: bool = False  # a bend of a long edge, not a claim
    preds: list[str] = field(default_factory=list)
    succs: list[str] = field(default_factory=list)

    @property
    def h(self) -> float:
        return WAYPOINT_H if self.waypoint else NODE_H


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
    nodes: dict[str, Node]  # claims and waypoints
    edges: list[list[str]]  # each edge as its chain: dependency, waypoints..., claim that uses it
    isolated: list[Node]  # claims with no drawn edge
    columns: list[list[str]]
    node_w: float
    width: float
    height: float


def _barycentre(columns: list[list[str]], nodes: dict[str, Node], downward: bool) -> None:
    """Reorder each column by the mean position of its neighbours in the previous (or next) column."""
    rng = range(1, len(columns)) if downward else range(len(columns) - 2, -1, -1)
    for c in rng:
        ref = {n: i for i, n in enumerate(columns[c - 1 if downward else c + 1])}
        col = columns[c]
        keys = []
        for i, n in enumerate(col):
            ns = [ref[m] for m in (nodes[n].preds if downward else nodes[n].succs) if m in ref]
            keys.append(sum(ns) / len(ns) if ns else i * len(ref) / max(1, len(col)))
        columns[c] = [n for _, _, n in sorted(zip(keys, range(len(col)), col))]


def _crossings(columns: list[list[str]], nodes: dict[str, Node]) -> int:
    total = 0
    for c in range(1, len(columns)):
        pos = {n: i for i, n in enumerate(columns[c - 1])}
        ends = sorted((pos[p], i) for i, n in enumerate(columns[c]) for p in nodes[n].preds if p in pos)
        seconds = [b for _, b in ends]
        total += sum(1 for i in range(len(seconds)) for j in range(i + 1, len(seconds)) if seconds[j] < seconds[i])
    return total


def _place_y(columns: list[list[str]], nodes: dict[str, Node]) -> None:
    """Stack each column, then pull nodes toward the mean height of their neighbours, keeping order
    and separation (a few alternating passes)."""
    for col in columns:
        y = 0.0
        for n in col:
            nodes[n].y = y
            y += nodes[n].h + NODE_GAP

    def centre(n: str) -> float:
        return nodes[n].y + nodes[n].h / 2

    for sweep in range(8):
        order = range(len(columns)) if sweep % 2 == 0 else range(len(columns) - 1, -1, -1)
        for c in order:
            col = columns[c]
            want = []
            for n in col:
                nb = nodes[n].preds + nodes[n].succs
                want.append(sum(centre(m) for m in nb) / len(nb) - nodes[n].h / 2 if nb else nodes[n].y)
            # Keep the order and the separation: the mean of a placement pushed down from the top and
            # one pushed up from the bottom satisfies both (the constraints are linear).
            down, up = list(want), list(want)
            for i in range(1, len(col)):
                down[i] = max(down[i], down[i - 1] + nodes[col[i - 1]].h + NODE_GAP)
            for i in range(len(col) - 2, -1, -1):
                up[i] = min(up[i], up[i + 1] - nodes[col[i]].h - NODE_GAP)
            ys = [(a + b) / 2 for a, b in zip(down, up)]
            for n, y in zip(col, ys):
                nodes[n].y = y
    top = min((nodes[n].y for col in columns for n in col), default=0.0)
    for col in columns:
        for n in col:
            nodes[n].y += MARGIN + HEADER_H - top


def layout(views: list[ClaimView], paper: str, known: dict[str, ClaimView] | None = None) -> Layout:
    """Positions of the claims (and the waypoints of long edges) in columns by dependency depth. A used
    claim of another paper is drawn too (coloured by its status when ``known`` holds it)."""
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
    linked = {n for n, us in uses.items() if us} | {u for us in uses.values() for u in us}
    isolated = [nodes[n] for n in nodes if n not in linked]
    d = depths({n: [u for u in uses[n] if u in linked] for n in linked})
    claims = [n for n in nodes if n in linked]
    for n in claims:
        nodes[n].depth = d[n]
    n_cols = 1 + max((d[n] for n in claims), default=-1)
    columns: list[list[str]] = [[] for _ in range(n_cols)]
    for n in claims:
        columns[d[n]].append(n)
    chains: list[list[str]] = []
    for cid in claims:
        for u in uses[cid]:
            if u not in nodes or u == cid:
                continue
            chain = [u]
            lo, hi = d[u], d[cid]
            if hi <= lo:  # a cut cycle: drawn straight back
                chains.append([u, cid])
                continue
            for k in range(lo + 1, hi):
                wid = f"\x00{u}\x00{cid}\x00{k}"
                nodes[wid] = Node(wid, "", None, waypoint=True, depth=k)
                columns[k].append(wid)
                chain.append(wid)
            chain.append(cid)
            for a, b in zip(chain, chain[1:]):
                nodes[a].succs.append(b)
                nodes[b].preds.append(a)
            chains.append(chain)
    best, best_x = [list(c) for c in columns], _crossings(columns, nodes)
    for sweep in range(SWEEPS):
        _barycentre(columns, nodes, downward=sweep % 2 == 0)
        x = _crossings(columns, nodes)
        if x < best_x:
            best, best_x = [list(c) for c in columns], x
    columns = best
    _place_y(columns, nodes)
    node_w = max(80.0, min(MAX_LABEL, max((len(nodes[n].label) for n in claims), default=8)) * CHAR_W + 14)
    for c, col in enumerate(columns):
        for n in col:
            nodes[n].x = MARGIN + c * (node_w + COL_GAP)
    width = 2 * MARGIN + n_cols * node_w + max(0, n_cols - 1) * COL_GAP
    height = max((nodes[n].y + nodes[n].h for col in columns for n in col), default=0.0) + MARGIN
    return Layout(nodes, chains, isolated, columns, node_w, width, height)


def _node_style(n: Node) -> tuple[str, str, str, str]:
    if n.status is None:
        return "#ffffff", "#888888", ' stroke-dasharray="4 3"', "not in this report"
    fill, text = STATUS_COLOURS.get(n.status, ("#ffffff", "#000000"))
    dash = ' stroke-dasharray="4 3"' if fill in ("#ffffff", "#eeeeee") or n.external else ""
    return fill, text, dash, n.status + (" (another paper)" if n.external else "")


def _edge_path(points: list[tuple[float, float]]) -> str:
    (x0, y0), rest = points[0], points[1:]
    d = [f"M{x0:.1f},{y0:.1f}"]
    for x1, y1 in rest:
        mid = (x0 + x1) / 2
        d.append(f"C{mid:.1f},{y0:.1f} {mid:.1f},{y1:.1f} {x1:.1f},{y1:.1f}")
        x0, y0 = x1, y1
    return "".join(d)


def dependency_svg(views: list[ClaimView], paper: str, index: int,
                   known: dict[str, ClaimView] | None = None) -> str:
    """Inline SVG of one paper's claims (and a grid of the claims with no drawn dependency);
    ``index`` makes the arrow marker's id unique in the page."""
    if not views:
        return ""
    lay = layout(views, paper, known)
    nodes, w = lay.nodes, lay.node_w
    marker = f"arrow-{index}"
    parts = []
    if lay.columns:
        parts += [
            # As wide as its box at most (scaled down to fit, never up: max-width is its natural width); the
            # page's script zooms and pans it by its viewBox.
            f'<svg class="depgraph" viewBox="0 0 {lay.width:.0f} {lay.height:.0f}" preserveAspectRatio="xMinYMin meet" '
            f'style="width:100%;max-width:{lay.width:.0f}px;height:auto" data-w="{lay.width:.0f}" '
            f'data-h="{lay.height:.0f}" role="img" '
            f'aria-label="dependency graph of {escape(paper)}" font-family="DejaVu Sans Mono,Menlo,monospace" '
            'font-size="11">',
            f'<defs><marker id="{marker}" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="6" '
            f'markerHeight="6" orient="auto-start-reverse"><path d="M0,0L10,5L0,10z" fill="#777"/></marker></defs>',
        ]
        for c in range(len(lay.columns)):
            x = MARGIN + c * (w + COL_GAP)
            parts.append(f'<text x="{x:.1f}" y="{MARGIN + 10}" fill="#888" font-size="10">depth {c}</text>')
        for chain in lay.edges:
            pts = []
            for k, n in enumerate(chain):
                node = nodes[n]
                cy = node.y + node.h / 2
                if node.waypoint:
                    pts += [(node.x, cy), (node.x + w, cy)]
                elif k == 0:
                    pts.append((node.x + w, cy))
                else:
                    pts.append((node.x, cy))
            src, dst = nodes[chain[0]].id, nodes[chain[-1]].id
            parts.append(f'<path class="edge" data-from="{escape(src)}" data-to="{escape(dst)}" '
                         f'd="{_edge_path(pts)}" fill="none" stroke="#999" stroke-width="1.1" '
                         f'marker-end="url(#{marker})"/>')
        for n in nodes.values():
            if n.waypoint or n in lay.isolated:
                continue
            fill, text, dash, tip = _node_style(n)
            parts.append(
                f'<a href="{escape(anchor(n.id))}" class="gnode" data-id="{escape(n.id)}">'
                f"<title>{escape(n.id)}: {escape(tip)}</title>"
                f'<rect x="{n.x:.1f}" y="{n.y:.1f}" width="{w:.1f}" height="{NODE_H}" rx="4" '
                f'fill="{fill}" stroke="#555"{dash}/>'
                f'<text x="{n.x + w / 2:.1f}" y="{n.y + NODE_H / 2 + 4:.1f}" text-anchor="middle" '
                f'fill="{text}">{escape(n.label)}</text></a>')
        parts.append("</svg>")
    if lay.isolated:
        chips = []
        for n in lay.isolated:
            fill, text, dash, tip = _node_style(n)
            style = f"background:{fill};color:{text}" + (";border-style:dashed" if dash else "")
            chips.append(f'<a href="{escape(anchor(n.id))}" class="gnode chip" data-id="{escape(n.id)}" '
                         f'style="{style}" title="{escape(n.id)}: {escape(tip)}">{escape(n.label)}</a>')
        parts.append(f'<div class="isolated"><div class="small muted">{len(lay.isolated)} claim(s) with no '
                     f'dependency drawn (they use, and are used by, nothing registered):</div>{"".join(chips)}</div>')
    return "".join(parts)
