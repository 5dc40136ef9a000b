"""A fitted tree ensemble (a random forest, or boosted trees: `mltune.learn.learners`) as plain arrays, stored in
an `.npz` that cannot run code when loaded, and predicted with numpy.

Pickle (and joblib) files run code when they are loaded, so a model folder from an untrusted
checkout would be a program. Here each tree is only its node arrays (children, split feature,
threshold, leaf value), all trees concatenated with node indices made global; `np.load` reads
them with `allow_pickle=False` (an object array or a pickle is refused), and every array is checked
before use: dtypes and shapes, and the trees' structure (each tree a contiguous block of nodes from its
root, every child a later node of the same tree, a node with both children or none, no tree deeper than
the recorded depth), so a crafted file can hold no cycle. Prediction walks all trees at once for a fixed
number of steps (the deepest leaf's depth), so even a crafted file cannot make it loop.

scikit-learn compares float32 features with float64 thresholds; `predict` does the same, so it returns
what the fitted `RandomForestRegressor` (or `GradientBoostingRegressor`) returned.
"""

from __future__ import annotations

import io
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np

FORMAT = "mltune-forest-npz-1"
LEAF = -1
ROW_CHUNK = 2048


class ModelFormatError(ValueError):
    """The file is not a forest in this format (its reason in one line)."""


@dataclass(frozen=True)
class TreeEnsemble:
    """Trees of one forest: node arrays over all trees, each tree's root node and the walk length."""

    left: np.ndarray  # int32, global index of the left child, -1 at a leaf
    right: np.ndarray  # int32
    feature: np.ndarray  # int32, the column a node splits on (unused at a leaf)
    threshold: np.ndarray  # float64: a row goes left when its feature <= threshold
    value: np.ndarray  # float64, a leaf's prediction
    roots: np.ndarray  # int32, one per tree
    depth: int  # steps from a root to its deepest leaf

    @staticmethod
    def from_sklearn(forest) -> "TreeEnsemble":
        """The arrays of a fitted scikit-learn `RandomForestRegressor` (one output)."""
        return TreeEnsemble.from_trees(forest.estimators_)

    @staticmethod
    def from_trees(trees, scale: float = 1.0, offset: float = 0.0) -> "TreeEnsemble":
        """The arrays of fitted scikit-learn regression trees (one output), each node's value `value * scale +
        offset`: the ensemble predicts the mean of the trees' so transformed predictions."""
        parts: dict[str, list[np.ndarray]] = {name: [] for name in ("left", "right", "feature", "threshold", "value")}
        roots, offset_nodes, depth = [], 0, 0
        for estimator in trees:
            tree = estimator.tree_
            leaf = tree.children_left == LEAF
            parts["left"].append(np.where(leaf, LEAF, tree.children_left + offset_nodes))
            parts["right"].append(np.where(leaf, LEAF, tree.children_right + offset_nodes))
            parts["feature"].append(np.where(leaf, 0, tree.feature))
            parts["threshold"].append(tree.threshold)
            parts["value"].append(tree.value[:, 0, 0] * scale + offset)
            roots.append(offset_nodes)
            offset_nodes += tree.node_count
            depth = max(depth, tree.max_depth)
        arrays = {name: np.concatenate(values) for name, values in parts.items()}
        return TreeEnsemble(
            arrays["left"].astype(np.int32),
            arrays["right"].astype(np.int32),
            arrays["feature"].astype(np.int32),
            arrays["threshold"].astype(np.float64),
            arrays["value"].astype(np.float64),
            np.array(roots, dtype=np.int32),
            int(depth),
        )

    @property
    def features_used(self) -> int:
        """How many columns a row must have: one more than the highest split feature."""
        splits = self.left != LEAF
        return int(self.feature[splits].max()) + 1 if splits.any() else 0

    def predict(self, values: np.ndarray) -> np.ndarray:
        """The mean over trees of each row's leaf value (rows in chunks, so that the walk's arrays stay in cache)."""
        rows = np.asarray(values, dtype=np.float32).astype(np.float64)
        return np.concatenate(
            [self._predict_chunk(rows[start : start + ROW_CHUNK]) for start in range(0, len(rows), ROW_CHUNK)]
            or [np.empty(0)]
        )

    def _predict_chunk(self, rows: np.ndarray) -> np.ndarray:
        node = np.broadcast_to(self.roots, (len(rows), len(self.roots))).copy()
        flat = rows.ravel()  # flat gathers (`take`) are faster than 2-D fancy indexing
        row_start = (np.arange(len(rows), dtype=np.int64) * rows.shape[1])[:, None]
        for _ in range(self.depth):
            left = self.left.take(node)
            go_left = flat.take(row_start + self.feature.take(node)) <= self.threshold.take(node)
            node = np.where(left == LEAF, node, np.where(go_left, left, self.right.take(node)))
        return self.value.take(node).mean(axis=1)

    def to_bytes(self) -> bytes:
        buffer = io.BytesIO()
        np.savez_compressed(
            buffer,
            left=self.left,
            right=self.right,
            feature=self.feature,
            threshold=self.threshold,
            value=self.value,
            roots=self.roots,
            depth=np.array([self.depth], dtype=np.int32),
        )
        return buffer.getvalue()

    @staticmethod
    def load(path: Path, feature_count: int) -> "TreeEnsemble":
        """Read and check an `.npz` written by `to_bytes`; anything else raises `ModelFormatError`."""
        try:
            with np.load(path, allow_pickle=False) as data:
                if not hasattr(data, "files"):
                    raise ModelFormatError("not an .npz archive")
                arrays = {name: data[name] for name in data.files}
        except ModelFormatError:
            raise
        except (OSError, ValueError, EOFError, KeyError, zipfile.BadZipFile, zlib.error) as err:
            raise ModelFormatError(f"not a forest .npz ({err})") from None
        return _checked(arrays, feature_count)


