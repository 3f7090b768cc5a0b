"""Text as the detectors see it: obfuscation undone before any signal looks at it.

Only the *analysis* copy is folded; the stored text is never changed. Steps: NFKC (fullwidth and
mathematical letters become ASCII), invisible characters removed (zero-width, joiners, soft
hyphen, BOM, variation selectors, tag characters, bidi controls), accents stripped, Latin
look-alikes from Cyrillic, Greek and other scripts folded to the Latin letter they imitate
(Unicode TR39 confusables, restricted to letters that imitate Latin: the detectors read
English), digits used as letters inside words folded (``1gn0re``), letter-spaced words joined
(``i g n o r e``), and case folded.
"""

from __future__ import annotations

import re
import unicodedata

# Invisible or formatting characters attackers put inside words to split tokens.
_INVISIBLE = re.compile(
    "[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e"
    "\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\U000e0000-\U000e007f\U000e0100-\U000e01ef]"
)

# Letters of other scripts that render like Latin letters (subset of Unicode's confusables.txt).
_CONFUSABLES = {
    # Cyrillic
    "а": "a", "в": "b", "с": "c", "ԁ": "d", "е": "e", "ё": "e", "һ": "h", "і": "i", "ї": "i", "ј": "j",
    "к": "k", "ӏ": "l", "м": "m", "н": "h", "о": "o", "р": "p", "ԛ": "q", "г": "r", "ѕ": "s", "т": "t",
    "ц": "u", "ѵ": "v", "ԝ": "w", "х": "x", "у": "y", "ү": "y", "з": "3", "ь": "b", "п": "n", "л": "n",
    "А": "a", "В": "b", "С": "c", "Е": "e", "Н": "h", "І": "i", "Ј": "j", "К": "k", "М": "m", "О": "o",
    "Р": "p", "Ѕ": "s", "Т": "t", "Х": "x", "У": "y", "Ү": "y", "Ԁ": "d", "Ԍ": "g", "Ԛ": "q", "Ԝ": "w",
    # Greek
    "α": "a", "β": "b", "ε": "e", "η": "n", "ι": "i", "κ": "k", "ν": "v", "ο": "o", "ρ": "p", "τ": "t",
    "υ": "u", "χ": "x", "γ": "y", "ω": "w", "ϲ": "c", "ϳ": "j",
    "Α": "a", "Β": "b", "Ε": "e", "Ζ": "z", "Η": "h", "Ι": "i", "Κ": "k", "Μ": "m", "Ν": "n", "Ο": "o",
    "Ρ": "p", "Τ": "t", "Υ": "y", "Χ": "x",
    # Armenian, Latin extensions and symbols that pass for letters
    "օ": "o", "ս": "u", "ց": "g", "ո": "n", "հ": "h", "ɑ": "a", "ɡ": "g", "ı": "i", "ȷ": "j", "ʏ": "y",
    "ǀ": "l", "ł": "l", "ø": "o", "đ": "d", "ħ": "h", "ß": "ss", "æ": "ae", "œ": "oe",
}
_CONFUSABLE_TABLE = str.maketrans(_CONFUSABLES)

