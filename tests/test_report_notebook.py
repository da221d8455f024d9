"""The notebook example runs top to bottom in a Jupyter kernel (as ``pytest --nbmake`` would run it), and
its results render as claim cards with MathML."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOK = ROOT / "examples" / "notebook.ipynb"


def test_notebook_example_runs_and_shows_claim_cards():
    nbformat = pytest.importorskip("nbformat", reason="nbformat is in the test extra")
    nbclient = pytest.importorskip("nbclient", reason="nbclient is in the test extra")
    pytest.importorskip("ipykernel", reason="a Jupyter kernel (ipykernel) is in the test extra")
    nb = nbformat.read(NOTEBOOK, as_version=4)
    os.environ.setdefault("PYTHONPATH", str(ROOT))
    client = nbclient.NotebookClient(nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(ROOT)}})
    client.execute()
    htmls = [out["data"]["text/html"] for cell in nb.cells if cell.cell_type == "code"
             for out in cell.get("outputs", []) if "text/html" in out.get("data", {})]
    assert len(htmls) == 2  # the card of the true claim, then of the edited (false) one
    assert all("<math>" in h and 'id="claim-nb.cauchy_schwarz"' in h for h in htmls)
    # Cauchy-Schwarz holds for every input: verified, acknowledged "cannot fail here", so not fully verified
    assert "verified" in htmls[0] and "cannot fail here" in htmls[0] and "control caught (refuted)" in htmls[0]
    assert '<span class="badge st-refuted">refuted</span>' in htmls[1]
    printed = "".join(out.get("text", "") for cell in nb.cells if cell.cell_type == "code"
                      for out in cell.get("outputs", []) if out.get("output_type") == "stream")
    assert "['refuted', 'refuted', 'refuted', 'refuted']" in printed
