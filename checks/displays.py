"""The display ledger: every displayed formula of a paper, what it is, and what decides it.

A paper's markdown text holds its displayed formulas as ``$$ ... $$`` blocks.  A *ledger* (a TOML
file, written by hand; format in docs/coverage.md) gives each display one entry, keyed by

* ``section``  -- the nearest heading above it: its number when the heading starts with one
  (``"B.4"``, ``"3.2"``, ``"A.1"``), otherwise the heading's text (``"ABSTRACT"``);
* ``ordinal``  -- its position among the displays of that section (1, 2, ...);
* ``fingerprint`` -- a short hash of its normalised text (:func:`fingerprint`): a re-conversion
  that only reflows whitespace or LaTeX spacing keeps it; a changed formula changes it,

and a class (:data:`CLASSES`).  A ``step`` / ``estimate`` / ``statement`` is either *decided*
(``claims`` name the claims that decide it; a step or estimate also names the ``derivation`` --
the derivation or named check inside those claims -- that decides it) or *unchecked* with a
``reason``.  The engine knows nothing about any particular paper: a claim library registers its
ledger with :func:`register_ledger`, a user passes ``--ledger FILE``.

Which names a claim decides (:func:`decided_names`): the names of its derivations
(``Claim.derivations()``), the names in an optional ``checks`` attribute of the claim (a tuple
or dict of named numeric checks), and names declared with :func:`declare_checks`.
"""
from __future__ import annotations

import hashlib
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

__all__ = [
    "CHECKABLE",
    "CLASSES",
    "LEDGERS",
    "NEEDS",
    "STATUSES",
    "Display",
    "Entry",
    "Ledger",
    "LedgerError",
    "check_names",
    "decided_names",
    "declare_checks",
    "extract_displays",
    "fingerprint",
    "ledger_rows",
    "load_ledger",
    "match_displays",
    "normalise",
    "register_ledger",
    "section_key",
    "summary",
    "undecided",
]

#: display classes; the first three can be decided by a claim
CLASSES = ("step", "estimate", "statement", "definition", "imported", "artefact")
CHECKABLE = ("step", "estimate", "statement")
#: what an unchecked display would need: a SymPy derivation, a numeric check on generic
#: configurations, or an argument softmix cannot make (limits, topology, existence, prose)
NEEDS = ("derivation", "numeric", "argument")
STATUSES = ("decided", "unchecked", "n/a")


class LedgerError(ValueError):
    """A ledger is malformed, does not match its paper, or names a claim/derivation that does not exist."""


# ---- extraction ---------------------------------------------------------------------------------
_HEADING = re.compile(r"^#{1,6}[ \t]+(.+?)[ \t#]*$", re.MULTILINE)
_NUMBER = re.compile(r"^(?:[A-Z]|\d+)(?:\.\d+)*(?=\s|$)")
_DISPLAY = re.compile(r"\$\$(.*?)\$\$", re.DOTALL)


def section_key(heading: str) -> str:
    """``"B.5.1"`` for ``"B.5.1 Bayes minimizers"``, ``"3"`` for ``"3 Attention..."``; a heading
    without a leading number is its own key (whitespace collapsed)."""
    h = " ".join(heading.split())
    m = _NUMBER.match(h)
    return m.group(0) if m else h


@dataclass(frozen=True)
class Display:
    """One ``$$`` block: its section, ordinal within the section, fingerprint, text and line."""
    section: str
    ordinal: int
    fingerprint: str
    text: str
    line: int

    @property
    def key(self) -> tuple:
        return (self.section, self.ordinal)

    def label(self) -> str:
        return f"display {self.section} #{self.ordinal} (line {self.line})"


def extract_displays(text: str) -> list[Display]:
    """Every ``$$ ... $$`` block of a markdown ``text``, in order, with its section (the nearest
    heading above it, :func:`section_key`; ``""`` before the first heading), its ordinal within
    that section and its :func:`fingerprint`."""
    heads = [(m.start(), section_key(m.group(1))) for m in _HEADING.finditer(text)]
    out: list = []
    counts: dict = {}
    hi, section = 0, ""
    for m in _DISPLAY.finditer(text):
        while hi < len(heads) and heads[hi][0] < m.start():
            section = heads[hi][1]
            hi += 1
        counts[section] = counts.get(section, 0) + 1
        body = m.group(1).strip()
        out.append(Display(section, counts[section], fingerprint(body), body, text.count("\n", 0, m.start()) + 1))
    return out