# Digits and symbols standing in for letters, only inside a word that also has letters. A word
# here is a maximal run of ``[\w@$!]``; it is folded when it holds a letter and a look-alike
# digit or symbol, or a "!" before a letter ("h!de"). Each run is tested once, never each of its
# suffixes, so the pass stays linear on long runs without spaces (CJK, hex ids, base64 blobs).
_LEET = str.maketrans({"0": "o", "1": "i", "3": "e", "4": "a", "5": "s", "7": "t", "@": "a", "$": "s", "!": "i"})
_LEET_RUN = re.compile(r"[\w@$!]+")
_LEET_LETTER = re.compile(r"[a-z]")
_LEET_DIGIT = re.compile(r"[0-9@$]")
_HAS_LEET = re.compile(r"[a-z][0-9@$!]|[0-9@$!][a-z]")
# Words spelled with separators between single letters: "i g n o r e", "i.g.n.o.r.e", "i-g-n-o-r-e":
# at least four letters, each separator one of ``[ ._\-*]``, on word boundaries. Found as chains
# of single letters and separators (one linear scan), then cut to their word-bounded part. Only
# chains of at least four letters are matched: a shorter one could never be joined, and as a
# match of its own every letter of every ordinary word was one (a Python loop step per letter).
# A chain is maximal from where it starts, so one starting inside a shorter chain is shorter
# still: the long chains found are the same.
_SPACED_MIN_LETTERS = 4
_SPACED_CHAIN = re.compile(rf"[a-z](?:[ ._\-*][a-z]){{{_SPACED_MIN_LETTERS - 1},}}")
_WORD_CHARACTER = re.compile(r"\w")


def fold(text: str) -> str:
    """The analysis form of ``text`` (lower case, plain Latin letters, no invisible characters).

    >>> fold("Ign\\u200bore  ALL prev\\u0456ous instructi0ns")
    'ignore all previous instructions'
    """
    text = unicodedata.normalize("NFKC", text)
    text = _INVISIBLE.sub("", text)
    text = text.translate(_CONFUSABLE_TABLE)
    # Accents and other combining marks carry nothing the detectors need.
    if not text.isascii():
        text = "".join(ch for ch in unicodedata.normalize("NFKD", text) if not unicodedata.combining(ch))
    text = text.casefold()
    if _HAS_LEET.search(text):
        text = _LEET_RUN.sub(_unleet_run, text)
    text = _join_spaced(text)
    return " ".join(text.split())


def readable(text: str) -> str:
    """NFKC without invisible characters, case and script kept (names and identifiers need it)."""
    return _INVISIBLE.sub("", unicodedata.normalize("NFKC", text))


def _unleet_run(match: re.Match[str]) -> str:
    word = match.group(0)
    letter = _LEET_LETTER.search(word)
    if letter is None:
        return word
    if _LEET_DIGIT.search(word) is None:
        # Only "!" can stand for a letter here, and only before one.
        mark = word.find("!")
        if mark < 0 or _LEET_LETTER.search(word, mark + 1) is None:
            return word
    return _unleet(word)


def _join_spaced(text: str) -> str:
    """``"i g n o r e"`` → ``"ignore"``, for runs of single letters on word boundaries."""
    pieces: list[str] = []
    done = 0
    for chain in _SPACED_CHAIN.finditer(text):
        start, end = chain.span()
        letters = (end - start + 1) // 2
        if letters < _SPACED_MIN_LETTERS:
            continue
        # A letter starts a word when nothing word-like precedes it (an "_" separator is a word
        # character), and ends one when nothing word-like follows it.
        first = next(
            (k for k in range(letters - _SPACED_MIN_LETTERS + 1)
             if (text[start + 2 * k - 1] != "_" if k else start == 0 or not _WORD_CHARACTER.match(text, start - 1))),
            None,
        )
        if first is None:
            continue
        last = next(
            (k for k in range(letters - 1, first + _SPACED_MIN_LETTERS - 2, -1)
             if (text[start + 2 * k + 1] != "_" if k < letters - 1 else end == len(text) or not _WORD_CHARACTER.match(text, end))),
            None,
        )
        if last is None:
            continue
        span_start, span_end = start + 2 * first, start + 2 * last + 1
        pieces += [text[done:span_start], text[span_start:span_end:2]]
        done = span_end
    if not pieces:
        return text
    pieces.append(text[done:])
    return "".join(pieces)


def _unleet(word: str) -> str:
    # A number is a number ("2023", "4pm" stays readable); only words mixing letters with
    # look-alike digits are folded.
    letters = sum(ch.isalpha() for ch in word)
    if letters < 2 or word[:1].isdigit() and word.rstrip("apmsthndrd").isdigit():
        return word
    return word.translate(_LEET)
