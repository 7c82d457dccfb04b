"""Startup objects are exempt from later full collections (adapters/gc_pauses.py)."""

from __future__ import annotations

import gc
import subprocess
import sys
import textwrap


def test_objects_alive_at_startup_are_frozen_and_later_garbage_is_still_collected() -> None:
    # In a child: freezing is for the life of a process, and the test runner's own objects
    # must not be frozen by a test.
    script = textwrap.dedent(
        """
        import gc, weakref
        from adapters.gc_pauses import freeze_startup_objects

        class Node:
            pass

        before = len(gc.get_objects(generation=2))
        frozen = freeze_startup_objects()
        assert frozen >= before > 1000, (frozen, before)
        assert len(gc.get_objects(generation=2)) < before // 10  # a full pass walks few
        a, b = Node(), Node()
        a.other, b.other = b, a  # a cycle created after startup
        probe = weakref.ref(a)
        del a, b
        gc.collect()
        assert probe() is None  # still collected: only what existed at freezing is exempt
        print("ok", frozen)
        """
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("ok ")
    assert gc.get_freeze_count() == 0  # this process untouched