_INTEGER_ARRAYS = ("left", "right", "feature", "roots", "depth")
_NODE_ARRAYS = ("left", "right", "feature", "threshold", "value")


def _checked(arrays: dict[str, np.ndarray], feature_count: int) -> TreeEnsemble:
    """Arrays of the right kinds and shapes, whose indices stay inside the forest and the feature row."""
    missing = sorted({*_NODE_ARRAYS, "roots", "depth"} - set(arrays))
    if missing:
        raise ModelFormatError(f"the forest lacks arrays {', '.join(missing)}")
    for name, array in arrays.items():
        kind = "iu" if name in _INTEGER_ARRAYS else "f"
        if array.dtype.kind not in kind or array.ndim != 1:
            raise ModelFormatError(
                f"array {name!r} is {array.dtype} of shape {array.shape}, not a 1-D "
                f"{'integer' if kind == 'iu' else 'float'} array"
            )
    nodes = len(arrays["left"])
    if nodes == 0 or any(len(arrays[name]) != nodes for name in _NODE_ARRAYS):
        raise ModelFormatError("the node arrays are empty or of different lengths")
    depth = int(arrays["depth"][0]) if len(arrays["depth"]) == 1 else -1
    if not 0 <= depth <= 64 or len(arrays["roots"]) == 0:
        raise ModelFormatError("the forest has no trees or an implausible depth")
    children = np.concatenate([arrays["left"], arrays["right"]])
    indices_ok = (children >= LEAF).all() and (children < nodes).all()
    roots_ok = (arrays["roots"] >= 0).all() and (arrays["roots"] < nodes).all()
    features_ok = (arrays["feature"] >= 0).all() and (arrays["feature"] < max(feature_count, 1)).all()
    if not (indices_ok and roots_ok and features_ok):
        raise ModelFormatError("a node, root or feature index is out of range")
    _check_structure(
        arrays["left"].astype(np.int64), arrays["right"].astype(np.int64), arrays["roots"].astype(np.int64), depth
    )
    if not np.isfinite(arrays["value"]).all():
        raise ModelFormatError("a leaf value is not finite")
    return TreeEnsemble(
        *(arrays[name].astype(np.int32) for name in ("left", "right", "feature")),
        arrays["threshold"].astype(np.float64),
        arrays["value"].astype(np.float64),
        arrays["roots"].astype(np.int32),
        depth,
    )


def _check_structure(left: np.ndarray, right: np.ndarray, roots: np.ndarray, depth: int) -> None:
    """Trees as `from_sklearn` lays them out (scikit-learn numbers a node before its children): each tree the
    nodes from its root to the next tree's, each inner node's two children later nodes of its own tree, and
    no path from a root longer than `depth`. Children that only point forward can form no cycle."""
    nodes = len(left)
    if roots[0] != 0 or (np.diff(roots) <= 0).any():
        raise ModelFormatError("the trees' roots are not increasing from node 0")
    if ((left == LEAF) != (right == LEAF)).any():
        raise ModelFormatError("a node has one child (a leaf has none, a split two)")
    end = np.append(roots[1:], nodes)[np.searchsorted(roots, np.arange(nodes), side="right") - 1]
    inner = np.flatnonzero(left != LEAF)
    for children in (left[inner], right[inner]):
        if ((children <= inner) | (children >= end[inner])).any():
            raise ModelFormatError("a node's child is not a later node of its own tree (a cycle or a jump)")
    frontier = roots
    for _ in range(depth):
        split = frontier[left[frontier] != LEAF]
        frontier = np.unique(np.concatenate([left[split], right[split]]))
    if (left[frontier] != LEAF).any():
        raise ModelFormatError(f"a tree is deeper than the recorded depth {depth}")