_ENV = re.compile(r"\\(begin|end)\s*\{\s*(array|aligned|align\*?|gathered|split|eqnarray\*?)\s*\}")
_COLSPEC = re.compile(r"\s*\{[\sA-Za-z|@.]*\}")
_TOKEN = re.compile(r"\\[A-Za-z]+|\\.|\S")
_TRIVIAL = {r"\,", r"\;", r"\:", r"\!", "\\ ", r"\quad", r"\qquad", "~", "&", r"\\", r"\left", r"\right",
            r"\displaystyle", r"\textstyle", r"\scriptstyle", r"\nonumber", r"\notag",
            r"\middle", r"\mathstrut", r"\strut"}
_SIZES = re.compile(r"^\\[bB]igg?[lrm]?$")


def normalise(tex: str) -> str:
    """The display's text with layout removed: whitespace, LaTeX spacing (``\\,``, ``\\quad``, ...),
    sizing (``\\left``, ``\\bigl``, ...), alignment (``&``, ``\\\\``, array/aligned wrappers) and
    trailing punctuation.  Everything else (symbols, braces, commands, tags) is kept."""
    pieces, pos = [], 0
    for m in _ENV.finditer(tex):  # drop environment wrappers (and an array's column spec)
        pieces.append(tex[pos:m.start()])
        pos = m.end()
        if m.group(1) == "begin":
            spec = _COLSPEC.match(tex, pos) if m.group(2) == "array" else None
            if spec:
                pos = spec.end()
    pieces.append(tex[pos:])
    toks = [t for t in _TOKEN.findall("".join(pieces)) if t not in _TRIVIAL and not _SIZES.match(t)]
    out: list[str] = []
    for t in toks:
        if out and re.match(r"\\[A-Za-z]+$", out[-1]) and t[:1].isalpha():
            out.append(" ")  # keep \alpha x distinct from \alphax
        out.append(t)
    s = "".join(out)
    s = re.sub(r"[.,;]+(?=(\\tag\{[^{}]*\})?$)", "", s)  # trailing punctuation, before a tag too
    return s


def fingerprint(tex: str) -> str:
    """A 10-hex-digit hash of :func:`normalise` ``(tex)``."""
    return hashlib.sha1(normalise(tex).encode()).hexdigest()[:10]


# ---- the ledger file ----------------------------------------------------------------------------
@dataclass(frozen=True)
class Entry:
    """One ledger entry (see docs/coverage.md for the fields)."""
    section: str
    ordinal: int
    fingerprint: str
    cls: str
    claims: tuple = ()
    derivation: tuple = ()
    reason: str = ""
    needs: str = ""
    reads: str = ""
    note: str = ""

    @property
    def key(self) -> tuple:
        return (self.section, self.ordinal)

    @property
    def status(self) -> str:
        if self.claims:
            return "decided"
        return "unchecked" if self.cls in CHECKABLE else "n/a"  # an artefact with claims is decided

    def label(self) -> str:
        return f"display {self.section} #{self.ordinal}"


@dataclass
class Ledger:
    """A parsed ledger: the paper it indexes (absolute path), its entries, where it came from."""
    path: Path
    paper: Path
    entries: list = field(default_factory=list)
    source: str = ""


_FIELDS = {"section", "ordinal", "fingerprint", "class", "claims", "derivation", "reason", "needs", "reads",
           "note", "excerpt"}


def _str_list(v, what):
    if isinstance(v, str):
        v = [v]
    if not isinstance(v, list) or any(not isinstance(x, str) or not x.strip() for x in v):
        raise LedgerError(f"{what}: must be a string or a list of non-empty strings")
    return tuple(v)


