"""Directed graph questions the reference rules ask: is there a cycle, which edges lie on one?"""

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


class Components:
    """The strongly connected components of a graph, found as they are asked for
    (iterative Tarjan: every node and edge is walked once, however many questions): an
    edge a -> b lies on a cycle exactly when a is b or both are in one component."""

    def __init__(self, successors: Callable[[N], Iterable[N]]):
        self.successors = successors
        self._index: dict = {}
        self._low: dict = {}
        self.number: dict = {}  # node -> its component

    def of(self, node: N) -> int:
        if node not in self.number:
            self._visit(node)
        return self.number[node]

    def on_cycle(self, a: N, b: N) -> bool:
        """Whether the edge a -> b lies on a cycle."""
        return a == b or self.of(a) == self.of(b)

    def _visit(self, start: N) -> None:
        index, low, comp = self._index, self._low, self.number
        path: list = []
        on_path: set = set()
        index[start] = low[start] = len(index)
        path.append(start)
        on_path.add(start)
        stack = [(start, iter(self.successors(start)))]
        while stack:
            node, it = stack[-1]
            for nxt in it:
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    path.append(nxt)
                    on_path.add(nxt)
                    stack.append((nxt, iter(self.successors(nxt))))
                    break
                if nxt in on_path and index[nxt] < low[node]:
                    low[node] = index[nxt]
            else:
                stack.pop()
                if stack and low[node] < low[stack[-1][0]]:
                    low[stack[-1][0]] = low[node]
                if low[node] == index[node]:
                    number = len(comp)
                    while True:
                        member = path.pop()
                        on_path.discard(member)
                        comp[member] = number
                        if member == node:
                            break
