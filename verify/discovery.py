"""Finding claims: the ``theorems`` package, and user files or modules named on the command line."""

from __future__ import annotations

import contextlib
import importlib
import importlib.util
import pkgutil
import sys
import traceback
from pathlib import Path

from .claims import REGISTRY, Registry
from .errors import UsageError

_loaded_sources: list[str] = []


def loaded_sources() -> list[str]:
    """Every source loaded so far, in order (sent to worker processes that start fresh)."""
    return list(_loaded_sources)


def _describe_import_error(where: str, exc: BaseException) -> str:
    if isinstance(exc, SyntaxError):
        return f"{exc.filename or where}:{exc.lineno}: syntax error: {exc.msg}"
    if isinstance(exc, UsageError):
        return f"{where}: {exc}"
    tb = traceback.extract_tb(exc.__traceback__)
    frame = next((f for f in reversed(tb) if "importlib" not in f.filename), None)
    at = f"{frame.filename}:{frame.lineno}" if frame else where
    return f"{at}: {type(exc).__name__} while loading {where}: {exc}"


def load_package(name: str = "theorems", registry: Registry = REGISTRY) -> None:
    """Import every module of a package, registering the claims they declare."""
    try:
        pkg = importlib.import_module(name)
    except Exception as exc:  # a broken paper module must name itself
        raise UsageError(_describe_import_error(name, exc)) from exc
    if name not in _loaded_sources:
        _loaded_sources.append(name)
    for info in pkgutil.walk_packages(getattr(pkg, "__path__", []), prefix=name + "."):
        if info.name in sys.modules:
            continue
        try:
            registry.current_source = info.name
            importlib.import_module(info.name)
        except Exception as exc:
            raise UsageError(_describe_import_error(info.name, exc)) from exc
        finally:
            registry.current_source = ""


def load_file(path: str | Path, registry: Registry = REGISTRY) -> list[str]:
    """Import a user claim file; returns the ids it registered."""
    p = Path(path).resolve()
    if not p.exists():
        raise UsageError(f"{path}: no such claim file")
    before = set(registry.claims)
    mod_name = "verify_user_" + "_".join(p.with_suffix("").parts[-2:]).replace("-", "_").replace(".", "_")
    if mod_name in sys.modules:
        return sorted(c for c in registry.claims if registry.claims[c].source == str(p))
    spec = importlib.util.spec_from_file_location(mod_name, p)
    if spec is None or spec.loader is None:
        raise UsageError(f"{path}: cannot be imported as a Python file")
    module = importlib.util.module_from_spec(spec)
    sys.modules[mod_name] = module
    registry.current_source = str(p)
    # The file's directory first on sys.path while it loads, as `python FILE` would have it, so that it
    # can import its sibling modules; taken off again so that it shadows nothing afterwards (a sibling
    # imported at load time stays in sys.modules for the checks).
    sys.path.insert(0, str(p.parent))
    try:
        spec.loader.exec_module(module)
    except Exception as exc:
        del sys.modules[mod_name]
        for cid in set(registry.claims) - before:
            del registry.claims[cid]
        raise UsageError(_describe_import_error(str(path), exc)) from exc
    finally:
        registry.current_source = ""
        with contextlib.suppress(ValueError):  # the file may have taken it off itself
            sys.path.remove(str(p.parent))
    if str(p) not in _loaded_sources:
        _loaded_sources.append(str(p))
    return sorted(set(registry.claims) - before)


def load_module(name: str, registry: Registry = REGISTRY) -> list[str]:
    before = set(registry.claims)
    registry.current_source = name
    try:
        importlib.import_module(name)
    except ModuleNotFoundError as exc:
        raise UsageError(f"{name}: no such module or file ({exc})") from exc
    except Exception as exc:
        raise UsageError(_describe_import_error(name, exc)) from exc
    finally:
        registry.current_source = ""
    if name not in _loaded_sources:
        _loaded_sources.append(name)
    return sorted(set(registry.claims) - before)


def load_sources(sources: list[str], registry: Registry = REGISTRY) -> None:
    """Load sources by name (package, module or file), as recorded by :func:`loaded_sources`."""
    for s in sources:
        if s == "theorems":
            load_package("theorems", registry)
        elif s.endswith(".py") or "/" in s:
            load_file(s, registry)
        else:
            load_module(s, registry)


def split_selectors(args: list[str], registry: Registry = REGISTRY) -> tuple[list[str], list[str]]:
    """Load the files and modules among ``args``; return (selectors, ids from files).

    An argument ending in ``.py`` or naming an existing file is a claim file; ``module:NAME`` a module.
    """
    selectors: list[str] = []
    from_files: list[str] = []
    for a in args:
        if a.endswith(".py") or Path(a).is_file():
            from_files.extend(load_file(a, registry))
        elif a.startswith("module:"):
            from_files.extend(load_module(a[len("module:"):], registry))
        else:
            selectors.append(a)
    return selectors, from_files