def _entry(i: int, d: dict) -> Entry:
    where = f"entry {i + 1}"
    if not isinstance(d, dict):
        raise LedgerError(f"{where}: must be a table")
    unknown = sorted(set(d) - _FIELDS)
    if unknown:
        raise LedgerError(f"{where}: unknown field(s) {', '.join(unknown)}")
    for k, typ in (("section", str), ("ordinal", int), ("fingerprint", str), ("class", str)):
        if not isinstance(d.get(k), typ) or isinstance(d.get(k), bool):
            raise LedgerError(f"{where}: field {k!r} missing or not a {typ.__name__}")
    where = f"display {d['section']} #{d['ordinal']}"
    cls = d["class"]
    if cls not in CLASSES:
        raise LedgerError(f"{where}: class must be one of {', '.join(CLASSES)}, got {cls!r}")
    claims = _str_list(d.get("claims", []), f"{where}: claims")
    deriv = _str_list(d.get("derivation", []), f"{where}: derivation")
    reason, needs = d.get("reason", ""), d.get("needs", "")
    if not all(isinstance(d.get(k, ""), str) for k in ("reason", "needs", "reads", "note", "excerpt")):
        raise LedgerError(f"{where}: reason, needs, reads, note and excerpt are strings")
    if deriv and not claims:
        raise LedgerError(f"{where}: a derivation is named without the claim(s) that hold it")
    if claims and cls not in CHECKABLE + ("artefact",):
        raise LedgerError(f"{where}: a {cls} display is not decided by a claim (class step, estimate, statement or "
                          "artefact)")
    if cls in ("step", "estimate") and claims and not deriv:
        raise LedgerError(f"{where}: a decided {cls} names the derivation or check that decides it")
    if cls in CHECKABLE and not claims:
        if not reason.strip():
            raise LedgerError(f"{where}: an unchecked {cls} gives a reason")
        if needs not in NEEDS:
            raise LedgerError(f"{where}: an unchecked {cls} says what it needs: one of {', '.join(NEEDS)}")
    if cls == "artefact" and not d.get("reads", "").strip():
        raise LedgerError(f"{where}: an artefact says what the display should read ('reads')")
    return Entry(d["section"], d["ordinal"], d["fingerprint"], cls, claims, deriv, reason, needs if not claims else "",
                 d.get("reads", ""), d.get("note", ""))


def load_ledger(path) -> Ledger:
    """Parse and validate a ledger file: top-level ``paper`` (the markdown file it indexes, relative
    to the ledger) and ``[[display]]`` tables.  Raises :class:`LedgerError` (one line)."""
    path = Path(path)
    try:
        doc = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise LedgerError(f"ledger file not found: {path}") from None
    except (OSError, UnicodeDecodeError) as e:
        raise LedgerError(f"ledger {path}: cannot be read ({e})") from None
    except tomllib.TOMLDecodeError as e:
        raise LedgerError(f"ledger {path}: not valid TOML ({e})") from None
    if not isinstance(doc.get("paper"), str) or not doc["paper"]:
        raise LedgerError(f"ledger {path}: a top-level 'paper' names the markdown file it indexes")
    paper = (path.parent / doc["paper"]).resolve()
    if not paper.is_file():
        raise LedgerError(f"ledger {path}: paper file not found: {paper}")
    rows = doc.get("display", [])
    if not isinstance(rows, list):
        raise LedgerError(f"ledger {path}: 'display' must be an array of tables ([[display]])")
    try:
        entries = [_entry(i, d) for i, d in enumerate(rows)]
    except LedgerError as e:
        raise LedgerError(f"ledger {path.name}: {e}") from None
    return Ledger(path.resolve(), paper, entries, str(doc.get("source", "")))


def match_displays(ledger: Ledger, displays: list[Display] | None = None) -> list[tuple[Display, Entry]]:
    """Pair every display of the ledger's paper with its one entry (same section, ordinal and
    fingerprint).  Raises :class:`LedgerError` naming the first display without an entry, an entry
    twice, an entry with no display, or a fingerprint mismatch (moved or re-converted display)."""
    if displays is None:
        displays = extract_displays(ledger.paper.read_text(encoding="utf-8"))
    by_key, problems = {}, []
    for e in ledger.entries:
        if e.key in by_key:
            problems.append(f"{e.label()} has two entries")
        by_key[e.key] = e
    where = {d.fingerprint: d for d in displays}
    pairs = []
    for d in displays:
        e = by_key.pop(d.key, None)
        if e is None:
            problems.append(f"{d.label()} has no entry (fingerprint {d.fingerprint})")
        elif e.fingerprint != d.fingerprint:
            moved = where.get(e.fingerprint)
            hint = (f"the entry's display is now {moved.section} #{moved.ordinal}" if moved
                    else "moved or re-converted: re-read it and update the entry")
            problems.append(f"{d.label()}: fingerprint {d.fingerprint} in the paper, {e.fingerprint} in the "
                            f"ledger ({hint})")
        else:
            pairs.append((d, e))
    problems += [f"{e.label()} is in the ledger but not in the paper" for e in by_key.values()]
    if problems:
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        raise LedgerError(f"ledger {ledger.path.name} does not match {ledger.paper.name}: {problems[0]}{more}")
    return pairs


# ---- registration and names ---------------------------------------------------------------------
#: ledgers registered by claim libraries (absolute paths), in registration order
LEDGERS: list[Path] = []
#: claim id -> names of checks declared with :func:`declare_checks`
_DECLARED: dict[str, set] = {}


