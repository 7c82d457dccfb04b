"""`.ideai/layouts.json`: the seed's own file round-trips, errors say where, files are safe."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings

from adapters.store.layouts_codec import (
    LayoutStore,
    decode_layouts,
    decode_tree,
    default_layouts,
    encode_layouts,
    encode_tree,
)
from core.errors import CorruptFile, FileAccessError, NewerVersion
from core.layout import ops
from core.layout.model import Direction, Layout, LayoutKind, LayoutSet, LayoutTree, Leaf, Split
from tests.core.layout_strategies import grid, ids, leaf_ids, row, trees

FIXTURES = Path(__file__).parent.parent / "fixtures"
SEED = FIXTURES / "seed_layouts.json"


def seed_data() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(SEED.read_text(encoding="utf-8"))
    return data


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / ".ideai").mkdir()
    return tmp_path


def test_the_seed_file_loads_validates_and_encodes_back_to_the_same_data(project: Path) -> None:
    (project / ".ideai" / "layouts.json").write_bytes(SEED.read_bytes())
    layouts = LayoutStore(ids()).load(project)
    assert [layout.name for layout in layouts.layouts] == ["Default", "Git Graph"]
    assert layouts.active.kind == LayoutKind.TERMINAL
    assert layouts.layouts[1].kind == LayoutKind.GIT_GRAPH
    for layout in layouts.layouts:
        ops.validate(layout.tree)
    assert len(leaf_ids(layouts.active.tree)) == 5
    assert encode_layouts(layouts) == seed_data()


def test_seed_weights_keep_their_float_values(project: Path) -> None:
    layouts = decode_layouts(seed_data())
    root = layouts.active.tree.root
    assert isinstance(root, Split)
    left = root.children[0].node
    assert isinstance(left, Split)
    assert [child.weight for child in left.children] == [1.1910967, 0.80890334]
    LayoutStore(ids()).save(project, layouts)
    text = (project / ".ideai" / "layouts.json").read_text()
    assert '"weight": 1.1910967' in text and '"weight": 0.80890334' in text
    assert '"weight": 1.0' in text
    assert json.loads(text) == seed_data()


def test_leaf_fields_and_optional_keys() -> None:
    leaf = Leaf("l", "s", "agent", True, "conv")
    encoded = encode_tree(LayoutTree(leaf))
    assert encoded == {
        "root": {
            "type": "leaf",
            "node": {
                "id": "l",
                "session": "s",
                "agent": "agent",
                "agentWasRunning": True,
                "conversationId": "conv",
            },
        }
    }
    assert decode_tree(encoded).root == leaf
    bare = encode_tree(LayoutTree(Leaf("l")))
    assert bare == {"root": {"type": "leaf", "node": {"id": "l"}}}


def test_grid_uses_camel_case_keys() -> None:
    tree = LayoutTree(grid("g", 1, 2, (Leaf("a"), 0, 0, 1, 1), (Leaf("b"), 0, 1, 1, 1)))
    node = encode_tree(tree)["root"]
    assert node["type"] == "grid"
    assert node["node"]["colWeights"] == [1.0, 1.0] and node["node"]["rowWeights"] == [1.0]
    assert node["node"]["cells"][1] == {
        "node": {"type": "leaf", "node": {"id": "b"}},
        "row": 0,
        "col": 1,
        "rowSpan": 1,
        "colSpan": 1,
    }
    assert decode_tree(encode_tree(tree)) == tree


def with_unknown_keys() -> dict[str, Any]:
    data = seed_data()
    data["futureTop"] = {"nested": [1, 2]}
    layout = data["layouts"][0]
    layout["icon"] = "robot"
    layout["tree"]["zoomed"] = None
    envelope = layout["tree"]["root"]
    envelope["hint"] = "outer"
    envelope["node"]["gap"] = 2
    child = envelope["node"]["children"][1]
    child["collapsed"] = True
    child["node"]["note"] = "inner envelope"
    leaf = envelope["node"]["children"][0]["node"]["node"]["children"][0]["node"]["node"]
    leaf["title"] = "main"
    data["layouts"].append(
        {
            "id": "grid-layout",
            "name": "Grid",
            "kind": "terminal",
            "tree": {
                "root": {
                    "type": "grid",
                    "node": {
                        "id": "g",
                        "colWeights": [1.0],
                        "rowWeights": [2.5],
                        "gridNote": 1,
                        "cells": [
                            {
                                "node": {"type": "leaf", "node": {"id": "x"}},
                                "row": 0,
                                "col": 0,
                                "rowSpan": 1,
                                "colSpan": 1,
                                "pinned": True,
                            }
                        ],
                    },
                }
            },
        }
    )
    return data


def test_unknown_keys_at_every_level_are_written_back() -> None:
    data = with_unknown_keys()
    decoded = decode_layouts(copy.deepcopy(data))
    assert encode_layouts(decoded) == data


def test_unknown_keys_survive_an_edit_of_another_part_of_the_tree() -> None:
    data = with_unknown_keys()
    decoded = decode_layouts(data)
    active = decoded.active
    edited_tree, _ = ops.split(
        active.tree, "07698ab4-0700-4205-966b-a50b1e73ec2b", Direction.ROW, ids()
    )
    edited = LayoutSet(
        decoded.active_id,
        (
            Layout(active.id, active.name, active.kind, edited_tree, active.extra),
            *decoded.layouts[1:],
        ),
        decoded.version,
        decoded.extra,
    )
    encoded = encode_layouts(edited)
    root = encoded["layouts"][0]["tree"]["root"]
    assert root["hint"] == "outer" and root["node"]["gap"] == 2
    assert root["node"]["children"][1]["collapsed"] is True
    assert encoded["futureTop"] == {"nested": [1, 2]}


@settings(deadline=None, max_examples=200)
@given(trees)
def test_random_trees_round_trip_through_json(tree: LayoutTree) -> None:
    layouts = LayoutSet("l", (Layout("l", "Page", LayoutKind.TERMINAL, tree),))
    text = json.dumps(encode_layouts(layouts))
    decoded = decode_layouts(json.loads(text))
    assert decoded == layouts
    assert encode_layouts(decoded) == json.loads(text)


def broken(path: str, value: Any) -> dict[str, Any]:
    """The seed data with the value at a dotted path replaced (`...` deletes the key)."""
    data = seed_data()
    target: Any = data
    keys = [int(k) if k.isdigit() else k for k in path.split(".")]
    for key in keys[:-1]:
        target = target[key]
    if value is ...:
        del target[keys[-1]]
    else:
        target[keys[-1]] = value
    return data


CHILD = "layouts.0.tree.root.node.children.1"
LEAF = "layouts.0.tree.root.node.children.0.node.node.children.0.node.node"


@pytest.mark.parametrize(
    ("data", "location"),
    [
        (broken(f"{CHILD}.weight", "heavy"), "layouts[0].tree.root.node.children[1].weight"),
        (broken(f"{CHILD}.weight", ...), "layouts[0].tree.root.node.children[1].weight: missing"),
        (broken(f"{CHILD}.node.type", "tab"), "layouts[0].tree.root.node.children[1].node.type"),
        (broken(f"{CHILD}.node.node.id", 7), "children[1].node.node.id: expected a string"),
        (broken(f"{CHILD}.node.node.direction", "diagonal"), "children[1].node.node.direction"),
        (broken(f"{CHILD}.weight", 0.0), "layouts[0].tree: Container"),
        (broken("layouts.1.kind", "browser"), "layouts[1].kind: unknown layout kind"),
        # Ids that may become paths or argv follow core.ids (issue 7).
        (broken("layouts.1.id", "../x"), "layouts[1].id: '../x' is not a safe id"),
        (broken(f"{CHILD}.node.node.id", "a/b"), "children[1].node.node.id: 'a/b' is not"),
        (broken(f"{LEAF}.agent", "../../a"),
         "children[0].node.node.agent: '../../a' is not a safe id"),
        (broken(f"{LEAF}.conversationId", "--yolo"),
         "children[0].node.node.conversationId: '--yolo' is not a safe id"),
        (broken("layouts", []), "layouts: at least one layout"),
        (broken("layouts", {}), "layouts: expected an array, found an object"),
        (broken("version", "1"), "version: expected a positive integer"),
        ([1, 2], "top level: expected an object"),
    ],
)
def test_malformed_content_names_the_location(data: Any, location: str) -> None:
    with pytest.raises(CorruptFile) as caught:
        decode_layouts(data, "/p/.ideai/layouts.json")
    assert location in caught.value.message
    assert caught.value.path == "/p/.ideai/layouts.json"


def test_a_newer_version_is_refused() -> None:
    with pytest.raises(NewerVersion) as caught:
        decode_layouts({**seed_data(), "version": 2, "layouts": "anything"})
    assert (caught.value.found, caught.value.supported) == (2, 1)


@pytest.mark.parametrize(
    "content",
    [
        b'{"version": 1, "activeId": "x", "layouts": [',
        json.dumps(broken(f"{CHILD}.weight", -1.0)).encode(),
        json.dumps({**seed_data(), "version": 9}).encode(),
    ],
)
def test_an_unreadable_file_is_never_overwritten(project: Path, content: bytes) -> None:
    path = project / ".ideai" / "layouts.json"
    path.write_bytes(content)
    store = LayoutStore(ids())
    with pytest.raises((CorruptFile, NewerVersion)):
        store.load(project)
    with pytest.raises((CorruptFile, NewerVersion)):
        store.save(project, default_layouts(ids()))
    assert path.read_bytes() == content


def test_a_project_without_the_file_gets_the_default_layout_in_memory(project: Path) -> None:
    layouts = LayoutStore(ids("id")).load(project)
    assert layouts == LayoutSet(
        "id0", (Layout("id0", "Default", LayoutKind.TERMINAL, LayoutTree(Leaf("id1"))),)
    )
    assert not (project / ".ideai" / "layouts.json").exists()


def test_save_then_load_round_trips_and_creates_ideai(tmp_path: Path) -> None:
    store = LayoutStore(ids())
    tree = LayoutTree(row("r", Leaf("a", "s1", "agent", True), Leaf("b")))
    layouts = LayoutSet("l", (Layout("l", "Main", LayoutKind.TERMINAL, tree),))
    store.save(tmp_path, layouts)
    assert store.load(tmp_path) == layouts
    assert (tmp_path / ".ideai" / "layouts.json").read_text().endswith("}\n")


def test_save_does_not_recreate_a_deleted_project(tmp_path: Path) -> None:
    with pytest.raises(FileAccessError):
        LayoutStore(ids()).save(tmp_path / "gone", default_layouts(ids()))
    assert not (tmp_path / "gone").exists()
