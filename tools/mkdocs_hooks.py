"""MkDocs hooks (mkdocs.yml ``hooks:``): the published matrix in ops_matrix/ becomes part of the site.

MkDocs serves only files under docs/, and the matrix is made into ops_matrix/ by ``tox -e matrix``;
rather than a copy that would go stale, the build adds those files themselves: the heatmap as
``img/heatmap.png`` and ``img/heatmap.svg``, and ``MATRIX.md`` as the page ``matrix-tables.md``.
"""

from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PUBLISHED = {
    "img/heatmap.png": REPO / "ops_matrix" / "heatmap.png",
    "img/heatmap.svg": REPO / "ops_matrix" / "heatmap.svg",
    "matrix-tables.md": REPO / "ops_matrix" / "MATRIX.md",
}


def on_files(files, config):
    from mkdocs.structure.files import File

    for uri, path in PUBLISHED.items():
        files.append(File.generated(config, uri, abs_src_path=str(path)))
    return files