def register_ledger(path) -> Path:
    """Register a claim library's ledger file (``softmix coverage --displays`` without ``--ledger``
    reads the registered ones).  Registering the same file twice is a no-op."""
    p = Path(path).resolve()
    if p not in LEDGERS:
        LEDGERS.append(p)
    return p


def declare_checks(claim_id: str, *names: str) -> None:
    """Declare names of numeric (or other non-derivation) checks made inside claim ``claim_id``,
    so that a ledger entry may name them as its ``derivation``.  Prefer a ``checks`` attribute on
    the claim itself when the claim is written with that in mind."""
    if any(not isinstance(n, str) or not n.strip() for n in names):
        raise LedgerError(f"claim {claim_id}: check names are non-empty strings")
    _DECLARED.setdefault(claim_id, set()).update(names)


def _declared_names(claim) -> set:
    names = set(_DECLARED.get(claim.id, ()))
    names.update(getattr(claim, "checks", None) or ())
    return names


def decided_names(claim) -> set:
    """The derivation and check names a claim decides: the names of the derivations ``softmix show`` prints,
    the names in an optional ``claim.checks`` (tuple or dict), and names declared with :func:`declare_checks`."""
    names = _declared_names(claim)
    if getattr(claim, "derivations", None) is not None:
        shown = claim.shown_derivations() if hasattr(claim, "shown_derivations") else claim.derivations()
        names.update(d.name for d in shown)
    return names


def check_names(entries, registry: dict) -> None:
    """Raise :class:`LedgerError` naming the first claim id that is not in ``registry`` or the first
    derivation that none of its entry's claims decides.  A claim's ``derivations()`` are built only
    when a name is not among its declared checks, and at most once."""
    built: dict = {}

    def has(cid, name, where):
        c = registry[cid]
        if name in _declared_names(c):
            return True
        if cid not in built:
            try:
                built[cid] = decided_names(c)
            except Exception as ex:  # noqa: BLE001 -- a claim whose derivations cannot be built
                raise LedgerError(f"{where}: claim {cid}: derivations failed to build "
                                  f"({type(ex).__name__}: {ex})") from None
        return name in built[cid]

    for e in entries:
        for c in e.claims:
            if c not in registry:
                raise LedgerError(f"{e.label()}: unknown claim id {c!r}")
        for name in e.derivation:
            if not any(has(c, name, e.label()) for c in e.claims):
                raise LedgerError(f"{e.label()}: no derivation or check named {name!r} in claim(s) "
                                  f"{', '.join(e.claims)}")


# ---- rows, counts, what is left -----------------------------------------------------------------
def ledger_rows(pairs) -> list[dict]:
    """One JSON row per display: ``{"section", "ordinal", "fingerprint", "class", "status", "claims",
    "derivation", "reason", "needs", "reads", "line"}`` (``derivation`` is a list of names)."""
    return [{"section": d.section, "ordinal": d.ordinal, "fingerprint": d.fingerprint, "class": e.cls,
             "status": e.status, "claims": list(e.claims), "derivation": list(e.derivation), "reason": e.reason,
             "needs": e.needs, "reads": e.reads, "line": d.line} for d, e in pairs]


def summary(rows: list[dict]) -> dict:
    """Counts per class, per status, and per (class, status); ``checkable_decided`` is the share of
    step and estimate displays that are decided."""
    out: dict = {"total": len(rows), "class": {c: 0 for c in CLASSES}, "status": {s: 0 for s in STATUSES},
           "class_status": {}}
    for r in rows:
        out["class"][r["class"]] += 1
        out["status"][r["status"]] += 1
        k = f"{r['class']}/{r['status']}"
        out["class_status"][k] = out["class_status"].get(k, 0) + 1
    se = [r for r in rows if r["class"] in ("step", "estimate")]
    out["step_estimate_decided"] = sum(r["status"] == "decided" for r in se)
    out["step_estimate_total"] = len(se)
    return out


def undecided(rows: list[dict], classes=("step", "estimate"), needs=("derivation", "numeric")) -> list[dict]:
    """The unchecked displays of ``classes`` that softmix could decide (``needs`` a derivation or a
    numeric check), in priority order: derivations first, then numeric checks, each in paper order
    (the rows' order)."""
    rank = {n: i for i, n in enumerate(needs)}
    todo = [(rank[r["needs"]], i, r) for i, r in enumerate(rows)
            if r["class"] in classes and r["status"] == "unchecked" and r["needs"] in rank]
    return [r for _, _, r in sorted(todo, key=lambda t: t[:2])]
