#!/usr/bin/env python3
"""layers — the engine's layers, measured from the code (issue 29 §1).

Reads the include graph of src/ (every #include "dir/file.h" of src/*/*.[ch])
and the call graph of its objects (nm of BUILD/src/*/*.o: which object uses a
function another object defines), and prints one "ok"/"not ok" line per rule:

  1. no file of policy/ or core/ includes engine/'s header, even through
     other headers (the façade stands above them); no driver includes the
     engine's inside (core/sched_int.h, policy/limits_int.h);
  2. no object of core/ calls into policy/ or engine/, none of policy/ into
     engine/ (calls go down: engine -> policy -> core);
  3. no circle of objects (a strongly connected part of the call graph)
     crosses a folder, anywhere in src/;
  4. no circle within any folder of src/ holds more than six objects;
  5. the folders' order (FOLDERS, as docs/architecture.md writes it): no
     object calls a function of a folder above its own, none of a folder
     of the same level;
  6. no file includes a header of a folder above its own or of the same
     level, except the named ALLOWED includes (each with its reason);
  7. every folder of src/ has its place in FOLDERS.

Every circle is listed as a comment.
Usage: layers.py [SRC [BUILD]]   (defaults: src, build). Exit 1 on a "not ok".
"""
import collections
import glob
import os
import re
import subprocess
import sys

ENGINE = ("core", "policy", "engine")
MAXCIRCLE = 6

# The folders of src/, lowest first; a folder may call and include those of
# lower levels only (docs/architecture.md, "Layers point one way").
FOLDERS = [
    ("util",),
    ("cfg",),
    ("core",),
    ("policy",),
    ("engine",),
    ("store", "wire", "rm"),
    ("trace", "stats", "cmd"),
    ("validate", "web", "sim"),
    ("daemon",),
    ("cli",),
]
LEVEL = {f: i for i, fs in enumerate(FOLDERS) for f in fs}

# Includes up that are known and allowed, each with its reason:
# {(file, header): "why"}. Keep it empty: an entry here is a debt, not a
# rule, and one that no longer holds fails ("allowed but gone").
ALLOWED = {}


def includes(src):
    """file -> the src-relative headers it includes."""
    graph = {}
    for path in glob.glob(os.path.join(src, "*", "*.[ch]")):
        rel = os.path.relpath(path, src)
        with open(path, encoding="utf-8", errors="replace") as f:
            graph[rel] = set(re.findall(r'^\s*#\s*include\s+"([^"]+)"', f.read(), re.M))
    return graph


def closure(graph, start):
    seen, todo = set(), [start]
    while todo:
        for h in graph.get(todo.pop(), ()):
            if h not in seen:
                seen.add(h)
                todo.append(h)
    return seen


def calls(src, build):
    """object (dir/name) -> {object it calls: the symbols}. Objects whose
    source is gone (a file moved since the last build) are left out."""
    defs, uses = {}, collections.defaultdict(set)
    for obj in sorted(glob.glob(os.path.join(build, "src", "*", "*.o"))):
        name = os.path.relpath(obj, os.path.join(build, "src"))[:-2]
        if not os.path.exists(os.path.join(src, name + ".c")):
            continue
        out = subprocess.run(["nm", obj], capture_output=True, text=True, check=True).stdout
        for line in out.splitlines():
            p = line.split()
            if len(p) == 3 and p[1] in "TDBR":
                defs[p[2]] = name
            elif len(p) == 2 and p[0] == "U":
                uses[name].add(p[1])
    edges = collections.defaultdict(dict)
    for name, syms in uses.items():
        for sym in syms:
            to = defs.get(sym)
            if to and to != name:
                edges[name].setdefault(to, set()).add(sym)
    return defs, edges


def circles(edges):
    """The strongly connected parts of more than one object (Tarjan, iterative)."""
    nodes = sorted(set(edges) | {t for e in edges.values() for t in e})
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = 0
    for root in nodes:
        if root in index:
            continue
        work = [(root, iter(sorted(edges.get(root, {}))))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(edges.get(w, {})))))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                part = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    part.append(w)
                    if w == v:
                        break
                if len(part) > 1:
                    out.append(sorted(part))
    return out


def folder(name):
    return name.split("/", 1)[0]


def upward(a, b):
    """Whether folder a may not use folder b: b above a or beside it."""
    fa, fb = folder(a), folder(b)
    return fa != fb and fa in LEVEL and fb in LEVEL and LEVEL[fb] >= LEVEL[fa]


def order_calls(edges):
    bad = [f"{a} calls {b}: {', '.join(sorted(s))}" for a in sorted(edges)
           for b, s in sorted(edges[a].items()) if upward(a, b)]
    return not bad, "calls follow the folders' order (none up, none sideways)", bad


def order_includes(inc):
    bad, allowed = [], []
    for f in sorted(inc):
        for h in sorted(inc[f]):
            if "/" not in h or not upward(f, h):
                continue
            if (f, h) in ALLOWED:
                allowed.append(f"allowed: {f} includes {h} ({ALLOWED[(f, h)]})")
            else:
                bad.append(f"{f} includes {h}")
    stale = [f"allowed but gone: {f} includes {h}" for f, h in sorted(ALLOWED)
             if h not in inc.get(f, ())]
    return (not bad and not stale, "includes follow the folders' order (none up, none sideways)",
            bad + stale + allowed)


def main():
    src = sys.argv[1] if len(sys.argv) > 1 else "src"
    build = sys.argv[2] if len(sys.argv) > 2 else "build"
    n = bad = 0

    def report(good, what, details=()):
        nonlocal n, bad
        n += 1
        bad += not good
        print(("ok" if good else "not ok") + " %d - %s" % (n, what))
        for d in details:
            print("# " + d)

    inc = includes(src)
    up = [f"{f} includes {h}" for f in sorted(inc) if folder(f) in ("core", "policy")
          for h in sorted(closure(inc, f)) if folder(h) == "engine"]
    report(not up, "no core/ or policy/ file includes engine/'s header (directly or not)", up)
    inner = [f"{f} includes {h}" for f in sorted(inc) if folder(f) not in ENGINE
             for h in sorted(inc[f]) if folder(h) in ENGINE and h.endswith("_int.h")]
    report(not inner, "no driver includes the engine's inside (core/, policy/ *_int.h)", inner)

    if not glob.glob(os.path.join(build, "src", "*", "*.o")):
        report(False, f"objects to read the calls from in {build}/src (run make first)")
        return 1
    defs, edges = calls(src, build)
    rank = {"core": 0, "policy": 1, "engine": 2}
    upcalls = [f"{a} calls {b}: {', '.join(sorted(s))}" for a in sorted(edges) for b, s in
               sorted(edges[a].items()) if folder(a) in rank and folder(b) in rank and
               rank[folder(b)] > rank[folder(a)]]
    report(not upcalls, "calls go down: engine -> policy -> core, never up", upcalls)

    parts = circles(edges)
    crossing = [" ".join(p) for p in parts if len({folder(x) for x in p}) > 1]
    report(not crossing, "no circle of calls crosses a folder", crossing)
    big = [f"{len(p)}: {' '.join(p)}" for p in parts if len(p) > MAXCIRCLE]
    report(not big, f"no circle within a folder holds more than {MAXCIRCLE} objects", big)
    report(*order_calls(edges))
    report(*order_includes(inc))
    unplaced = sorted({folder(f) for f in inc} - set(LEVEL))
    report(not unplaced, "every folder of src/ has its place in the folders' order",
           [f"{f} has none" for f in unplaced])
    for p in parts:
        print(f"# circle of {len(p)}: {' '.join(p)}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
