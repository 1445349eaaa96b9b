"""A directed graph question the reference rules ask: is there a cycle?"""

from __future__ import annotations

from typing import Callable, Hashable, Iterable, TypeVar

N = TypeVar("N", bound=Hashable)


def first_cycle(starts: Iterable[N], successors: Callable[[N], Iterable[N]]) -> N | None:
    """A node on a cycle reachable from `starts`, or None (iterative depth-first search)."""
    state: dict[N, int] = {}  # 1: on the current path, 2: done
    for start in starts:
        if state.get(start):
            continue
        state[start] = 1
        stack = [(start, iter(successors(start)))]
        while stack:
            node, it = stack[-1]
            nxt = next(it, None)
            if nxt is None:
                state[node] = 2
                stack.pop()
            elif state.get(nxt) == 1:
                return nxt
            elif not state.get(nxt):
                state[nxt] = 1
                stack.append((nxt, iter(successors(nxt))))
    return None
