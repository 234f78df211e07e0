#!/usr/bin/python3
"""One long-running native RDKit oracle for a test process (test/helpers/oracle.ts starts it once and sends it
every request), instead of a fresh /usr/bin/python3 per comparison.

Run with the Debian RDKit Python:  /usr/bin/python3 scripts/oracle-server.py

Each input line is one JSON request; each is answered, in order, by one JSON line:
  {"id": ..., "kind": "script", "name": "oracle-canonical.py", "args": [...], "input": "..."}
      runs scripts/<name> (one of this folder's oracle scripts) as `python3 scripts/<name> args... < input` would
  {"id": ..., "kind": "file", "path": "/usr/share/RDKit/Contrib/mmpa/rfrag.py", "args": [...], "input": "..."}
      the same for a script elsewhere (RDKit's Contrib scripts), by absolute path
  {"id": ..., "kind": "program", "code": "...", "args": [...], "input": "..."}
      the same for a program given as text, as `python3 -c code args... < input` would
  -> {"id": ..., "status": exit code (null when killed by a signal), "signal": signal number or null,
      "stdout": "...", "stderr": "..."}

Each request runs in a child forked from this process after RDKit's modules are imported once, with the request's
input on its fd 0 and its fds 1 and 2 written to files, so a request sees what a fresh interpreter would (its own
sys.argv, stdin, stdout and stderr, RDKit's C++ messages included, and no global setting left by an earlier request,
e.g. Chem.SetUseLegacyStereoPerception) without paying for the interpreter's start and RDKit's imports each time.
Requests are answered one at a time. The server exits at the end of its input, or when its parent dies.
"""
import json
import os
import runpy
import signal
import sys
import tempfile
import traceback

SCRIPTS = os.path.dirname(os.path.abspath(__file__))

# Imported once here, so each forked request finds them loaded.
import rdkit  # noqa: E402,F401
from rdkit import Chem, DataStructs, RDLogger  # noqa: E402,F401
from rdkit.Chem import AllChem, Crippen, Descriptors, Lipinski, QED, rdFMCS, rdMolDescriptors  # noqa: E402,F401
from rdkit.Chem import BRICS, FilterCatalog  # noqa: E402,F401
from rdkit.Chem.MolStandardize import rdMolStandardize  # noqa: E402,F401
from rdkit.Chem.Scaffolds import MurckoScaffold  # noqa: E402,F401


def die_with_parent():
    """Linux: this process gets SIGKILL when the process that started it dies (a killed test runner leaves no oracle)."""
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except Exception:  # noqa: BLE001 - not Linux: the end of stdin still ends the server
        pass


def target(request):
    """(sys.argv[0], path to run or None, code to run or None) of a request."""
    kind = request.get("kind")
    if kind == "script":
        name = request["name"]
        if "/" in name or not name.endswith(".py"):
            raise ValueError(f"not a script of scripts/: {name!r}")
        path = os.path.join(SCRIPTS, name)
        return path, path, None
    if kind == "file":
        path = request["path"]
        if not os.path.isabs(path):
            raise ValueError(f"not an absolute path: {path!r}")
        return path, path, None
    if kind == "program":
        return "-c", None, request["code"]
    raise ValueError(f"unknown kind {kind!r}")


def run_child(argv0, path, code, args):
    """In the forked child: run the script or program as the interpreter would, and return its exit code."""
    sys.argv = [argv0, *args]
    sys.path[0] = os.path.dirname(path) if path else ""
    sys.stdin = open(0, "r", encoding="utf-8", closefd=False)
    sys.stdout = open(1, "w", encoding="utf-8", closefd=False)
    sys.stderr = open(2, "w", encoding="utf-8", closefd=False)
    status = 0
    try:
        if path is not None:
            runpy.run_path(path, run_name="__main__")
        else:
            exec(compile(code, "<string>", "exec"), {"__name__": "__main__", "__builtins__": __builtins__})
    except SystemExit as e:
        if e.code is None:
            status = 0
        elif isinstance(e.code, int):
            status = e.code
        else:
            print(e.code, file=sys.stderr)
            status = 1
    except BaseException:  # noqa: BLE001 - reported as the interpreter reports an uncaught exception
        traceback.print_exc()
        status = 1
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:  # noqa: BLE001
            pass
    return status


def answer(request):
    argv0, path, code = target(request)
    args = [str(a) for a in request.get("args", [])]
    with tempfile.TemporaryFile() as stdin, tempfile.TemporaryFile() as stdout, tempfile.TemporaryFile() as stderr:
        stdin.write(request.get("input", "").encode("utf-8"))
        stdin.seek(0)
        pid = os.fork()
        if pid == 0:
            status = 1
            try:
                die_with_parent()
                os.dup2(stdin.fileno(), 0)
                os.dup2(stdout.fileno(), 1)
                os.dup2(stderr.fileno(), 2)
                status = run_child(argv0, path, code, args)
            finally:
                os._exit(status)
        _, wait_status = os.waitpid(pid, 0)
        exit_code = os.waitstatus_to_exitcode(wait_status)
        stdout.seek(0)
        stderr.seek(0)
        return {
            "status": exit_code if exit_code >= 0 else None,
            "signal": -exit_code if exit_code < 0 else None,
            "stdout": stdout.read().decode("utf-8", errors="replace"),
            "stderr": stderr.read().decode("utf-8", errors="replace"),
        }


def main():
    die_with_parent()
    out = sys.stdout.buffer
    for line in sys.stdin.buffer:
        if not line.strip():
            continue
        request = {}
        try:
            request = json.loads(line)
            reply = answer(request)
        except Exception:  # noqa: BLE001 - a malformed request is answered, not fatal
            reply = {"status": 2, "signal": None, "stdout": "", "stderr": "oracle-server: " + traceback.format_exc()}
        reply["id"] = request.get("id") if isinstance(request, dict) else None
        out.write(json.dumps(reply).encode("ascii") + b"\n")
        out.flush()


if __name__ == "__main__":
    main()
